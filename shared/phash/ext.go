package phash

import (
	"math"

	"github.com/corona10/goimagehash/etcs"

	"github.com/provenant/provenant/shared/imagex"
)

// ext256 returns goimagehash.ExtPerceptionHash(img, 16, 16) of a 256×256
// plane, bit for bit: the same grey conversion, the same unscaled DCT-II
// (Byeong Gi Lee's recursion, as goimagehash's transforms.DCT1D) with the
// same floating-point operations in the same order, the same 16×16
// low-frequency block and goimagehash's own median (etcs.MedianOfPixels).
// It differs only in cost: the cosines are computed once per call instead of
// once per butterfly, and only the 16 columns the hash reads are transformed
// (goimagehash transforms all 256, each in its own goroutine). The
// differential test TestExt256MatchesGoimagehash holds it to that.
func ext256(l *imagex.Luma) [4]uint64 {
	const n = Side256
	var lum [256]float64
	for v := range lum {
		// transforms.pixel2Gray on color.Gray{v}: r/257 = g/257 = b/256 = v.
		f := float64(v)
		lum[v] = 0.299*f + 0.587*f + 0.114*f
	}
	d := newLee(n)
	px := make([]float64, n*n)
	for y := 0; y < n; y++ {
		row := px[y*n : (y+1)*n]
		src := l.Pix[y*l.Stride : y*l.Stride+n]
		for x, v := range src {
			row[x] = lum[v]
		}
		d.transform(row)
	}
	var flat [256]float64
	col := make([]float64, n)
	for x := 0; x < 16; x++ {
		for y := range col {
			col[y] = px[y*n+x]
		}
		d.transform(col)
		for y := 0; y < 16; y++ {
			flat[16*y+x] = col[y]
		}
	}
	median := etcs.MedianOfPixels(flat[:])
	var h [4]uint64
	for i, p := range flat {
		if p > median {
			h[i/64] |= 1 << uint(63-i%64)
		}
	}
	return h
}

// lee is an unscaled DCT-II of a fixed power-of-two length.
type lee struct {
	n    int
	temp []float64
	// div[len][i] = cos((i+0.5)π/len)·2 for len = n, n/2, …, 2.
	div map[int][]float64
}

func newLee(n int) *lee {
	d := &lee{n: n, temp: make([]float64, n), div: make(map[int][]float64)}
	for ln := n; ln >= 2; ln /= 2 {
		t := make([]float64, ln/2)
		for i := range t {
			t[i] = math.Cos((float64(i)+0.5)*math.Pi/float64(ln)) * 2
		}
		d.div[ln] = t
	}
	return d
}

func (d *lee) transform(in []float64) { d.forward(in, d.temp, len(in)) }

// forward mirrors goimagehash transforms.forwardTransform.
func (d *lee) forward(input, temp []float64, n int) {
	if n == 1 {
		return
	}
	half := n / 2
	div := d.div[n]
	for i := 0; i < half; i++ {
		x, y := input[i], input[n-1-i]
		temp[i] = x + y
		temp[i+half] = (x - y) / div[i]
	}
	d.forward(temp, input, half)
	d.forward(temp[half:], input, half)
	for i := 0; i < half-1; i++ {
		input[i*2+0] = temp[i]
		input[i*2+1] = temp[i+half] + temp[i+half+1]
	}
	input[n-2], input[n-1] = temp[half-1], temp[n-1]
}
