package segment

import (
	"sync"
	"testing"
)

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
