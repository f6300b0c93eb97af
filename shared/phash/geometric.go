package phash

import (
	"fmt"
	"image"
	"math"

	"github.com/provenant/provenant/shared/imagex"
)

// Edit is a geometric edit a copier makes without changing what the
// picture shows: a rotation by Angle degrees (counter-clockwise positive)
// about the centre, then a crop of Crop of the width and of the height
// from every side, on top of the sin(|Angle|) a rotation needs to cut its
// empty corners away.
type Edit struct {
	Crop  float64
	Angle float64
}

// String describes e as a reader sees the picture changed.
func (e Edit) String() string {
	switch {
	case e.Angle == 0:
		return fmt.Sprintf("cropped %.0f %% a side", 100*e.Crop)
	case e.Crop == 0:
		return fmt.Sprintf("rotated %+.0f°, corners cut", e.Angle)
	}
	return fmt.Sprintf("rotated %+.0f°, cropped %.0f %% a side", e.Angle, 100*e.Crop)
}

// GeometricEdits are the edits [Geometric] hashes a picture under, in
// that order. A global perceptual hash stays within NearDistance256 of its
// picture's over a crop of about 3 % a side or a rotation of about 1.5°
// (bench/README.md); these edits are spaced so that crops up to about
// 22 % a side and rotations up to about 8° land near one of them.
func GeometricEdits() []Edit {
	return []Edit{
		{Crop: 0.05}, {Crop: 0.10}, {Crop: 0.15}, {Crop: 0.20},
		{Angle: 4}, {Angle: -4}, {Angle: 7}, {Angle: -7},
	}
}

// geoSide is the short side of the plane the edits are made on: enough
// detail for a 256×256 hash, a fraction of a photo's cost.
const geoSide = 512

// Geometric returns the hashes of l under each of GeometricEdits, in
// order. A record's picture hashed this way at signing lets a later copy
// that was cropped or slightly rotated be recognised from the copy's own
// Hash (and its Dihedral variants) alone. It does not modify l.
func Geometric(l *imagex.Luma) ([]Hash, error) {
	if l == nil || l.Width <= 0 || l.Height <= 0 {
		return nil, ErrEmpty
	}
	w, h := l.Width, l.Height
	if s := min(w, h); s > geoSide {
		w, h = max(1, w*geoSide/s), max(1, h*geoSide/s)
	}
	base := imagex.Downscale(l, w, h)
	edits := GeometricEdits()
	out := make([]Hash, 0, len(edits))
	for _, e := range edits {
		c := e.Crop + math.Abs(math.Sin(e.Angle*math.Pi/180))
		cx, cy := int(float64(w)*c), int(float64(h)*c)
		win := image.Rect(cx, cy, w-cx, h-cy)
		var p *imagex.Luma
		if e.Angle != 0 {
			p = rotateWindow(base, e.Angle, win)
		} else {
			p = &imagex.Luma{Width: win.Dx(), Height: win.Dy(), Stride: base.Stride, Pix: base.Pix[cy*base.Stride+cx:]}
		}
		hs, err := Compute(p)
		if err != nil {
			return nil, err
		}
		out = append(out, hs)
	}
	return out, nil
}

// rotateWindow returns the window win of l rotated by deg degrees about
// l's centre (bilinear; pixels from outside l are 0, which the caller's
// window excludes). Only the window is computed: along a row the source
// position moves by a constant step, in 16.16 fixed point.
func rotateWindow(l *imagex.Luma, deg float64, win image.Rectangle) *imagex.Luma {
	w, h := win.Dx(), win.Dy()
	out := &imagex.Luma{Width: w, Height: h, Stride: w, Pix: make([]uint8, w*h)}
	s, c := math.Sincos(deg * math.Pi / 180)
	cx, cy := float64(l.Width)/2, float64(l.Height)/2
	const one = 1 << 16
	stepX, stepY := int64(c*one), int64(-s*one)
	maxX, maxY := int64(l.Width-1)<<16, int64(l.Height-1)<<16
	for y := 0; y < h; y++ {
		dy := float64(win.Min.Y+y) - cy
		dx := float64(win.Min.X) - cx
		fx, fy := int64((c*dx+s*dy+cx)*one), int64((-s*dx+c*dy+cy)*one)
		row := out.Pix[y*w : (y+1)*w]
		for x := range row {
			if fx >= 0 && fy >= 0 && fx < maxX && fy < maxY {
				x0, y0 := int(fx>>16), int(fy>>16)
				ax, ay := fx&(one-1), fy&(one-1)
				i := y0*l.Stride + x0
				top := int64(l.Pix[i])*(one-ax) + int64(l.Pix[i+1])*ax
				bot := int64(l.Pix[i+l.Stride])*(one-ax) + int64(l.Pix[i+l.Stride+1])*ax
				row[x] = uint8((top*(one-ay) + bot*ay + 1<<31) >> 32)
			}
			fx += stepX
			fy += stepY
		}
	}
	return out
}
