package video

import (
	"context"
	"errors"
	"fmt"
	"image"
	"io"
	"math"
	"strconv"
	"time"

	"github.com/provenant/provenant/shared/imagex"
	"github.com/provenant/provenant/shared/localsig"
	"github.com/provenant/provenant/shared/watermark"
)

// EmbedOptions tune Embed; the zero value is the measured default.
type EmbedOptions struct {
	// KeyInterval is how many frames share one computed mark: the core
	// embedder (perceptual mask included) runs on every KeyInterval-th
	// frame and its luminance offset is added to that frame and the
	// following ones. 0 means one a second (the frame rate, rounded).
	KeyInterval int
	// CRF is libx264's constant rate factor (0 means 17, visually
	// lossless).
	CRF int
	// Preset is libx264's preset ("" means "fast").
	Preset string
	// TargetPSNR is the core embedder's luminance PSNR target in dB (0
	// means DefaultTargetPSNR).
	TargetPSNR float64
	// Gain multiplies the core embedder's luminance offset (0 means
	// DefaultGain): the core stops at 36 dB, video goes further.
	Gain float64
	// Mark is the video mark version written (0 means MarkTemporal).
	Mark int
}

// Video mark versions. Extract reads both, whichever the video carries.
const (
	// MarkFrame is the first version: the image watermark in every
	// frame (computed once a second), read from the frames' mean.
	MarkFrame = 1
	// MarkTemporal adds to MarkFrame's mark the temporal mark: the
	// payload again, in low spatial frequencies quantised frame by frame
	// (temporal.go), which survives coarse re-encodes (H.264 CRF 35, a
	// 2 Mb/s 1080p platform encode) that MarkFrame's does not. The image
	// mark stays: it finds the payload in cropped copies and places the
	// clip's frame for the local signatures.
	MarkTemporal = 2
)

// DefaultTargetPSNR is stronger than the image default (42.2 dB), and
// the core's strongest: video is viewed in motion, which hides the mark,
// and must survive the coarse quantisation of platform re-encodes.
const DefaultTargetPSNR = 36

// DefaultGain is the measured default of EmbedOptions.Gain: the core's
// 36 dB offset ×1.4 (about 3 dB stronger). Signed clips measure 39 dB
// luminance PSNR against their sources after the CRF 17 encode (41 dB at
// the former 38 dB ×1); under a CRF 35 re-encode the detector's z-score
// on the frame sum went from 4.4 to 9.9 and 4.8 to 6.5 on two clips.
const DefaultGain = 1.4

// EmbedStats reports what Embed did.
type EmbedStats struct {
	Frames, KeyFrames int
	Width, Height     int
}

// audioCopyable lists audio codecs MP4 carries as they are; others are
// re-encoded to AAC.
var audioCopyable = map[string]bool{"aac": true, "mp3": true, "opus": true, "ac3": true, "eac3": true, "alac": true}

