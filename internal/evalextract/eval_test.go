package evalextract

import (
	"context"
	"fmt"
	"github.com/newsdedup/newscrawl/extract"
	"os"
	"strings"
	"testing"
)

func sharedOrSkip(t testing.TB) string {
	t.Helper()
	dir, err := FindShared(".")
	if err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("shared data required in CI: %v", err)
		}
		t.Skipf("shared data not available: %v", err)
	}
	return dir
}

// TestEvalReport runs the full measurement and prints the table (go test -v).
// EVAL_ONLY restricts it to one dataset; EVAL_WORST lists that many worst pages.
func TestEvalReport(t *testing.T) {
	shared := sharedOrSkip(t)
	r, err := Run(context.Background(), Config{Shared: shared, Only: os.Getenv("EVAL_ONLY"), Options: extract.Options{StripMetaLines: os.Getenv("EVAL_STRIPMETA") != ""}})
	if err != nil {
		t.Fatal(err)
	}
	var sb strings.Builder
	if err := r.WriteTable(&sb); err != nil {
		t.Fatal(err)
	}
	t.Log("\n" + sb.String())
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
