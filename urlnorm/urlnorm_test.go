package urlnorm

import (
	"errors"
	"net/url"
	"strings"
	"testing"
)

func TestCanonical(t *testing.T) {
	base, err := url.Parse("http://News.Example.com/a/b/index.html?x=1#top")
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, raw string
		base      *url.URL
		want      string
	}{
		{"lowercase scheme and host", "HTTP://WWW.Example.COM/Path", nil, "http://www.example.com/Path"},
		{"default http port", "http://example.com:80/a", nil, "http://example.com/a"},
		{"default https port", "https://example.com:443/a", nil, "https://example.com/a"},
		{"non-default port kept", "http://127.0.0.1:18480/a", nil, "http://127.0.0.1:18480/a"},
		{"port leading zeros", "http://example.com:0080/a", nil, "http://example.com/a"},
		{"empty port", "http://example.com:/a", nil, "http://example.com/a"},
		{"empty path", "http://example.com", nil, "http://example.com/"},
		{"empty path with query", "http://example.com?b=2", nil, "http://example.com/?b=2"},
		{"fragment dropped", "http://example.com/a.html#comments", nil, "http://example.com/a.html"},
		{"hashbang dropped", "http://example.com/#!/a", nil, "http://example.com/"},
		{"utm params dropped", "http://example.com/a?utm_source=wx&id=7&utm_medium=share", nil, "http://example.com/a?id=7"},
		{"tracking names case-insensitive", "http://example.com/a?UTM_Source=x&SPM=1.2&ADTAG=t", nil, "http://example.com/a"},
		{"from and share dropped", "http://example.com/a?from=timeline&share_token=abc&isappinstalled=0", nil, "http://example.com/a"},
		{"session ids dropped", "http://example.com/a?PHPSESSID=9f8e&id=7&jsessionid=AB12&sessionid=x&CFID=1&cftoken=2", nil, "http://example.com/a?id=7"},
		{"jsessionid path parameter dropped", "http://example.com/news/a.html;jsessionid=0A1B2C3D?id=7", nil, "http://example.com/news/a.html?id=7"},
		{"jsessionid path parameter, upper case, mid path", "http://example.com/news;JSESSIONID=0A1B/a.html", nil, "http://example.com/news/a.html"},
		{"jsessionid escaped", "http://example.com/a.html%3Bjsessionid=1", nil, "http://example.com/a.html%3Bjsessionid=1"},
		{"other path parameters kept", "http://example.com/a.html;v=2", nil, "http://example.com/a.html;v=2"},
		{"sid kept", "http://example.com/list?sid=12", nil, "http://example.com/list?sid=12"},
		{"identifying params kept", "http://example.com/s?id=42&page=2&aid=9", nil, "http://example.com/s?aid=9&id=42&page=2"},
		{"query sorted", "http://example.com/a?b=2&a=1&a=0", nil, "http://example.com/a?a=0&a=1&b=2"},
		{"empty params dropped", "http://example.com/a?&&b=2&", nil, "http://example.com/a?b=2"},
		{"empty query dropped", "http://example.com/a?", nil, "http://example.com/a"},
		{"dot segments", "http://example.com/a/./b/../c", nil, "http://example.com/a/c"},
		{"dot segments above root", "http://example.com/../../a", nil, "http://example.com/a"},
		{"encoded dots", "http://example.com/a/%2e%2E/b", nil, "http://example.com/b"},
		{"unreserved decoded", "http://example.com/%7Euser/%41b%2dc", nil, "http://example.com/~user/Ab-c"},
		{"hex upper-cased", "http://example.com/a%2fb?q=%e4%b8%ad", nil, "http://example.com/a%2Fb?q=%E4%B8%AD"},
		{"non-ascii encoded", "http://example.com/新闻/a b", nil, "http://example.com/%E6%96%B0%E9%97%BB/a%20b"},
		{"bad escape", "http://example.com/100%/x%zz", nil, "http://example.com/100%25/x%25zz"},
		{"idn host", "http://新闻.中国/a", nil, "http://xn--efvy88h.xn--fiqs8s/a"},
		{"trailing dot host", "http://example.com./a", nil, "http://example.com/a"},
		{"userinfo dropped", "http://user:pw@example.com/a", nil, "http://example.com/a"},
		{"ipv6", "http://[::1]:8080/a", nil, "http://[::1]:8080/a"},
		{"whitespace trimmed", " \n http://example.com/a\t/b \r\n", nil, "http://example.com/a/b"},
		{"backslash path", `http://example.com\a\b.html`, nil, "http://example.com/a/b.html"},
		{"relative path", "c.html", base, "http://news.example.com/a/b/c.html"},
		{"relative parent", "../c.html?utm_campaign=x", base, "http://news.example.com/a/c.html"},
		{"absolute path", "/x/y", base, "http://news.example.com/x/y"},
		{"scheme relative", "//other.example.com/z", base, "http://other.example.com/z"},
		{"query only", "?p=2", base, "http://news.example.com/a/b/index.html?p=2"},
		{"fragment only", "#top", base, "http://news.example.com/a/b/index.html?x=1"},
		{"empty reference", "", base, "http://news.example.com/a/b/index.html?x=1"},
		{"absolute ignores base", "https://b.example.org/q", base, "https://b.example.org/q"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := Canonical(tc.raw, tc.base)
			if err != nil {
				t.Fatalf("Canonical(%q): %v", tc.raw, err)
			}
			if got != tc.want {
				t.Fatalf("Canonical(%q) = %q, want %q", tc.raw, got, tc.want)
			}
			again, err := Canonical(got, nil)
			if err != nil || again != got {
				t.Fatalf("not idempotent: %q -> %q (%v)", got, again, err)
			}
		})
	}
}

