//go:build race

package main

// raceDetector is true in a -race build: the soak test's thousands of
// goroutines exceed the detector's limit, and its timings mean nothing
// under it.
const raceDetector = true
