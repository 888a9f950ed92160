package storage_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/newsdedup/newscrawl/storage"
)

func BenchmarkScratchCommit(b *testing.B) {
	docs := loadBenchDocs(b)
	distinct := map[string]bool{}
	for _, d := range docs {
		for _, t := range d.terms {
			distinct[t] = true
		}
	}
	b.Logf("%d docs, %d distinct terms", len(docs), len(distinct))
	for _, v := range []struct {
		name    string
		pragmas []string
	}{
		{"nockpt", []string{"wal_autocheckpoint(0)"}},
		{"default", nil},
		{"ckpt10000", []string{"wal_autocheckpoint(10000)"}},
		{"page1024", []string{"page_size(1024)"}},
	} {
		b.Run(v.name, func(b *testing.B) {
			ctx := context.Background()
			path := filepath.Join(b.TempDir(), "bench.db")
			s, err := storage.OpenSQLiteWith(ctx, path, false, v.pragmas...)
			if err != nil {
				b.Fatal(err)
			}
			defer s.Close()
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				if err := s.Commit(ctx, benchCommit(i, docs[i%len(docs)])); err != nil {
					b.Fatal(err)
				}
			}
			b.StopTimer()
			st, _ := os.Stat(path)
			w, _ := os.Stat(path + "-wal")
			b.Logf("N=%d db %d KB wal %d KB = %.1f frames/commit", b.N, st.Size()>>10, w.Size()>>10, float64(w.Size())/4120/float64(b.N))
		})
	}
}
