// Package seedtest writes the test data the core's packages commit and
// regenerate only on request: fuzz seeds in the file format of Go's fuzzing
// corpus (so that `go test` replays them and the CI's fuzz smoke starts
// from them) and the golden files beside them.
package seedtest

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// header is the first line of every corpus file.
const header = "go test fuzz v1\n"

// Regenerate skips tb unless the environment variable env is set: a test
// that rewrites committed test data (what) runs only when asked to.
func Regenerate(tb testing.TB, env, what string) {
	tb.Helper()
	if os.Getenv(env) == "" {
		tb.Skipf("set %s=1 to regenerate %s", env, what)
	}
}

// Seed is the corpus file `go test` reads as one input of a fuzz target
// whose only argument is a []byte, holding b byte for byte.
func Seed(b []byte) []byte {
	return fmt.Appendf(nil, header+"[]byte(%q)\n", b)
}

// ReadSeed returns the input held by the committed seed called name of
// the fuzz target target (testdata/fuzz/<target>/<name> below the current
// directory), a file in [Seed]'s form as the fuzzer also writes it; a
// missing or malformed file fails tb.
func ReadSeed(tb testing.TB, target, name string) []byte {
	tb.Helper()
	path := filepath.Join("testdata", "fuzz", target, name)
	file, err := os.ReadFile(path)
	if err != nil {
		tb.Fatal(err)
	}
	b, err := parseSeed(file)
	if err != nil {
		tb.Fatalf("%s: %v", path, err)
	}
	return b
}

// parseSeed is the inverse of Seed.
func parseSeed(file []byte) ([]byte, error) {
	body, ok := strings.CutPrefix(string(file), header)
	if !ok {
		return nil, errors.New("no corpus header")
	}
	lit, ok := strings.CutPrefix(strings.TrimSpace(body), "[]byte(")
	if lit, ok = strings.CutSuffix(lit, ")"); !ok {
		return nil, errors.New("not one []byte value")
	}
	s, err := strconv.Unquote(lit)
	if err != nil {
		return nil, fmt.Errorf("[]byte value: %w", err)
	}
	return []byte(s), nil
}

// WriteSeed writes b as the seed called name of the fuzz target target,
// at testdata/fuzz/<target>/<name> below the current directory (a test's
// package directory), creating the directories it needs.
func WriteSeed(tb testing.TB, target, name string, b []byte) {
	tb.Helper()
	Write(tb, filepath.Join("testdata", "fuzz", target, name), Seed(b))
}

// Write writes b to path, creating its directory, and fails tb if it
// cannot.
func Write(tb testing.TB, path string, b []byte) {
	tb.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		tb.Fatal(err)
	}
	if err := os.WriteFile(path, b, 0o644); err != nil {
		tb.Fatal(err)
	}
}
