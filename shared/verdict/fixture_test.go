package verdict

import (
	"github.com/provenant/provenant/shared/imagex"
	"github.com/provenant/provenant/shared/localsig"
)

// localFixture returns the local signatures of a synthetic 480×320
// picture and a probe of the same picture as the watermark decoder would
// place it (unscaled, unrotated, unshifted): the facts of a file that is
// the signed picture.
func localFixture() ([]byte, *localsig.Probe) {
	const w, h = 480, 320
	l := &imagex.Luma{Width: w, Height: h, Stride: w, Pix: make([]uint8, w*h)}
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			v := (x*7 + y*3) % 256
			if (x/23+y/17)%3 == 0 {
				v = 255 - v/2
			}
			l.Pix[y*w+x] = uint8(v)
		}
	}
	g, err := localsig.Compute(l).Encode()
	if err != nil {
		panic(err)
	}
	ww, wh := localsig.WorkDims(w, h)
	return g, localsig.NewProbe(l, localsig.Alignment{Scale: 1, WorkWidth: ww, WorkHeight: wh, Period: 64})
}
