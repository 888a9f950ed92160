package redisfrontier_test

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"net"
	"os"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"go.uber.org/goleak"

	"github.com/newsdedup/newscrawl/storage"
	"github.com/newsdedup/newscrawl/storage/memory"
	"github.com/newsdedup/newscrawl/storage/redisfrontier"
	"github.com/newsdedup/newscrawl/storage/storagetest"
)

const envURL = "NEWSCRAWL_TEST_REDIS"

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// serverURL returns the test server's URL; without one the test skips, or
// fails when CI is set.
func serverURL(t *testing.T) string {
	t.Helper()
	u := os.Getenv(envURL)
	if u == "" {
		msg := envURL + " is not set: no Redis server to test against (start one with `eval \"$(.ci/services.sh)\"`)"
		if os.Getenv("CI") != "" {
			t.Fatal(msg)
		}
		t.Skip(msg)
	}
	return u
}

// namespace returns a fresh key namespace whose keys are deleted at the end
// of the test.
func namespace(t *testing.T, u string) string {
	t.Helper()
	var rnd [6]byte
	_, _ = rand.Read(rnd[:])
	ns := "nctest:" + hex.EncodeToString(rnd[:]) + ":"
	opt, err := redis.ParseURL(u)
	if err != nil {
		t.Fatal(err)
	}
	rdb := redis.NewClient(opt)
	t.Cleanup(func() {
		ctx := context.Background()
		keys, err := rdb.Keys(ctx, ns+"*").Result()
		if err == nil && len(keys) > 0 {
			err = rdb.Del(ctx, keys...).Err()
		}
		if err != nil {
			t.Errorf("clean namespace %s: %v", ns, err)
		}
		rdb.Close()
	})
	return ns
}

func openFrontier(t *testing.T, u, ns string, pages redisfrontier.Pages) *redisfrontier.Frontier {
	t.Helper()
	f, err := redisfrontier.Open(context.Background(), u, ns, pages)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := f.Close(); err != nil {
			t.Errorf("close: %v", err)
		}
	})
	return f
}

// withFrontier is a Store whose frontier is in Redis: the conformance
// suite's frontier tests (FIFO leases, skipping decided URLs, concurrent
// Pop) then run against Redis.
type withFrontier struct {
	storage.Store
	f *redisfrontier.Frontier
}

func (w withFrontier) Push(ctx context.Context, items []storage.FrontierItem) (int, error) {
	return w.f.Push(ctx, items)
}
func (w withFrontier) Pop(ctx context.Context, site string, n int) ([]storage.FrontierItem, error) {
	return w.f.Pop(ctx, site, n)
}
func (w withFrontier) Done(ctx context.Context, url string) error         { return w.f.Done(ctx, url) }
func (w withFrontier) Requeue(ctx context.Context) (int, error)           { return w.f.Requeue(ctx) }
func (w withFrontier) Pending(ctx context.Context, s string) (int, error) { return w.f.Pending(ctx, s) }
func (w withFrontier) Reset(ctx context.Context) error                    { return w.f.Reset(ctx) }

func TestConformance(t *testing.T) {
	u := serverURL(t)
	storagetest.Run(t, func(t *testing.T) storage.Store {
		m := memory.New()
		t.Cleanup(func() { m.Close() })
		return withFrontier{Store: m, f: openFrontier(t, u, namespace(t, u), m)}
	})
}

