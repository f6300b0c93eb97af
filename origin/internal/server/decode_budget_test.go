package server

import (
	"os"
	"path/filepath"
	"testing"
)

// TestDecodeBudgetRefusesOversizedImage: an image whose decode needs more
// than the whole decode budget is refused 422 too_many_pixels (waiting
// cannot make room for it); under the default budget it verifies.
func TestDecodeBudgetRefusesOversizedImage(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("testdata", "meadow.jpg"))
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name     string
		memory   int64
		wantCode string // "" means 200
	}{
		{"default budget", 0, ""},
		{"budget of 1 MiB", 1 << 20, "too_many_pixels"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ts := startServer(t, "", nil, func(c *Config, _ *deps) { c.DecodeMemory = tt.memory })
			r := ts.upload("/api/v1/verify", "", []namedFile{{"file", "meadow.jpg", data}}, nil)
			if tt.wantCode == "" {
				ts.mustStatus(r, 200, "verify")
				return
			}
			ts.mustStatus(r, 422, "verify")
			if code := r.problemCode(t); code != tt.wantCode {
				t.Errorf("code %q, want %q", code, tt.wantCode)
			}
		})
	}
}
