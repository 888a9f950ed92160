package redisfrontier_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/newsdedup/newscrawl/storage/memory"
	"github.com/newsdedup/newscrawl/storage/redisfrontier"
)

// TestHold: a hold moves every process's next reservation of the host to
// at least now + d; a shorter hold does not bring a later one forward.
func TestHold(t *testing.T) {
	u := serverURL(t)
	ns := namespace(t, u)
	m := memory.New()
	defer m.Close()
	ctx := context.Background()
	a, b := openFrontier(t, u, ns, m), openFrontier(t, u, ns, m)
	tests := []struct {
		name    string
		hold    time.Duration
		atLeast time.Duration // next start - now, at least
	}{
		{"hold 400ms", 400 * time.Millisecond, 390 * time.Millisecond},
		{"shorter hold keeps the later start", 10 * time.Millisecond, 300 * time.Millisecond},
		{"zero hold changes nothing", 0, 0},
	}
	host := "held.example"
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if tc.hold == 0 {
				host = "unheld.example"
			}
			if err := a.Hold(ctx, host, tc.hold); err != nil {
				t.Fatal(err)
			}
			got, err := redisfrontier.Claim(ctx, b, host, 0)
			if err != nil {
				t.Fatal(err)
			}
			if got < tc.atLeast || (tc.atLeast == 0 && got != 0) {
				t.Fatalf("next start %v after now, want >= %v", got, tc.atLeast)
			}
		})
	}
}

// TestOnce: callers of three frontiers (three processes) asking for one key
// at once get one value from one fetch; a fetch error is not cached; the
// lock of a holder that died is broken once its owner key expires.
func TestOnce(t *testing.T) {
	u := serverURL(t)
	ns := namespace(t, u)
	m := memory.New()
	defer m.Close()
	ctx := context.Background()
	fs := []*redisfrontier.Frontier{openFrontier(t, u, ns, m), openFrontier(t, u, ns, m), openFrontier(t, u, ns, m)}

	t.Run("one fetch for all callers", func(t *testing.T) {
		var calls atomic.Int32
		var wg sync.WaitGroup
		for i := range 9 {
			wg.Go(func() {
				v, err := fs[i%3].Once(ctx, "robots:http://a", func(context.Context) ([]byte, time.Duration, error) {
					calls.Add(1)
					time.Sleep(100 * time.Millisecond) // the others arrive meanwhile
					return []byte("body"), time.Minute, nil
				})
				if err != nil || string(v) != "body" {
					t.Errorf("Once = %q, %v", v, err)
				}
			})
		}
		wg.Wait()
		if n := calls.Load(); n != 1 {
			t.Fatalf("fetch ran %d times, want 1", n)
		}
	})
	t.Run("quick fetches, many rounds", func(t *testing.T) {
		// A caller arriving as the holder caches the value and releases
		// the lock must get the value, not the lock (and fetch again).
		for round := range 200 {
			var calls atomic.Int32
			var wg sync.WaitGroup
			key := fmt.Sprintf("k:round%d", round)
			for i := range 6 {
				wg.Go(func() {
					_, err := fs[i%3].Once(ctx, key, func(context.Context) ([]byte, time.Duration, error) {
						calls.Add(1)
						return []byte("v"), time.Minute, nil
					})
					if err != nil {
						t.Error(err)
					}
				})
			}
			wg.Wait()
			if n := calls.Load(); n != 1 {
				t.Fatalf("round %d: fetch ran %d times, want 1", round, n)
			}
		}
	})
	t.Run("error not cached", func(t *testing.T) {
		boom := errors.New("boom")
		_, err := fs[0].Once(ctx, "k:err", func(context.Context) ([]byte, time.Duration, error) { return nil, 0, boom })
		if !errors.Is(err, boom) {
			t.Fatalf("Once = %v, want the fetch's error", err)
		}
		v, err := fs[1].Once(ctx, "k:err", func(context.Context) ([]byte, time.Duration, error) { return []byte("ok"), time.Minute, nil })
		if err != nil || string(v) != "ok" {
			t.Fatalf("after an error: Once = %q, %v; want a new fetch", v, err)
		}
	})
	t.Run("zero ttl is an error", func(t *testing.T) {
		if _, err := fs[0].Once(ctx, "k:ttl", func(context.Context) ([]byte, time.Duration, error) { return []byte("x"), 0, nil }); err == nil {
			t.Fatal("Once with a zero time to live succeeded")
		}
	})
	t.Run("dead holder", func(t *testing.T) {
		const lease = time.Second
		dead, err := redisfrontier.OpenWith(ctx, u, ns, m, lease, 100*time.Millisecond)
		if err != nil {
			t.Fatal(err)
		}
		held, release, gone := make(chan struct{}), make(chan struct{}), make(chan struct{})
		go func() {
			defer close(gone)
			dead.Once(ctx, "k:dead", func(context.Context) ([]byte, time.Duration, error) { //nolint:errcheck // the holder dies
				close(held)
				<-release // the process is killed while fetching
				return nil, 0, errors.New("killed")
			})
		}()
		defer func() { close(release); <-gone }()
		<-held
		redisfrontier.Kill(dead)
		wctx, cancel := context.WithTimeout(ctx, 10*time.Second)
		defer cancel()
		t0 := time.Now()
		v, err := fs[0].Once(wctx, "k:dead", func(context.Context) ([]byte, time.Duration, error) { return []byte("v"), time.Minute, nil })
		if err != nil || string(v) != "v" {
			t.Fatalf("Once after the holder died = %q, %v", v, err)
		}
		if d := time.Since(t0); d > lease+5*time.Second {
			t.Errorf("waited %v for a dead holder", d)
		}
	})
}

// TestWaitLateWake: a Wait that wakes well after the host's next start
// (its process stalled) claims the host when it wakes, not at the start it
// waited for, so the host's next request is a delay after the request
// actually sent.
func TestWaitLateWake(t *testing.T) {
	u := serverURL(t)
	ns := namespace(t, u)
	m := memory.New()
	defer m.Close()
	ctx := context.Background()
	const delay, stall = 200 * time.Millisecond, 300 * time.Millisecond
	tests := []struct {
		name  string
		stall time.Duration
	}{
		{"on time", 0},
		{"stalled past the start", stall},
	}
	other := openFrontier(t, u, ns, m)
	for i, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			stalled := false
			f, err := redisfrontier.OpenWithWakeHook(ctx, u, ns, m, func() {
				if !stalled {
					stalled = true
					time.Sleep(tc.stall)
				}
			})
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			host := fmt.Sprintf("late%d.example", i)
			// The host was just claimed: f's Wait sleeps, then stalls.
			_, c0, err := redisfrontier.ClaimAt(ctx, other, host, delay)
			if err != nil {
				t.Fatal(err)
			}
			c1, err := redisfrontier.WaitAt(ctx, f, host, delay)
			if err != nil {
				t.Fatal(err)
			}
			us := func(d time.Duration) int64 { return d.Microseconds() }
			if c1-c0 < us(delay+tc.stall) {
				t.Fatalf("claimed %v after the previous claim, want >= %v (the delay and the stall)", time.Duration(c1-c0)*time.Microsecond, delay+tc.stall)
			}
			wait, now, err := redisfrontier.ClaimAt(ctx, other, host, 0)
			if err != nil {
				t.Fatal(err)
			}
			if next := now + us(wait); next-c1 < us(delay) {
				t.Fatalf("next start %v after the late claim, want >= %v: the late request's start was not claimed when it was sent",
					time.Duration(next-c1)*time.Microsecond, delay)
			}
		})
	}
}