// TestTwoProcessesPop: workers of two frontiers (two connections, as two
// processes) pop one queue until it is empty; every URL is leased once.
func TestTwoProcessesPop(t *testing.T) {
	u := serverURL(t)
	ns := namespace(t, u)
	m := memory.New()
	defer m.Close()
	fs := []*redisfrontier.Frontier{openFrontier(t, u, ns, m), openFrontier(t, u, ns, m)}
	ctx := context.Background()
	const n = 300
	var items []storage.FrontierItem
	for i := range n {
		items = append(items, storage.FrontierItem{URL: fmt.Sprintf("http://f/%03d", i), Site: []string{"sina", "qq"}[i%2]})
	}
	if added, err := fs[0].Push(ctx, items); err != nil || added != n {
		t.Fatalf("Push = %d, %v", added, err)
	}
	var mu sync.Mutex
	leased := map[string]int{}
	var wg sync.WaitGroup
	for _, f := range fs {
		for w := range 3 {
			wg.Go(func() {
				site := []string{"", "sina", "qq"}[w]
				for {
					got, err := f.Pop(ctx, site, 4)
					if err != nil {
						t.Error(err)
						return
					}
					if len(got) == 0 {
						return
					}
					mu.Lock()
					for _, it := range got {
						leased[it.URL]++
					}
					mu.Unlock()
					for _, it := range got {
						if err := f.Done(ctx, it.URL); err != nil {
							t.Error(err)
							return
						}
					}
				}
			})
		}
	}
	wg.Wait()
	if len(leased) != n {
		t.Fatalf("%d URLs leased, want %d", len(leased), n)
	}
	for u, k := range leased {
		if k != 1 {
			t.Fatalf("%s leased %d times", u, k)
		}
	}
}

// TestDeadOwnerLeasesReturn: the leases of an owner whose heartbeat stopped
// (a process killed without cleanup) are pending again after the lease
// timeout, oldest first; a live owner's leases stay.
func TestDeadOwnerLeasesReturn(t *testing.T) {
	u := serverURL(t)
	ns := namespace(t, u)
	m := memory.New()
	defer m.Close()
	ctx := context.Background()
	const lease, beat = 2 * time.Second, 100 * time.Millisecond
	open := func() *redisfrontier.Frontier {
		f, err := redisfrontier.OpenWith(ctx, u, ns, m, lease, beat)
		if err != nil {
			t.Fatal(err)
		}
		return f
	}
	dead, live, other := open(), open(), open()
	defer live.Close()
	defer other.Close()
	var items []storage.FrontierItem
	for i := range 8 {
		items = append(items, storage.FrontierItem{URL: fmt.Sprintf("http://d/%d", i), Site: "s"})
	}
	if _, err := live.Push(ctx, items); err != nil {
		t.Fatal(err)
	}
	if got := pop(t, dead, 3); !reflect.DeepEqual(got, []string{"http://d/0", "http://d/1", "http://d/2"}) {
		t.Fatalf("dead popped %v", got)
	}
	redisfrontier.Kill(dead) // stops the heartbeat, no cleanup: as kill -9
	killed := time.Now()
	if got := pop(t, live, 2); !reflect.DeepEqual(got, []string{"http://d/3", "http://d/4"}) {
		t.Fatalf("live popped %v", got)
	}
	if n, err := other.Requeue(ctx); err != nil || n != 0 {
		t.Fatalf("Requeue before the timeout = %d, %v; want 0", n, err)
	}
	time.Sleep(time.Until(killed.Add(lease + 300*time.Millisecond)))
	if got, want := pop(t, other, 10), []string{"http://d/0", "http://d/1", "http://d/2", "http://d/5", "http://d/6", "http://d/7"}; !reflect.DeepEqual(got, want) {
		t.Fatalf("Pop after the timeout = %v, want %v", got, want)
	}
	if n, err := live.Pending(ctx, "s"); err != nil || n != 8 {
		t.Fatalf("Pending = %d, %v; want 8", n, err)
	}
	if n, err := other.Requeue(ctx); err != nil || n != 6 {
		t.Fatalf("Requeue = %d, %v; want 6 (its own, not the live owner's 2)", n, err)
	}
}

func pop(t *testing.T, f *redisfrontier.Frontier, n int) []string {
	t.Helper()
	items, err := f.Pop(context.Background(), "", n)
	if err != nil {
		t.Fatal(err)
	}
	out := []string{}
	for _, it := range items {
		out = append(out, it.URL)
	}
	return out
}

