// Package cputime reads the CPU time of the calling OS thread and of the
// process, so that cost figures measured on a loaded machine count the
// work done rather than the time spent waiting for a core.
package cputime

import (
	"time"

	"golang.org/x/sys/unix"
)

// Thread returns the CPU time consumed by the calling OS thread
// (CLOCK_THREAD_CPUTIME_ID). Callers pin the goroutine with
// runtime.LockOSThread around a measurement.
func Thread() time.Duration {
	var ts unix.Timespec
	if err := unix.ClockGettime(unix.CLOCK_THREAD_CPUTIME_ID, &ts); err != nil {
		return 0
	}
	return time.Duration(ts.Nano())
}

// Process returns the CPU time (user and system) consumed by the process.
func Process() time.Duration {
	var ts unix.Timespec
	if err := unix.ClockGettime(unix.CLOCK_PROCESS_CPUTIME_ID, &ts); err != nil {
		return 0
	}
	return time.Duration(ts.Nano())
}
