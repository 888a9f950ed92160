package pipeline

import (
	"path/filepath"
	"testing"

	"github.com/newsdedup/newscrawl/config"
	"github.com/newsdedup/newscrawl/dedup"
	"github.com/newsdedup/newscrawl/dedup/lshindex"
)

// TestRunEngineOptionsSpill: a run's LSH index spills its cold data next
// to a SQLite store (to the temporary directory for PostgreSQL or when
// the store's directory does not exist), leaves no file there, and fails
// clearly when it can spill nowhere; the other candidate stages are built
// as before.
func TestRunEngineOptionsSpill(t *testing.T) {
	dir, tmp := t.TempDir(), t.TempDir()
	tests := []struct {
		name, storage, index, tmpdir, want string
		fails                              bool
	}{
		{"sqlite", filepath.Join(dir, "news.db"), "", tmp, dir, false},
		{"postgres", "postgres://u:p@localhost/news", "lsh", tmp, tmp, false},
		{"missing_store_dir", filepath.Join(dir, "absent", "news.db"), "", tmp, tmp, false},
		{"nowhere", filepath.Join(dir, "absent", "news.db"), "", filepath.Join(dir, "absent"), "", true},
		{"prefix_index", filepath.Join(dir, "news.db"), PrefixIndex, tmp, "", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Setenv("TMPDIR", tt.tmpdir)
			cfg := config.Default()
			cfg.Storage, cfg.Dedup.Index = tt.storage, tt.index
			o, err := runEngineOptions(&cfg)
			if err != nil {
				t.Fatal(err)
			}
			x, err := o.NewIndex(dedup.Query{Jaccard: dedup.DefaultJaccard, Containment: dedup.DefaultContainment})
			if tt.fails {
				if err == nil {
					t.Fatal("an index spilling to missing directories was built")
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
			for _, d := range []string{dir, tmp} {
				if left, _ := filepath.Glob(filepath.Join(d, "lshindex-cold-*")); len(left) > 0 {
					t.Errorf("cold files left in %s: %v", d, left)
				}
			}
		})
	}
}
