package wasmtest

import "crypto/rand"

// randReader feeds WASI random_get from the system's CSPRNG, as a
// browser's crypto.getRandomValues does.
type randReader struct{}

func (randReader) Read(p []byte) (int, error) { return rand.Read(p) }
