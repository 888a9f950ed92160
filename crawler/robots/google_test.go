package robots

import (
	"net/url"
	"testing"
)

// googleRobotsCase is one EXPECT of Google's robots.txt test suite
// (github.com/google/robotstxt, robots_test.cc, Apache-2.0), ported as
// data. test names the C++ TEST it comes from.
type googleRobotsCase struct {
	test   string
	robots string
	agent  string
	url    string
	want   bool
	// rfc: where Google's expectation differs from what RFC 9309 section
	// 2.2.2 specifies, want holds the RFC's answer and rfc says why.
	rfc string
}

const longRobotsLine = 2083 * 8 // Google's line limit (GoogleOnly_LineTooLong)

// googleRobotsSuite returns the cases of robots_test.cc that test matching.
// Parser-only tests (line and directive counts) are ported as the matching
// behaviour they imply; Sitemap parsing is not used by the crawler.
func googleRobotsSuite() []googleRobotsCase {
	var cs []googleRobotsCase
	add := func(test, robots, agent, u string, want bool) {
		cs = append(cs, googleRobotsCase{test: test, robots: robots, agent: agent, url: u, want: want})
	}

	// GoogleOnly_SystemTest
	{
		r := "user-agent: FooBot\ndisallow: /\n"
		add("SystemTest", "", "FooBot", "", true)
		add("SystemTest", r, "", "", true)
		add("SystemTest", r, "FooBot", "", false)
		add("SystemTest", "", "", "", true)
	}
	// ID_LineSyntax_Line
	{
		u := "http://foo.bar/x/y"
		add("LineSyntax_Line", "user-agent: FooBot\ndisallow: /\n", "FooBot", u, false)
		add("LineSyntax_Line", "foo: FooBot\nbar: /\n", "FooBot", u, true)
		add("LineSyntax_Line", "user-agent FooBot\ndisallow /\n", "FooBot", u, false)
	}
	// ID_LineSyntax_Groups
	{
		r := "allow: /foo/bar/\n\nuser-agent: FooBot\ndisallow: /\nallow: /x/\nuser-agent: BarBot\ndisallow: /\nallow: /y/\n\n\nallow: /w/\nuser-agent: BazBot\n\nuser-agent: FooBot\nallow: /z/\ndisallow: /\n"
		w, x, y, z, foo := "http://foo.bar/w/a", "http://foo.bar/x/b", "http://foo.bar/y/c", "http://foo.bar/z/d", "http://foo.bar/foo/bar/"
		add("LineSyntax_Groups", r, "FooBot", x, true)
		add("LineSyntax_Groups", r, "FooBot", z, true)
		add("LineSyntax_Groups", r, "FooBot", y, false)
		add("LineSyntax_Groups", r, "BarBot", y, true)
		add("LineSyntax_Groups", r, "BarBot", w, true)
		add("LineSyntax_Groups", r, "BarBot", z, false)
		add("LineSyntax_Groups", r, "BazBot", z, true)
		add("LineSyntax_Groups", r, "FooBot", foo, false)
		add("LineSyntax_Groups", r, "BarBot", foo, false)
		add("LineSyntax_Groups", r, "BazBot", foo, false)
	}
	// ID_LineSyntax_Groups_OtherRules
	for _, r := range []string{
		"User-agent: BarBot\nSitemap: https://foo.bar/sitemap\nUser-agent: *\nDisallow: /\n",
		"User-agent: FooBot\nInvalid-Unknown-Line: unknown\nUser-agent: *\nDisallow: /\n",
	} {
		add("LineSyntax_Groups_OtherRules", r, "FooBot", "http://foo.bar/", false)
		add("LineSyntax_Groups_OtherRules", r, "BarBot", "http://foo.bar/", false)
	}
	// ID_REPLineNamesCaseInsensitive
	for _, r := range []string{
		"USER-AGENT: FooBot\nALLOW: /x/\nDISALLOW: /\n",
		"user-agent: FooBot\nallow: /x/\ndisallow: /\n",
		"uSeR-aGeNt: FooBot\nAlLoW: /x/\ndIsAlLoW: /\n",
	} {
		add("REPLineNamesCaseInsensitive", r, "FooBot", "http://foo.bar/x/y", true)
		add("REPLineNamesCaseInsensitive", r, "FooBot", "http://foo.bar/a/b", false)
	}
	// ID_UserAgentValueCaseInsensitive
	for _, r := range []string{
		"User-Agent: FOO BAR\nAllow: /x/\nDisallow: /\n",
		"User-Agent: foo bar\nAllow: /x/\nDisallow: /\n",
		"User-Agent: FoO bAr\nAllow: /x/\nDisallow: /\n",
	} {
		for _, a := range []string{"Foo", "foo"} {
			add("UserAgentValueCaseInsensitive", r, a, "http://foo.bar/x/y", true)
			add("UserAgentValueCaseInsensitive", r, a, "http://foo.bar/a/b", false)
		}
	}
	// GoogleOnly_AcceptUserAgentUpToFirstSpace
	{
		r := "User-Agent: *\nDisallow: /\nUser-Agent: Foo Bar\nAllow: /x/\nDisallow: /\n"
		add("AcceptUserAgentUpToFirstSpace", r, "Foo", "http://foo.bar/x/y", true)
		add("AcceptUserAgentUpToFirstSpace", r, "Foo Bar", "http://foo.bar/x/y", false)
	}
	// ID_GlobalGroups_Secondary
	{
		u := "http://foo.bar/x/y"
		global := "user-agent: *\nallow: /\nuser-agent: FooBot\ndisallow: /\n"
		specific := "user-agent: FooBot\nallow: /\nuser-agent: BarBot\ndisallow: /\nuser-agent: BazBot\ndisallow: /\n"
		add("GlobalGroups_Secondary", "", "FooBot", u, true)
		add("GlobalGroups_Secondary", global, "FooBot", u, false)
		add("GlobalGroups_Secondary", global, "BarBot", u, true)
		add("GlobalGroups_Secondary", specific, "QuxBot", u, true)
	}
	// ID_AllowDisallow_Value_CaseSensitive
	add("AllowDisallow_Value_CaseSensitive", "user-agent: FooBot\ndisallow: /x/\n", "FooBot", "http://foo.bar/x/y", false)
	add("AllowDisallow_Value_CaseSensitive", "user-agent: FooBot\ndisallow: /X/\n", "FooBot", "http://foo.bar/x/y", true)
	// ID_LongestMatch
	{
		u := "http://foo.bar/x/page.html"
		add("LongestMatch", "user-agent: FooBot\ndisallow: /x/page.html\nallow: /x/\n", "FooBot", u, false)
		r := "user-agent: FooBot\nallow: /x/page.html\ndisallow: /x/\n"
		add("LongestMatch", r, "FooBot", u, true)
		add("LongestMatch", r, "FooBot", "http://foo.bar/x/", false)
		add("LongestMatch", "user-agent: FooBot\ndisallow: \nallow: \n", "FooBot", u, true)
		add("LongestMatch", "user-agent: FooBot\ndisallow: /\nallow: /\n", "FooBot", u, true)
		r = "user-agent: FooBot\ndisallow: /x\nallow: /x/\n"
		add("LongestMatch", r, "FooBot", "http://foo.bar/x", false)
		add("LongestMatch", r, "FooBot", "http://foo.bar/x/", true)
		add("LongestMatch", "user-agent: FooBot\ndisallow: /x/page.html\nallow: /x/page.html\n", "FooBot", u, true)
		r = "user-agent: FooBot\nallow: /page\ndisallow: /*.html\n"
		add("LongestMatch", r, "FooBot", "http://foo.bar/page.html", false)
		add("LongestMatch", r, "FooBot", "http://foo.bar/page", true)
		r = "user-agent: FooBot\nallow: /x/page.\ndisallow: /*.html\n"
		add("LongestMatch", r, "FooBot", u, true)
		add("LongestMatch", r, "FooBot", "http://foo.bar/x/y.html", false)
		r = "User-agent: *\nDisallow: /x/\nUser-agent: FooBot\nDisallow: /y/\n"
		add("LongestMatch", r, "FooBot", "http://foo.bar/x/page", true)
		add("LongestMatch", r, "FooBot", "http://foo.bar/y/page", false)
	}
	// ID_Encoding
	{
		add("Encoding", "User-agent: FooBot\nDisallow: /\nAllow: /foo/bar?qux=taz&baz=http://foo.bar?tar&par\n", "FooBot",
			"http://foo.bar/foo/bar?qux=taz&baz=http://foo.bar?tar&par", true)
		r := "User-agent: FooBot\nDisallow: /\nAllow: /foo/bar/ツ\n"
		add("Encoding", r, "FooBot", "http://foo.bar/foo/bar/%E3%83%84", true)
		cs = append(cs, googleRobotsCase{test: "Encoding", robots: r, agent: "FooBot", url: "http://foo.bar/foo/bar/ツ", want: true,
			rfc: "Google leaves encoding the URL to the caller and expects false; RFC 9309 percent-encodes non-ASCII octets of the URI before comparison"})
		r = "User-agent: FooBot\nDisallow: /\nAllow: /foo/bar/%E3%83%84\n"
		add("Encoding", r, "FooBot", "http://foo.bar/foo/bar/%E3%83%84", true)
		cs = append(cs, googleRobotsCase{test: "Encoding", robots: r, agent: "FooBot", url: "http://foo.bar/foo/bar/ツ", want: true,
			rfc: "as above: the URI's octets are percent-encoded before comparison"})
		r = "User-agent: FooBot\nDisallow: /\nAllow: /foo/bar/%62%61%7A\n"
		cs = append(cs, googleRobotsCase{test: "Encoding", robots: r, agent: "FooBot", url: "http://foo.bar/foo/bar/baz", want: true,
			rfc: "Google compares escapes literally and expects false; RFC 9309 decodes percent-encoded unreserved characters before comparison"})
		add("Encoding", r, "FooBot", "http://foo.bar/foo/bar/%62%61%7A", true)
	}
	// ID_SpecialCharacters
	{
		r := "User-agent: FooBot\nDisallow: /foo/bar/quz\nAllow: /foo/*/qux\n"
		add("SpecialCharacters", r, "FooBot", "http://foo.bar/foo/bar/quz", false)
		add("SpecialCharacters", r, "FooBot", "http://foo.bar/foo/quz", true)
		add("SpecialCharacters", r, "FooBot", "http://foo.bar/foo//quz", true)
		add("SpecialCharacters", r, "FooBot", "http://foo.bar/foo/bax/quz", true)
		r = "User-agent: FooBot\nDisallow: /foo/bar$\nAllow: /foo/bar/qux\n"
		add("SpecialCharacters", r, "FooBot", "http://foo.bar/foo/bar", false)
		add("SpecialCharacters", r, "FooBot", "http://foo.bar/foo/bar/qux", true)
		add("SpecialCharacters", r, "FooBot", "http://foo.bar/foo/bar/", true)
		add("SpecialCharacters", r, "FooBot", "http://foo.bar/foo/bar/baz", true)
		r = "User-agent: FooBot\n# Disallow: /\nDisallow: /foo/quz#qux\nAllow: /\n"
		add("SpecialCharacters", r, "FooBot", "http://foo.bar/foo/bar", true)
		add("SpecialCharacters", r, "FooBot", "http://foo.bar/foo/quz", false)
	}
	// GoogleOnly_IndexHTMLisDirectory
	{
		r := "User-Agent: *\nAllow: /allowed-slash/index.html\nDisallow: /\n"
		add("IndexHTMLisDirectory", r, "foobot", "http://foo.com/allowed-slash/", true)
		add("IndexHTMLisDirectory", r, "foobot", "http://foo.com/allowed-slash/index.htm", false)
		add("IndexHTMLisDirectory", r, "foobot", "http://foo.com/allowed-slash/index.html", true)
		add("IndexHTMLisDirectory", r, "foobot", "http://foo.com/anyother-url", false)
	}
	// GoogleOnly_LineTooLong
	{
		const allow, disallow = "allow: ", "disallow: "
		longline := "/x/"
		for len(longline) < longRobotsLine-len("/x/")-len(disallow)+1 {
			longline += "a"
		}
		r := "user-agent: FooBot\n" + disallow + longline + "/qux\n"
		add("LineTooLong", r, "FooBot", "http://foo.bar/fux", true)
		add("LineTooLong", r, "FooBot", "http://foo.bar"+longline+"/fux", false)
		a, b := "/x/", "/x/"
		for len(a) < longRobotsLine-len("/x/")-len(allow)+1 {
			a += "a"
			b += "b"
		}
		r = "user-agent: FooBot\ndisallow: /\n" + allow + a + "/qux\n" + allow + b + "/qux\n"
		add("LineTooLong", r, "FooBot", "http://foo.bar/", false)
		add("LineTooLong", r, "FooBot", "http://foo.bar"+a+"/qux", true)
		add("LineTooLong", r, "FooBot", "http://foo.bar"+b+"/fux", true)
	}
	// GoogleOnly_DocumentationChecks
	{
		r := "user-agent: FooBot\ndisallow: /\nallow: /fish\n"
		for u, want := range map[string]bool{"/bar": false, "/fish": true, "/fish.html": true, "/fish/salmon.html": true,
			"/fishheads": true, "/fishheads/yummy.html": true, "/fish.html?id=anything": true,
			"/Fish.asp": false, "/catfish": false, "/?id=fish": false} {
			add("DocumentationChecks /fish", r, "FooBot", "http://foo.bar"+u, want)
		}
		r = "user-agent: FooBot\ndisallow: /\nallow: /fish*\n"
		for u, want := range map[string]bool{"/bar": false, "/fish": true, "/fish.html": true, "/fish/salmon.html": true,
			"/fishheads": true, "/fishheads/yummy.html": true, "/fish.html?id=anything": true,
			"/Fish.bar": false, "/catfish": false, "/?id=fish": false} {
			add("DocumentationChecks /fish*", r, "FooBot", "http://foo.bar"+u, want)
		}
		r = "user-agent: FooBot\ndisallow: /\nallow: /fish/\n"
		for u, want := range map[string]bool{"/bar": false, "/fish/": true, "/fish/salmon": true, "/fish/?salmon": true,
			"/fish/salmon.html": true, "/fish/?id=anything": true, "/fish": false, "/fish.html": false, "/Fish/Salmon.html": false} {
			add("DocumentationChecks /fish/", r, "FooBot", "http://foo.bar"+u, want)
		}
		r = "user-agent: FooBot\ndisallow: /\nallow: /*.php\n"
		for u, want := range map[string]bool{"/bar": false, "/filename.php": true, "/folder/filename.php": true,
			"/folder/filename.php?parameters": true, "//folder/any.php.file.html": true, "/filename.php/": true,
			"/index?f=filename.php/": true, "/php/": false, "/index?php": false, "/windows.PHP": false} {
			add("DocumentationChecks /*.php", r, "FooBot", "http://foo.bar"+u, want)
		}
		r = "user-agent: FooBot\ndisallow: /\nallow: /*.php$\n"
		for u, want := range map[string]bool{"/bar": false, "/filename.php": true, "/folder/filename.php": true,
			"/filename.php?parameters": false, "/filename.php/": false, "/filename.php5": false, "/php/": false,
			"/filename?php": false, "/aaaphpaaa": false, "//windows.PHP": false} {
			add("DocumentationChecks /*.php$", r, "FooBot", "http://foo.bar"+u, want)
		}
		r = "user-agent: FooBot\ndisallow: /\nallow: /fish*.php\n"
		for u, want := range map[string]bool{"/bar": false, "/fish.php": true, "/fishheads/catfish.php?parameters": true, "/Fish.PHP": false} {
			add("DocumentationChecks /fish*.php", r, "FooBot", "http://foo.bar"+u, want)
		}
		add("DocumentationChecks precedence", "user-agent: FooBot\nallow: /p\ndisallow: /\n", "FooBot", "http://example.com/page", true)
		add("DocumentationChecks precedence", "user-agent: FooBot\nallow: /folder\ndisallow: /folder\n", "FooBot", "http://example.com/folder/page", true)
		add("DocumentationChecks precedence", "user-agent: FooBot\nallow: /page\ndisallow: /*.htm\n", "FooBot", "http://example.com/page.htm", false)
		r = "user-agent: FooBot\nallow: /$\ndisallow: /\n"
		add("DocumentationChecks precedence", r, "FooBot", "http://example.com/", true)
		add("DocumentationChecks precedence", r, "FooBot", "http://example.com/page.html", false)
	}
	// ID_LinesNumbersAreCountedCorrectly: every line ending is a line end.
	// Ported as matching: foo's group allows, bar's group disallows /.
	for name, r := range map[string]string{
		"unix":  "User-Agent: foo\nAllow: /some/path\nUser-Agent: bar\n\n\nDisallow: /\n",
		"dos":   "User-Agent: foo\r\nAllow: /some/path\r\nUser-Agent: bar\r\n\r\n\r\nDisallow: /\r\n",
		"mac":   "User-Agent: foo\rAllow: /some/path\rUser-Agent: bar\r\r\rDisallow: /\r",
		"no-nl": "User-Agent: foo\nAllow: /some/path\nUser-Agent: bar\n\n\nDisallow: /",
		"mixed": "User-Agent: foo\nAllow: /some/path\r\nUser-Agent: bar\n\r\n\nDisallow: /",
	} {
		add("LinesNumbersAreCountedCorrectly "+name, r, "bar", "http://foo.bar/x", false)
		add("LinesNumbersAreCountedCorrectly "+name, r, "foo", "http://foo.bar/x", true)
	}
	// ID_UTF8ByteOrderMarkIsSkipped: full and partial BOMs are skipped; a
	// broken BOM spoils the first line; a BOM inside the file spoils its line.
	for name, r := range map[string]string{
		"full":      "\xEF\xBB\xBFUser-Agent: foo\nDisallow: /AnyValue\n",
		"partial 2": "\xEF\xBBUser-Agent: foo\nDisallow: /AnyValue\n",
		"partial 1": "\xEFUser-Agent: foo\nDisallow: /AnyValue\n",
	} {
		add("UTF8ByteOrderMarkIsSkipped "+name, r, "foo", "http://foo.bar/AnyValue", false)
	}
	add("UTF8ByteOrderMarkIsSkipped broken", "\xEF\x11\xBFUser-Agent: foo\nDisallow: /AnyValue\n", "foo", "http://foo.bar/AnyValue", true)
	add("UTF8ByteOrderMarkIsSkipped middle", "User-Agent: foo\n\xEF\xBB\xBFDisallow: /AnyValue\n", "foo", "http://foo.bar/AnyValue", true)
	return cs
}

