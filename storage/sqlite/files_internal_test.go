package sqlite

import (
	"context"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestImmutableReadReportsChange: a store read as immutable (no locks)
// reports at Close that its file changed during the read.
func TestImmutableReadReportsChange(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "store.db")
	s, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	s.Close()
	for _, tc := range []struct {
		name   string
		change func()
		want   string
	}{
		{"unchanged", func() {}, ""},
		{"file written", func() {
			f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
			if err != nil {
				t.Fatal(err)
			}
			f.Write(make([]byte, 4096))
			f.Close()
		}, "changed while it was read"},
		{"WAL file appeared", func() { os.WriteFile(path+"-wal", nil, 0o644) }, "changed while it was read"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fi, err := os.Stat(path)
			if err != nil {
				t.Fatal(err)
			}
			// As open does after falling back to immutable=1.
			ro, err := connect(ctx, path, url.Values{"mode": {"ro"}, "immutable": {"1"}}, true)
			if err != nil {
				t.Fatal(err)
			}
			ro.immutable = fi
			if _, err := os.Stat(path + "-wal"); err == nil {
				t.Fatal("an immutable read created a WAL file")
			}
			time.Sleep(10 * time.Millisecond)
			tc.change()
			err = ro.Close()
			if tc.want == "" && err != nil || tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)) {
				t.Fatalf("Close = %v, want %q", err, tc.want)
			}
		})
	}
}
