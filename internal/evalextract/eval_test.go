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
		// Regression floors, a little under the measured values (see the
		// package comment of extract for what they measure).
		floors := []struct {
			ds, metric string
			min        float64
		}{
			{"reprint-web", "mean bigram F1", 0.97},
			{"cwced", "mean bigram F1", 0.94},
			{"cwced", "date accuracy (same day)", 0.85},
			{"cwced", "author accuracy", 0.9},
			{"cwced", "date+time accuracy (labels with a time)", 0.85},
			{"trafilatura-zh", "date accuracy", 0.99},
			{"newspaper4k-zh", "date accuracy", 0.99},
			{"reprint-web", "editor accuracy (责任编辑 lines added)", 0.95},
			{"scrapinghub-en", "F1 (shingle, evaluate.py)", 0.96},
		}
		for _, f := range floors {
			if v, ok := r.Value(f.ds, f.metric); !ok || v < f.min {
				t.Errorf("%s %s = %.4f (found %v), want >= %.2f", f.ds, f.metric, v, ok, f.min)
			}
		}
		// Every set has a date accuracy row, n/a when its truth labels
		// no dates.
		for _, ds := range []string{"reprint-web", "scrapinghub-en", "trafilatura-zh", "newspaper4k-zh", "htmltotext-zh", "readability-zh"} {
			if _, ok := r.Value(ds, "date accuracy"); !ok {
				t.Errorf("%s: no date accuracy row", ds)
			}
		}
		if v, _ := r.Value("reprint-web", "pages leaking 相关阅读 block text"); v != 0 {
			t.Errorf("%v pages leak related-reading text", v)
		}
		if v, ok := r.Value("reprint-web", "authors that are not names"); !ok || v != 0 {
			t.Errorf("%v reprint-web authors are not names (found %v)", v, ok)
		}
		if v, _ := r.Value("reprint-web", "empty text"); v != 0 {
			t.Errorf("%v article pages without text", v)
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
