package storagetest

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"sync"
	"testing"
	"time"

	"github.com/newsdedup/newscrawl/storage"
)

func item(url, site string, depth int) storage.FrontierItem {
	return storage.FrontierItem{URL: url, Site: site, Depth: depth, Referer: "http://ref/" + site}
}

func urlsOf(items []storage.FrontierItem) []string {
	out := []string{}
	for _, it := range items {
		out = append(out, it.URL)
	}
	return out
}

func testFrontier(t *testing.T, s storage.Store) {
	ctx := context.Background()
	mustPending := func(site string, want int) {
		t.Helper()
		n, err := s.Pending(ctx, site)
		if err != nil || n != want {
			t.Fatalf("Pending(%q) = %d, %v; want %d", site, n, err, want)
		}
	}
	mustPop := func(site string, n int, want ...string) []storage.FrontierItem {
		t.Helper()
		got, err := s.Pop(ctx, site, n)
		if err != nil {
			t.Fatal(err)
		}
		if want == nil {
			want = []string{}
		}
		if g := urlsOf(got); !reflect.DeepEqual(g, want) {
			t.Fatalf("Pop(%q, %d) = %v, want %v", site, n, g, want)
		}
		return got
	}

	mustPending("", 0)
	mustPop("", 5)
	added, err := s.Push(ctx, []storage.FrontierItem{
		item("http://z/1", "sina", 0), item("http://a/2", "sohu", 1), item("http://m/3", "sina", 2),
		item("http://z/1", "sina", 5), // repeated within the batch
	})
	if err != nil || added != 3 {
		t.Fatalf("Push = %d, %v; want 3", added, err)
	}
	added, err = s.Push(ctx, []storage.FrontierItem{item("http://a/2", "sohu", 0), item("http://b/4", "sohu", 1), item("http://c/5", "sina", 1)})
	if err != nil || added != 2 {
		t.Fatalf("second Push = %d, %v; want 2", added, err)
	}
	if added, err := s.Push(ctx, nil); err != nil || added != 0 {
		t.Fatalf("empty Push = %d, %v", added, err)
	}
	if _, err := s.Push(ctx, []storage.FrontierItem{{URL: ""}}); !errors.Is(err, storage.ErrInvalid) {
		t.Fatalf("Push(empty url) = %v, want ErrInvalid", err)
	}
	mustPending("", 5)
	mustPending("sina", 3)
	mustPending("sohu", 2)
	mustPending("qq", 0)

	got := mustPop("sina", 2, "http://z/1", "http://m/3") // FIFO, not URL order
	if want := item("http://z/1", "sina", 0); got[0] != want {
		t.Fatalf("popped %+v, want %+v (first push wins)", got[0], want)
	}
	got = mustPop("", 2, "http://a/2", "http://b/4") // in-flight items are skipped
	if want := item("http://a/2", "sohu", 0); got[0] != want {
		t.Fatalf("popped %+v, want %+v (a pending URL pushed again at a smaller depth takes it)", got[0], want)
	}
	mustPop("", 10, "http://c/5")
	mustPop("", 10)
	mustPending("", 5) // in flight still counts
	if err := s.Done(ctx, "http://m/3"); err != nil {
		t.Fatal(err)
	}
	if err := s.Done(ctx, "http://never/queued"); err != nil {
		t.Fatalf("Done(absent) = %v, want nil", err)
	}
	mustPending("", 4)
	mustPending("sina", 2)
	// Pushing an in-flight URL again is ignored.
	if added, err := s.Push(ctx, []storage.FrontierItem{item("http://z/1", "sina", 0)}); err != nil || added != 0 {
		t.Fatalf("Push(in flight) = %d, %v", added, err)
	}
	n, err := s.Requeue(ctx)
	if err != nil || n != 4 {
		t.Fatalf("Requeue = %d, %v; want 4", n, err)
	}
	if n, err := s.Requeue(ctx); err != nil || n != 0 {
		t.Fatalf("second Requeue = %d, %v; want 0", n, err)
	}
	// Requeued items keep their original order.
	mustPop("", 3, "http://z/1", "http://a/2", "http://b/4")
	if added, err := s.Push(ctx, []storage.FrontierItem{item("http://m/3", "sina", 2)}); err != nil || added != 1 {
		t.Fatalf("Push(done url) = %d, %v; want 1 (a done URL without a final page may be queued again)", added, err)
	}
	mustPop("sina", 5, "http://c/5", "http://m/3")
	mustPop("", 0)
	if err := s.Reset(ctx); err != nil {
		t.Fatal(err)
	}
	mustPending("", 0)
	mustPop("", 10)
	if added, err := s.Push(ctx, []storage.FrontierItem{item("http://z/1", "sina", 0)}); err != nil || added != 1 {
		t.Fatalf("Push after Reset = %d, %v; want 1", added, err)
	}
	mustPop("", 1, "http://z/1")
}

