package config

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"
)

const good = `
storage: data/x.db
user_agent: "test/1.0 (+https://example.org)"
dedup: {jaccard: 0.5, window: 30d}
sites:
  - name: sina
    start_urls: ["https://news.sina.com.cn/"]
    allowed_domains: ["news.sina.com.cn"]
    article_url: '/doc-i\w+\.shtml$'
  - name: local
    start_urls: ["http://127.0.0.1:8080/"]
    allowed_domains: ["127.0.0.1:8080"]
    article_url: '/a/'
    delay: 0s
    parallelism: 4
    remove: [".related", "#share"]
`

func TestParseDefaults(t *testing.T) {
	c, err := Parse(strings.NewReader(good))
	if err != nil {
		t.Fatal(err)
	}
	if got := c.Dedup.Window.D(); got != 30*24*time.Hour {
		t.Errorf("window = %v", got)
	}
	s := c.Sites[0]
	if s.Delay.D() != DefaultDelay || s.Parallelism != DefaultParallelism || s.MaxDepth != DefaultMaxDepth {
		t.Errorf("site defaults not applied: %+v", s)
	}
	if c.Sites[1].Delay.D() != 0 {
		t.Errorf("explicit delay 0 overridden: %v", c.Sites[1].Delay.D())
	}
	if s.ArticleRe == nil || !s.ArticleRe.MatchString("https://news.sina.com.cn/c/2011-11-24/doc-iabc.shtml") {
		t.Error("article_url not compiled")
	}
	if c.Fetch.MaxBody != DefaultMaxBody {
		t.Errorf("max_body = %d", c.Fetch.MaxBody)
	}
}

func TestValidateReportsEveryProblemWithPath(t *testing.T) {
	bad := `
dedup: {hamming: -1, jaccard: 2}
sites:
  - name: a
    start_urls: ["ftp://x"]
    allowed_domains: ["a.com"]
    article_url: '('
    delay: -1s
    parallelism: 0
  - name: a
    start_urls: ["https://b.com/"]
    allowed_domains: ["c.com"]
    article_url: 'x'
    charset: klingon
    remove: ["div[["]
`
	_, err := Parse(strings.NewReader(bad))
	var ve *ValidationError
	if !errors.As(err, &ve) {
		t.Fatalf("want ValidationError, got %v", err)
	}
	want := []string{
		"dedup.hamming (line 2):", "dedup.jaccard (line 2):", "sites[0].start_urls[0] (line 5):", "sites[0].article_url (line 7):",
		"sites[0].delay (line 8): must be >= 0", "sites[0].parallelism (line 9): must be in [1, 64]", "sites[1].name (line 10):",
		"sites[1].start_urls[0] (line 11): host", "sites[1].charset (line 14):", "sites[1].remove[0] (line 15):",
	}
	msg := err.Error()
	for _, w := range want {
		if !strings.Contains(msg, w) {
			t.Errorf("missing %q in:\n%s", w, msg)
		}
	}
}

// site is a valid site entry; tests add keys to it.
const site = `sites:
  - name: a
    start_urls: ["https://a.example/"]
    allowed_domains: [a.example]
    article_url: x
`

