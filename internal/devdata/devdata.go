// Package devdata locates the project's read-only development data: the
// directory "shared" beside the repository root (../shared seen from the
// root, where the root is the first directory at or above a starting point
// that holds go.mod), and gives tests one way to use it.
//
// The rule every test that reads shared data follows: when the directory or
// a file in it is absent, the test is skipped with a message naming what is
// missing, except when the environment variable CI is set, where absence is
// a failure (CI always runs with shared/ beside the clone). The test
// helpers that apply it live in package devdatatest, so that this package,
// which the lab commands use, does not import "testing".
package devdata

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
)

// DirName is the name of the shared data directory, a sibling of the
// repository root.
const DirName = "shared"

// CIEnv is the environment variable whose presence turns absent shared data
// from a skipped test into a failed one.
const CIEnv = "CI"

// ErrNotFound means the repository root or the shared data directory beside
// it was not found.
var ErrNotFound = errors.New("shared data directory not found")

// Root returns the repository root: the first directory at or above start
// that contains go.mod.
func Root(start string) (string, error) {
	dir, err := filepath.Abs(start)
	if err != nil {
		return "", fmt.Errorf("find repository root: %w", err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", fmt.Errorf("%w: no go.mod at or above %s", ErrNotFound, start)
		}
		dir = parent
	}
}

// Find returns the shared data directory beside the repository root found
// from start (see Root). The error wraps ErrNotFound when there is no
// go.mod above start or no directory "shared" beside the root.
func Find(start string) (string, error) {
	root, err := Root(start)
	if err != nil {
		return "", err
	}
	dir := filepath.Join(filepath.Dir(root), DirName)
	st, err := os.Stat(dir)
	if err != nil {
		return "", fmt.Errorf("%w: %s: %w", ErrNotFound, dir, err)
	}
	if !st.IsDir() {
		return "", fmt.Errorf("%w: %s is not a directory", ErrNotFound, dir)
	}
	return dir, nil
}
