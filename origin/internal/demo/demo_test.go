package demo

import (
	"bytes"
	"context"
	"image/jpeg"
	"os"
	"path/filepath"
	"testing"
)

func TestSceneDeterministic(t *testing.T) {
	a, b := Scene(1, 400, 300), Scene(1, 400, 300)
	if !bytes.Equal(a, b) {
		t.Error("Scene(1) differs between two calls")
	}
	if bytes.Equal(a, Scene(2, 400, 300)) {
		t.Error("Scene(1) and Scene(2) are the same picture")
	}
	cfg, err := jpeg.DecodeConfig(bytes.NewReader(a))
	if err != nil || cfg.Width != 400 || cfg.Height != 300 {
		t.Errorf("Scene(1, 400, 300): %dx%d, %v", cfg.Width, cfg.Height, err)
	}
}

func TestResizeCrop(t *testing.T) {
	src := Scene(3, 1000, 500)
	for _, tt := range []struct {
		name string
		f    func() ([]byte, error)
		w, h int
	}{
		{"resize 60%", func() ([]byte, error) { return Resize(src, 0.6, 72) }, 600, 300},
		{"crop 10% a side", func() ([]byte, error) { return Crop(src, 0.1, 88) }, 800, 400},
	} {
		t.Run(tt.name, func(t *testing.T) {
			b, err := tt.f()
			if err != nil {
				t.Fatal(err)
			}
			cfg, err := jpeg.DecodeConfig(bytes.NewReader(b))
			if err != nil || cfg.Width != tt.w || cfg.Height != tt.h {
				t.Errorf("got %dx%d (%v), want %dx%d", cfg.Width, cfg.Height, err, tt.w, tt.h)
			}
		})
	}
}

// TestSeedKeepsExisting: a directory that already holds a manifest is
// left alone; no service is touched (they are nil here).
func TestSeedKeepsExisting(t *testing.T) {
	dir := t.TempDir()
	const m = `{"org_name":"x","items":[{"file":"a.jpg","title":"A","caption":"c","expect":"none"}]}`
	if err := os.WriteFile(filepath.Join(dir, ManifestFile), []byte(m), 0o600); err != nil {
		t.Fatal(err)
	}
	got, err := Seed(context.Background(), Config{Dir: dir})
	if err != nil || len(got.Items) != 1 || got.Items[0].File != "a.jpg" {
		t.Errorf("Seed on a seeded dir = %+v, %v; want the existing manifest", got, err)
	}
}