// TestParseReportsAllProblemsTogether: unknown keys, type errors and bad
// values come in one error, each with path and line (before, the first
// unknown key or type error hid everything else and had no path).
func TestParseReportsAllProblemsTogether(t *testing.T) {
	doc := `storage: data/x.db
dedup:
  jacard: 0.5
  hamming: many
fetch:
  max_body: 1.5
sites:
  - name: a
    start_urls: ["https://a.example/"]
    allowed_domains: [a.example]
    artcle_url: x
    delay: fast
    parallelism: 100
`
	_, err := Parse(strings.NewReader(doc))
	var ve *ValidationError
	if !errors.As(err, &ve) {
		t.Fatalf("want ValidationError, got %v", err)
	}
	var got []string
	for _, p := range ve.Problems {
		got = append(got, p.String())
	}
	want := []string{
		"dedup.jacard (line 3): unknown key (did you mean jaccard?)",
		`dedup.hamming (line 4): must be an integer, got "many"`,
		`fetch.max_body (line 6): invalid size "1.5": not a whole number of bytes`,
		"sites[0].artcle_url (line 11): unknown key (did you mean article_url?)",
		`sites[0].delay (line 12): invalid duration "fast" (want e.g. 1s, 500ms or 30d)`,
		// The values are validated too, though some could not be decoded
		// (before: a wrong type hid every invalid value).
		"sites[0].parallelism (line 13): must be in [1, 64], got 100",
		"sites[0].article_url: must not be empty",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("problems:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// TestParseDecodeAndValueProblemsTogether: a value of the wrong type
// does not hide the invalid values around it, and is not reported twice
// (its default is not validated in its place); a whole section of the
// wrong type covers the problems inside it.
func TestParseDecodeAndValueProblemsTogether(t *testing.T) {
	for _, tc := range []struct {
		name, doc string
		want      []string
	}{
		{"size and values", "storage: x.db\nfetch:\n  max_image: -1\n  retries: -1\n" + site,
			[]string{`fetch.max_image (line 3): invalid size "-1"`, "fetch.retries (line 4): must be in [0, 10], got -1"}},
		{"duration and values", site + "    delay: fast\n    parallelism: 0\n",
			[]string{`sites[0].delay (line 6): invalid duration "fast"`, "sites[0].parallelism (line 7): must be in [1, 64], got 0"}},
		{"sites of the wrong type", "storage: x.db\nfetch: {retries: 99}\nsites: many\n",
			[]string{"fetch.retries (line 2): must be in [0, 10], got 99", "sites (line 3):"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Parse(strings.NewReader(tc.doc))
			var ve *ValidationError
			if !errors.As(err, &ve) {
				t.Fatalf("want ValidationError, got %v", err)
			}
			if len(ve.Problems) != len(tc.want) {
				t.Fatalf("problems %v, want %d: %q", ve.Problems, len(tc.want), tc.want)
			}
			for i, w := range tc.want {
				if got := ve.Problems[i].String(); !strings.Contains(got, w) {
					t.Errorf("problem %d: %q, want %q", i, got, w)
				}
			}
		})
	}
}

func TestParseRejects(t *testing.T) {
	for _, tc := range []struct {
		name, doc, want string
	}{
		{"wildcard domain", strings.Replace(site, "[a.example]", `[a.example, "*.cdn.example"]`, 1), `sites[0].allowed_domains[1] (line 4): wildcards are not supported, got "*.cdn.example" (an entry allows its subdomains: write "cdn.example")`},
		{"domain with a leading dot", strings.Replace(site, "[a.example]", "[a.example, .cdn.example]", 1), `sites[0].allowed_domains[1] (line 4): must not start with a dot`},
		{"unknown top-level key", "storge: x\n" + site, "storge (line 1): unknown key (did you mean storage?)"},
		{"unknown site key", site + "    start_url: [x]\n", "sites[0].start_url (line 6): unknown key (did you mean start_urls?)"},
		{"unknown key far from any", site + "    colour: red\n", "sites[0].colour (line 6): unknown key\n"},
		{"unknown nested key", site + "    extract: {bodi: x}\n", "sites[0].extract.bodi (line 6): unknown key (did you mean body?)"},
		{"bad pager selector", site + "    extract: {pager: \"div[[\"}\n", `sites[0].extract.pager (line 6): invalid CSS selector "div[["`},
		{"duplicate key", site + "    article_url: y\n", "sites[0].article_url (line 6): duplicate key (first at line 5)"},
		{"fractional size", "fetch: {max_body: 1.5}\n" + site, "not a whole number of bytes"},
		{"fractional size with unit", "fetch: {max_body: 0.1KB5}\n" + site, `invalid size "0.1KB5"`},
		{"overflowing size", "fetch: {max_body: 99999999999999999999}\n" + site, "too large"},
		{"overflowing size with unit", "fetch: {max_body: 9000000000GiB}\n" + site, "too large"},
		{"size above the limit", "fetch: {max_body: 2GiB}\n" + site, "fetch.max_body (line 1): must be in [1, 1GiB], got 2147483648"},
		{"size NaN", "fetch: {max_body: .nan}\n" + site, "invalid size"},
		{"size Inf", "fetch: {max_body: .inf}\n" + site, "invalid size"},
		{"negative size", "fetch: {max_body: -5}\n" + site, "invalid size"},
		{"lead image limit above the maximum", "fetch: {max_image: 65MiB}\n" + site, "fetch.max_image (line 1): must be in [1, 64MiB], got 68157440"},
		{"lead image limit zero", "fetch: {max_image: 0}\n" + site, "fetch.max_image (line 1): must be in [1, 64MiB], got 0"},
		{"image domain with a path", site + "    image_domains: [img.example/x]\n", `sites[0].image_domains[0] (line 6): must be a host name or host:port, got "img.example/x"`},
		{"size unit unknown", "fetch: {max_body: 10XB}\n" + site, `unknown unit "XB"`},
		{"jaccard NaN", "dedup: {jaccard: .nan}\n" + site, `dedup.jaccard (line 1): must be a finite number, got ".nan"`},
		{"jaccard Inf", "dedup: {jaccard: .inf}\n" + site, "must be a finite number"},
		{"jaccard string", "dedup: {jaccard: high}\n" + site, `must be a number, got "high"`},
		{"duration NaN", site + "    delay: NaN\n", `sites[0].delay (line 6): invalid duration "NaN": out of range`},
		{"duration overflow", site + "    delay: 1e300\n", "out of range"},
		{"duration days overflow", "dedup: {window: 1e10d}\n" + site, "out of range"},
		{"empty duration", site + "    delay: ''\n", `invalid duration ""`},
		{"integer overflow", site + "    max_pages: 99999999999999999999\n", "must be an integer"},
		{"integer fraction", site + "    max_depth: 2.5\n", `sites[0].max_depth (line 6): must be an integer, got "2.5"`},
		{"bool", "fetch: {ignore_robots: perhaps}\n" + site, `must be true or false, got "perhaps"`},
		{"user agent with CRLF", "user_agent: \"a\\r\\nX-Evil: 1\"\n" + site, "user_agent (line 1): must not contain control characters"},
		{"redis not a url", "redis: queue.internal:6379\n" + site, `redis (line 1): must be a redis://, rediss:// or unix:// URL`},
		{"redis without host", "redis: redis://\n" + site, `redis (line 1): must be a redis://`},
		{"redis password not shown", "redis: http://u:s3cret@q/0\n" + site, `got "http://u:xxxxx@q/0"`},
		{"user agent with LF", "user_agent: \"a\\nb\"\n" + site, "user_agent (line 1): must not contain control characters"},
		{"parallelism 0", site + "    parallelism: 0\n", "sites[0].parallelism (line 6): must be in [1, 64], got 0"},
		{"key without value", site + "    max_depth:\n", "sites[0].max_depth (line 6): has no value"},
		{"list expected", strings.Replace(site, `["https://a.example/"]`, `"https://a.example/"`, 1), `sites[0].start_urls (line 3): must be a list, got "https://a.example/"`},
		{"mapping expected", "sites: 3\n", `sites (line 1): must be a list, got "3"`},
		{"file not a mapping", "- a\n- b\n", "must be a mapping"},
		{"site not a mapping", "sites: [a]\n", `sites[0] (line 1): sites[0] must be a mapping of keys to values, got "a"`},
		{"second document", site + "---\nstorage: y\n", "a second YAML document"},
		{"syntax error", "sites: [\n", "did not find expected node content"},
		{"no sites", "storage: x\n", "sites: at least one site is required"},
		{"merge of a scalar", "dedup: {<<: 3}\n" + site, "<< must merge a mapping"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Parse(strings.NewReader(tc.doc))
			var ve *ValidationError
			if !errors.As(err, &ve) {
				t.Fatalf("want a ValidationError, got %v", err)
			}
			if !strings.Contains(err.Error()+"\n", tc.want) {
				t.Errorf("error does not contain %q:\n%v", tc.want, err)
			}
		})
	}
}

func TestParseValues(t *testing.T) {
	for _, tc := range []struct {
		name, doc string
		check     func(c Config) bool
	}{
		{"size in MiB", "fetch: {max_body: 10MiB}\n" + site, func(c Config) bool { return c.Fetch.MaxBody == 10<<20 }},
		{"size in MB", "fetch: {max_body: 10MB}\n" + site, func(c Config) bool { return c.Fetch.MaxBody == 10_000_000 }},
		{"size with space and fraction", "fetch: {max_body: 1.5 KiB}\n" + site, func(c Config) bool { return c.Fetch.MaxBody == 1536 }},
		{"size in bytes", "fetch: {max_body: 1048576}\n" + site, func(c Config) bool { return c.Fetch.MaxBody == 1<<20 }},
		{"size at the limit", "fetch: {max_body: 1GiB}\n" + site, func(c Config) bool { return c.Fetch.MaxBody == MaxMaxBody }},
		{"max_depth 0 stays 0", site + "    max_depth: 0\n", func(c Config) bool { return c.Sites[0].MaxDepth == 0 }},
		{"max_depth absent is the default", site, func(c Config) bool { return c.Sites[0].MaxDepth == DefaultMaxDepth }},
		{"redis url", "redis: redis://queue.internal:6379/0\n" + site, func(c Config) bool { return c.Redis == "redis://queue.internal:6379/0" }},
		{"redis absent", site, func(c Config) bool { return c.Redis == "" }},
		{"delay 0s stays 0", site + "    delay: 0s\n", func(c Config) bool { return c.Sites[0].Delay == 0 }},
		{"delay in bare seconds", site + "    delay: 1.5\n", func(c Config) bool { return c.Sites[0].Delay.D() == 1500*time.Millisecond }},
		{"integer jaccard", "dedup: {jaccard: 1}\n" + site, func(c Config) bool { return c.Dedup.Jaccard == 1 }},
		{"empty section keeps defaults", "fetch:\n" + site, func(c Config) bool { return c.Fetch.MaxBody == DefaultMaxBody && c.Fetch.Retries == DefaultRetries }},
		{"numeric site name", strings.Replace(site, "name: a", "name: 163", 1), func(c Config) bool { return c.Sites[0].Name == "163" }},
		{"merge key, explicit key wins", `sites:
  - &s1
    name: a
    start_urls: ["https://a.example/"]
    allowed_domains: [a.example]
    article_url: x
    delay: 2s
    parallelism: 4
  - <<: *s1
    name: b
    parallelism: 1
`, func(c Config) bool {
			b := c.Sites[1]
			return len(c.Sites) == 2 && b.Name == "b" && b.Parallelism == 1 && b.Delay.D() == 2*time.Second && b.ArticleURL == "x"
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, err := Parse(strings.NewReader(tc.doc))
			if err != nil {
				t.Fatal(err)
			}
			if !tc.check(c) {
				t.Errorf("wrong value: %+v", c)
			}
		})
	}
}

func TestFileSizeLimit(t *testing.T) {
	pad := func(n int) string { // a valid file of exactly n bytes (comment padding)
		return site + "#" + strings.Repeat("x", n-len(site)-2) + "\n"
	}
	t.Run("at the limit", func(t *testing.T) {
		if _, err := Parse(strings.NewReader(pad(MaxFileSize))); err != nil {
			t.Fatal(err)
		}
	})
	t.Run("one byte over", func(t *testing.T) {
		_, err := Parse(strings.NewReader(pad(MaxFileSize + 1)))
		if err == nil || !strings.Contains(err.Error(), "larger than the 4MiB limit") {
			t.Fatalf("want a size error, got %v", err)
		}
	})
}

func TestProblemsAreCapped(t *testing.T) {
	var b strings.Builder
	b.WriteString(site)
	for i := range 250 {
		fmt.Fprintf(&b, "    unknown%d: 1\n", i)
	}
	_, err := Parse(strings.NewReader(b.String()))
	var ve *ValidationError
	if !errors.As(err, &ve) {
		t.Fatalf("want ValidationError, got %v", err)
	}
	if len(ve.Problems) != maxProblems+1 || !strings.Contains(err.Error(), "and 150 more problems") {
		t.Errorf("%d problems, last %v", len(ve.Problems), ve.Problems[len(ve.Problems)-1])
	}
}

// TestAliasExpansionBounded: a small file whose aliases name billions of
// values is rejected quickly instead of being expanded.
func TestAliasExpansionBounded(t *testing.T) {
	var b strings.Builder
	b.WriteString("sites:\n  - &s\n    name: a\n    start_urls: [\"https://a.example/\"]\n    allowed_domains: [a.example]\n    article_url: x\n    remove: [")
	for i := range 20000 {
		if i > 0 {
			b.WriteString(",")
		}
		b.WriteString("p")
	}
	b.WriteString("]\n")
	for range 20000 {
		b.WriteString("  - *s\n")
	}
	_, err := Parse(strings.NewReader(b.String()))
	if err == nil || !strings.Contains(err.Error(), "more than 200000 values") {
		t.Fatalf("want the value limit, got %.300v", err)
	}
}

func TestParseSize(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want Size
		bad  bool
	}{
		{"0", 0, false}, {"1024", 1024, false}, {"10MiB", 10 << 20, false}, {"10mib", 10 << 20, false},
		{"10MB", 10_000_000, false}, {"2 GB", 2_000_000_000, false}, {"1.5MiB", 1536 << 10, false},
		{"512B", 512, false}, {"8k", 8000, false}, {"9223372036854775807", 1<<63 - 1, false},
		{"9223372036854775808", 0, true}, {"8GiB", 8 << 30, false}, {"9000000000GiB", 0, true},
		{"1.5", 0, true}, {"0.5B", 0, true}, {"-1", 0, true}, {"1e6", 0, true}, {"NaN", 0, true},
		{"Inf", 0, true}, {"", 0, true}, {"MiB", 0, true}, {"1.", 0, true}, {"10 XB", 0, true},
		{strings.Repeat("9", 5000), 0, true},
	} {
		t.Run(tc.in, func(t *testing.T) {
			got, err := ParseSize(tc.in)
			if (err != nil) != tc.bad || got != tc.want {
				t.Errorf("ParseSize(%q) = %d, %v", tc.in, got, err)
			}
		})
	}
}

func TestParseDuration(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want time.Duration
		bad  bool
	}{
		{"1s", time.Second, false}, {"30d", 30 * 24 * time.Hour, false}, {"1.5", 1500 * time.Millisecond, false},
		{"1.5d", 36 * time.Hour, false}, {"0", 0, false}, {"-1s", -time.Second, false},
		{"", 0, true}, {"abc", 0, true}, {"xd", 0, true}, {"NaN", 0, true}, {"Infd", 0, true},
		{"1e300", 0, true}, {"1e6d", 0, true}, {"9999999999h", 0, true},
	} {
		t.Run(tc.in, func(t *testing.T) {
			got, err := ParseDuration(tc.in)
			if (err != nil) != tc.bad || got != tc.want {
				t.Errorf("ParseDuration(%q) = %v, %v", tc.in, got, err)
			}
		})
	}
}

