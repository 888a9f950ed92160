package cli

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestExportImportRoundTrip: the JSONL that export writes is accepted by
// import (into a new store, which then holds the stored articles) and by
// dedup --in; a key that is neither the input's nor the export's is an
// error naming the line unless --lenient is given.
func TestExportImportRoundTrip(t *testing.T) {
	dir := t.TempDir()
	corpus := filepath.Join(dir, "corpus.jsonl")
	if r := runMain("export", "--db", sampleDB(t), "--out", corpus); r.code != ExitOK {
		t.Fatalf("export: exit %d: %s", r.code, r.stderr)
	}
	extra := filepath.Join(dir, "extra.jsonl")
	if err := os.WriteFile(extra, []byte(`{"url":"https://x.example/1","text":"正文","body":"x"}`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	stored := regexp.MustCompile(`: (\d+) stored`)
	for _, tc := range []struct {
		name     string
		args     []string
		code     int
		want     string // in stdout (ExitOK) or stderr
		noStored bool   // the summary says 0 stored
	}{
		{"import an export", []string{"import", "--progress", "0", "--in", corpus, "--db", filepath.Join(dir, "a.db")}, ExitOK, "stored", false},
		{"dedup an export", []string{"dedup", "--in", corpus}, ExitOK, `"kept"`, false},
		{"import an unknown key", []string{"import", "--progress", "0", "--in", extra, "--db", filepath.Join(dir, "b.db")}, ExitFailure, `extra.jsonl:1: unknown key "body"`, false},
		{"import an unknown key, lenient", []string{"import", "--progress", "0", "--lenient", "--in", extra, "--db", filepath.Join(dir, "c.db")}, ExitOK, "1 stored", false},
		{"dedup an unknown key", []string{"dedup", "--in", extra}, ExitFailure, `unknown key "body"`, false},
		{"dedup an unknown key, lenient", []string{"dedup", "--lenient", "--in", extra}, ExitOK, `"https://x.example/1"`, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := runMain(tc.args...)
			if r.code != tc.code {
				t.Fatalf("exit %d, want %d: %s", r.code, tc.code, r.stderr)
			}
			out := r.stderr
			if tc.code == ExitOK {
				out = r.stdout
			}
			if !strings.Contains(out, tc.want) {
				t.Fatalf("output lacks %q:\n%s", tc.want, out)
			}
			if m := stored.FindStringSubmatch(r.stdout); tc.args[0] == "import" && tc.code == ExitOK && (m == nil || m[1] == "0") {
				t.Fatalf("nothing stored:\n%s", r.stdout)
			}
		})
	}
}

// TestImportStoreDoesNotOpen: an import whose store does not open prints
// the error with the URL's password hidden and no all-zero summary.
func TestImportStoreDoesNotOpen(t *testing.T) {
	in := filepath.Join(t.TempDir(), "in.jsonl")
	if err := os.WriteFile(in, []byte(`{"url":"https://x.example/1","text":"正文"}`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	r := runMain("import", "--progress", "0", "--in", in, "--db", "postgres://newscrawl:s3cret@127.0.0.1:1/news?connect_timeout=2")
	if r.code != ExitFailure {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	if strings.Contains(r.stdout+r.stderr, "s3cret") {
		t.Errorf("password shown:\n%s%s", r.stdout, r.stderr)
	}
	if strings.Contains(r.stdout, "0 read") {
		t.Errorf("all-zero summary printed:\n%s", r.stdout)
	}
}

// TestExportCSVBOM: --bom starts a CSV export with the UTF-8 byte order
// mark (Excel reads the file as UTF-8 then); without it there is none, and
// --bom with another format is a usage error.
func TestExportCSVBOM(t *testing.T) {
	db := sampleDB(t)
	dir := t.TempDir()
	for _, tc := range []struct {
		name    string
		args    []string
		code    int
		wantBOM bool
	}{
		{"csv --bom", []string{"--format", "csv", "--bom"}, ExitOK, true},
		{"csv", []string{"--format", "csv"}, ExitOK, false},
		{"jsonl --bom", []string{"--bom"}, ExitUsage, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out := filepath.Join(dir, strings.ReplaceAll(tc.name, " ", "_")+".csv")
			r := runMain(append([]string{"export", "--db", db, "--out", out}, tc.args...)...)
			if r.code != tc.code {
				t.Fatalf("exit %d, want %d: %s", r.code, tc.code, r.stderr)
			}
			if tc.code != ExitOK {
				return
			}
			b, err := os.ReadFile(out)
			if err != nil {
				t.Fatal(err)
			}
			rest, hasBOM := strings.CutPrefix(string(b), "\xef\xbb\xbf")
			if hasBOM != tc.wantBOM {
				t.Fatalf("BOM %v, want %v", hasBOM, tc.wantBOM)
			}
			if !strings.HasPrefix(rest, "run_id,url,") {
				t.Errorf("header row %q", rest[:min(len(rest), 40)])
			}
		})
	}
}
