package pipeline

import (
	"fmt"
	"slices"
	"testing"

	"github.com/newsdedup/newscrawl/config"
	"github.com/newsdedup/newscrawl/dedup"
	"github.com/newsdedup/newscrawl/dedup/lshindex"
	"github.com/newsdedup/newscrawl/segment"
)

// dedup.antecedents switches between Li Yan et al.'s antecedent sets.
func TestEngineOptionsAntecedents(t *testing.T) {
	tests := []struct {
		name string
		set  string
		want segment.AntecedentSet
	}{
		{"basic", "basic", segment.AntecedentsBasic},
		{"optimised", "optimised", segment.AntecedentsOptimised},
		{"learned", "learned", segment.AntecedentsLearned},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			o, err := EngineOptions(config.Dedup{Antecedents: tt.set})
			if err != nil {
				t.Fatal(err)
			}
			want, _ := segment.AntecedentsOf(tt.want)
			want = append(want, dedup.EnglishAntecedents...)
			if !slices.Equal(o.Antecedents, want) {
				t.Errorf("got %d antecedents, want %d", len(o.Antecedents), len(want))
			}
		})
	}
	t.Run("unset keeps the engine default", func(t *testing.T) {
		o, err := EngineOptions(config.Dedup{})
		if err != nil || o.Antecedents != nil {
			t.Errorf("got %v, %v; want nil antecedents (engine default)", o.Antecedents, err)
		}
	})
	t.Run("unknown set is an error", func(t *testing.T) {
		if _, err := EngineOptions(config.Dedup{Antecedents: "all"}); err == nil {
			t.Error("accepted")
		}
	})
}

func TestLSHMinJaccard(t *testing.T) {
	if config.LSHMinJaccard != lshindex.DesignJaccard {
		t.Errorf("config.LSHMinJaccard %v, lshindex.DesignJaccard %v", config.LSHMinJaccard, lshindex.DesignJaccard)
	}
}

func TestSetIndex(t *testing.T) {
	q := dedup.Query{Hamming: dedup.DefaultHamming, Jaccard: dedup.DefaultJaccard, Containment: -1}
	for _, tc := range []struct {
		name    string
		want    string // the index type built
		wantErr bool
	}{
		{"", "*lshindex.Index", false},
		{"lsh", "*lshindex.Index", false},
		{"prefix", "*dedup.PrefixIndex", false},
		{"exhaustive", "*dedup.MemoryIndex", false},
		{"btree", "", true},
		{"redis", "", true}, // a crawl's only: newRedisEngine wires it
	} {
		t.Run("index="+tc.name, func(t *testing.T) {
			var o dedup.Options
			err := SetIndex(&o, tc.name)
			if (err != nil) != tc.wantErr {
				t.Fatalf("SetIndex(%q) error %v", tc.name, err)
			}
			if tc.wantErr {
				if o.NewIndex != nil {
					t.Errorf("SetIndex(%q) failed but set NewIndex", tc.name)
				}
				return
			}
			x, err := o.NewIndex(q)
			if got := fmt.Sprintf("%T", x); err != nil || got != tc.want {
				t.Errorf("SetIndex(%q): NewIndex built %s, %v; want %s", tc.name, got, err, tc.want)
			}
		})
	}
}
