package imagex_test

import (
	"bytes"
	"image"
	"image/jpeg"
	"image/png"
	"runtime"
	"runtime/debug"
	"sync/atomic"
	"testing"
	"time"

	"github.com/provenant/provenant/shared/imagex"
	"github.com/provenant/provenant/shared/limits"
	"github.com/provenant/provenant/shared/phash"
	"github.com/provenant/provenant/shared/watermark"
)

// peakHeap runs fn with the collector at GOGC=5 (so the heap tracks live
// memory closely) and returns the highest heap size sampled, above what
// was live before.
func peakHeap(fn func()) int64 {
	runtime.GC()
	defer debug.SetGCPercent(debug.SetGCPercent(5))
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	base := ms.HeapAlloc
	var peak atomic.Uint64
	done, stopped := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(stopped)
		var m runtime.MemStats
		tick := time.NewTicker(time.Millisecond)
		defer tick.Stop()
		for {
			runtime.ReadMemStats(&m)
			if m.HeapAlloc > peak.Load() {
				peak.Store(m.HeapAlloc)
			}
			select {
			case <-done:
				return
			case <-tick.C:
			}
		}
	}()
	fn()
	close(done)
	<-stopped
	return int64(peak.Load()) - int64(base)
}

// TestCostBoundsPipeline: Info.Cost is at least the heap the verify and
// sign pipelines (decode, luminance, hash, watermark detection or
// embedding and re-encoding) reach, including a long strip whose
// watermark working image is far larger than its pixel count.
func TestCostBoundsPipeline(t *testing.T) {
	if testing.Short() {
		t.Skip("allocates a few hundred MB")
	}
	mk := func(w, h int, asJPEG bool) []byte {
		m := image.NewNRGBA(image.Rect(0, 0, w, h))
		for i := range m.Pix {
			m.Pix[i] = uint8(i*7 + i/4099)
		}
		var buf bytes.Buffer
		var err error
		if asJPEG {
			err = jpeg.Encode(&buf, m, &jpeg.Options{Quality: 90})
		} else {
			err = png.Encode(&buf, m)
		}
		if err != nil {
			t.Fatal(err)
		}
		return buf.Bytes()
	}
	tests := []struct {
		name string
		file []byte
		mark bool
	}{
		{"png 2400x1600", mk(2400, 1600, false), true},
		{"jpeg 2400x1600", mk(2400, 1600, true), true},
		{"png strip 12000x256", mk(12000, 256, false), true},
		{"png strip 8000x64", mk(8000, 64, false), false},
	}
	lim := limits.Default()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			info, err := imagex.DecodeConfig(tt.file, lim)
			if err != nil {
				t.Fatal(err)
			}
			verify := peakHeap(func() {
				img, err := imagex.Decode(tt.file, lim)
				if err != nil {
					t.Error(err)
					return
				}
				l := imagex.ToLuma(img.Image)
				if _, err := phash.Compute(l); err != nil {
					t.Error(err)
				}
				_, _, _ = watermark.Extract(l)
				runtime.KeepAlive(img)
			})
			if c := info.Cost(imagex.UseVerify); verify > c {
				t.Errorf("verify pipeline peaked at %d bytes, Cost(UseVerify) = %d", verify, c)
			}
			if !tt.mark {
				return
			}
			mark := peakHeap(func() {
				img, err := imagex.Decode(tt.file, lim)
				if err != nil {
					t.Error(err)
					return
				}
				m, err := watermark.Embed(img.Image, 1)
				if err != nil {
					t.Error(err)
					return
				}
				var buf bytes.Buffer
				if err := (&png.Encoder{CompressionLevel: png.BestSpeed}).Encode(&buf, m); err != nil {
					t.Error(err)
				}
				if _, err := phash.Compute(imagex.ToLuma(m)); err != nil {
					t.Error(err)
				}
				runtime.KeepAlive(img)
			})
			if c := info.Cost(imagex.UseMark); mark > c {
				t.Errorf("sign pipeline peaked at %d bytes, Cost(UseMark) = %d", mark, c)
			}
			t.Logf("verify %d / %d, sign %d / %d bytes (peak / Cost)", verify, info.Cost(imagex.UseVerify), mark, info.Cost(imagex.UseMark))
		})
	}
}
