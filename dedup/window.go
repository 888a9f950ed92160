package dedup

import (
	"context"
	"fmt"
	"math"
	"time"
)

// The dedup window. A store configured with a window compares a page only
// with the articles and duplicates fetched or published within it
// (config dedup.window): an entry is in the window starting at since when
// its fetch time or its publication time is at or after since
// (WindowTime is the later of the two, so the rule is Time ≥ since). An
// index rebuilt from the store holds only the entries in the window; an
// index kept across runs (a snapshot) holds older ones too, and a
// Windowed index skips those at query time (Query.Since) and drops them
// when asked (Expire, at the snapshot's compaction).

// Windowed is an Index that keeps each entry's Time, proposes no entry
// before Query.Since, and can drop the entries before a time.
type Windowed interface {
	// Expire removes the entries whose Time is before since and returns
	// how many it removed.
	Expire(ctx context.Context, since time.Time) (int, error)
}

// WindowTime is an entry's place in the dedup window: the later of its
// fetch and publication times (either may be zero: unknown).
func WindowTime(fetched, published time.Time) time.Time {
	if published.After(fetched) {
		return published
	}
	return fetched
}

// TimeKey is t as an integer that orders like t, for indexes that keep
// times in arrays: Unix nanoseconds, the zero time (unknown) below every
// other, times outside the nanosecond range clamped to its ends.
func TimeKey(t time.Time) int64 {
	switch {
	case t.IsZero():
		return math.MinInt64
	case t.Before(minTimeKey):
		return math.MinInt64 + 1
	case t.After(maxTimeKey):
		return math.MaxInt64
	}
	return t.UnixNano()
}

// The range of times UnixNano represents.
var (
	minTimeKey = time.Unix(0, math.MinInt64+1)
	maxTimeKey = time.Unix(0, math.MaxInt64)
)

// SinceKey is the TimeKey a query's Since compares with (every entry
// when since is zero).
func SinceKey(since time.Time) int64 {
	if since.IsZero() {
		return math.MinInt64
	}
	return TimeKey(since)
}

// SetWindow makes since the start of the engine's dedup window: entries
// whose Time is before it are not compared with (zero: no window). Over
// an index that is not Windowed the caller must index only the entries
// within the window.
func (e *Engine) SetWindow(since time.Time) { e.since = since }

// Windowed reports whether the engine's index keeps the entries' times
// (Windowed), so that it can hold entries outside the window.
func (e *Engine) Windowed() bool {
	_, ok := e.index.(Windowed)
	return ok
}

// Expire drops the entries whose Time is before since from the index and
// the lead-image index, and returns how many index entries it dropped.
// It returns ErrNoSnapshot when the index does not keep times.
func (e *Engine) Expire(ctx context.Context, since time.Time) (int, error) {
	w, ok := e.index.(Windowed)
	if !ok {
		return 0, fmt.Errorf("dedup: %T keeps no times: %w", e.index, ErrNoSnapshot)
	}
	n, err := w.Expire(ctx, since)
	if err != nil {
		return n, fmt.Errorf("dedup: expire: %w", err)
	}
	e.images.expire(SinceKey(since))
	return n, nil
}

// expire rebuilds the image index without the entries before since
// (a TimeKey).
func (x *imageIndex) expire(since int64) {
	old := x.entries
	x.entries, x.bands = nil, map[bandKey][]int{}
	for _, en := range old {
		if en.at >= since {
			x.insert(en)
		}
	}
	x.mark = min(x.mark, len(x.entries))
}
