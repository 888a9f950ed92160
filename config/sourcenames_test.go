package config

import (
	"errors"
	"fmt"
	"strings"
	"testing"
)

// TestSourceNames: source_names are parsed per site and mapped by site
// name; empty, over-long, repeated and shared names are problems naming
// the entry and its line.
func TestSourceNames(t *testing.T) {
	two := func(a, b string) string {
		return "storage: x.db\nsites:\n" +
			"  - name: xinhua\n    start_urls: [\"https://x.example/\"]\n    allowed_domains: [x.example]\n    article_url: x\n    source_names: " + a + "\n" +
			"  - name: people\n    start_urls: [\"https://p.example/\"]\n    allowed_domains: [p.example]\n    article_url: x\n    source_names: " + b + "\n"
	}
	for _, tc := range []struct {
		name, doc string
		want      map[string][]string
		problems  []string
	}{
		{"names of two sites", two("[新华社, 新华网]", "[人民日报]"), map[string][]string{"xinhua": {"新华社", "新华网"}, "people": {"人民日报"}}, nil},
		{"none", site, nil, nil},
		{"empty name", two(`["新华社", " "]`, "[]"), nil, []string{"sites[0].source_names[1] (line 7): must not be empty"}},
		{"listed twice", two("[新华社, 新华社]", "[]"), nil, []string{`sites[0].source_names[1] (line 7): "新华社" is listed twice`}},
		{"claimed by two sites", two("[新华社]", "[人民日报, 新华社]"), nil, []string{`sites[1].source_names[1] (line 12): "新华社" is already a source name of sites[0]`}},
		{"a line, not a name", two("["+strings.Repeat("新", MaxSourceNameRunes+1)+"]", "[]"), nil, []string{"sites[0].source_names[0] (line 7): "}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, err := Parse(strings.NewReader(tc.doc))
			if tc.problems == nil {
				if err != nil {
					t.Fatal(err)
				}
				if got := c.SourceNames(); fmt.Sprint(got) != fmt.Sprint(tc.want) {
					t.Errorf("SourceNames %v, want %v", got, tc.want)
				}
				return
			}
			var ve *ValidationError
			if !errors.As(err, &ve) {
				t.Fatalf("want ValidationError, got %v", err)
			}
			var got []string
			for _, p := range ve.Problems {
				got = append(got, p.String())
			}
			if len(got) != len(tc.problems) {
				t.Fatalf("problems %q, want %q", got, tc.problems)
			}
			for i, w := range tc.problems {
				if !strings.Contains(got[i], w) {
					t.Errorf("problem %q, want %q", got[i], w)
				}
			}
		})
	}
}
