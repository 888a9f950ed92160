package dedup_test

import (
	"testing"

	"github.com/newsdedup/newscrawl/dedup"
	"github.com/newsdedup/newscrawl/dedup/indextest"
)

func TestConformance(t *testing.T) {
	t.Run("memory", func(t *testing.T) {
		indextest.Run(t, func(t *testing.T) dedup.Index {
			x, err := dedup.NewMemoryIndex(dedup.DefaultHamming, dedup.DefaultJaccard)
			if err != nil {
				t.Fatal(err)
			}
			return x
		})
	})
	t.Run("prefix", func(t *testing.T) {
		indextest.Run(t, func(t *testing.T) dedup.Index {
			x, err := dedup.NewPrefixIndex(dedup.DefaultJaccard, dedup.DefaultContainment)
			if err != nil {
				t.Fatal(err)
			}
			return x
		})
	})
}
