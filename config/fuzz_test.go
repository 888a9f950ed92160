package config

import (
	"errors"
	"math"
	"strings"
	"testing"
)

// FuzzParse: no input makes the parser panic; every rejection is a
// *ValidationError, and an accepted file holds only valid values.
func FuzzParse(f *testing.F) {
	for _, seed := range []string{
		good, site, "", "sites: [a]\n", "- a\n", "fetch: {max_body: 1.5}\n" + site,
		"dedup: {jaccard: .nan}\n" + site, site + "    <<: {delay: 2s}\n", "a: &a [*a]\n",
		"sites:\n  - &s {name: a}\n  - *s\n", site + "    max_depth: 0\n", "user_agent: \"a\\nb\"\n" + site,
		"fetch: {max_body: 10MiB}\n" + site, "? [a]\n: b\n", "---\n---\n", "sites: !!binary aGVsbG8=\n",
		issueShape, site + "    apis: [{url: \"https://a.com/{page}\", url: u, pages: 2}]\n",
		site + "    apis:\n      - &a {url: \"https://a.com/\", url_template: \"https://a.com/{id}\"}\n      - <<: *a\n        url: x\n",
		site + "    apis: [{url: u, url: v, url: w}]\n", site + "    feeds: [\"https://a.com/rss\"]\n    sitemaps: [~]\n",
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, doc string) {
		c, err := Parse(strings.NewReader(doc))
		if err != nil {
			var ve *ValidationError
			if !errors.As(err, &ve) || len(ve.Problems) == 0 {
				t.Fatalf("rejection is not a ValidationError with problems: %v", err)
			}
			return
		}
		if verr := c.Validate(); verr != nil {
			t.Fatalf("accepted config fails Validate: %v", verr)
		}
		if len(c.Sites) == 0 || c.Fetch.MaxBody <= 0 || c.Fetch.MaxBody > MaxMaxBody ||
			math.IsNaN(c.Dedup.Jaccard) || c.Dedup.Jaccard <= 0 || strings.ContainsAny(c.UserAgent, "\r\n") {
			t.Fatalf("accepted invalid values: %+v", c)
		}
		for _, s := range c.Sites {
			if s.ArticleRe == nil || s.Parallelism < 1 || s.MaxDepth < 0 || (len(s.StartURLs) == 0 && !s.HasSources()) {
				t.Fatalf("accepted invalid site: %+v", s)
			}
			for _, a := range s.APIs {
				if a.Pages < 1 || a.Pages > MaxAPIPages || (a.ItemURL == "") == (a.URLTemplate == "") || !absHTTP(strings.ReplaceAll(a.URL, PagePlaceholder, "1")) {
					t.Fatalf("accepted invalid api: %+v", a)
				}
			}
		}
	})
}
