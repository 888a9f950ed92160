package cli

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/newsdedup/newscrawl/storage"
	"github.com/newsdedup/newscrawl/storage/sqlite"
)

// recordSettings sets the dedup settings every run of the store at db
// recorded, as a crawl with those settings would.
func recordSettings(t *testing.T, db string, set storage.RunSettings) {
	t.Helper()
	ctx := context.Background()
	s, err := sqlite.Open(ctx, db)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	runs, err := s.Runs(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range runs {
		r.Stats.Settings = &set
		if err := s.FinishRun(ctx, r); err != nil {
			t.Fatal(err)
		}
	}
}

// TestThresholdsFromRuns: explain, report and serve show the thresholds
// the verdict's run recorded without --site; --site and the threshold
// flags still override them; a store whose runs recorded none says the
// defaults are shown.
func TestThresholdsFromRuns(t *testing.T) {
	const dup = "https://www.sohu.com/a/200"
	plain := sampleDB(t)
	if r := runMain("explain", "--db", plain, dup); r.code != ExitOK || !strings.Contains(r.stdout, "thresholds: the engine's defaults; the run recorded none") ||
		!strings.Contains(r.stdout, "duplicate when >= 0.35") {
		t.Fatalf("explain without recorded settings:\n%s%s", r.stdout, r.stderr)
	}
	db := sampleDB(t)
	recordSettings(t, db, storage.RunSettings{Index: "lsh", Hamming: 4, Jaccard: 0.42, Antecedents: "learned"})
	for _, tc := range []struct {
		name  string
		extra []string
		want  []string
	}{
		{"recorded", nil, []string{"thresholds: recorded by run ", "duplicate when >= 0.42", "candidate when <= 4"}},
		{"flags override", []string{"--jaccard", "0.5"}, []string{"thresholds: from flags", "duplicate when >= 0.50"}},
	} {
		t.Run("explain "+tc.name, func(t *testing.T) {
			r := runMain(append(append([]string{"explain", "--db", db}, tc.extra...), dup)...)
			for _, w := range tc.want {
				if r.code != ExitOK || !strings.Contains(r.stdout, w) {
					t.Fatalf("want %q:\n%s%s", w, r.stdout, r.stderr)
				}
			}
		})
	}
	t.Run("report", func(t *testing.T) {
		out := filepath.Join(t.TempDir(), "report.html")
		if r := runMain("report", "--db", db, "--out", out); r.code != ExitOK {
			t.Fatalf("exit %d: %s", r.code, r.stderr)
		}
		b, _ := os.ReadFile(out)
		if !strings.Contains(string(b), "Jaccard τ = 0.42") || !strings.Contains(string(b), "(run ") {
			t.Errorf("report does not show the recorded thresholds")
		}
	})
}
