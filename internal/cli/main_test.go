package cli

import (
	"fmt"
	"os"
	"testing"
)

// TestMain points the user cache directory (where the index snapshots of
// PostgreSQL stores go, see pipeline.IndexSnapshotPath) at a temporary
// directory, so that tests leave nothing in the real one.
func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "newscrawl-cache-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	os.Setenv("XDG_CACHE_HOME", dir)
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}
