// Package testkit holds the helpers that the origin's test packages share:
// reading a fixture, decoding a picture as the origin does, signing a
// token for the token checks, and recording the events a service
// publishes. Only tests import it (TestOnlyTests
// checks that), and it imports no package that wires the server, so any
// package's tests can use it without an import cycle.
package testkit

import (
	"bytes"
	"image"
	"image/jpeg"
	"os"
	"sync"
	"testing"

	"github.com/golang-jwt/jwt/v5"

	"github.com/provenant/provenant/origin/internal/events"
	"github.com/provenant/provenant/shared/imagex"
	"github.com/provenant/provenant/shared/limits"
)

// ReadFile returns the content of the file at path (relative to the
// test's package directory) and fails the test if it cannot be read.
func ReadFile(t testing.TB, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// DecodeJPEG decodes a JPEG file and fails the test if it is not one.
func DecodeJPEG(t testing.TB, b []byte) image.Image {
	t.Helper()
	m, err := jpeg.Decode(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// EncodeJPEG encodes m as a JPEG file at quality q (1–100), as a
// re-posting service or an editor would, and fails the test on error.
func EncodeJPEG(t testing.TB, m image.Image, q int) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := jpeg.Encode(&buf, m, &jpeg.Options{Quality: q}); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// Decode decodes file as the origin decodes an upload (imagex.Decode
// under the default limits) and fails the test if it does not decode.
func Decode(t testing.TB, file []byte) *imagex.Image {
	t.Helper()
	img, err := imagex.Decode(file, limits.Default())
	if err != nil {
		t.Fatal(err)
	}
	return img
}

// Luma is the luminance plane the origin computes its perceptual hashes
// on, of file decoded as Decode does.
func Luma(t testing.TB, file []byte) *imagex.Luma {
	t.Helper()
	return imagex.ToLuma(Decode(t, file).Image)
}

// SignJWT returns claims signed with key by method m, with the header's
// kid set when kid is not empty: the tokens the token checks must accept
// or refuse (another key, another algorithm, a missing claim). It fails
// the test if signing fails.
func SignJWT(t testing.TB, m jwt.SigningMethod, key any, claims jwt.Claims, kid string) string {
	t.Helper()
	tok := jwt.NewWithClaims(m, claims)
	if kid != "" {
		tok.Header["kid"] = kid
	}
	s, err := tok.SignedString(key)
	if err != nil {
		t.Fatalf("sign test token: %v", err)
	}
	return s
}

// Events remembers the events given to Record, in order. It is safe for
// concurrent use; the zero value is empty and ready.
type Events struct {
	mu  sync.Mutex
	evs []events.Event
}

// Record appends ev.
func (r *Events) Record(ev events.Event) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.evs = append(r.evs, ev)
}

// All returns a copy of the recorded events, oldest first.
func (r *Events) All() []events.Event {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]events.Event(nil), r.evs...)
}

// Types returns the type of each recorded event, oldest first (nil when
// none was recorded).
func (r *Events) Types() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []string
	for _, ev := range r.evs {
		out = append(out, ev.Type)
	}
	return out
}

// LastData returns the data of the newest recorded event of type typ, or
// "" when there is none.
func (r *Events) LastData(typ string) string {
	r.mu.Lock()
	defer r.mu.Unlock()
	for i := len(r.evs) - 1; i >= 0; i-- {
		if r.evs[i].Type == typ {
			return string(r.evs[i].Data)
		}
	}
	return ""
}
