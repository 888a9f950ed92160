//go:build race

package dedup

// raceEnabled: the race detector drops sync.Pool items at random and
// instruments allocations, so allocation figures are not comparable.
const raceEnabled = true
