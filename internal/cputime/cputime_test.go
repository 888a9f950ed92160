package cputime

import (
	"runtime"
	"testing"
	"time"
)

func TestThreadCountsWorkNotSleep(t *testing.T) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	t0 := Thread()
	time.Sleep(50 * time.Millisecond)
	slept := Thread() - t0
	x := 0
	t1 := Thread()
	for i := range 50_000_000 {
		x += i ^ (x >> 3)
	}
	worked := Thread() - t1
	if worked <= 0 || slept >= worked {
		t.Fatalf("thread CPU: %v while sleeping, %v while working (x=%d)", slept, worked, x)
	}
	if Process() < worked {
		t.Fatalf("process CPU %v below the thread's %v", Process(), worked)
	}
}
