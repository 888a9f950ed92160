package cli

import (
	"fmt"
	"net"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// secretPassword is the password of the store URLs of TestNoPasswordInOutput:
// it must appear in no output of any command.
const secretPassword = "Sekr1t-pw-9f3a"

// TestNoPasswordInOutput: every command given a postgres:// or redis://
// URL with a password prints it neither on stdout nor on stderr, whether
// nothing listens there or the server refuses the login.
func TestNoPasswordInOutput(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closed := ln.Addr().String()
	ln.Close() // nothing listens there any more
	dir := t.TempDir()
	in := filepath.Join(dir, "in.jsonl")
	if err := os.WriteFile(in, []byte(`{"url":"https://news.example/a/1","title":"t","text":"x"}`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	site := filepath.Join(dir, "sites.yaml")
	if err := os.WriteFile(site, []byte("sites:\n  - name: a\n    start_urls: [\"http://"+closed+"/\"]\n    allowed_domains: [\"127.0.0.1\"]\n    article_url: '/a/'\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	stores := []struct{ name, pg, redis string }{
		{"nothing listening", fmt.Sprintf("postgres://newscrawl:%s@%s/news?connect_timeout=2", secretPassword, closed),
			fmt.Sprintf("redis://:%s@%s/0", secretPassword, closed)},
	}
	// The test servers, with the wrong password: refused logins.
	if u, err := url.Parse(os.Getenv("NEWSCRAWL_TEST_POSTGRES")); err == nil && u.Host != "" {
		u.User = url.UserPassword(u.User.Username(), secretPassword)
		stores = append(stores, struct{ name, pg, redis string }{"login refused", u.String(),
			fmt.Sprintf("redis://:%s@%s/0", secretPassword, closed)})
	}
	for _, st := range stores {
		pg, rd := st.pg, st.redis
		for _, tc := range []struct {
			name string
			args []string
		}{
			{"crawl", []string{"crawl", "--site", site, "--db", pg, "--progress", "0"}},
			{"crawl with redis", []string{"crawl", "--site", site, "--db", pg, "--redis", rd, "--progress", "0"}},
			{"import", []string{"import", "--site", site, "--db", pg, "--in", in}},
			{"export", []string{"export", "--db", pg}},
			{"explain", []string{"explain", "--db", pg, "https://news.example/a/1"}},
			{"report", []string{"report", "--db", pg, "--out", filepath.Join(dir, "r.html")}},
			{"status", []string{"status", "--db", pg}},
		} {
			t.Run(st.name+"/"+tc.name, func(t *testing.T) {
				r := runMain(tc.args...)
				if r.code == ExitOK || !strings.Contains(r.stderr, "postgres") {
					t.Errorf("exit %d, want a failure naming the store: %s", r.code, r.stderr)
				}
				for name, out := range map[string]string{"stdout": r.stdout, "stderr": r.stderr} {
					if strings.Contains(out, secretPassword) {
						t.Errorf("%s shows the password:\n%s", name, out)
					}
				}
			})
		}
	}
}
