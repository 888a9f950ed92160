package pipeline

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/newsdedup/newscrawl/config"
	"github.com/newsdedup/newscrawl/dedup"
	"github.com/newsdedup/newscrawl/dedup/lshindex"
)

// TestRunEngineOptionsSpill: a run's LSH index spills its cold data next
// to a SQLite store (to the temporary directory for PostgreSQL), leaves
// no file there, and fails clearly when it cannot; the other candidate
// stages are built as before.
func TestRunEngineOptionsSpill(t *testing.T) {
	dir := t.TempDir()
	tests := []struct {
		name, storage, index, want string
		fails                      bool
	}{
		{"sqlite", filepath.Join(dir, "news.db"), "", dir, false},
		{"postgres", "postgres://u:p@localhost/news", "lsh", os.TempDir(), false},
		{"missing_dir", filepath.Join(dir, "absent", "news.db"), "", "", true},
		{"prefix_index", filepath.Join(dir, "news.db"), PrefixIndex, "", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := config.Default()
			cfg.Storage, cfg.Dedup.Index = tt.storage, tt.index
			o, err := runEngineOptions(&cfg)
			if err != nil {
				t.Fatal(err)
			}
			x, err := o.NewIndex(dedup.Query{Jaccard: dedup.DefaultJaccard, Containment: dedup.DefaultContainment})
			if tt.fails {
				if err == nil {
					t.Fatal("an index spilling to a missing directory was built")
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			l, ok := x.(*lshindex.Index)
			if !ok {
				if tt.want != "" {
					t.Fatalf("index %T, want an LSH index", x)
				}
				return
			}
			defer l.Close()
			if got := l.SpillDir(); got != tt.want {
				t.Errorf("spills to %q, want %q", got, tt.want)
			}
			if left, _ := filepath.Glob(filepath.Join(dir, "lshindex-cold-*")); len(left) > 0 {
				t.Errorf("cold files left in the store's directory: %v", left)
			}
		})
	}
}
