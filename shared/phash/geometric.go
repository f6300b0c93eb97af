package phash

import (
	"fmt"
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
		p := base
		if e.Angle != 0 {
			p = rotate(base, e.Angle)
		}
		c := e.Crop + math.Abs(math.Sin(e.Angle*math.Pi/180))
		cx, cy := int(float64(w)*c), int(float64(h)*c)
		hs, err := Compute(&imagex.Luma{Width: w - 2*cx, Height: h - 2*cy, Stride: p.Stride, Pix: p.Pix[cy*p.Stride+cx:]})
		if err != nil {
			return nil, err
		}
		out = append(out, hs)
	}
	return out, nil
}

// rotate returns l rotated by deg degrees about its centre, bilinear, the
// same size; pixels from outside l are 0 (the caller crops them away).
func rotate(l *imagex.Luma, deg float64) *imagex.Luma {
	w, h := l.Width, l.Height
	out := &imagex.Luma{Width: w, Height: h, Stride: w, Pix: make([]uint8, w*h)}
	s, c := math.Sincos(deg * math.Pi / 180)
	cx, cy := float64(w)/2, float64(h)/2
	for y := 0; y < h; y++ {
		dy := float64(y) - cy
		for x := 0; x < w; x++ {
			dx := float64(x) - cx
			sx, sy := c*dx+s*dy+cx, -s*dx+c*dy+cy
			x0, y0 := int(math.Floor(sx)), int(math.Floor(sy))
			if x0 < 0 || y0 < 0 || x0+1 >= w || y0+1 >= h {
				continue
			}
			fx, fy := sx-float64(x0), sy-float64(y0)
			i := y0*l.Stride + x0
			v := (1-fx)*(1-fy)*float64(l.Pix[i]) + fx*(1-fy)*float64(l.Pix[i+1]) +
				(1-fx)*fy*float64(l.Pix[i+l.Stride]) + fx*fy*float64(l.Pix[i+l.Stride+1])
			out.Pix[y*w+x] = uint8(min(255, v+0.5))
		}
	}
	return out
}
