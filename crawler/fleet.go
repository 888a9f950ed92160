package crawler

import (
	"context"
	"fmt"
	"time"

	"github.com/newsdedup/newscrawl/storage"
)

// FleetFrontier is implemented by a frontier shared with other crawl
// processes (storage/postgres, storage/redisfrontier): FleetPending counts
// the items of a site still to be done by someone else, pending or leased
// by another process, live or not yet found dead. A site whose own work is
// done waits while it is above zero, so that a process does not finish
// (and report a completed run) while another holds the site's URLs: a
// live process may push more links, and a dead one's leases come back at
// a Pop once its heartbeat has lapsed.
type FleetFrontier interface {
	FleetPending(ctx context.Context, site string) (int, error)
}

// fleetPoll is how often a site waiting for other processes' leases polls
// the shared frontier.
const fleetPoll = 250 * time.Millisecond

// awaitFleet is called when a site has nothing leased and nothing in
// flight. It reports whether other processes still hold or queue work of
// the site (the caller then pops again), after waiting fleetPoll or until
// wake or ctx; false ends the site. The first wait of a site is logged.
func (r *run) awaitFleet(ctx context.Context, st *siteState, wake <-chan struct{}, logged *bool) bool {
	ff, ok := r.store.(FleetFrontier)
	if !ok {
		return false
	}
	n, err := ff.FleetPending(ctx, st.name)
	if err != nil {
		if ctx.Err() == nil {
			r.fatal(fmt.Errorf("fleet pending %s: %w", st.name, err))
		}
		return false
	}
	if n == 0 {
		return false
	}
	if !*logged {
		*logged = true
		r.log.Info("waiting for other processes' URLs of the site", "site", st.name, "urls", n)
	}
	t := time.NewTimer(fleetPoll)
	defer t.Stop()
	select {
	case <-t.C:
	case <-wake:
	case <-ctx.Done():
	}
	return true
}

// OutcomeDecidedElsewhere is what a Processor returns for an article whose
// URL another process (or an earlier attempt) decided first: that verdict
// stands and this process counts the page as skipped (already decided),
// not as stored or duplicate, so that the summaries of a fleet's
// processes add up to what the store holds. It is never stored.
const OutcomeDecidedElsewhere storage.Outcome = "decided_elsewhere"
