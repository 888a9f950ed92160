package dedup

import (
	"context"
	"runtime"
	"sync"

	"github.com/newsdedup/newscrawl/segment"
)

// Doc is one document of a batch.
type Doc struct{ Title, Text string }

// Batch clusters documents with Single-Pass in input order, as offline dedup and
// the evaluation do: fingerprints are computed on every core, decisions are
// taken one by one in order. Document ids in verdicts are input indexes; a
// kept document opens the cluster with its own index. fn is called in input
// order. A verdict's Cluster may later merge with another (Verdict.Merged):
// Engine.ClusterOf gives the final cluster once Batch returns. The engine
// must not be used concurrently by anyone else.
func (e *Engine) Batch(ctx context.Context, docs []Doc, fn func(i int, v Verdict) error) error {
	if e.opts.Weighting == segment.TFIDF || e.opts.KeywordExact {
		// TF-IDF weights depend on the documents added before: fingerprint
		// each one in turn, or the result would depend on goroutine timing.
		return e.batchInOrder(ctx, docs, fn)
	}
	n := len(docs)
	fps := make([]*Fingerprint, n)
	ready := make([]chan struct{}, n)
	for i := range ready {
		ready[i] = make(chan struct{})
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	next := make(chan int, 256)
	var wg sync.WaitGroup
	for w := 0; w < runtime.GOMAXPROCS(0); w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				fps[i] = e.Fingerprint(docs[i].Title, docs[i].Text)
				close(ready[i])
			}
		}()
	}
	go func() {
		defer close(next)
		for i := 0; i < n; i++ {
			select {
			case next <- i:
			case <-ctx.Done():
				return
			}
		}
	}()
	defer wg.Wait()
	for i := 0; i < n; i++ {
		select {
		case <-ready[i]:
		case <-ctx.Done():
			return ctx.Err()
		}
		v := e.decideAndAdd(uint64(i), fps[i])
		fps[i] = nil
		if err := fn(i, v); err != nil {
			return err
		}
	}
	return nil
}

func (e *Engine) batchInOrder(ctx context.Context, docs []Doc, fn func(i int, v Verdict) error) error {
	for i, d := range docs {
		if err := ctx.Err(); err != nil {
			return err
		}
		if err := fn(i, e.decideAndAdd(uint64(i), e.Fingerprint(d.Title, d.Text))); err != nil {
			return err
		}
	}
	return nil
}

// decideAndAdd decides document id and indexes it: as a new cluster, or
// as a member of the cluster it joins (merging the clusters it bridged).
func (e *Engine) decideAndAdd(id uint64, fp *Fingerprint) Verdict {
	v := e.Decide(fp)
	if !v.Duplicate {
		e.Add(id, id, fp)
	} else {
		e.MergeClusters(v.Cluster, v.Merged)
		e.AddMember(id, v.Cluster, fp)
	}
	return v
}
