package imagex

import (
	"bytes"
	"math/rand/v2"
	"slices"
	"testing"
)

func TestDownscale(t *testing.T) {
	src := &Luma{Width: 4, Height: 2, Stride: 5, Pix: []uint8{
		0, 10, 20, 30, 99,
		40, 50, 60, 70, 99,
	}}
	tests := []struct {
		name string
		w, h int
		want []uint8
	}{
		{"identity", 4, 2, []uint8{0, 10, 20, 30, 40, 50, 60, 70}},
		{"2x1", 2, 1, []uint8{25, 45}}, // (0+10+40+50)/4, (20+30+60+70)/4
		{"1x1", 1, 1, []uint8{35}},     // mean of all, stride padding ignored
		{"4x1", 4, 1, []uint8{20, 30, 40, 50}},
		{"8x2 upsample", 8, 2, []uint8{0, 0, 10, 10, 20, 20, 30, 30, 40, 40, 50, 50, 60, 60, 70, 70}},
		{"3x1 uneven", 3, 1, []uint8{20, 30, 45}}, // blocks [0,1) [1,2) [2,4)
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Downscale(src, tt.w, tt.h)
			if got.Width != tt.w || got.Height != tt.h || !bytes.Equal(got.Pix, tt.want) {
				t.Errorf("Downscale(%dx%d) = %dx%d %v, want %v", tt.w, tt.h, got.Width, got.Height, got.Pix, tt.want)
			}
		})
	}
}

// TestDownscaleMatchesNaive cross-checks the SWAR accumulation against a
// plain per-pixel mean on odd sizes, tall bins (> 256 rows) and padding.
func TestDownscaleMatchesNaive(t *testing.T) {
	tests := []struct{ sw, sh, stride, w, h int }{
		{37, 29, 40, 5, 3},
		{1000, 700, 1003, 256, 256},
		{16, 600, 16, 4, 1},       // 600-row bins: lane flush
		{9, 9, 9, 64, 64},         // upsample
		{256, 256, 261, 256, 256}, // the same size: a copy
		{3, 700, 3, 3, 700},
	}
	for _, tt := range tests {
		l := &Luma{Width: tt.sw, Height: tt.sh, Stride: tt.stride, Pix: make([]uint8, tt.stride*tt.sh)}
		for i := range l.Pix {
			l.Pix[i] = uint8(i*131 + i/7)
		}
		got := Downscale(l, tt.w, tt.h)
		x0, x1 := bins(tt.sw, tt.w)
		y0, y1 := bins(tt.sh, tt.h)
		for j := 0; j < tt.h; j++ {
			for i := 0; i < tt.w; i++ {
				var s, n uint64
				for y := y0[j]; y < y1[j]; y++ {
					for x := x0[i]; x < x1[i]; x++ {
						s += uint64(l.At(x, y))
						n++
					}
				}
				if want := uint8((s + n/2) / n); got.Pix[j*tt.w+i] != want {
					t.Fatalf("Downscale(%dx%d→%dx%d)[%d,%d] = %d, want %d", tt.sw, tt.sh, tt.w, tt.h, i, j, got.Pix[j*tt.w+i], want)
				}
			}
		}
	}
}

// TestBlockMeansMatchesGo holds blockMeans (on WebAssembly, its assembly
// body) to blockMeansGo on random block tables: single and wide blocks,
// weights up to 2^20 and sums near a uint64's top, every rounding.
//
//	GOOS=wasip1 GOARCH=wasm go test -run BlockMeans ./shared/imagex
func TestBlockMeansMatchesGo(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	for i := range 2000 {
		cols := 1 + r.IntN(300)
		col := make([]uint64, cols+r.IntN(3))
		big := i%4 == 3
		for k := range col {
			if big {
				col[k] = r.Uint64() >> 26
			} else {
				col[k] = uint64(r.IntN(256 * 300))
			}
		}
		wts := make([]uint64, 1+r.IntN(40))
		for k := range wts {
			wts[k] = uint64(1 + r.IntN(1<<20))
		}
		b := blockSpec{wts: wts, cols: cols}
		n := r.IntN(20)
		for range n {
			c := 1 + r.IntN(min(cols, len(wts)))
			b.spec = append(b.spec, r.IntN(cols-c+1), c, r.IntN(len(wts)-c+1), 1+r.IntN(1000))
		}
		b.check()
		rows := 1 + r.IntN(600)
		want, got := make([]uint8, n+1), make([]uint8, n+1)
		want[n], got[n] = 0xA5, 0xA5
		blockMeansGo(want[:n], col, b.spec, wts, uint64(rows))
		b.row(got[:n], col, rows)
		if !bytes.Equal(got, want) {
			t.Fatalf("table %v, rows %d:\ngot  %v\nwant %v", b.spec, rows, got, want)
		}
	}
}

// TestBlockSpecCheck: a block reaching past its row or its weights, or
// of no width, is refused before any kernel reads it.
func TestBlockSpecCheck(t *testing.T) {
	for _, spec := range [][]int{
		{1, 3, 0, 1}, // past the 3 columns
		{-1, 1, 0, 1},
		{0, 0, 0, 1},
		{0, 2, 4, 1}, // past the 5 weights
		{0, 1, -1, 1},
		{0, 1, 0, 0},
		{0, 1, 0},
	} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("check accepted %v", spec)
				}
			}()
			(&blockSpec{spec: spec, wts: make([]uint64, 5), cols: 3}).check()
		}()
	}
	(&blockSpec{spec: []int{0, 3, 2, 1, 2, 1, 4, 5}, wts: make([]uint64, 5), cols: 3}).check()
}

