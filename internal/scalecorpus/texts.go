package scalecorpus

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"runtime"
	"sync"

	"github.com/newsdedup/newscrawl/dedup"
)

// Text is one line of a gen.py corpus.
type Text struct {
	ID    string `json:"id"`
	Title string `json:"title"`
	Text  string `json:"text"`
}

// ReadTexts calls fn for each line of a JSONL corpus, in order, until fn
// returns false; a line that is not a JSON object with a text is an error
// naming the line.
func ReadTexts(r io.Reader, fn func(t Text) bool) error {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	line := 0
	for sc.Scan() {
		line++
		var t Text
		if err := json.Unmarshal(sc.Bytes(), &t); err != nil {
			return fmt.Errorf("scalecorpus: line %d: %w", line, err)
		}
		if t.Text == "" {
			return fmt.Errorf("scalecorpus: line %d: no text", line)
		}
		if !fn(t) {
			return nil
		}
	}
	if err := sc.Err(); err != nil {
		return fmt.Errorf("scalecorpus: line %d: %w", line+1, err)
	}
	return nil
}

// Fingerprinter computes fingerprints; *dedup.Engine implements it.
type Fingerprinter interface {
	Fingerprint(title, text string) *dedup.Fingerprint
}

// FingerprintTexts reads up to limit texts (0: all) of a JSONL corpus,
// fingerprints them on every core and writes the fingerprints in input
// order. It returns the number written.
func FingerprintTexts(ctx context.Context, fpr Fingerprinter, r io.Reader, w *Writer, limit int) (int, error) {
	type job struct {
		t  Text
		fp chan *dedup.Fingerprint
	}
	jobs := make(chan job, 1024)
	order := make(chan job, 1024)
	var wg sync.WaitGroup
	for range runtime.GOMAXPROCS(0) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range jobs {
				j.fp <- fpr.Fingerprint(j.t.Title, j.t.Text)
			}
		}()
	}
	var rerr error
	go func() {
		defer close(order)
		defer close(jobs)
		n := 0
		rerr = ReadTexts(r, func(t Text) bool {
			if ctx.Err() != nil || (limit > 0 && n >= limit) {
				return false
			}
			n++
			j := job{t: t, fp: make(chan *dedup.Fingerprint, 1)}
			jobs <- j
			order <- j
			return true
		})
	}()
	n := 0
	var werr error
	for j := range order {
		fp := <-j.fp
		if werr == nil {
			werr = w.Write(fp)
			n++
		}
	}
	wg.Wait()
	if rerr != nil {
		return n, rerr
	}
	if werr != nil {
		return n, werr
	}
	if err := ctx.Err(); err != nil {
		return n, err
	}
	return n, w.Flush()
}
