package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestCommandLineErrors: a mistake in a flag or a path gets a one-line
// message that says what is wrong and the exit code of its kind.
func TestCommandLineErrors(t *testing.T) {
	db := sampleDB(t)
	dir := t.TempDir()
	file := filepath.Join(dir, "file")
	if err := os.WriteFile(file, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		args []string
		code int
		want []string // in stderr
		not  []string // not in stdout or stderr
	}{
		{"export --db in a missing folder", []string{"export", "--db", filepath.Join(dir, "nope", "x.db"), "--out", filepath.Join(dir, "y.jsonl")},
			ExitNoStore, []string{"no newscrawl store at", "no folder"}, []string{"stat "}},
		{"export --db in a missing folder to stdout", []string{"export", "--db", filepath.Join(dir, "nope", "x.db")},
			ExitNoStore, []string{"no newscrawl store at", "no folder"}, nil},
		{"export --db through a file", []string{"export", "--db", filepath.Join(file, "x.db"), "--out", filepath.Join(dir, "y.jsonl")},
			ExitNoStore, []string{"not a folder"}, []string{"stat "}},
		{"export --db http URL", []string{"export", "--db", "http://u:s3cret@example.com/news"},
			ExitUsage, []string{"not a store URL"}, []string{"s3cret", "no newscrawl store"}},
		{"report --db https URL", []string{"report", "--db", "https://example.com/news", "--out", filepath.Join(dir, "r.html")},
			ExitUsage, []string{"not a store URL"}, nil},
		{"export --out in a missing folder", []string{"export", "--db", db, "--out", filepath.Join(dir, "nope", "x.jsonl")},
			ExitFailure, []string{"no folder " + filepath.Join(dir, "nope")}, []string{".x.jsonl"}},
		{"check --db through a file", []string{"check", "--db", filepath.Join(file, "x.db")},
			ExitNoStore, []string{"not a folder"}, []string{"stat "}},
		{"check --db http URL", []string{"check", "--db", "http://example.com/news"},
			ExitUsage, []string{"not a store URL"}, nil},
		{"migrate --from in a missing folder", []string{"migrate", "--from", filepath.Join(dir, "nope", "x.db"), "--to", "postgres://u@127.0.0.1:1/x"},
			ExitNoStore, []string{"no newscrawl store at"}, []string{"stat "}},
		{"--progress in bare seconds", []string{"import", "--progress", "5", "--in", filepath.Join(dir, "absent.jsonl")},
			ExitFailure, []string{"absent.jsonl"}, []string{"parse error", "Flags:"}},
		{"--progress not a duration", []string{"crawl", "--progress", "5x"},
			ExitUsage, []string{`invalid value "5x" for flag -progress`}, []string{"Flags:", "usage:"}},
		{"unknown flag", []string{"export", "--nope"},
			ExitUsage, []string{"flag provided but not defined: -nope"}, []string{"Flags:"}},
		{"explain with flags after the URL", []string{"explain", "https://www.sohu.com/a/200", "--db", db},
			ExitOK, nil, []string{"arguments"}},
		{"unknown command", []string{"crawll"},
			ExitUsage, []string{`unknown command "crawll"; did you mean "crawl"?`}, []string{"commands:"}},
		{"unknown command, no suggestion", []string{"zzzzzz"},
			ExitUsage, []string{`unknown command "zzzzzz" (`}, []string{"did you mean"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := runMain(tc.args...)
			if r.code != tc.code {
				t.Fatalf("exit %d, want %d:\n%s", r.code, tc.code, r.stderr)
			}
			for _, w := range tc.want {
				if !strings.Contains(r.stderr, w) {
					t.Errorf("stderr lacks %q:\n%s", w, r.stderr)
				}
			}
			for _, w := range tc.not {
				if strings.Contains(r.stdout+r.stderr, w) {
					t.Errorf("output has %q:\n%s%s", w, r.stdout, r.stderr)
				}
			}
			if tc.code != ExitOK && strings.Count(strings.TrimSpace(r.stderr), "\n") > 0 {
				t.Errorf("more than one line on stderr:\n%s", r.stderr)
			}
		})
	}
}

// TestHelpExitCodes: -h prints the help to stdout with exit 0, and each
// command's help lists the exit codes it can return and no other.
func TestHelpExitCodes(t *testing.T) {
	for _, tc := range []struct {
		cmd       string
		has, lack []string
	}{
		{"crawl", []string{"3 another crawl", "4 the crawl could fetch nothing", "5 no store", "6 the crawl stopped with URLs left", "130 interrupted"}, nil},
		{"export", []string{"1 failure", "5 no store"}, []string{"3 another", "4 the crawl", "6 the crawl"}},
		{"check", []string{"1 failure", "5 no store"}, []string{"3 another", "4 the crawl"}},
		{"import", []string{"3 another crawl or import", "5 no store"}, []string{"4 the crawl"}},
		{"dedup", []string{"1 failure", "2 bad flags"}, []string{"3 another", "4 the crawl", "5 no store"}},
		{"extract", []string{"1 failure"}, []string{"3 another", "4 the crawl", "5 no store"}},
		{"version", []string{"0 done; 2 bad flags."}, []string{"1 failure", "130"}},
	} {
		t.Run(tc.cmd, func(t *testing.T) {
			r := runMain(tc.cmd, "-h")
			if r.code != ExitOK || r.stderr != "" {
				t.Fatalf("exit %d, stderr %q", r.code, r.stderr)
			}
			_, codes, _ := strings.Cut(r.stdout, "Exit codes:")
			codes = strings.Join(strings.Fields(codes), " ")
			for _, w := range tc.has {
				if !strings.Contains(codes, w) {
					t.Errorf("exit codes lack %q: %s", w, codes)
				}
			}
			for _, w := range tc.lack {
				if strings.Contains(codes, w) {
					t.Errorf("exit codes list %q: %s", w, codes)
				}
			}
		})
	}
}
