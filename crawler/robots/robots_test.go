package robots

import "testing"

func TestProductToken(t *testing.T) {
	for ua, want := range map[string]string{
		"newscrawl/0.1 (+https://example.org)": "newscrawl",
		"NewsCrawl":                            "newscrawl",
		"Mozilla/5.0 (compatible; X)":          "mozilla",
	} {
		if got := ProductToken(ua); got != want {
			t.Errorf("ProductToken(%q) = %q, want %q", ua, got, want)
		}
	}
}
