package pipeline

import (
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/newsdedup/newscrawl/config"
)

// politeDelay is the fixture sites' delay in TestFleetPoliteness.
const politeDelay = 100 * time.Millisecond

// jitterProbe measures how late this machine's timers fire while it runs
// (a loaded machine deschedules the crawlers as it does the probe): the
// 99th percentile of the lateness of jitterTick sleeps, and the largest.
type jitterProbe struct {
	stop chan struct{}
	done chan []time.Duration
}

const jitterTick = time.Millisecond

func startJitterProbe() *jitterProbe {
	p := &jitterProbe{stop: make(chan struct{}), done: make(chan []time.Duration, 1)}
	go func() {
		var late []time.Duration
		for {
			select {
			case <-p.stop:
				p.done <- late
				return
			default:
			}
			t0 := time.Now()
			time.Sleep(jitterTick)
			late = append(late, time.Since(t0)-jitterTick)
		}
	}()
	return p
}

// result stops the probe and returns the 99th percentile and the largest
// lateness.
func (p *jitterProbe) result() (p99, worst time.Duration) {
	close(p.stop)
	late := <-p.done
	if len(late) == 0 {
		return 0, 0
	}
	slices.Sort(late)
	return late[len(late)*99/100], late[len(late)-1]
}

// TestFleetPoliteness: three crawls at once at a 100 ms delay, their hosts
// paced through Redis (redis:) or through the PostgreSQL store; the
// fixture's servers record arrival times: no two requests to one host
// (robots.txt included) arrive closer than the delay less the timer
// jitter measured on this machine meanwhile (the largest lateness of a
// timer: the time between a claim of the host and the request's arrival
// varies by about as much).
func TestFleetPoliteness(t *testing.T) {
	for _, tc := range []struct {
		name  string
		redis bool
	}{{"postgres", false}, {"postgres+redis", true}} {
		t.Run(tc.name, func(t *testing.T) { fleetPoliteness(t, tc.redis) })
	}
}

func fleetPoliteness(t *testing.T, withRedis bool) {
	cfg, counter := countedFixture(t, pgSchema(t))
	if withRedis {
		cfg.Redis = redisURL(t)
	}
	for i := range cfg.Sites {
		cfg.Sites[i].Delay = config.Duration(politeDelay)
	}
	probe := startJitterProbe()
	var once sync.Once
	var jitter, worst time.Duration
	stopProbe := func() { once.Do(func() { jitter, worst = probe.result() }) }
	defer stopProbe()
	fleetCrawl(t, cfg, 3)
	stopProbe()
	counter.mu.Lock()
	defer counter.mu.Unlock()
	smallest, requests := time.Duration(-1), 0
	for site, times := range counter.times {
		slices.SortFunc(times, func(a, b time.Time) int { return a.Compare(b) })
		requests += len(times)
		for i := 1; i < len(times); i++ {
			gap := times[i].Sub(times[i-1])
			if smallest < 0 || gap < smallest {
				smallest = gap
			}
			if gap < politeDelay-worst {
				t.Errorf("%s: requests %d and %d arrived %v apart, want >= %v (delay %v less the largest timer lateness %v)",
					site, i-1, i, gap.Round(100*time.Microsecond), politeDelay-worst, politeDelay, worst.Round(100*time.Microsecond))
			}
		}
	}
	t.Logf("%d requests to %d hosts from 3 crawls; smallest gap on a host %v; timer jitter p99 %v, largest %v",
		requests, len(counter.times), smallest.Round(100*time.Microsecond), jitter.Round(100*time.Microsecond), worst.Round(100*time.Microsecond))
}