// Embed writes to out an H.264 MP4 of the probed video at in whose frames
// carry payload p in their luminance, the first audio stream copied (or
// re-encoded to AAC when MP4 cannot carry it). Frames stream from one
// ffmpeg (decoder) through this process to another (encoder): memory is a
// few frames whatever the length. The two processes are admitted
// together (DecodeMemory+EncodeMemory of the budget) and share the
// deadline of encodePerSecond times the probed duration.
func (e *Engine) Embed(ctx context.Context, in string, info Info, out string, p watermark.Payload, opt EmbedOptions) (EmbedStats, error) {
	w, h := info.Width&^1, info.Height&^1 // 4:2:0 needs even sides
	key := opt.KeyInterval
	if key <= 0 {
		key = max(1, int(info.FPS+0.5))
	}
	crf := opt.CRF
	if crf <= 0 {
		crf = 17
	}
	psnr := opt.TargetPSNR
	if psnr == 0 {
		psnr = DefaultTargetPSNR
	}
	gain := opt.Gain
	if gain <= 0 {
		gain = DefaultGain
	}
	preset := opt.Preset
	if preset == "" {
		preset = "fast"
	}
	mark := opt.Mark
	if mark == 0 {
		mark = MarkTemporal
	}
	if mark != MarkFrame && mark != MarkTemporal {
		return EmbedStats{}, fmt.Errorf("video: unknown mark version %d", mark)
	}
	release, err := e.admit(ctx, DecodeMemory+EncodeMemory)
	if err != nil {
		return EmbedStats{}, err
	}
	defer release()
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	wall := e.deadline(info.Duration, encodePerSecond)
	limit := maxFrames(info.Duration, info.FPSNum, info.FPSDen)
	end := info.Duration + durationSlack

	dec := e.ffmpegArgs(e.decodeArgs(in)...)
	dec = append(dec, "-map", "0:v:0", "-an", "-sn", "-dn",
		"-vf", sampling(info.FPSNum, info.FPSDen, info.Duration)+fmt.Sprintf(",scale=%d:%d,format=yuv420p", w, h),
		"-frames:v", strconv.Itoa(limit+1), "-f", "rawvideo", "-pix_fmt", "yuv420p", "pipe:1")

	enc := []string{"-hide_banner", "-v", "error", "-timelimit", strconv.Itoa(e.cpu), "-threads", strconv.Itoa(e.threads),
		"-f", "rawvideo", "-pix_fmt", "yuv420p", "-s", fmt.Sprintf("%dx%d", w, h),
		"-framerate", fmt.Sprintf("%d/%d", info.FPSNum, info.FPSDen), "-i", "pipe:0"}
	enc = append(enc, inputArgs(in)...)
	enc = append(enc, "-map", "0:v:0", "-map", "1:a:0?", "-c:v", "libx264", "-preset", preset,
		"-crf", strconv.Itoa(crf), "-pix_fmt", "yuv420p")
	if info.AudioCodec == "" || audioCopyable[info.AudioCodec] {
		enc = append(enc, "-c:a", "copy")
	} else {
		enc = append(enc, "-c:a", "aac", "-b:a", "192k")
	}
	// The output ends with the probed duration: audio whose timestamps run
	// on is cut there too.
	enc = append(enc, "-t", fmt.Sprintf("%d.%03d", end.Milliseconds()/1000, end.Milliseconds()%1000),
		"-map_metadata", "-1", "-movflags", "+faststart", "-f", "mp4", "-y", "file:"+out)

	pr, pw := io.Pipe()
	encDone := make(chan error, 1)
	go func() {
		err := e.stream(ctx, wall, EncodeMemory, pr, enc, nil)
		pr.CloseWithError(errEncoderGone)
		encDone <- err
	}()

	var st EmbedStats
	st.Width, st.Height = w, h
	ySize, cSize := w*h, (w/2)*(h/2)
	frame := make([]uint8, ySize+2*cSize)
	delta := make([]int16, ySize)
	var tm *temporalEmbedder
	if mark == MarkTemporal {
		tm = newTemporalEmbedder(w, h, uint64(p))
	}
	derr := e.stream(ctx, wall, DecodeMemory, nil, dec, func(r io.Reader) error {
		for {
			if _, err := io.ReadFull(r, frame); err == io.EOF {
				return nil
			} else if err != nil {
				return fmt.Errorf("%w: a frame was cut short", ErrCorrupt)
			}
			if st.Frames == limit {
				return fmt.Errorf("%w: the decoded stream runs past its %.1f s", ErrLimit, info.Duration.Seconds())
			}
			y := frame[:ySize]
			if st.Frames%key == 0 {
				g := &image.Gray{Pix: y, Stride: w, Rect: image.Rect(0, 0, w, h)}
				m, err := watermark.Embed(g, p, watermark.WithTargetPSNR(psnr))
				if tooSmall := (*watermark.TooSmallError)(nil); errors.As(err, &tooSmall) {
					return fmt.Errorf("%w: %d×%d, the short side must be at least %d", ErrTooSmall, w, h, tooSmall.MinShortSide)
				} else if err != nil {
					return err
				}
				mp := m.(*image.Gray).Pix
				for i, v := range y {
					delta[i] = int16(math.Round(gain * float64(int16(mp[i])-int16(v))))
				}
				st.KeyFrames++
			}
			for i, v := range y {
				y[i] = uint8(min(max(int16(v)+delta[i], 0), 255))
			}
			if tm != nil {
				tm.mark(y)
			}
			st.Frames++
			if _, err := pw.Write(frame); err != nil {
				return err
			}
		}
	})
	pw.CloseWithError(derr)
	eerr := <-encDone
	if derr != nil && !errors.Is(derr, errEncoderGone) {
		return st, derr
	}
	if eerr != nil {
		return st, fmt.Errorf("video: encode: %w", eerr)
	}
	if st.Frames == 0 {
		return st, fmt.Errorf("%w: no frame could be decoded", ErrCorrupt)
	}
	return st, nil
}

