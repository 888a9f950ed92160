package sqlite_test

import (
	"path/filepath"
	"testing"

	"github.com/newsdedup/newscrawl/storage/storagetest"
)

func TestSQLiteClusterReads(t *testing.T) {
	storagetest.ClusterReads(t, func(t *testing.T) storagetest.ClusterReader {
		return openTemp(t, filepath.Join(t.TempDir(), "store.db"))
	})
}
