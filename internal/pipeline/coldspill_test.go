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
// the store's directory does not exist), leaves no file there, and keeps
// its cold data in memory, saying why, when it can spill nowhere; the
// other candidate stages are built as before.
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
			o, note, err := runEngineOptions(&cfg)
			if err != nil {
				t.Fatal(err)
			}
			x, err := o.NewIndex(dedup.Query{Jaccard: dedup.DefaultJaccard, Containment: dedup.DefaultContainment})
			if err != nil {
				t.Fatal(err)
			}
			if got := note.String(); (got != "") != tt.fails {
				t.Errorf("note %q, want one: %v", got, tt.fails)
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

// TestIndexLoadSpillNote: the start-up line says when the cold data stay
// in memory, whatever way the index was filled.
func TestIndexLoadSpillNote(t *testing.T) {
	const note = "cold data in memory: no directory"
	for _, tt := range []struct {
		name string
		load IndexLoad
		want string
	}{
		{"rebuilt", IndexLoad{Rebuilt: true, Entries: 3, Spill: note}, "index: rebuilt, 3 entries; " + note},
		{"snapshot", IndexLoad{Snapshot: 5, Tail: 1, Spill: note}, "index: snapshot 5 entries + tail 1; " + note},
		{"spilled", IndexLoad{Rebuilt: true, Entries: 3}, "index: rebuilt, 3 entries"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.load.String(); got != tt.want {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
}