// TestWaitGlobalPoliteness: three frontiers (three processes) pacing one
// host get request starts at least the delay apart, all together, on the
// server's clock; Wait sleeps until the host's next start; another host is
// not held up.
func TestWaitGlobalPoliteness(t *testing.T) {
	u := serverURL(t)
	ns := namespace(t, u)
	m := memory.New()
	defer m.Close()
	ctx := context.Background()
	fs := []*redisfrontier.Frontier{openFrontier(t, u, ns, m), openFrontier(t, u, ns, m), openFrontier(t, u, ns, m)}
	const delay, per = 50 * time.Millisecond, 20
	var mu sync.Mutex
	var starts []int64 // claimed starts, server clock, µs
	var wg sync.WaitGroup
	for _, f := range fs {
		wg.Go(func() {
			for range per {
				start, err := redisfrontier.WaitAt(ctx, f, "news.example:80", delay)
				if err != nil {
					t.Error(err)
					return
				}
				mu.Lock()
				starts = append(starts, start)
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	slices.Sort(starts)
	for i := 1; i < len(starts); i++ {
		if gap := time.Duration(starts[i]-starts[i-1]) * time.Microsecond; gap < delay {
			t.Fatalf("reservations %d and %d are %v apart, want >= %v", i-1, i, gap, delay)
		}
	}

	// Wait sleeps until the host's next start.
	t0 := time.Now()
	if wait, err := redisfrontier.Claim(ctx, fs[0], "slow.example", 0); err != nil || wait != 0 {
		t.Fatalf("first claim of a new host: wait %v, %v; want 0", wait, err)
	}
	if err := fs[1].Wait(ctx, "slow.example", 300*time.Millisecond); err != nil {
		t.Fatal(err)
	}
	if err := fs[2].Wait(ctx, "slow.example", 300*time.Millisecond); err != nil {
		t.Fatal(err)
	}
	if d := time.Since(t0); d < 300*time.Millisecond-10*time.Millisecond {
		t.Fatalf("second Wait returned after %v, want >= 300ms", d)
	}
	// The busy host does not hold up another one.
	t1 := time.Now()
	if err := fs[0].Wait(ctx, "other.example", time.Second); err != nil {
		t.Fatal(err)
	}
	if d := time.Since(t1); d > 500*time.Millisecond {
		t.Errorf("first request to another host waited %v", d)
	}
	// A host held for a second is not claimed within 50 ms.
	if err := fs[1].Hold(ctx, "news.example:80", time.Second); err != nil {
		t.Fatal(err)
	}
	short, cancel := context.WithTimeout(ctx, 50*time.Millisecond)
	defer cancel()
	if err := fs[0].Wait(short, "news.example:80", delay); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Wait on a host held for a second with a 50ms context = %v, want DeadlineExceeded", err)
	}
	if err := fs[0].Wait(ctx, "x", -time.Second); !errors.Is(err, storage.ErrInvalid) {
		t.Fatalf("Wait(negative delay) = %v, want ErrInvalid", err)
	}
}

func TestOpenErrors(t *testing.T) {
	u := serverURL(t)
	m := memory.New()
	defer m.Close()
	ctx := context.Background()
	tests := []struct {
		name, url, ns string
		pages         redisfrontier.Pages
	}{
		{"bad url", "http://x", "ns:", m},
		{"no namespace", u, "", m},
		{"no pages", u, "ns:", nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f, err := redisfrontier.Open(ctx, tc.url, tc.ns, tc.pages)
			if err == nil {
				f.Close()
			}
			if !errors.Is(err, storage.ErrInvalid) {
				t.Fatalf("Open = %v, want ErrInvalid", err)
			}
		})
	}
}

// TestOpenSilentServer: a Redis URL whose server accepts connections and
// answers nothing fails Open with a message saying so, bounded by
// OpenTimeout whatever the client's retries, instead of hanging.
func TestOpenSilentServer(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	var conns []net.Conn
	go func() {
		defer close(done)
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			conns = append(conns, c)
		}
	}()
	defer func() {
		ln.Close()
		<-done
		for _, c := range conns {
			c.Close()
		}
	}()
	start := time.Now()
	_, err = redisfrontier.Open(context.Background(), "redis://:secret@"+ln.Addr().String()+"/0?read_timeout=200ms&dial_timeout=200ms", "t:", memory.New())
	if err == nil {
		t.Fatal("open of a silent server succeeded")
	}
	if d := time.Since(start); d > redisfrontier.OpenTimeout+2*time.Second {
		t.Errorf("open failed after %s, want at most about OpenTimeout (%s)", d, redisfrontier.OpenTimeout)
	}
	if strings.Contains(err.Error(), "secret") {
		t.Errorf("error %q shows the password", err)
	}
}