func TestCanonicalRejects(t *testing.T) {
	tests := []struct {
		name, raw string
		want      error
	}{
		{"mailto", "mailto:a@example.com", ErrScheme},
		{"javascript", "javascript:void(0)", ErrScheme},
		{"ftp", "ftp://example.com/a", ErrScheme},
		{"relative without base", "/a/b", ErrScheme},
		{"empty without base", "  ", ErrSyntax},
		{"empty host", "http:///a", ErrHost},
		{"bad host", "http://exa mple.com/", ErrSyntax},
		{"bad host chars", "http://a!b.com/", ErrHost},
		{"bad port", "http://example.com:99999/", ErrHost},
		{"opaque", "http:example.com", ErrSyntax},
		{"double dot host", "http://a..b.com/", ErrHost},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := Canonical(tc.raw, nil)
			if !errors.Is(err, tc.want) {
				t.Fatalf("Canonical(%q) = %q, %v; want error %v", tc.raw, got, err, tc.want)
			}
		})
	}
}

// TestCanonicalWrapsCause: a parse error keeps both the package's error
// and net/url's, so callers can test either.
func TestCanonicalWrapsCause(t *testing.T) {
	_, err := Canonical("http://exa mple.com/", nil)
	var ue *url.Error
	if !errors.Is(err, ErrSyntax) || !errors.As(err, &ue) {
		t.Fatalf("Canonical error %v: want ErrSyntax wrapping a *url.Error", err)
	}
}

func TestIsTrackingParam(t *testing.T) {
	for _, n := range []string{"utm_source", "utm_medium", "spm", "share_from", "From", "fbclid"} {
		if !IsTrackingParam(n) {
			t.Errorf("IsTrackingParam(%q) = false", n)
		}
	}
	for _, n := range []string{"id", "aid", "docid", "p", "page", "utm", "fromage"} {
		if IsTrackingParam(n) {
			t.Errorf("IsTrackingParam(%q) = true", n)
		}
	}
}

func FuzzCanonical(f *testing.F) {
	for _, s := range []string{
		"http://example.com/a?b=1&utm_source=x#f",
		"HTTPS://EXAMPLE.com:443/%7e/./../a%2F?%41=1",
		"//x.com/a b/新闻",
		"../up/one?q=%zz",
		"http://[::ffff:1.2.3.4]/",
		"http://新闻.中国/",
		"javascript:alert(1)",
		`http:\\a.com\b`,
		"?x=1#y",
	} {
		f.Add(s)
	}
	base, _ := url.Parse("http://base.example.com/dir/page.html?q=1")
	f.Fuzz(func(t *testing.T, raw string) {
		for _, b := range []*url.URL{nil, base} {
			c, err := Canonical(raw, b)
			if err != nil {
				continue
			}
			c2, err := Canonical(c, nil)
			if err != nil {
				t.Fatalf("Canonical(%q) = %q, which is rejected: %v", raw, c, err)
			}
			if c2 != c {
				t.Fatalf("not idempotent: %q -> %q -> %q", raw, c, c2)
			}
			if strings.Contains(c, "#") {
				t.Fatalf("fragment kept: %q", c)
			}
			if !strings.HasPrefix(c, "http://") && !strings.HasPrefix(c, "https://") {
				t.Fatalf("bad scheme: %q", c)
			}
		}
	})
}

func BenchmarkCanonical(b *testing.B) {
	base, _ := url.Parse("http://127.0.0.1:18481/roll/index_2.shtml")
	const raw = "/c/2011-11-24/doc-ifxyz1234567.shtml?utm_source=weibo&from=wap#comments"
	const want = "http://127.0.0.1:18481/c/2011-11-24/doc-ifxyz1234567.shtml"
	for b.Loop() {
		got, err := Canonical(raw, base)
		if err != nil || got != want {
			b.Fatalf("Canonical = %q, %v", got, err)
		}
	}
}
