package pipeline

import (
	"context"
	"io"
	"log/slog"
	"testing"
	"time"

	"github.com/newsdedup/newscrawl/config"
	"github.com/newsdedup/newscrawl/dedup"
	"github.com/newsdedup/newscrawl/storage"
)

// testProcessor builds the article stage of cfg over store as a crawl
// does (segmenter, engine from the store, processor), logging to log
// (nil: discarded).
func testProcessor(t *testing.T, ctx context.Context, cfg *config.Config, store storage.Store, log *slog.Logger) (*Processor, *dedup.Engine) {
	t.Helper()
	if log == nil {
		log = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	seg, err := NewSegmenter(cfg.Segment)
	if err != nil {
		t.Fatal(err)
	}
	eng, _, err := NewEngine(ctx, cfg, seg, store, EngineConfig{Now: time.Now()})
	if err != nil {
		t.Fatal(err)
	}
	pl, err := NewProcessor(cfg, store, eng, log)
	if err != nil {
		t.Fatal(err)
	}
	return pl, eng
}
