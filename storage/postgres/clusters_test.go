package postgres_test

import (
	"testing"

	"github.com/newsdedup/newscrawl/storage/storagetest"
)

func TestClusterReads(t *testing.T) {
	serverURL(t)
	storagetest.ClusterReads(t, func(t *testing.T) storagetest.ClusterReader {
		u, _ := freshSchema(t)
		return openStore(t, u)
	})
}
