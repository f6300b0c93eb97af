package webhooks

import (
	"errors"
	"testing"
)

// TestDialControlRefuses: the dialer's Control hook, which sees the exact
// address a socket connects to, applies the address policy by itself
// (defence in depth behind DialContext's own check).
func TestDialControlRefuses(t *testing.T) {
	g := NewGuard(GuardConfig{})
	for _, tc := range []struct {
		addr string
		ok   bool
	}{
		{"93.184.215.14:443", true},
		{"93.184.215.14:80", true},
		{"93.184.215.14:8080", false},
		{"127.0.0.1:443", false},
		{"10.1.2.3:443", false},
		{"169.254.169.254:80", false},
		{"[::1]:443", false},
		{"[::ffff:127.0.0.1]:443", false},
		{"not an address", false},
	} {
		err := g.control("tcp", tc.addr, nil)
		if (err == nil) != tc.ok || (err != nil && !errors.Is(err, ErrDestinationRefused)) {
			t.Errorf("control(%s) = %v, want allowed=%v", tc.addr, err, tc.ok)
		}
	}
}
