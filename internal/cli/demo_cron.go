package cli

import (
	"context"
	"fmt"
	"io"

	"github.com/newsdedup/newscrawl/config"
	"github.com/newsdedup/newscrawl/internal/pipeline"
)

// demoCronRun crawls the fixture web a second time, as the next cron run
// would, and says what that run cost: nothing is new, so no article and
// no known 404 is requested and the list pages answer 304 Not Modified.
func demoCronRun(ctx context.Context, cfg *config.Config, o pipeline.CrawlOptions, stdout io.Writer) error {
	o.Progress, o.ProgressEvery, o.Status = nil, 0, nil
	res, err := pipeline.Crawl(ctx, cfg, o)
	if err != nil {
		return fmt.Errorf("demo: second run: %w", err)
	}
	t := res.Summary.Total
	fmt.Fprintf(stdout, "\nsecond run, as cron would start it: %d requests (robots.txt included), %d list pages answered 304 Not Modified, %d stored, %d duplicates\n",
		t.Requests, t.NotModified, t.Stored, t.Duplicates)
	return nil
}
