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
			if s.ArticleRe == nil || s.Parallelism < 1 || s.MaxDepth < 0 {
				t.Fatalf("accepted invalid site: %+v", s)
			}
		}
	})
}
