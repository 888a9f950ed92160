package crawler

import (
	"context"
	"errors"
	"fmt"

	"github.com/newsdedup/newscrawl/storage"
)

// Discard is a Processor for fetch-only runs (throughput measurement): it
// records every article page as not_article in Store without decoding or
// extracting it.
type Discard struct{ Store Store }

// ProcessArticle implements Processor.
func (d Discard) ProcessArticle(ctx context.Context, r *Response) (storage.Outcome, error) {
	p := storage.Page{URL: r.URL, Site: r.Site.Name, RunID: r.RunID, Outcome: storage.OutcomeNotArticle,
		Status: r.Status, Err: "fetch-only run: article not processed", FetchedAt: r.FetchedAt}
	err := d.Store.Commit(ctx, &storage.Commit{Page: p})
	if errors.Is(err, storage.ErrAlreadyDecided) {
		o, _, derr := d.Store.Decided(ctx, r.URL)
		return o, derr
	}
	if err != nil {
		return "", fmt.Errorf("commit %s: %w", r.URL, err)
	}
	return storage.OutcomeNotArticle, nil
}