func testFrontierSkipsDecided(t *testing.T, s storage.Store) {
	ctx := context.Background()
	id := mustStore(t, s, "http://k/stored")
	mustCommit(t, s, duplicate("http://k/dup", id))
	mustCommit(t, s, errorPage("http://k/permanent", true))
	mustCommit(t, s, errorPage("http://k/transient", false))
	mustCommit(t, s, notArticle("http://k/list"))
	added, err := s.Push(ctx, []storage.FrontierItem{
		item("http://k/stored", "s", 1), item("http://k/dup", "s", 1), item("http://k/permanent", "s", 1),
		item("http://k/transient", "s", 1), item("http://k/list", "s", 0), item("http://k/new", "s", 1),
	})
	if err != nil || added != 3 {
		t.Fatalf("Push = %d, %v; want 3", added, err)
	}
	got, err := s.Pop(ctx, "s", 10)
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"http://k/transient", "http://k/list", "http://k/new"}; !reflect.DeepEqual(urlsOf(got), want) {
		t.Fatalf("Pop = %v, want %v", urlsOf(got), want)
	}
}

func testLock(t *testing.T, s storage.Store) {
	ctx := context.Background()
	release, err := s.Lock(ctx, false)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Lock(ctx, false); !errors.Is(err, storage.ErrLocked) {
		t.Fatalf("second Lock(wait=false) = %v, want ErrLocked", err)
	}
	short, cancel := context.WithTimeout(ctx, 300*time.Millisecond)
	defer cancel()
	start := time.Now()
	if _, err := s.Lock(short, true); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Lock(wait=true) with expiring ctx = %v, want DeadlineExceeded", err)
	}
	if d := time.Since(start); d > lockWaitLimit {
		t.Fatalf("Lock ignored its context for %v", d)
	}
	canceled, cancel2 := context.WithCancel(ctx)
	cancel2()
	if _, err := s.Lock(canceled, true); !errors.Is(err, context.Canceled) {
		t.Fatalf("Lock(wait=true) with canceled ctx = %v, want Canceled", err)
	}

	type result struct {
		release func() error
		err     error
	}
	got := make(chan result, 1)
	go func() {
		r, err := s.Lock(ctx, true)
		got <- result{r, err}
	}()
	select {
	case r := <-got:
		t.Fatalf("Lock(wait=true) returned %v while the lock was held", r.err)
	case <-time.After(100 * time.Millisecond):
	}
	if err := release(); err != nil {
		t.Fatal(err)
	}
	if err := release(); err != nil { // idempotent
		t.Fatalf("second release: %v", err)
	}
	var r result
	select {
	case r = <-got:
	case <-time.After(lockWaitLimit):
		t.Fatal("Lock(wait=true) did not return after release")
	}
	if r.err != nil {
		t.Fatal(r.err)
	}
	if _, err := s.Lock(ctx, false); !errors.Is(err, storage.ErrLocked) {
		t.Fatalf("Lock while the waiter holds it = %v, want ErrLocked", err)
	}
	if err := r.release(); err != nil {
		t.Fatal(err)
	}
	again, err := s.Lock(ctx, false)
	if err != nil {
		t.Fatalf("Lock after release = %v", err)
	}
	if err := again(); err != nil {
		t.Fatal(err)
	}
}

// testSharedLock: several holders at once, a canceled context still fails,
// releases are idempotent.
func testSharedLock(t *testing.T, s storage.Store) {
	ctx := context.Background()
	first, err := s.Lock(ctx, false)
	if err != nil {
		t.Fatal(err)
	}
	second, err := s.Lock(ctx, false)
	if err != nil {
		t.Fatalf("second Lock(wait=false) of a shared lock = %v, want nil", err)
	}
	third, err := s.Lock(ctx, true)
	if err != nil {
		t.Fatalf("Lock(wait=true) of a shared lock = %v, want nil", err)
	}
	canceled, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := s.Lock(canceled, true); !errors.Is(err, context.Canceled) {
		t.Fatalf("Lock(wait=true) with canceled ctx = %v, want Canceled", err)
	}
	for i, release := range []func() error{first, second, third, first} { // first twice: idempotent
		if err := release(); err != nil {
			t.Fatalf("release %d: %v", i, err)
		}
	}
	again, err := s.Lock(ctx, false)
	if err != nil {
		t.Fatalf("Lock after release = %v", err)
	}
	if err := again(); err != nil {
		t.Fatal(err)
	}
}

