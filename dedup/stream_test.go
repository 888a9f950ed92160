package dedup

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/newsdedup/newscrawl/internal/fixture"
)

// seqOf yields docs, then err (when not nil), counting what was read.
func seqOf(docs []Doc, err error, read *int) func(func(Doc, error) bool) {
	return func(yield func(Doc, error) bool) {
		for _, d := range docs {
			*read++
			if !yield(d, nil) {
				return
			}
		}
		if err != nil {
			yield(Doc{}, err)
		}
	}
}

func TestStream(t *testing.T) {
	st := fixture.Stories()
	var docs []Doc
	for _, s := range st {
		docs = append(docs, Doc{s.Title, join(s.Paragraphs)})
	}
	docs = append(docs, Doc{st[0].Title, join(st[0].Paragraphs[1:])}, Doc{st[1].Title + "(图)", join(st[1].Paragraphs)})
	// Many more documents than the window, so the reader must wait.
	var long []Doc
	for len(long) < 3*StreamWindow {
		long = append(long, docs...)
	}
	readErr := errors.New("line 7: bad JSON")
	stop := errors.New("stop")
	for _, tc := range []struct {
		name    string
		docs    []Doc
		srcErr  error
		stopAt  int // fn fails at this index (-1: never)
		wantErr error
		wantN   int
	}{
		{"all documents in order", docs, nil, -1, nil, len(docs)},
		{"longer than the window", long, nil, -1, nil, len(long)},
		{"reader error", docs, readErr, -1, readErr, len(docs)},
		{"callback error stops the reader", long, nil, 5, stop, 6},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := testEngine(t, Options{})
			ref := testEngine(t, Options{})
			var want []Verdict
			if err := ref.Batch(context.Background(), tc.docs, func(_ int, v Verdict) error { want = append(want, v); return nil }); err != nil {
				t.Fatal(err)
			}
			read, n := 0, 0
			err := e.Stream(context.Background(), seqOf(tc.docs, tc.srcErr, &read), func(i int, v Verdict) error {
				if i != n {
					return fmt.Errorf("verdict %d out of order (want %d)", i, n)
				}
				if fmt.Sprint(v) != fmt.Sprint(want[i]) {
					return fmt.Errorf("document %d: verdict %+v, batch gave %+v", i, v, want[i])
				}
				n++
				if i == tc.stopAt {
					return stop
				}
				return nil
			})
			if !errors.Is(err, tc.wantErr) {
				t.Fatalf("error %v, want %v", err, tc.wantErr)
			}
			if n != tc.wantN {
				t.Fatalf("%d verdicts, want %d", n, tc.wantN)
			}
			if read > n+StreamWindow+2*8+2 {
				t.Fatalf("read %d documents for %d verdicts: more than the window ahead", read, n)
			}
		})
	}
}
