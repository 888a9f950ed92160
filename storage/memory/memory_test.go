package memory_test

import (
	"testing"

	"github.com/newsdedup/newscrawl/storage"
	"github.com/newsdedup/newscrawl/storage/memory"
	"github.com/newsdedup/newscrawl/storage/storagetest"
)

func TestMemoryConformance(t *testing.T) {
	storagetest.Run(t, func(t *testing.T) storage.Store {
		m := memory.New()
		t.Cleanup(func() { m.Close() })
		return m
	})
}

func TestMemoryClusterReads(t *testing.T) {
	storagetest.ClusterReads(t, func(t *testing.T) storagetest.ClusterReader {
		m := memory.New()
		t.Cleanup(func() { m.Close() })
		return m
	})
}