var errEncoderGone = errors.New("video: encoder stopped")

// ExtractResult is what Extract found.
type ExtractResult struct {
	Payload watermark.Payload
	// Detection is the image mark's when it was found (or nothing was);
	// when only the temporal mark was, it is Found with the identity
	// alignment (that mark is read on the clip's own frame, so the clip
	// is not cropped or turned) and Strength is the temporal decoder's
	// z-score: the soft evidence's correlation with the decoded codeword
	// over its root mean square, about 17 for a clean mark.
	Detection watermark.Detection
	// Mark is the video mark version the payload was read from: MarkFrame
	// (the image mark, which both versions carry), MarkTemporal, or 0.
	Mark int
	// Frames is the number of frames summed.
	Frames int
}

// ExtractRate is the sampling rate of Extract in frames per second (6
// recovered CRF 28 re-encodes that 2 did not: compression noise differs
// from frame to frame and averages out); MaxExtractFrames bounds the
// frames summed (longer videos are sampled more sparsely).
const (
	ExtractRate      = 6
	MaxExtractFrames = 180
)

// Extract samples the probed video at path, sums the luminance of the
// sampled frames and runs the core extractor on the mean. The mark is the
// same luminance pattern in every frame while the picture moves, so the
// sum adds the mark coherently and the picture incoherently: this is the
// soft combination of every frame's evidence (the core's correlation is
// linear in luminance), not a per-frame majority vote. The temporal mark
// is read from the same frames until its answer is known: the image mark
// decoded from the first of them (gateFrames), or a decode of the
// temporal sums after 1, 2, 4, 8, … frames confirmed the payload (which
// then answers when the image mark does not); its reading along the
// motion stops as well when its first movedLookFrames frames show no
// mark.
func (e *Engine) Extract(ctx context.Context, path string, info Info) (ExtractResult, error) {
	res, _, err := e.extract(ctx, path, info, extractConfig{rate: ExtractRate, gate: true})
	return res, err
}

// extractConfig tunes extract.
type extractConfig struct {
	// rate is the sampling rate in frames per second.
	rate int
	// gate turns on the early exits: the temporal mark's reading stops
	// once the image mark decodes from the mean of the frames read so
	// far (gateFrames), once a temporal sum confirms the payload, and
	// the motion reading once its first frames show no mark
	// (temporalExtractor); false reads both marks on every frame, both
	// ways (the robustness table reports both).
	gate bool
	// plain is the reading as it was before the motion reading: cfg.rate
	// frames a second, both marks read in place only, the image mark's
	// gate its only early exit (the benchmarks' reference).
	plain bool
	// image is the image mark's extractor (nil: watermark.Extract).
	image func(*imagex.Luma) (watermark.Payload, watermark.Detection, error)
}

// gateFrames is when the gate looks at the image mark: after a quarter of
// the frames the clip will give, and at least two seconds of them. A look
// costs the core extractor on one mean (about 11 ms of CPU at 1080p when
// the mark is there, 57–86 ms when it is not); when it finds the mark it
// saves the temporal projection of the other frames.
func gateFrames(expected, rate int) int {
	return max(2*rate, expected/4)
}

