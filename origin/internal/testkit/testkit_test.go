package testkit

import (
	"crypto/ed25519"
	"crypto/rand"
	"image"
	"slices"
	"strings"
	"testing"

	"github.com/golang-jwt/jwt/v5"

	"github.com/provenant/provenant/internal/golist"
	"github.com/provenant/provenant/origin/internal/events"
)

const self = "github.com/provenant/provenant/origin/internal/testkit"

func TestEvents(t *testing.T) {
	var r Events
	if r.Types() != nil || r.LastData("a") != "" || len(r.All()) != 0 {
		t.Fatal("a new recorder is not empty")
	}
	r.Record(events.Event{Type: "a", Data: []byte("1")})
	r.Record(events.Event{Type: "b", Data: []byte("2")})
	r.Record(events.Event{Type: "a", Data: []byte("3")})
	if got := r.Types(); !slices.Equal(got, []string{"a", "b", "a"}) {
		t.Errorf("Types = %v", got)
	}
	if got := r.LastData("a"); got != "3" {
		t.Errorf("LastData(a) = %q, want the newest", got)
	}
	if got := r.LastData("c"); got != "" {
		t.Errorf("LastData(c) = %q, want none", got)
	}
	all := r.All()
	all[0].Type = "changed"
	if r.Types()[0] != "a" {
		t.Error("All returns the recorder's own slice")
	}
}

func TestSignJWT(t *testing.T) {
	pub, key, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	s := SignJWT(t, jwt.SigningMethodEdDSA, key, jwt.RegisteredClaims{Subject: "u"}, "k1")
	tok, err := jwt.Parse(s, func(*jwt.Token) (any, error) { return pub, nil })
	if err != nil || tok.Header["kid"] != "k1" {
		t.Fatalf("parse = %v, %v; want a valid token with kid k1", tok, err)
	}
	if sub, _ := tok.Claims.GetSubject(); sub != "u" {
		t.Errorf("subject = %q", sub)
	}
	if s := SignJWT(t, jwt.SigningMethodEdDSA, key, jwt.RegisteredClaims{}, ""); strings.Contains(s, "kid") {
		t.Error("an empty kid is set")
	}
}

// TestOnlyTests keeps testkit out of every program: only _test.go files
// may import it.
func TestOnlyTests(t *testing.T) {
	out := golist.Run(t, nil, "-f", `{{.ImportPath}} {{join .Imports " "}}`, "github.com/provenant/provenant/...")
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		f := strings.Fields(line)
		if len(f) > 0 && slices.Contains(f[1:], self) {
			t.Errorf("%s imports testkit outside its tests", f[0])
		}
	}
}

func TestJPEGRoundTrip(t *testing.T) {
	m := image.NewGray(image.Rect(0, 0, 32, 16))
	for i := range m.Pix {
		m.Pix[i] = uint8(i * 7)
	}
	got := DecodeJPEG(t, EncodeJPEG(t, m, 90))
	if b := got.Bounds(); b.Dx() != 32 || b.Dy() != 16 {
		t.Errorf("decoded bounds %v, want 32×16", b)
	}
	if len(EncodeJPEG(t, m, 30)) >= len(EncodeJPEG(t, m, 95)) {
		t.Error("the quality is not passed to the encoder")
	}
}

// TestLuma: the plane has the picture's size and its values (a flat grey
// picture stays that grey, within the JPEG's rounding).
func TestLuma(t *testing.T) {
	m := image.NewGray(image.Rect(0, 0, 40, 24))
	for i := range m.Pix {
		m.Pix[i] = 90
	}
	l := Luma(t, EncodeJPEG(t, m, 95))
	if l.Width != 40 || l.Height != 24 {
		t.Fatalf("plane %d×%d, want 40×24", l.Width, l.Height)
	}
	if v := l.At(20, 12); v < 88 || v > 92 {
		t.Errorf("luma %d, want about 90", v)
	}
}