func TestHostAllowed(t *testing.T) {
	for _, tc := range []struct {
		host    string
		domains []string
		want    bool
	}{
		{"news.sina.com.cn", []string{"sina.com.cn"}, true},
		{"evilsina.com.cn", []string{"sina.com.cn"}, false},
		{"127.0.0.1:8080", []string{"127.0.0.1:8080"}, true},
		{"127.0.0.1:8081", []string{"127.0.0.1:8080"}, false},
		{"127.0.0.1:8081", []string{"127.0.0.1"}, true},
		{"NEWS.QQ.COM", []string{"news.qq.com"}, true},
		// Canonical URLs carry the IDNA ASCII form of a host; an entry in
		// Unicode (or a host so written) matches it.
		{"xn--efvy88h.xn--fiqs8s", []string{"新闻.中国"}, true},
		{"www.xn--efvy88h.xn--fiqs8s", []string{"新闻.中国"}, true},
		{"新闻.中国", []string{"xn--efvy88h.xn--fiqs8s"}, true},
		{"xn--fiqs8s", []string{"新闻.中国"}, false},
		{"www.example.com", []string{"example.com."}, true},
	} {
		if got := HostAllowed(tc.host, tc.domains); got != tc.want {
			t.Errorf("HostAllowed(%q, %v) = %v", tc.host, tc.domains, got)
		}
	}
}

