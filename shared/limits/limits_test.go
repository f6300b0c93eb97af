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
