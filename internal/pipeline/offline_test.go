package pipeline

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/newsdedup/newscrawl/config"
	"github.com/newsdedup/newscrawl/dedup"
	"github.com/newsdedup/newscrawl/internal/fixture"
)

// TestOfflinePartialReprint: offline dedup keeps an article that re-uses a
// story but adds as much of its own (reason "partial", partial_of, the
// shared passages) and drops a plain copy with its passages as evidence.
func TestOfflinePartialReprint(t *testing.T) {
	stories := map[string]fixture.Story{}
	for _, s := range fixture.Stories() {
		stories[s.ID] = s
	}
	s1, s2 := stories["s1"], stories["s2"]
	base := strings.Join(s1.Paragraphs, "\n")
	docs := []OfflineDoc{
		{ID: json.RawMessage(`"a"`), Title: s1.Title, Text: base},
		{ID: json.RawMessage(`"followup"`), Title: s1.Title, Text: base + "\n" + strings.Join(s2.Paragraphs, "\n")},
		{ID: json.RawMessage(`"copy"`), Title: s1.Title, Text: strings.Join(s1.Paragraphs[1:], "\n")},
	}
	seg, err := NewSegmenter(config.Default().Segment)
	if err != nil {
		t.Fatal(err)
	}
	eng, err := dedup.New(seg, dedup.Options{PartialReprint: true})
	if err != nil {
		t.Fatal(err)
	}
	res, kept, dups, err := Dedup(context.Background(), eng, docs)
	if err != nil {
		t.Fatal(err)
	}
	if kept != 2 || dups != 1 {
		t.Fatalf("kept %d, duplicates %d; want 2, 1 (%+v)", kept, dups, res)
	}
	tests := []struct {
		name      string
		r         OfflineResult
		kept      bool
		reason    string
		partialOf string
	}{
		{"follow-up kept as partial reprint", res[1], true, "partial", `"a"`},
		{"copy dropped", res[2], false, "jaccard", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.r.Kept != tt.kept || tt.r.Reason != tt.reason || string(tt.r.PartialOf) != tt.partialOf {
				t.Errorf("got kept %v reason %q partial_of %s", tt.r.Kept, tt.r.Reason, tt.r.PartialOf)
			}
			if len(tt.r.Passages) == 0 {
				t.Error("no shared passages recorded")
			}
			if tt.reason == "partial" && (tt.r.OwnShare == nil || *tt.r.OwnShare < dedup.MinOwnShare) {
				t.Errorf("own share %v", tt.r.OwnShare)
			}
		})
	}
}
