package cli

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/newsdedup/newscrawl/internal/sample"
	"github.com/newsdedup/newscrawl/storage/postgres"
	"github.com/newsdedup/newscrawl/storage/postgres/pgtest"
)

// samplePostgres writes the sample store (internal/sample) into a fresh
// schema of the test server (NEWSCRAWL_TEST_POSTGRES), dropped after the
// test, and returns its URL. It skips without a server, or fails when CI
// is set.
func samplePostgres(t *testing.T) string {
	t.Helper()
	ctx := context.Background()
	db, _ := pgtest.Schema(t, "nc_cli_")
	s, err := postgres.Open(ctx, db)
	if err != nil {
		t.Fatal(err)
	}
	if err := sample.Fill(ctx, s); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	return db
}

// TestReadCommandsPostgres: explain, report, export and serve read a
// postgres:// store as they read a SQLite file (the sample store's
// verdicts, records and search results are the same).
func TestReadCommandsPostgres(t *testing.T) {
	db := samplePostgres(t)
	t.Run("explain", func(t *testing.T) {
		r := runMain("explain", "--db", db, "https://www.sohu.com/a/200")
		if r.code != ExitOK || !strings.Contains(r.stdout, "reason containment") {
			t.Fatalf("exit %d, want the containment verdict:\n%s%s", r.code, r.stdout, r.stderr)
		}
	})
	t.Run("report", func(t *testing.T) {
		out := filepath.Join(t.TempDir(), "report.html")
		r := runMain("report", "--db", db, "--out", out)
		if r.code != ExitOK {
			t.Fatalf("exit %d: %s", r.code, r.stderr)
		}
		b, err := os.ReadFile(out)
		if err != nil || !strings.Contains(string(b), `<figure id="jaccard">`) {
			t.Fatalf("report: %v", err)
		}
	})
	t.Run("export", func(t *testing.T) {
		r := runMain("export", "--db", db)
		if n := strings.Count(r.stdout, "\n"); r.code != ExitOK || n != 11 {
			t.Fatalf("exit %d, %d lines, want 11: %s", r.code, n, r.stderr)
		}
	})
	t.Run("serve", func(t *testing.T) {
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		pr, pw := io.Pipe()
		done := make(chan error, 1)
		go func() {
			done <- cmdServe(ctx, []string{"--db", db, "--addr", "127.0.0.1:0"}, pw, io.Discard)
			pw.Close()
		}()
		line, err := bufio.NewReader(pr).ReadString('\n')
		if err != nil {
			t.Fatal(err)
		}
		go io.Copy(io.Discard, pr)
		if pw := passwordOf(db); pw != "" && strings.Contains(line, ":"+pw+"@") {
			t.Errorf("serve prints the password: %q", line)
		}
		u := regexp.MustCompile(`http://[0-9.:]+/`).FindString(line)
		resp, err := http.Get(u + "search?q=" + "%E5%9C%B0%E9%93%81")
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 200 || !strings.Contains(string(body), "3 result(s)") {
			t.Errorf("status %d: %s", resp.StatusCode, body)
		}
		cancel()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			t.Fatal("serve did not stop")
		}
	})
}

// passwordOf is the password of the URL db ("" when it has none).
func passwordOf(db string) string {
	u, err := url.Parse(db)
	if err != nil || u.User == nil {
		return ""
	}
	pw, _ := u.User.Password()
	return pw
}

// TestCrawlRedisFlag: --redis takes a Redis URL, and Redis needs a
// postgres:// store; both are usage errors (exit 2) before anything runs.
func TestCrawlRedisFlag(t *testing.T) {
	siteFile, db := hostileSite(t)
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"not a url", []string{"--db", db, "--redis", "queue.internal:6379"}, "--redis must be a redis://"},
		{"with a SQLite store", []string{"--db", db, "--redis", "redis://127.0.0.1:1/0"}, "is a SQLite file"},
		{"config key with a SQLite store", []string{"--db", db}, "is a SQLite file"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			site := siteFile
			if tc.name == "config key with a SQLite store" {
				b, err := os.ReadFile(siteFile)
				if err != nil {
					t.Fatal(err)
				}
				site = filepath.Join(t.TempDir(), "sites.yaml")
				if err := os.WriteFile(site, append([]byte("redis: redis://127.0.0.1:1/0\n"), b...), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			r := runMain(append([]string{"crawl", "--site", site, "--progress", "0"}, tc.args...)...)
			if r.code != ExitUsage || !strings.Contains(r.stderr, tc.want) {
				t.Fatalf("exit %d, want %d and %q:\n%s", r.code, ExitUsage, tc.want, r.stderr)
			}
			if _, err := os.Stat(db); err == nil {
				t.Errorf("the store %s was created", db)
			}
		})
	}
}

