package dedup

import (
	"math"
	"testing"
	"time"
)

// TestImageWindow: a lead image entry before the engine's window is not
// evidence, one at or after its start is; expire drops the older ones
// from the image index.
func TestImageWindow(t *testing.T) {
	t0 := time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		name  string
		time  time.Time // the stored entry's
		since time.Time // the window's start
		dup   bool
	}{
		{"no window", t0, time.Time{}, true},
		{"within", t0, t0.Add(-time.Hour), true},
		{"at the start", t0, t0, true},
		{"before the start", t0, t0.Add(time.Nanosecond), false},
		{"unknown time, window", time.Time{}, t0, false},
		{"unknown time, no window", time.Time{}, time.Time{}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := testEngine(t, Options{})
			fp := e.Fingerprint("东湖冰景", "图为昨日清晨的江城东湖。")
			check(t, e.Restore(t.Context(), Entry{ID: 7, Cluster: 5, Simhash: fp.Simhash, Signature: fp.Signature, Hash: fp.Hash,
				Title: fp.Title, Image: photoFP, Time: tc.time}))
			e.SetWindow(tc.since)
			q := e.Fingerprint("东湖的冰", "东湖边的冰。")
			q.Image = changed(photoFP, 3)
			if v := decide(t, e, q); v.Duplicate != tc.dup {
				t.Fatalf("verdict %+v, want duplicate=%v", v, tc.dup)
			}
			e.images.expire(SinceKey(tc.since))
			if want := map[bool]int{true: 1, false: 0}[tc.dup]; e.Images() != want {
				t.Errorf("after expire: %d images, want %d", e.Images(), want)
			}
		})
	}
}

// TestTimeKey: the keys order like the times, the zero time below all.
func TestTimeKey(t *testing.T) {
	ts := []time.Time{{}, time.Date(1000, 1, 1, 0, 0, 0, 0, time.UTC), time.Unix(0, math.MinInt64+1), time.Unix(-1, 0),
		time.Unix(0, 0), time.Unix(0, 1), time.Date(2026, 3, 1, 0, 0, 0, 5, time.UTC), time.Unix(0, math.MaxInt64)}
	for i := 1; i < len(ts); i++ {
		if a, b := TimeKey(ts[i-1]), TimeKey(ts[i]); a > b || (a == b && i != 2) {
			t.Errorf("TimeKey(%v) = %d, TimeKey(%v) = %d: out of order", ts[i-1], a, ts[i], b)
		}
	}
	if TimeKey(time.Date(3000, 1, 1, 0, 0, 0, 0, time.UTC)) != math.MaxInt64 || SinceKey(time.Time{}) != math.MinInt64 {
		t.Error("times past the range are not clamped, or the zero window does not admit everything")
	}
}
