// Package devdatatest gives tests one way to use the shared data directory
// (see package devdata): absent data skips the test, or fails it when the
// environment variable CI is set. Like net/http/httptest it imports
// "testing"; only tests import it.
package devdatatest

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/newsdedup/newscrawl/internal/devdata"
)

// Dir returns the shared data directory seen from the test's working
// directory. When it is absent the test is skipped, or fails when CI is set.
func Dir(tb testing.TB) string {
	tb.Helper()
	dir, err := devdata.Find(".")
	if err != nil {
		missing(tb, err)
		tb.Skipf("skipping: %v", err)
	}
	return dir
}

// Lookup is Dir for tests that have a part which runs without shared data:
// it reports absence with ok false instead of skipping (still a failure
// when CI is set).
func Lookup(tb testing.TB) (dir string, ok bool) {
	tb.Helper()
	dir, err := devdata.Find(".")
	if err != nil {
		missing(tb, err)
		tb.Logf("shared data absent: %v", err)
		return "", false
	}
	return dir, true
}

// Path returns the path inside the shared data directory named by the
// elements rel (joined with filepath.Join, so "bench/dev" works too). When the directory or
// that file is absent the test is skipped, or fails when CI is set.
func Path(tb testing.TB, rel ...string) string {
	tb.Helper()
	p := filepath.Join(append([]string{Dir(tb)}, rel...)...)
	if _, err := os.Stat(p); err != nil {
		missing(tb, err)
		tb.Skipf("skipping: shared data file absent: %v", err)
	}
	return p
}

// RootDir returns the repository root seen from the test's working
// directory, failing the test when there is none.
func RootDir(tb testing.TB) string {
	tb.Helper()
	root, err := devdata.Root(".")
	if err != nil {
		tb.Fatal(err)
	}
	return root
}

// missing fails the test when CI is set; otherwise it returns and the
// caller skips or carries on.
func missing(tb testing.TB, err error) {
	tb.Helper()
	if os.Getenv(devdata.CIEnv) != "" {
		tb.Fatalf("shared data required when %s is set: %v", devdata.CIEnv, err)
	}
}
