package evalextract

import (
	"context"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/newsdedup/newscrawl/extract"
	"github.com/newsdedup/newscrawl/internal/devdata/devdatatest"
)

// TestEvalReport runs the full measurement and prints the table (go test -v).
// EVAL_ONLY restricts it to one dataset; EVAL_WORST lists that many worst pages.
func TestEvalReport(t *testing.T) {
	r, err := Run(context.Background(), Config{Shared: devdatatest.Dir(t), Only: os.Getenv("EVAL_ONLY"), Options: extract.Options{StripMetaLines: os.Getenv("EVAL_STRIPMETA") != "", Engine: os.Getenv("EVAL_ENGINE")}})
	if err != nil {
		t.Fatal(err)
	}
	var sb strings.Builder
	if err := r.WriteTable(&sb); err != nil {
		t.Fatal(err)
	}
	t.Log("\n" + sb.String())
	if os.Getenv("EVAL_ONLY") == "" && os.Getenv("EVAL_STRIPMETA") == "" {
		// The figures' floors (F1, dates, authors, leaks, empty texts)
		// are in internal/quality/floors.json, checked by
		// TestQualityFloors; this test checks the table's shape.
		// Every set has a date accuracy row, n/a when its truth labels
		// no dates.
		for _, ds := range []string{"reprint-web", "scrapinghub-en", "trafilatura-zh", "newspaper4k-zh", "htmltotext-zh", "readability-zh"} {
			if _, ok := r.Value(ds, "date accuracy"); !ok {
				t.Errorf("%s: no date accuracy row", ds)
			}
		}
		for _, row := range r.Rows {
			if row.Metric == "non-article pages rejected (ErrNoArticle)" && int(row.Value) != row.Pages {
				t.Errorf("only %v of %d non-article pages rejected: %s", row.Value, row.Pages, row.Note)
			}
		}
	}
	if path := os.Getenv("EVAL_DUMP"); path != "" {
		var b strings.Builder
		for _, p := range r.Pages {
			fmt.Fprintf(&b, "%s\t%s\t%.4f\t%s\n", p.Dataset, p.ID, p.F1, p.Err)
		}
		if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if os.Getenv("EVAL_WORST") != "" {
		for _, p := range r.Worst(40) {
			if os.Getenv("EVAL_WORST") != "all" && !strings.Contains(p.Dataset, os.Getenv("EVAL_WORST")) {
				continue
			}
			t.Logf("%-12s %.3f %s %s", p.Dataset, p.F1, p.ID, p.Err)
		}
	}
}
