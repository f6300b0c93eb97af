package ids

import (
	"bytes"
	"crypto/rand"
	"errors"
	"testing"
	"testing/iotest"
)

func TestNewUUID(t *testing.T) {
	u, err := NewUUID(bytes.NewReader(bytes.Repeat([]byte{0xff}, 16)))
	if err != nil {
		t.Fatal(err)
	}
	if want := "ffffffff-ffff-4fff-bfff-ffffffffffff"; u != want {
		t.Errorf("NewUUID(all ones) = %s, want %s (version 4, RFC 9562 variant)", u, want)
	}
	a, _ := NewUUID(rand.Reader)
	b, _ := NewUUID(rand.Reader)
	if a == b || !IsUUID(a) || !IsUUID(b) {
		t.Errorf("random UUIDs %s, %s: want distinct and well-formed", a, b)
	}
	if _, err := NewUUID(iotest.ErrReader(errors.New("boom"))); err == nil {
		t.Errorf("NewUUID with failing reader: want error")
	}
}

func TestIsUUID(t *testing.T) {
	tests := map[string]bool{
		"3ee83292-b935-468a-b79f-b95e40bf15e7":  true,
		"3EE83292-B935-468A-B79F-B95E40BF15E7":  false,
		"3ee83292b935468ab79fb95e40bf15e7":      false,
		"3ee83292-b935-468a-b79f-b95e40bf15e":   false,
		"3ee83292-b935-468a-b79f-b95e40bf15e7x": false,
		"../../etc/passwd":                      false,
	}
	for in, want := range tests {
		if got := IsUUID(in); got != want {
			t.Errorf("IsUUID(%q) = %v, want %v", in, got, want)
		}
	}
}
