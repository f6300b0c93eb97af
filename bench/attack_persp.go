package main

import (
	"image"
	"math"
)

// perspectiveAttacks lists the print-photographed-at-an-angle columns.
func perspectiveAttacks() []attack {
	return []attack{
		// Straightened by hand, imperfectly: the corners land within 2 %
		// (3 %) of each side of where they belong, in different
		// directions, so the residual has a tilt in both axes and a slight
		// rotation; the picture still fills the frame. Then JPEG 85.
		{"perspective2", "print", chain(warpQuad([4][2]float64{{0.02, 0.01}, {0.99, -0.01}, {1.01, 0.98}, {-0.01, 1.02}}, 0), jpegQ(85))},
		{"perspective3", "print", chain(warpQuad([4][2]float64{{-0.03, 0.02}, {1.02, 0.03}, {0.98, 0.97}, {0.01, 1.03}}, 0), jpegQ(85))},
		// Not straightened: the print seen at an angle on a grey table,
		// its near edge wider than its far one and turned by about 2°.
		{"print-angle", "print", chain(warpQuad([4][2]float64{{0.09, 0.06}, {0.90, 0.03}, {0.97, 0.95}, {0.03, 0.97}}, 96), jpegQ(85))},
	}
}

// warpQuad maps the picture onto the quadrilateral q (top-left, top-right,
// bottom-right, bottom-left, in fractions of the output, which has the
// input's size) by the homography through those corners, bilinear; pixels
// outside the picture take the grey bg.
func warpQuad(q [4][2]float64, bg uint8) func(image.Image, string) (image.Image, error) {
	return func(m image.Image, _ string) (image.Image, error) {
		src := toRGBA(m)
		w, h := src.Bounds().Dx(), src.Bounds().Dy()
		var dst [4][2]float64
		for i, c := range q {
			dst[i] = [2]float64{c[0] * float64(w), c[1] * float64(h)}
		}
		srcC := [4][2]float64{{0, 0}, {float64(w), 0}, {float64(w), float64(h)}, {0, float64(h)}}
		// The inverse map: output coordinates to source coordinates.
		H := homography(dst, srcC)
		out := image.NewRGBA(image.Rect(0, 0, w, h))
		for y := 0; y < h; y++ {
			for x := 0; x < w; x++ {
				fx, fy := float64(x)+0.5, float64(y)+0.5
				d := H[6]*fx + H[7]*fy + 1
				sx := (H[0]*fx+H[1]*fy+H[2])/d - 0.5
				sy := (H[3]*fx+H[4]*fy+H[5])/d - 0.5
				i := y*out.Stride + 4*x
				out.Pix[i+3] = 255
				if sx < -0.5 || sy < -0.5 || sx > float64(w)-0.5 || sy > float64(h)-0.5 {
					out.Pix[i], out.Pix[i+1], out.Pix[i+2] = bg, bg, bg
					continue
				}
				x0 := min(max(int(math.Floor(sx)), 0), w-2)
				y0 := min(max(int(math.Floor(sy)), 0), h-2)
				ax := min(max(sx-float64(x0), 0), 1)
				ay := min(max(sy-float64(y0), 0), 1)
				j := y0*src.Stride + 4*x0
				for c := 0; c < 3; c++ {
					top := (1-ax)*float64(src.Pix[j+c]) + ax*float64(src.Pix[j+4+c])
					bot := (1-ax)*float64(src.Pix[j+src.Stride+c]) + ax*float64(src.Pix[j+src.Stride+4+c])
					out.Pix[i+c] = clampU8((1-ay)*top + ay*bot)
				}
			}
		}
		return out, nil
	}
}

// homography returns h0…h7 of the projective map taking a[i] to b[i]:
// (x, y) ↦ ((h0x+h1y+h2)/(h6x+h7y+1), (h3x+h4y+h5)/(h6x+h7y+1)).
func homography(a, b [4][2]float64) [8]float64 {
	var A [8][9]float64
	for i := 0; i < 4; i++ {
		x, y, u, v := a[i][0], a[i][1], b[i][0], b[i][1]
		A[2*i] = [9]float64{x, y, 1, 0, 0, 0, -u * x, -u * y, u}
		A[2*i+1] = [9]float64{0, 0, 0, x, y, 1, -v * x, -v * y, v}
	}
	// Gaussian elimination with partial pivoting.
	for c := 0; c < 8; c++ {
		p := c
		for r := c + 1; r < 8; r++ {
			if math.Abs(A[r][c]) > math.Abs(A[p][c]) {
				p = r
			}
		}
		A[c], A[p] = A[p], A[c]
		for r := 0; r < 8; r++ {
			if r == c || A[c][c] == 0 {
				continue
			}
			f := A[r][c] / A[c][c]
			for k := c; k < 9; k++ {
				A[r][k] -= f * A[c][k]
			}
		}
	}
	var h [8]float64
	for i := range h {
		h[i] = A[i][8] / A[i][i]
	}
	return h
}
