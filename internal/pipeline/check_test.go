package pipeline

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"
)

// fakeChecker records which checks ran.
type fakeChecker struct {
	last              time.Time
	fullErr           error
	full, small       int
	recorded          time.Time
	recordedAnyChecks bool
}

func (f *fakeChecker) QuickCheck(context.Context) error      { f.full++; return f.fullErr }
func (f *fakeChecker) QuickCheckSmall(context.Context) error { f.small++; return nil }
func (f *fakeChecker) LastQuickCheck(context.Context) (time.Time, error) {
	return f.last, nil
}
func (f *fakeChecker) RecordQuickCheck(_ context.Context, t time.Time) error {
	f.recorded, f.recordedAnyChecks = t, true
	return nil
}

// TestCheckStore: a crawl checks the small tables only, whatever the
// last full check; it says when that was and whether it is overdue (none
// recorded, older than FullCheckOverdue, or in the future), and records
// nothing.
func TestCheckStore(t *testing.T) {
	now := time.Date(2026, 11, 23, 18, 0, 0, 0, time.UTC)
	tests := []struct {
		name        string
		last        time.Time
		wantOverdue bool
		wantWhat    string
	}{
		{name: "never checked", wantOverdue: true, wantWhat: "small tables; no full check recorded"},
		{name: "checked an hour ago", last: now.Add(-time.Hour), wantWhat: "small tables; last full check 2026-11-23T17:00:00Z"},
		{name: "checked a day ago", last: now.Add(-24 * time.Hour), wantWhat: "small tables; last full check 2026-11-22T18:00:00Z"},
		{name: "checked two days ago", last: now.Add(-FullCheckOverdue), wantOverdue: true, wantWhat: "small tables; last full check 2026-11-21T18:00:00Z is overdue"},
		{name: "check recorded in the future", last: now.Add(time.Hour), wantOverdue: true, wantWhat: "small tables; last full check 2026-11-23T19:00:00Z is overdue"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := &fakeChecker{last: tt.last, fullErr: errors.New("the crawl must not run the full check")}
			what, overdue, err := checkStore(context.Background(), f, now)
			if err != nil {
				t.Fatal(err)
			}
			if f.full != 0 || f.small != 1 {
				t.Fatalf("full checks %d, small %d; want 0 and 1", f.full, f.small)
			}
			if overdue != tt.wantOverdue {
				t.Errorf("overdue %v, want %v", overdue, tt.wantOverdue)
			}
			if !strings.HasPrefix(what, tt.wantWhat) {
				t.Errorf("what = %q, want prefix %q", what, tt.wantWhat)
			}
			if f.recordedAnyChecks {
				t.Error("the crawl recorded a full check it did not run")
			}
		})
	}
}