// allowedByRobots is the suite's IsUserAgentAllowed on the crawler's own
// path: compile the file for the agent, match the request target of url.
func allowedByRobots(robots, agent, rawURL string) bool {
	u, err := url.Parse(rawURL)
	if err != nil {
		return false
	}
	g := Compile(robots, agent)
	return g.matcher.allowed(canonicalPath(u.RequestURI()))
}

func TestRobotsGoogleSuite(t *testing.T) {
	cases := googleRobotsSuite()
	if len(cases) < 160 {
		t.Fatalf("suite has %d cases, want the 160 ported from robots_test.cc", len(cases))
	}
	for i, tc := range cases {
		name := tc.test
		t.Run(name, func(t *testing.T) {
			if got := allowedByRobots(tc.robots, tc.agent, tc.url); got != tc.want {
				t.Errorf("case %d: agent %q url %q\nrobots.txt:\n%s\ngot allowed=%v, want %v %s",
					i, tc.agent, shorten(tc.url), shorten(tc.robots), got, tc.want, tc.rfc)
			}
		})
	}
}

func shorten(s string) string {
	if len(s) > 200 {
		return s[:200] + "…"
	}
	return s
}

// TestRobotsAgentTokenValid ports ID_VerifyValidUserAgentsToObey: a valid
// product token is one agentToken keeps whole.
func TestRobotsAgentTokenValid(t *testing.T) {
	for _, tc := range []struct {
		agent string
		valid bool
	}{
		{"Foobot", true}, {"Foobot-Bar", true}, {"Foo_Bar", true},
		{"", false}, {"ツ", false}, {"Foobot*", false}, {" Foobot ", false}, {"Foobot/2.1", false}, {"Foobot Bar", false},
	} {
		t.Run(tc.agent, func(t *testing.T) {
			if got := tc.agent != "" && agentToken(tc.agent) == tc.agent; got != tc.valid {
				t.Errorf("valid(%q) = %v, want %v", tc.agent, got, tc.valid)
			}
		})
	}
}

