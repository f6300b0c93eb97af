package video

import (
	"context"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/provenant/provenant/shared/imagex"
)

// frameSpec says which frames to decode and how.
type frameSpec struct {
	// rate is the sampling rate in frames per second as "num/den" built
	// from integers (never from file data as text).
	num, den int
	// w, h is the size frames are scaled to.
	w, h int
	// vf, if set, is the whole filter graph (built from integers only),
	// producing w×h gray frames at the rate.
	vf string
}

// grayFrames decodes the first video stream of path as 8-bit luminance
// frames of spec's size and rate and calls fn for each with its time.
// fn must not keep l: its buffer is reused, so memory is one frame
// whatever the length of the video.
func (e *Engine) grayFrames(ctx context.Context, path string, spec frameSpec, fn func(t time.Duration, l *imagex.Luma) error) (int, error) {
	vf := spec.vf
	if vf == "" {
		vf = fmt.Sprintf("fps=%d/%d,scale=%d:%d:flags=area,format=gray", spec.num, spec.den, spec.w, spec.h)
	}
	args := e.ffmpegArgs(inputArgs(path)...)
	args = append(args, "-map", "0:v:0", "-an", "-sn", "-dn", "-vf", vf, "-f", "rawvideo", "-pix_fmt", "gray", "pipe:1")
	release, err := e.turn(ctx)
	if err != nil {
		return 0, err
	}
	defer release()
	l := &imagex.Luma{Width: spec.w, Height: spec.h, Stride: spec.w, Pix: make([]uint8, spec.w*spec.h)}
	n := 0
	err = e.stream(ctx, nil, args, func(r io.Reader) error {
		for {
			if _, err := io.ReadFull(r, l.Pix); err == io.EOF {
				return nil
			} else if err != nil {
				return fmt.Errorf("%w: a frame was cut short", ErrCorrupt)
			}
			t := time.Duration(float64(n) * float64(spec.den) / float64(spec.num) * float64(time.Second))
			if err := fn(t, l); err != nil {
				return err
			}
			n++
		}
	})
	if err != nil {
		if errors.Is(err, errStop) || errors.Is(err, ErrTimeout) || errors.Is(err, ErrCorrupt) || ctx.Err() != nil {
			return n, err
		}
		// The command line is fixed, so a failing decoder means the file.
		return n, fmt.Errorf("%w: %w", ErrCorrupt, err)
	}
	if n == 0 {
		return 0, fmt.Errorf("%w: no frame could be decoded", ErrCorrupt)
	}
	return n, nil
}

// errStop ends a frame stream early on purpose.
var errStop = errors.New("video: enough frames")

// FrameAt returns the luminance, at the probed size, of the frame the
// fingerprint samples at second sec (the same selection, one frame a
// second), decoding no further than that frame.
func (e *Engine) FrameAt(ctx context.Context, path string, info Info, sec int) (*imagex.Luma, error) {
	var out *imagex.Luma
	i := 0
	_, err := e.grayFrames(ctx, path, frameSpec{num: FingerprintRate, den: 1, w: info.Width, h: info.Height}, func(_ time.Duration, l *imagex.Luma) error {
		if i == sec {
			out = &imagex.Luma{Width: l.Width, Height: l.Height, Stride: l.Stride, Pix: append([]uint8(nil), l.Pix...)}
			return errStop
		}
		i++
		return nil
	})
	if out != nil {
		return out, nil
	}
	if err == nil {
		err = fmt.Errorf("%w: no frame at %d s", ErrCorrupt, sec)
	}
	return nil, err
}
