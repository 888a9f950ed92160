package passages_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/newsdedup/newscrawl/internal/passages"
)

func TestMark(t *testing.T) {
	for _, tc := range []struct {
		name       string
		a, b       string
		wantShared []string
	}{
		{"chinese reprint", "新华社北京11月20日电国务院今天召开常务会议。本报编辑补充一句话。",
			"据报道，新华社北京11月20日电国务院今天召开常务会议。", []string{"新华社北京11月20日电国务院今天召开常务会议。"}},
		{"short common phrase not marked", "记者从有关部门获悉", "另一位记者从现场获悉", nil},
		{"nothing shared", "完全不同的第一篇文章内容", "另外一篇毫无关系的报道文字", nil},
		{"empty", "", "something long enough here", nil},
		{"two passages", "AAAAAAAAAA middle text BBBBBBBBBB", "BBBBBBBBBB other AAAAAAAAAA", []string{"AAAAAAAAAA", "BBBBBBBBBB"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			sa, sb := passages.Mark(tc.a, tc.b)
			if join(sa) != tc.a || join(sb) != tc.b {
				t.Fatalf("segments do not rebuild the texts: %q %q", join(sa), join(sb))
			}
			if got := passages.Shared(tc.a, tc.b); !slices.Equal(got, tc.wantShared) {
				t.Fatalf("Shared = %q, want %q", got, tc.wantShared)
			}
		})
	}
}

func TestCoverage(t *testing.T) {
	a := "新华社北京11月20日电国务院今天召开常务会议"
	if c := passages.Coverage(a, "转载："+a); c != 1 {
		t.Errorf("contained text coverage %v, want 1", c)
	}
	if c := passages.Coverage(a, "毫无关系的另外一篇文章内容文字"); c != 0 {
		t.Errorf("unrelated coverage %v, want 0", c)
	}
}

func join(s []passages.Segment) string {
	var b strings.Builder
	for _, x := range s {
		b.WriteString(x.Text)
	}
	return b.String()
}
