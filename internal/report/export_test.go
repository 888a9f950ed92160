package report

import (
	"time"

	"github.com/newsdedup/newscrawl/crawler"
)

// AxisTop exposes axisTop to the tests.
var AxisTop = axisTop

// DelayStats summarises ds through a delayTally.
func DelayStats(ds []time.Duration) crawler.DelayStats {
	t := newDelayTally()
	for _, d := range ds {
		t.add(d)
	}
	return t.stats()
}
