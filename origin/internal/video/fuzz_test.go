package video

import (
	"testing"
)

// FuzzParseProbe feeds ffprobe-shaped JSON to parseProbe: it must never
// panic and must return either an error or a usable Info.
func FuzzParseProbe(f *testing.F) {
	f.Fuzz(func(t *testing.T, b []byte) {
		info, err := parseProbe(b)
		if err != nil {
			return
		}
		if info.Width <= 0 || info.Height <= 0 || info.FPS <= 0 || info.FPSNum <= 0 || info.FPSDen <= 0 || info.Duration <= 0 {
			t.Fatalf("accepted unusable info %+v", info)
		}
	})
}

// FuzzFingerprintUnmarshal: any bytes either fail or round-trip.
func FuzzFingerprintUnmarshal(f *testing.F) {
	f.Fuzz(func(t *testing.T, b []byte) {
		var fp Fingerprint
		if err := fp.UnmarshalBinary(b); err != nil {
			return
		}
		out, _ := fp.MarshalBinary()
		if string(out) != string(b) {
			t.Fatal("fingerprint does not round-trip")
		}
	})
}