// TestColSumsMatchesGo holds colSums (on WebAssembly, the weighted
// row-sum kernel with every weight 1) to a per-pixel sum and to swarSums: widths with and without a tail of
// fewer than eight columns, runs of rows across the 256-row lane limit,
// padded strides, bytes near 255; nothing outside col changes.
//
//	GOOS=wasip1 GOARCH=wasm go test -run ColSums ./shared/imagex
func TestColSumsMatchesGo(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 10))
	for i := range 400 {
		width := 1 + r.IntN(40)
		if i%5 == 0 {
			width = 8 * (1 + r.IntN(5))
		}
		stride := width + r.IntN(9)
		rows := 1 + r.IntN(20)
		if i%7 == 0 {
			rows = 250 + r.IntN(300)
		}
		off := r.IntN(3 * stride)
		pix, want := sumCase(r, i, off, stride, rows, width)
		got, swr := slices.Clone(want), slices.Clone(want)
		for y := range rows {
			for x := range width {
				want[x] += uint64(pix[off+y*stride+x])
			}
		}
		colSums(got[:width], pix, off, stride, rows, &swar{})
		swarSums(swr[:width], pix[off:], stride, rows, &swar{})
		for k := range want {
			if got[k] != want[k] || swr[k] != want[k] {
				t.Fatalf("width %d stride %d rows %d: column %d: colSums %d, swarSums %d, want %d", width, stride, rows, k, got[k], swr[k], want[k])
			}
		}
	}
	for _, c := range []struct{ n, off, stride, rows int }{
		{10, 0, 10, 2},  // the second row runs past pix
		{10, -1, 10, 1}, // before pix
		{10, 6, 10, 1},  // one byte past pix
		{10, 0, 9, 1},   // rows overlap
		{10, 0, 10, 0},  // no rows
	} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("colSums accepted %+v", c)
				}
			}()
			colSums(make([]uint64, c.n), make([]uint8, 15), c.off, c.stride, c.rows, &swar{})
		}()
	}
}

// sumCase is a row-sum kernel's input for case i: rows rows of width
// bytes at off with the given stride (the last row sometimes followed by
// one byte more), bytes drawn from the top 1+i%256 levels, and width+1
// accumulators already holding up to 1000 (the one past width must not
// change).
func sumCase(r *rand.Rand, i, off, stride, rows, width int) ([]uint8, []uint64) {
	pix := make([]uint8, off+(rows-1)*stride+width+r.IntN(2))
	for k := range pix {
		pix[k] = uint8(255 - r.IntN(1+i%256))
	}
	acc := make([]uint64, width+1)
	for k := range acc {
		acc[k] = uint64(r.IntN(1000))
	}
	return pix, acc
}

// TestWeightedSumsMatchesGo holds weightedSums (on WebAssembly, its
// assembly body) to a per-pixel sum and to weightedSumsGo: ragged widths,
// padded strides, bytes near 255, and weights adding up to more than 256
// (which weightedSums splits into runs), the lanes' limit; nothing
// outside col changes. A weight outside 1 to 256 or a row past pix is
// refused.
//
//	GOOS=wasip1 GOARCH=wasm go test -run WeightedSums ./shared/imagex
func TestWeightedSumsMatchesGo(t *testing.T) {
	r := rand.New(rand.NewPCG(13, 14))
	for i := range 400 {
		width := 1 + r.IntN(40)
		stride := width + r.IntN(9)
		wts := make([]int, 1+r.IntN(12))
		for k := range wts {
			wts[k] = 1 + r.IntN(8)
			if i%6 == 0 {
				wts[k] = 1 + r.IntN(256)
			}
		}
		off := r.IntN(3 * stride)
		pix, want := sumCase(r, i, off, stride, len(wts), width)
		got, ref := slices.Clone(want), slices.Clone(want)
		for y, w := range wts {
			for x := range width {
				want[x] += uint64(w) * uint64(pix[off+y*stride+x])
			}
		}
		weightedSums(got[:width], pix, off, stride, wts)
		weightedSumsGo(ref[:width], pix[off:], stride, wts)
		if !slices.Equal(got, want) || !slices.Equal(ref, want) {
			t.Fatalf("width %d stride %d weights %v:\nweightedSums   %v\nweightedSumsGo %v\nwant           %v", width, stride, wts, got, ref, want)
		}
	}
	for _, c := range []struct {
		off, stride int
		wts         []int
	}{
		{6, 10, []int{1}},    // one byte past pix
		{0, 10, []int{1, 1}}, // the second row past pix
		{0, 9, []int{1}},     // rows overlap
		{0, 10, nil},
		{0, 10, []int{0}},
		{0, 10, []int{257}},
	} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("weightedSums accepted %+v", c)
				}
			}()
			weightedSums(make([]uint64, 10), make([]uint8, 15), c.off, c.stride, c.wts)
		}()
	}
}
