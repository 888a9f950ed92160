package segment

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"sync"
	"testing"
)

// sharedDir returns ../shared relative to the repository root (the directory
// holding go.mod). It skips the test when the directory is absent, unless CI
// is set, in which case absence is a failure.
func sharedDir(t testing.TB) string {
	t.Helper()
	dir, ok := findShared(t)
	if !ok {
		t.Skipf("shared data directory %s not present; skipping", dir)
	}
	return dir
}

// findShared is sharedDir for tests that have a part without shared data:
// it reports absence instead of skipping (still a failure when CI is set).
func findShared(t testing.TB) (string, bool) {
	t.Helper()
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			break
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Fatal("go.mod not found above the test directory")
		}
		dir = parent
	}
	shared := filepath.Join(dir, "..", "shared")
	if _, err := os.Stat(shared); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("shared data directory %s missing (CI is set): %v", shared, err)
		}
		return shared, false
	}
	return shared, true
}

type robustRecord struct {
	ID   string `json:"id"`
	Op   string `json:"op"`
	Text string `json:"text"`
}

// robustTexts returns the texts of bench/dev/robust.jsonl (real news
// articles, about 1,100 characters each).
func robustTexts(t testing.TB) []robustRecord {
	t.Helper()
	path := filepath.Join(sharedDir(t), "bench", "dev", "robust.jsonl")
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	var out []robustRecord
	for sc.Scan() {
		var r robustRecord
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		out = append(out, r)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if len(out) == 0 {
		t.Fatalf("%s: no records", path)
	}
	return out
}

var (
	testSegOnce sync.Once
	testSeg     *Segmenter
	testSegErr  error
)

// sharedSegmenter builds one Segmenter for all tests of the package.
func sharedSegmenter(t testing.TB) *Segmenter {
	t.Helper()
	testSegOnce.Do(func() { testSeg, testSegErr = New(Options{}) })
	if testSegErr != nil {
		t.Fatal(testSegErr)
	}
	return testSeg
}