// TestRobotsPathForm ports TestGetPathParamsQuery (for absolute URLs, the
// only ones the crawler matches) and TestMaybeEscapePattern.
func TestRobotsPathForm(t *testing.T) {
	for _, tc := range []struct{ url, want string }{
		{"http://www.example.com", "/"},
		{"http://www.example.com/", "/"},
		{"http://www.example.com/a", "/a"},
		{"http://www.example.com/a/", "/a/"},
		{"http://www.example.com/a/b?c=http://d.e/", "/a/b?c=http://d.e/"},
		{"http://www.example.com/a/b?c=d&e=f#fragment", "/a/b?c=d&e=f"},
		{"http://example.com/a;b#c", "/a;b"},
	} {
		t.Run("path "+tc.url, func(t *testing.T) {
			u, err := url.Parse(tc.url)
			if err != nil {
				t.Fatal(err)
			}
			if got := canonicalPath(u.RequestURI()); got != tc.want {
				t.Errorf("path of %q = %q, want %q", tc.url, got, tc.want)
			}
		})
	}
	for _, tc := range []struct{ in, want string }{
		{"http://www.example.com", "http://www.example.com"},
		{"/a/b/c", "/a/b/c"},
		{"á", "%C3%A1"},
		{"%aa", "%AA"},
		// RFC 9309 section 2.2.2: unreserved escapes are decoded.
		{"/%7Euser/%62", "/~user/b"},
		{"/新闻/", "/%E6%96%B0%E9%97%BB/"},
		{"/%e6%96%b0", "/%E6%96%B0"},
	} {
		t.Run("escape "+tc.in, func(t *testing.T) {
			if got := canonicalPath(tc.in); got != tc.want {
				t.Errorf("canonicalPath(%q) = %q, want %q", tc.in, got, tc.want)
			}
		})
	}
}

