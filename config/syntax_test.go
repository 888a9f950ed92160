package config

import (
	"errors"
	"strings"
	"testing"
)

// TestSyntaxErrorLine: a YAML syntax error is reported on the line where
// it is, not where the enclosing construct began nor one line early.
func TestSyntaxErrorLine(t *testing.T) {
	head := "storage: x.db\nsites:\n  - name: a\n"
	for _, tc := range []struct {
		name, yaml string
		line       int
		msg        string
	}{
		{"unclosed flow sequence", head + "    start_urls: [\"http://a/\"\n    article_url: x\n    delay: 1s\n", 4, "did not find expected ',' or ']'"},
		{"bad indentation", head + "   start_urls: [1]\n    article_url: x\n", 4, "did not find expected '-' indicator"},
		{"unterminated quote", head + "    start_urls: [\"http://a/\"]\n    article_url: \"x\n    delay: 1s\n", 5, "found unexpected end of stream"},
		{"mapping value in a plain scalar", head + "    article_url: a: b\n", 4, "mapping values are not allowed in this context"},
		{"tab indentation", head + "    start_urls: [\"http://a/\"]\n\tdelay: 1s\n", 5, "found character that cannot start any token"},
		{"first line", "storage: [\n", 1, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Parse(strings.NewReader(tc.yaml))
			var ve *ValidationError
			if !errors.As(err, &ve) || len(ve.Problems) != 1 {
				t.Fatalf("Parse = %v, want one problem", err)
			}
			p := ve.Problems[0]
			if p.Line != tc.line || !strings.Contains(p.Msg, tc.msg) {
				t.Errorf("problem %q on line %d, want %q on line %d", p.Msg, p.Line, tc.msg, tc.line)
			}
		})
	}
}
