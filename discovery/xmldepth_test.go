package discovery

import (
	"errors"
	"testing"
)

func TestCheckXMLDepth(t *testing.T) {
	for _, tc := range []struct {
		name string
		in   string
		max  int
		deep bool
	}{
		{"at the limit", "<a><b><c/></b></a>", 2, false},
		{"over the limit", "<a><b><c></c></b></a>", 2, true},
		{"self-closed tags do not nest", "<a><b/><b/><b/></a>", 1, false},
		{"siblings do not add", "<a><b></b><b></b></a>", 2, false},
		{"tags in comments", "<a><!-- <b><c><d> --></a>", 1, false},
		{"tags in cdata", "<a><![CDATA[<b><c><d>]]></a>", 1, false},
		{"prolog and doctype", `<?xml version="1.0"?><!DOCTYPE rss><a></a>`, 1, false},
		{"> inside an attribute", `<a title="x>y"><b/></a>`, 1, false},
		{"/> inside an attribute", `<a title="x/>"><b></b></a>`, 1, true},
		{"unclosed bomb", "<a><a><a><a>", 3, true},
		{"unterminated tag", "<a><b", 1, true},
		{"text with <", "a < b", 0, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := checkXMLDepth([]byte(tc.in), tc.max)
			if got := errors.Is(err, ErrTooDeep); got != tc.deep {
				t.Errorf("checkXMLDepth(%q, %d) = %v, want deep %v", tc.in, tc.max, err, tc.deep)
			}
		})
	}
}
