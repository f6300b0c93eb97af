//go:build !race

package verifier

// raceEnabled is true when the tests run under the race detector.
const raceEnabled = false
