//go:build !race

package quality

// raceEnabled: see race_test.go.
const raceEnabled = false
