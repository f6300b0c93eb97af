//go:build race

package verifier

// raceEnabled is true when the tests run under the race detector, where
// compiling the module (wazero's compiler instrumented) takes minutes.
const raceEnabled = true
