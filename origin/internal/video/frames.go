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
	// dur is the probed duration: no more frames than it holds at the
	// rate are produced, whatever the stream's timestamps.
	dur time.Duration
	// vf, if set, is the filter graph after the sampling (built from
	// integers only), producing w×h gray frames.
	vf string
	// luma asks for the coded luminance plane as it is (Y of 8-bit 4:2:0,
	// the plane Embed writes the marks into) instead of full-range gray:
	// the conversion to gray stretches Y by 255/219 and clips below 16
	// and above 235, which scales the temporal mark off its lattice and
	// wipes out any mark on black or white pixels.
	luma bool
}

// durationSlack is how far past the probed duration a decoded stream may
// run (containers round, audio may outlast video) before it is cut.
const durationSlack = time.Second

// maxFrames is the most frames a stream of duration d sampled at num/den
// frames a second may give.
func maxFrames(d time.Duration, num, den int) int {
	ms := (d + durationSlack).Milliseconds()
	return int((ms*int64(num)+int64(den)*1000-1)/(int64(den)*1000)) + 1
}

// sampling is the head of every decode's filter graph: the frame rate
// conversion, then a cut at the probed duration (plus durationSlack)
// counted from the first frame. The cut comes after the conversion on
// purpose: fps fills a timestamp gap by repeating the last frame, all of
// them at once, and a cut placed before it would still let it fill up to
// the gap's end (a clip whose frames are 10 hours apart while its header
// says 2 s drove ffmpeg to 22.9 GB); after it, the cut ends the stream as
// soon as the repeats reach the probed duration.
func sampling(num, den int, d time.Duration) string {
	ms := (d + durationSlack).Milliseconds()
	return fmt.Sprintf("fps=%d/%d,trim=duration=%d.%03d", num, den, ms/1000, ms%1000)
}

// grayFrames decodes the first video stream of path as 8-bit luminance
// frames of spec's size and rate and calls fn for each with its time.
// fn must not keep l: its buffer is reused, so memory is one frame
// whatever the length of the video. A stream that gives more frames than
// the probed duration holds at the rate is refused (ErrLimit).
func (e *Engine) grayFrames(ctx context.Context, path string, spec frameSpec, fn func(t time.Duration, l *imagex.Luma) error) (int, error) {
	vf := sampling(spec.num, spec.den, spec.dur) + ","
	switch {
	case spec.vf != "":
		vf += spec.vf
	case spec.luma:
		vf += fmt.Sprintf("scale=%d:%d:flags=area,format=yuv420p,extractplanes=y", spec.w, spec.h)
	default:
		vf += fmt.Sprintf("scale=%d:%d:flags=area,format=gray", spec.w, spec.h)
	}
	limit := maxFrames(spec.dur, spec.num, spec.den)
	args := e.ffmpegArgs(e.decodeArgs(path)...)
	args = append(args, "-map", "0:v:0", "-an", "-sn", "-dn", "-vf", vf,
		"-frames:v", fmt.Sprint(limit+1), "-f", "rawvideo", "-pix_fmt", "gray", "pipe:1")
	release, err := e.admit(ctx, DecodeMemory)
	if err != nil {
		return 0, err
	}
	defer release()
	l := &imagex.Luma{Width: spec.w, Height: spec.h, Stride: spec.w, Pix: make([]uint8, spec.w*spec.h)}
	n := 0
	err = e.stream(ctx, e.deadline(spec.dur, perSecond), DecodeMemory, nil, args, func(r io.Reader) error {
		for {
			if _, err := io.ReadFull(r, l.Pix); err == io.EOF {
				return nil
			} else if err != nil {
				return fmt.Errorf("%w: a frame was cut short", ErrCorrupt)
			}
			if n == limit {
				return fmt.Errorf("%w: the decoded stream runs past its %.1f s", ErrLimit, spec.dur.Seconds())
			}
			t := time.Duration(float64(n) * float64(spec.den) / float64(spec.num) * float64(time.Second))
			if err := fn(t, l); err != nil {
				return err
			}
			n++
		}
	})
	if err != nil {
		if errors.Is(err, errStop) || errors.Is(err, ErrTimeout) || errors.Is(err, ErrCorrupt) || errors.Is(err, ErrLimit) || ctx.Err() != nil {
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
	_, err := e.grayFrames(ctx, path, frameSpec{num: FingerprintRate, den: 1, w: info.Width, h: info.Height, dur: info.Duration}, func(_ time.Duration, l *imagex.Luma) error {
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
