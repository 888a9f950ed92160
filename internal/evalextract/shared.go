package evalextract

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
)

// ErrNoShared means the read-only shared data directory was not found.
var ErrNoShared = errors.New("shared data directory not found")

// FindShared locates the shared data directory: the directory "shared"
// next to the repository root, where the repository root is the first
// directory at or above start that contains go.mod.
func FindShared(start string) (string, error) {
	dir, err := filepath.Abs(start)
	if err != nil {
		return "", fmt.Errorf("find shared: %w", err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			shared := filepath.Join(filepath.Dir(dir), "shared")
			if st, err := os.Stat(shared); err == nil && st.IsDir() {
				return shared, nil
			}
			return "", fmt.Errorf("%w: %s", ErrNoShared, shared)
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", fmt.Errorf("%w: no go.mod above %s", ErrNoShared, start)
		}
		dir = parent
	}
}
