//go:build unix

package segment

import (
	"math"
	"syscall"
	"time"
)

// cpuSeconds is the user+system CPU time of the process (all threads, GC
// included): docs per CPU-second is the per-core throughput even when other
// processes compete for the machine.
func cpuSeconds() float64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return math.NaN()
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()).Seconds()
}
