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

// TestCheckStore: the full check runs when none was recorded within
// FullCheckEvery (and is recorded), the small one otherwise; a failed full
// check is an error and is not recorded.
func TestCheckStore(t *testing.T) {
	now := time.Date(2026, 11, 23, 18, 0, 0, 0, time.UTC)
	damage := errors.New("store file is damaged")
	tests := []struct {
		name      string
		last      time.Time
		fullErr   error
		wantFull  bool
		wantErr   bool
		wantWhat  string
		wantSaved bool
	}{
		{name: "never checked", wantFull: true, wantWhat: "full", wantSaved: true},
		{name: "checked an hour ago", last: now.Add(-time.Hour), wantWhat: "small tables"},
		{name: "checked a day ago", last: now.Add(-FullCheckEvery), wantFull: true, wantWhat: "full", wantSaved: true},
		{name: "check recorded in the future", last: now.Add(time.Hour), wantFull: true, wantWhat: "full", wantSaved: true},
		{name: "full check finds damage", fullErr: damage, wantFull: true, wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := &fakeChecker{last: tt.last, fullErr: tt.fullErr}
			what, err := checkStore(context.Background(), f, now)
			if (err != nil) != tt.wantErr {
				t.Fatalf("error %v, want error %v", err, tt.wantErr)
			}
			if (f.full == 1) != tt.wantFull || f.full+f.small != 1 {
				t.Fatalf("full checks %d, small %d; want full %v", f.full, f.small, tt.wantFull)
			}
			if !strings.HasPrefix(what, tt.wantWhat) {
				t.Errorf("what = %q, want %q", what, tt.wantWhat)
			}
			if f.recordedAnyChecks != tt.wantSaved || tt.wantSaved && !f.recorded.Equal(now) {
				t.Errorf("recorded %v at %v, want %v", f.recordedAnyChecks, f.recorded, tt.wantSaved)
			}
		})
	}
}
