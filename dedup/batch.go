package dedup

import (
	"context"
	"iter"
	"runtime"
	"sync"
)

// Doc is one document of a batch.
type Doc struct{ Title, Text string }

// StreamWindow is how many documents Stream fingerprints ahead of the
// decisions: its memory besides the index.
const StreamWindow = 1024

// Batch clusters documents with Single-Pass in input order, as offline dedup and
// the evaluation do: fingerprints are computed on every core, decisions are
// taken one by one in order. Document ids in verdicts are input indexes; a
// kept document opens the cluster with its own index. fn is called in input
// order. A verdict's Cluster may later merge with another (Verdict.Merged):
// Engine.ClusterOf gives the final cluster once Batch returns. The engine
// must not be used concurrently by anyone else.
func (e *Engine) Batch(ctx context.Context, docs []Doc, fn func(i int, v Verdict) error) error {
	return e.Stream(ctx, func(yield func(Doc, error) bool) {
		for _, d := range docs {
			if !yield(d, nil) {
				return
			}
		}
	}, fn)
}

// Stream is Batch over a sequence of unknown length: documents are read in
// order, at most StreamWindow of them are held (being fingerprinted or
// waiting for their decision), so memory does not depend on the number of
// documents except through the index. An error from docs stops the stream
// and is returned; so is an error from fn.
func (e *Engine) Stream(ctx context.Context, docs iter.Seq2[Doc, error], fn func(i int, v Verdict) error) error {
	if e.opts.Research.NeedsDocFreqs() {
		// TF-IDF weights depend on the documents added before: fingerprint
		// each one in turn, or the result would depend on goroutine timing.
		i := 0
		for d, err := range docs {
			if err != nil {
				return err
			}
			if err := ctx.Err(); err != nil {
				return err
			}
			v, err := e.decideAndAdd(ctx, uint64(i), e.Fingerprint(d.Title, d.Text))
			if err != nil {
				return err
			}
			if err := fn(i, v); err != nil {
				return err
			}
			i++
		}
		return nil
	}
	type job struct {
		d  Doc
		fp chan *Fingerprint
	}
	ctx, cancel := context.WithCancel(ctx)
	work := make(chan job)
	order := make(chan job, StreamWindow)
	var wg sync.WaitGroup
	for range runtime.GOMAXPROCS(0) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range work {
				j.fp <- e.Fingerprint(j.d.Title, j.d.Text)
			}
		}()
	}
	var readErr error // written before order is closed
	readerDone := make(chan struct{})
	go func() {
		defer close(readerDone)
		defer close(order)
		defer close(work)
		for d, err := range docs {
			if err != nil {
				readErr = err
				return
			}
			j := job{d: d, fp: make(chan *Fingerprint, 1)}
			select {
			case order <- j: // bounds the documents held
			case <-ctx.Done():
				return
			}
			select {
			case work <- j:
			case <-ctx.Done():
				return
			}
		}
	}()
	defer func() {
		cancel() // stops the reader when a decision fails
		wg.Wait()
		<-readerDone // docs is never read after Stream returns
	}()
	i := 0
	for j := range order {
		var fp *Fingerprint
		select {
		case fp = <-j.fp:
		case <-ctx.Done():
			return ctx.Err()
		}
		v, err := e.decideAndAdd(ctx, uint64(i), fp)
		if err != nil {
			return err
		}
		if err := fn(i, v); err != nil {
			return err
		}
		i++
	}
	if readErr != nil {
		return readErr
	}
	return ctx.Err()
}

// decideAndAdd decides document id and indexes it: as a new cluster, or
// as a member of the cluster it joins (merging the clusters it bridged).
func (e *Engine) decideAndAdd(ctx context.Context, id uint64, fp *Fingerprint) (Verdict, error) {
	v, err := e.Decide(ctx, fp)
	if err != nil {
		return v, err
	}
	return v, e.record(ctx, id, fp, v)
}

// record indexes document id with its verdict v: as a new cluster, or as
// a member of the cluster it joins (merging the clusters it bridged).
func (e *Engine) record(ctx context.Context, id uint64, fp *Fingerprint, v Verdict) error {
	if !v.Duplicate {
		return e.Add(ctx, id, id, fp)
	}
	if err := e.MergeClusters(ctx, v.Cluster, v.Merged); err != nil {
		return err
	}
	return e.AddMember(ctx, id, v.Cluster, fp)
}