// extract is Extract as cfg says; it also returns what the temporal
// decoder found (nothing when the gate stopped it), whichever mark
// answered.
func (e *Engine) extract(ctx context.Context, path string, info Info, cfg extractConfig) (ExtractResult, temporalResult, error) {
	image := cfg.image
	if image == nil {
		image = watermark.Extract
	}
	num, den := cfg.rate, 1
	if secs := info.Duration.Seconds(); secs*float64(cfg.rate) > MaxExtractFrames {
		num, den = MaxExtractFrames, int(secs+1)
	}
	// The frames come at twice the rate: the temporal mark's in-place
	// reading takes every other one (cfg.rate a second), the frame sum
	// and the motion-compensated reading every one. That
	// reading needs the frames next to the re-encode's keyframe: at 12
	// a second (the first frame read is the clip's second at 30 fps) both
	// scrolling clips of the robustness table decoded, at 6 (the third)
	// or at 12 rounded down (the third) neither did (motion.go).
	step := 2
	if cfg.plain {
		step = 1
	}
	spec := frameSpec{num: step * num, den: den, w: info.Width, h: info.Height, dur: info.Duration, luma: true}
	w, h := spec.w, spec.h
	sum := newFrameSum(w * h)
	mean := &imagex.Luma{Width: w, Height: h, Stride: w, Pix: make([]uint8, w*h)}
	average := func() *imagex.Luma {
		sum.mean(mean.Pix)
		return mean
	}
	newReader := func() *temporalExtractor {
		tx := newTemporalExtractor(w, h)
		tx.early = cfg.gate && !cfg.plain
		if cfg.plain {
			tx.motion = nil
		}
		return tx
	}
	// read passes one frame to the temporal reading: the k-th of the
	// decode, every step-th in place, the others to the motion reading.
	read := func(tx *temporalExtractor, k int, pix []uint8) (inPlace bool) {
		if step == 2 && k%2 == 0 {
			tx.follow(pix, false)
			return false
		}
		tx.add(pix)
		return true
	}
	tx := newReader()
	look := -1 // the frame count at which the gate looks; -1: never
	if cfg.gate {
		look = gateFrames(int(info.Duration.Seconds()*float64(num)/float64(den)), cfg.rate)
	}
	gated := false
	n, k := 0, 0
	_, err := e.grayFrames(ctx, path, spec, func(_ time.Duration, l *imagex.Luma) error {
		k++
		sum.add(l.Pix)
		if gated || tx.done() {
			if step == 1 || k%2 == 1 {
				n++
			}
			return nil
		}
		if !read(tx, k, l.Pix) {
			return nil
		}
		n++
		// A look only when the temporal reading is still going: its
		// answer is what the look would save.
		if tx.frames == look && !tx.done() {
			_, d, err := image(average())
			gated = err == nil && d.Found
		}
		return nil
	})
	if err != nil {
		return ExtractResult{}, temporalResult{}, err
	}
	pl, det, err := image(average())
	if err != nil {
		return ExtractResult{Frames: n}, temporalResult{}, err
	}
	if det.Found {
		// The temporal mark's result is not used (choose): the gate's
		// skip saved its projection and changed nothing.
		var tr temporalResult
		if !gated {
			tr = tx.decode()
		}
		tr.frames = tx.frames
		return choose(pl, det, tr, w, h, n), tr, nil
	}
	if gated {
		// The image mark decoded from the first frames and not from all
		// of them (rare: a mark that fades out): read the temporal mark
		// from every frame after all, in a second decode.
		tx = newReader()
		k = 0
		if _, err := e.grayFrames(ctx, path, spec, func(_ time.Duration, l *imagex.Luma) error {
			k++
			read(tx, k, l.Pix)
			return nil
		}); err != nil {
			return ExtractResult{}, temporalResult{}, err
		}
	}
	tr := tx.decode()
	return choose(pl, det, tr, w, h, n), tr, nil
}

// choose is the version dispatch of Extract: the image mark's payload
// when it decoded (both versions carry it, and it knows the clip's
// alignment), else the temporal mark's, else nothing. Each decoder checks
// its own CRC, so neither can answer for the other.
func choose(pl watermark.Payload, det watermark.Detection, tr temporalResult, w, h, frames int) ExtractResult {
	if det.Found {
		return ExtractResult{Payload: pl, Detection: det, Mark: MarkFrame, Frames: frames}
	}
	if !tr.found {
		return ExtractResult{Detection: det, Frames: frames}
	}
	ww, wh := localsig.WorkDims(w, h)
	return ExtractResult{Payload: watermark.Payload(tr.payload), Mark: MarkTemporal, Frames: frames,
		Detection: watermark.Detection{Found: true, Strength: tr.z, BitErrors: tr.errors, CodedBits: codedBits,
			Scale: 1, WorkWidth: ww, WorkHeight: wh, Period: 1, Region: image.Rect(0, 0, w, h)}}
}
