package pipeline

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/newsdedup/newscrawl/storage"
)

// FleetStatus is what the store says of the latest fleet run: the runs of
// the processes that crawled or imported together (runs overlapping in
// time, latest first), the pages those runs recorded counted from the
// store, and the frontier left.
type FleetStatus struct {
	Runs    []storage.Run // the fleet's runs, oldest first
	Running int           // of them, still running
	// Pages counts the pages the fleet's runs recorded, by outcome, as the
	// store holds them (a URL decided once, whichever process decided it).
	Pages storage.RunStats
	// Summaries adds the finished runs' own summaries (what each process
	// decided); it equals Pages when every run has finished.
	Summaries storage.RunStats
	Left      int // frontier URLs left (pending or in flight), all sites
}

// fleetOf returns the latest group of runs overlapping in time: the
// latest run and every run that was running at some moment of the
// group's span, oldest first. A run without a finish time (running, or
// died) is taken to last until now.
func fleetOf(runs []storage.Run, now time.Time) []storage.Run {
	if len(runs) == 0 {
		return nil
	}
	rs := slices.Clone(runs)
	slices.SortFunc(rs, func(a, b storage.Run) int { return a.StartedAt.Compare(b.StartedAt) })
	end := func(r storage.Run) time.Time {
		if r.FinishedAt.IsZero() {
			return now
		}
		return r.FinishedAt
	}
	lo := rs[len(rs)-1].StartedAt
	first := len(rs) - 1
	for i := len(rs) - 2; i >= 0; i-- {
		if end(rs[i]).Before(lo) {
			break
		}
		if rs[i].StartedAt.Before(lo) {
			lo = rs[i].StartedAt
		}
		first = i
	}
	return rs[first:]
}

// Fleet reads the status of the latest fleet run from the store at db
// (read-only).
func Fleet(ctx context.Context, db string, now time.Time) (FleetStatus, error) {
	store, err := OpenExisting(ctx, db)
	if err != nil {
		return FleetStatus{}, err
	}
	defer store.Close()
	runs, err := store.Runs(ctx)
	if err != nil {
		return FleetStatus{}, fmt.Errorf("runs: %w", err)
	}
	st := FleetStatus{Runs: fleetOf(runs, now)}
	ids := map[int64]bool{}
	for _, r := range st.Runs {
		ids[r.ID] = true
		if r.Status == storage.RunRunning {
			st.Running++
		}
		st.Summaries.Stored += r.Stats.Stored
		st.Summaries.Duplicates += r.Stats.Duplicates
		st.Summaries.NotArticle += r.Stats.NotArticle
		st.Summaries.Errors += r.Stats.Errors
		st.Summaries.Parts += r.Stats.Parts
	}
	err = store.Pages(ctx, func(p storage.Page) error {
		if !ids[p.RunID] {
			return nil
		}
		switch p.Outcome {
		case storage.OutcomeStored:
			st.Pages.Stored++
		case storage.OutcomeDuplicate:
			st.Pages.Duplicates++
		case storage.OutcomeNotArticle:
			st.Pages.NotArticle++
		case storage.OutcomeError:
			st.Pages.Errors++
		case storage.OutcomePart:
			st.Pages.Parts++
		}
		return nil
	})
	if err != nil {
		return FleetStatus{}, fmt.Errorf("pages: %w", err)
	}
	if st.Left, err = store.Pending(ctx, ""); err != nil {
		return FleetStatus{}, err
	}
	return st, nil
}