// TestRobotsRegressions are disagreements with Google's parser found end to
// end: each URL was answered wrongly (most were fetched although robots.txt
// disallows them).
func TestRobotsRegressions(t *testing.T) {
	tests := []struct {
		name, robots, url string
		want              bool
	}{
		{"raw UTF-8 Chinese rule", "User-agent: *\nDisallow: /新闻/\n", "http://h/%E6%96%B0%E9%97%BB/a.html", false},
		{"lower-case escapes in rule", "User-agent: *\nDisallow: /%e6%96%b0%e9%97%bb/\n", "http://h/%E6%96%B0%E9%97%BB/a.html", false},
		{"lower-case escapes in url", "User-agent: *\nDisallow: /%E6%96%B0/\n", "http://h/%e6%96%b0/a.html", false},
		{"disallow star", "User-agent: *\nDisallow: *\n", "http://h/a", false},
		{"wildcard allow shorter than disallow", "User-agent: *\nDisallow: /private/\nAllow: /pub*.html\n", "http://h/private/pub/x.html", false},
		{"equal length tie goes to allow", "User-agent: *\nDisallow: /a*c\nAllow: /abc\n", "http://h/abc", true},
		{"comment inside value", "User-agent: *\nDisallow: /a #/b\n", "http://h/b", true},
		{"crawl-delay NaN ignored", "User-agent: *\nCrawl-delay: NaN\nDisallow: /p/\n", "http://h/p/x", false},
		{"directive without colon before any group", "Disallow /x\nUser-agent: *\nDisallow: /p/\n", "http://h/p/x", false},
		{"html error page as robots.txt", "<html><head><title>404</title></head><body>Not found: User-agent</body></html>", "http://h/p/x", true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := allowedByRobots(tc.robots, "newscrawl", tc.url); got != tc.want {
				t.Errorf("allowed(%s) = %v, want %v", tc.url, got, tc.want)
			}
		})
	}
}

// FuzzRobots: any robots.txt body and any path compile and match without
// a panic, and the same path always gets the same answer (the matcher's
// scratch state is reused between calls).
func FuzzRobots(f *testing.F) {
	for _, tc := range googleRobotsSuite()[:40] {
		f.Add(tc.robots, "/x/page.html?q=1")
	}
	f.Add("User-agent: *\nDisallow: /新闻/*%e6$\nAllow: /*a*b*c*\n", "/%E6%96%B0%E9%97%BB/a")
	f.Add("\xef\xbbUser-agent newscrawl\nDisallow /\nCrawl-delay: NaN\n", "/")
	f.Fuzz(func(t *testing.T, robots, path string) {
		g := Compile(robots, "newscrawl")
		p := canonicalPath("/" + path)
		first := g.matcher.allowed(p)
		if again := g.matcher.allowed(p); again != first {
			t.Fatalf("allowed(%q) changed from %v to %v", p, first, again)
		}
	})
}