func testCheck(t *testing.T, s storage.Store) {
	ctx := context.Background()
	if err := s.Check(ctx); err != nil {
		t.Fatalf("empty store: %v", err)
	}
	mustCommit(t, s, stored("http://c/1", "a", "b"))
	id := mustStore(t, s, "http://c/2", "b")
	mustCommit(t, s, duplicate("http://c/3", id))
	mustCommit(t, s, errorPage("http://c/4", true))
	mustCommit(t, s, notArticle("http://c/5"))
	mustCommit(t, s, errorPage("http://c/6", false))
	mustCommit(t, s, stored("http://c/6"))
	if _, err := s.Push(ctx, []storage.FrontierItem{item("http://c/7", "x", 1)}); err != nil {
		t.Fatal(err)
	}
	if err := s.Check(ctx); err != nil {
		t.Fatalf("good store: %v", err)
	}
}

func testCanceled(t *testing.T, s storage.Store) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := s.Commit(ctx, stored("http://x/1")); err == nil {
		t.Fatal("Commit with a canceled context succeeded")
	}
	if _, err := s.Push(ctx, []storage.FrontierItem{item("http://x/2", "s", 0)}); err == nil {
		t.Fatal("Push with a canceled context succeeded")
	}
	if err := s.Articles(ctx, func(storage.Article) error { return nil }); err == nil {
		t.Fatal("Articles with a canceled context succeeded")
	}
	sn := snap(t, s)
	if len(sn.Pages) != 0 || sn.Pending != 0 {
		t.Fatalf("canceled calls wrote: %+v", sn)
	}
}

func testConcurrent(t *testing.T, s storage.Store) {
	ctx := context.Background()
	base := mustStore(t, s, "http://base/0", "共同")
	const workers, per = 4, 20
	var wg sync.WaitGroup
	errs := make(chan error, workers*per*4)
	for w := range workers {
		wg.Go(func() {
			for i := range per {
				u := fmt.Sprintf("http://w%d/%d", w, i)
				var c *storage.Commit
				if i%4 == 3 {
					c = duplicate(u, base)
				} else {
					c = stored(u, "共同", fmt.Sprintf("w%d", w), u)
				}
				if err := s.Commit(ctx, c); err != nil {
					errs <- err
				}
				if _, err := s.Push(ctx, []storage.FrontierItem{item(u+"/next", "s", 1), item("http://shared/next", "s", 1)}); err != nil {
					errs <- err
				}
				if _, err := s.Pending(ctx, "s"); err != nil {
					errs <- err
				}
			}
		})
	}
	// All workers race to decide one URL: exactly one wins.
	var winners sync.Map
	for w := range workers {
		wg.Go(func() {
			err := s.Commit(ctx, stored("http://contested/", "争"))
			switch {
			case err == nil:
				winners.Store(w, true)
			case !errors.Is(err, storage.ErrAlreadyDecided):
				errs <- err
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	n := 0
	winners.Range(func(any, any) bool { n++; return true })
	if n != 1 {
		t.Fatalf("%d commits of one URL succeeded, want 1", n)
	}

	sn := snap(t, s)
	storedN := 1 + workers*per*3/4 + 1
	if sn.Docs != storedN || len(sn.Articles) != storedN || sn.DF["共同"] != storedN-1 || sn.DF["争"] != 1 ||
		sn.DF["w0"] != per*3/4 || len(sn.Dups) != workers*per/4 || len(sn.Pages) != storedN+workers*per/4 {
		t.Fatalf("after concurrent commits: docs %d articles %d df %d/%d/%d dups %d pages %d",
			sn.Docs, len(sn.Articles), sn.DF["共同"], sn.DF["争"], sn.DF["w0"], len(sn.Dups), len(sn.Pages))
	}
	ids := map[int64]bool{}
	for _, a := range sn.Articles {
		if ids[a.ID] {
			t.Fatalf("article id %d assigned twice", a.ID)
		}
		ids[a.ID] = true
	}
	if want := workers*per + 1; sn.Pending != want {
		t.Fatalf("pending %d, want %d", sn.Pending, want)
	}

	// Concurrent Pop: every item is leased exactly once.
	var mu sync.Mutex
	leased := map[string]int{}
	for range workers {
		wg.Go(func() {
			for {
				items, err := s.Pop(ctx, "", 3)
				if err != nil {
					t.Error(err)
					return
				}
				if len(items) == 0 {
					return
				}
				mu.Lock()
				for _, it := range items {
					leased[it.URL]++
				}
				mu.Unlock()
				for _, it := range items {
					if err := s.Done(ctx, it.URL); err != nil {
						t.Error(err)
						return
					}
				}
			}
		})
	}
	wg.Wait()
	if len(leased) != workers*per+1 {
		t.Fatalf("leased %d distinct items, want %d", len(leased), workers*per+1)
	}
	for u, k := range leased {
		if k != 1 {
			t.Fatalf("%s leased %d times", u, k)
		}
	}
	if err := s.Check(ctx); err != nil {
		t.Fatal(err)
	}
}
