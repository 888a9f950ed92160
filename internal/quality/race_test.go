//go:build race

package quality

// raceEnabled: the test binary runs under the race detector, which makes the
// dev evaluations several times slower; TestQualityFloors has a CI step of
// its own without it.
const raceEnabled = true