func TestDedupFeatureOptions(t *testing.T) {
	base := "sites:\n  - name: a\n    start_urls: [\"https://a.example/\"]\n    allowed_domains: [a.example]\n    article_url: x\n"
	if _, err := Parse(strings.NewReader("dedup: {antecedents: optimised, index: prefix}\n" + base)); err != nil {
		t.Fatal(err)
	}
	_, err := Parse(strings.NewReader("dedup: {antecedents: all, index: btree}\n" + base))
	for _, w := range []string{"dedup.antecedents (line 1):", "dedup.index (line 1):"} {
		if err == nil || !strings.Contains(err.Error(), w) {
			t.Errorf("missing %q in %v", w, err)
		}
	}
	// The Simhash feature options are the lab's (dedup.Research).
	t.Run("simhash_features_moved_to_the_lab", func(t *testing.T) {
		_, err := Parse(strings.NewReader("dedup:\n  hash: sdbm\n  weighting: tfidf\n  top_m: 20\n  jtidf: true\n  positional: true\n" + base))
		for i, key := range []string{"hash", "weighting", "top_m", "jtidf", "positional"} {
			w := fmt.Sprintf("dedup.%s (line %d): unknown key: a Simhash feature option, moved to the lab", key, i+2)
			if err == nil || !strings.Contains(err.Error(), w) {
				t.Errorf("missing %q in %v", w, err)
			}
		}
	})
	// The Hamming radius is the exhaustive index's only.
	for _, tc := range []struct {
		name, dedup string
		want        string // "" valid
	}{
		{"hamming_under_lsh", "{hamming: 3}", "dedup.hamming (line 1): changes nothing under dedup.index lsh"},
		{"hamming_under_prefix", "{hamming: 5, index: prefix}", "dedup.hamming (line 1): changes nothing under dedup.index prefix"},
		{"hamming_under_exhaustive", "{hamming: 5, index: exhaustive}", ""},
		{"no_hamming", "{index: prefix}", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Parse(strings.NewReader("dedup: " + tc.dedup + "\n" + base))
			switch {
			case tc.want == "" && err != nil:
				t.Errorf("rejected: %v", err)
			case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
				t.Errorf("error %v, want %q", err, tc.want)
			}
		})
	}
	t.Run("hamming_set_in_code_under_lsh", func(t *testing.T) {
		c, err := Parse(strings.NewReader(base))
		if err != nil {
			t.Fatal(err)
		}
		c.Dedup.Hamming = 5
		if err := c.Validate(); err == nil || !strings.Contains(err.Error(), "dedup.hamming: changes nothing") {
			t.Errorf("Validate: %v", err)
		}
	})
	t.Run("redis_index_needs_redis", func(t *testing.T) {
		_, err := Parse(strings.NewReader("dedup: {index: redis}\n" + base))
		if err == nil || !strings.Contains(err.Error(), "dedup.index (line 1): redis (the index shared in Redis) needs redis:") {
			t.Errorf("dedup.index redis without redis: %v", err)
		}
		if _, err := Parse(strings.NewReader("storage: postgres://db/news\nredis: redis://127.0.0.1:6379/0\ndedup: {index: redis}\n" + base)); err != nil {
			t.Errorf("dedup.index redis with redis: %v", err)
		}
	})
	for _, tc := range []struct {
		yaml string
		ok   bool
	}{
		{"dedup: {jaccard: 0.3}\n", false},
		{"dedup: {jaccard: 0.3, index: lsh}\n", false},
		{"dedup: {jaccard: 0.3, index: prefix}\n", true},
		{"dedup: {jaccard: 0.5}\n", true},
	} {
		_, err := Parse(strings.NewReader(tc.yaml + base))
		if (err == nil) != tc.ok {
			t.Errorf("%q: error %v", tc.yaml, err)
		}
	}
}