// TestReadCommandsNoStore: the reading commands on a PostgreSQL schema
// without a store, or with one written by a newer program, fail with
// ExitNoStore and a message saying what to do, and write nothing (the
// empty schema stays empty; the newer one keeps its version).
func TestReadCommandsNoStore(t *testing.T) {
	ctx := context.Background()
	commands := []struct {
		name string
		args func(db string) []string
	}{
		{"export", func(db string) []string { return []string{"export", "--db", db} }},
		{"explain", func(db string) []string { return []string{"explain", "--db", db, "https://www.sohu.com/a/200"} }},
		{"report", func(db string) []string {
			return []string{"report", "--db", db, "--out", filepath.Join(t.TempDir(), "r.html")}
		}},
		{"serve", func(db string) []string { return []string{"serve", "--db", db, "--addr", "127.0.0.1:0"} }},
	}
	stores := []struct {
		name    string
		version int // schema_version written before; 0: an empty schema
		want    string
	}{
		{"empty schema", 0, "no newscrawl store at postgres://"},
		{"newer schema", postgres.SchemaVersion + 1, "newer than this program supports"},
	}
	for _, st := range stores {
		for _, c := range commands {
			t.Run(st.name+"/"+c.name, func(t *testing.T) {
				db, schema := pgtest.Schema(t, "nc_cli_")
				conn, err := pgx.Connect(ctx, db)
				if err != nil {
					t.Fatal(err)
				}
				defer conn.Close(ctx)
				if st.version > 0 {
					if _, err := conn.Exec(ctx, fmt.Sprintf(`CREATE TABLE schema_version (one BOOLEAN PRIMARY KEY DEFAULT true, version INTEGER NOT NULL);
						INSERT INTO schema_version(version) VALUES (%d)`, st.version)); err != nil {
						t.Fatal(err)
					}
				}
				done := make(chan result, 1)
				go func() { done <- runMain(c.args(db)...) }()
				var r result
				select {
				case r = <-done:
				case <-time.After(10 * time.Second):
					t.Fatalf("%s still running after 10 s: it opened the schema as a store", c.name)
				}
				if r.code != ExitNoStore || !strings.Contains(r.stderr, st.want) {
					t.Fatalf("exit %d, want %d and %q: %s", r.code, ExitNoStore, st.want, r.stderr)
				}
				if st.version == 0 && !strings.Contains(r.stderr, "(run crawl, import or migrate first)") {
					t.Errorf("no hint what to do: %s", r.stderr)
				}
				var tables int
				if err := conn.QueryRow(ctx, `SELECT count(*) FROM pg_tables WHERE schemaname = $1`, schema).Scan(&tables); err != nil {
					t.Fatal(err)
				}
				if want := min(st.version, 1); tables != want {
					t.Errorf("%s left %d tables in the schema, want %d", c.name, tables, want)
				}
				if st.version > 0 {
					var v int
					if err := conn.QueryRow(ctx, `SELECT version FROM schema_version`).Scan(&v); err != nil || v != st.version {
						t.Errorf("schema version %d (%v), want %d", v, err, st.version)
					}
				}
			})
		}
	}
}

// TestImportPostgresHidesPassword: import's summary names a postgres://
// store without its password.
func TestImportPostgresHidesPassword(t *testing.T) {
	db, _ := pgtest.Schema(t, "nc_cli_")
	pw := passwordOf(db)
	if pw == "" {
		t.Skip("the test server's URL has no password")
	}
	in := filepath.Join(t.TempDir(), "in.jsonl")
	if err := os.WriteFile(in, []byte(`{"url":"https://x.example/1","title":"t","text":"国务院常务会议部署稳就业措施，会议指出就业是最大的民生。"}`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	r := runMain("import", "--progress", "0", "--in", in, "--db", db)
	if r.code != ExitOK {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	if !strings.Contains(r.stdout, "1 stored") || strings.Contains(r.stdout+r.stderr, ":"+pw+"@") {
		t.Errorf("summary:\n%s%s", r.stdout, r.stderr)
	}
}
