package storage_test

import (
	"testing"

	"github.com/newsdedup/newscrawl/storage"
	"github.com/newsdedup/newscrawl/storage/storagetest"
)

func TestMemoryConformance(t *testing.T) {
	storagetest.Run(t, func(t *testing.T) storage.Store {
		m := storage.NewMemory()
		t.Cleanup(func() { m.Close() })
		return m
	})
}
