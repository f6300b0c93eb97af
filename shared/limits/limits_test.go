package limits

import (
	"errors"
	"testing"
)

func TestValidate(t *testing.T) {
	tests := []struct {
		name   string
		mutate func(*Limits)
		ok     bool
	}{
		{"default", func(*Limits) {}, true},
		{"zero pixels", func(l *Limits) { l.MaxPixels = 0 }, false},
		{"zero side", func(l *Limits) { l.MaxSide = 0 }, false},
		{"zero upload", func(l *Limits) { l.MaxUploadBytes = 0 }, false},
		{"zero decode bytes", func(l *Limits) { l.MaxDecodeBytes = 0 }, false},
		{"proof too long", func(l *Limits) { l.MaxProofLen = 65 }, false},
		{"zero candidates", func(l *Limits) { l.MaxCandidates = 0 }, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			l := Default()
			tt.mutate(&l)
			err := l.Validate()
			if got := err == nil; got != tt.ok {
				t.Fatalf("Validate() = %v, want ok=%v", err, tt.ok)
			}
			if err != nil && !errors.Is(err, ErrInvalid) {
				t.Errorf("Validate() = %v, want wrapping ErrInvalid", err)
			}
		})
	}
}

func TestCheckSignAspect(t *testing.T) {
	tests := []struct {
		w, h, max int
		ok        bool
	}{
		{16384, 256, 0, true},
		{256, 16384, 0, true},
		{16385, 256, 0, false},
		{24000, 256, 0, false},
		{256, 24000, 0, false},
		{1, 65, 0, false},
		{0, 10, 0, false},
		{400, 100, 4, true},
		{401, 100, 4, false},
		{16384, 256, 1000, true}, // never past what the grid holds
		{16385, 256, 1000, false},
	}
	for _, tt := range tests {
		l := Default()
		l.MaxSignAspect = tt.max
		err := l.CheckSignAspect(tt.w, tt.h)
		if (err == nil) != tt.ok || (err != nil && !errors.Is(err, ErrAspect)) {
			t.Errorf("%d×%d at %d: %v, want ok=%v", tt.w, tt.h, tt.max, err, tt.ok)
		}
	}
}
