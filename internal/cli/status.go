package cli

import (
	"context"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/newsdedup/newscrawl/internal/pipeline"
	"github.com/newsdedup/newscrawl/storage"
)

func cmdStatus(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlags("status", stderr)
	db := fs.String("db", "data/news.db", "store to read: a SQLite file or a postgres:// URL")
	if err := fs.Parse(args); err != nil {
		return usageError{err}
	}
	if fs.NArg() > 0 {
		return usagef("status: unexpected arguments %q", fs.Args())
	}
	st, err := pipeline.Fleet(ctx, *db, time.Now())
	if err != nil {
		return fmt.Errorf("status: %w", err)
	}
	printFleet(stdout, pipeline.StoreName(*db), st)
	return nil
}

// printFleet writes the status of the latest fleet run.
func printFleet(w io.Writer, store string, st pipeline.FleetStatus) {
	if len(st.Runs) == 0 {
		fmt.Fprintf(w, "%s: no run yet\n", store)
		return
	}
	ids := make([]string, len(st.Runs))
	byStatus := map[string]int{}
	for i, r := range st.Runs {
		ids[i] = fmt.Sprint(r.ID)
		byStatus[r.Status]++
	}
	var states []string
	for _, s := range []string{storage.RunRunning, storage.RunCompleted, storage.RunInterrupted, storage.RunFailed} {
		if byStatus[s] > 0 {
			states = append(states, fmt.Sprintf("%d %s", byStatus[s], s))
		}
	}
	fmt.Fprintf(w, "%s: latest fleet run: %d process run(s) (runs %s), started %s: %s\n", store, len(st.Runs),
		strings.Join(ids, ", "), st.Runs[0].StartedAt.Format(time.RFC3339), strings.Join(states, ", "))
	p := st.Pages
	fmt.Fprintf(w, "  recorded in the store: %d stored, %d duplicates, %d not_article, %d errors, %d parts\n",
		p.Stored, p.Duplicates, p.NotArticle, p.Errors, p.Parts)
	s := st.Summaries
	fmt.Fprintf(w, "  the finished runs' summaries: %d stored, %d duplicates, %d not_article, %d errors, %d parts\n",
		s.Stored, s.Duplicates, s.NotArticle, s.Errors, s.Parts)
	fmt.Fprintf(w, "  frontier: %d URLs left\n", st.Left)
}
