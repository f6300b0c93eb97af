// Package video probes, fingerprints and watermarks video files with the
// system's ffmpeg and ffprobe. Every ffmpeg run takes a fixed argument
// list: the only caller-influenced value is the path of a file the caller
// wrote itself, passed as a "file:" URL after -i, so upload bytes are
// never read as options. Inputs are limited to the MP4/MOV, Matroska/WebM
// demuxers and the file protocol, so a file cannot make ffmpeg open other
// files or the network (HLS, concat, ...). Frames travel through pipes as
// raw video, one frame at a time, so memory does not grow with the
// length of the video.
//
// Every child runs under budgets no input can exceed (docs/video.md,
// "Budgets"): an address-space limit (RLIMIT_AS) reserved beforehand in
// the engine's weighted memory budget, a CPU-time limit (-timelimit), a
// wall-clock deadline that follows the probed duration, a decoder frame
// size ceiling (-max_pixels), and an output frame count bounded by the
// probed duration whatever the stream's timestamps say. Each runs in its
// own process group, killed as a whole when the caller's context ends.
package video

import (
	"context"
	"errors"
	"fmt"
	"os/exec"
	"strconv"
	"sync/atomic"
	"time"

	"github.com/provenant/provenant/shared/imagex"
)

// Sentinel errors; probe and decode failures wrap one of them with a
// detail a client may read (never a machine path).
var (
	// ErrUnavailable: ffmpeg or ffprobe is not installed.
	ErrUnavailable = errors.New("video: ffmpeg is not available")
	// ErrEmpty: the file has no bytes.
	ErrEmpty = errors.New("video: empty file")
	// ErrTooLarge: the file is larger than Limits.MaxBytes.
	ErrTooLarge = errors.New("video: file too large")
	// ErrUnsupported: not an MP4/MOV/WebM/Matroska container, or a codec
	// outside Limits.VideoCodecs.
	ErrUnsupported = errors.New("video: unsupported format or codec")
	// ErrCorrupt: the container or its video stream cannot be read.
	ErrCorrupt = errors.New("video: corrupt or truncated file")
	// ErrLimit: duration, resolution, frame rate or stream count outside
	// the limits, a decoded stream longer than its container says, or a
	// process that needed more memory than its limit.
	ErrLimit = errors.New("video: outside the limits")
	// ErrTooSmall: the frames are too small to carry the watermark (Embed
	// needs a short side of 256 pixels).
	ErrTooSmall = errors.New("video: frames too small for the watermark")
	// ErrTimeout: ffmpeg used up its CPU or wall-time allowance.
	ErrTimeout = errors.New("video: processing took too long")
)

// Limits bound what the service accepts. The zero value accepts nothing;
// start from DefaultLimits.
type Limits struct {
	MaxBytes    int64
	MaxDuration time.Duration
	// MinShortSide is the smallest short side (the watermark needs room);
	// MaxWidth/MaxHeight bound the displayed frame in either orientation
	// (a 1080×1920 portrait clip passes a 1920×1080 limit).
	MinShortSide        int
	MaxWidth, MaxHeight int
	MaxFPS              float64
	// MinFPS is the lowest average frame rate: a stream whose frames are
	// hours apart (the average the container's sample table gives away,
	// whatever its header's duration says) is refused before any decode.
	MinFPS float64
	// MaxStreams bounds the number of streams of any kind.
	MaxStreams int
	// VideoCodecs lists the accepted ffprobe codec names.
	VideoCodecs []string
}

// DefaultLimits: 200 MB, 10 minutes, 1920×1080 (either orientation),
// 1 to 60 fps, 4 streams, H.264, H.265, VP8, VP9 and AV1.
func DefaultLimits() Limits {
	return Limits{
		MaxBytes:     200 << 20,
		MaxDuration:  10 * time.Minute,
		MinShortSide: 64,
		MaxWidth:     1920, MaxHeight: 1080,
		MaxFPS:      60,
		MinFPS:      1,
		MaxStreams:  4,
		VideoCodecs: []string{"h264", "hevc", "vp8", "vp9", "av1"},
	}
}

// Config configures an Engine.
type Config struct {
	// FFmpeg and FFprobe are the executables; empty means "ffmpeg" and
	// "ffprobe" looked up on PATH.
	FFmpeg, FFprobe string
	Limits          Limits
	// CPUSeconds bounds the CPU time of each ffmpeg process (default 300).
	CPUSeconds int
	// WallTime is the longest any one ffmpeg/ffprobe run may take
	// (default 10 minutes); a run's own deadline is shorter, following
	// the probed duration (see Engine.deadline).
	WallTime time.Duration
	// Memory is the capacity, in bytes, of the budget every child reserves
	// its address-space limit from before it starts (default
	// DefaultMemory); a run that finds no room within MemoryWait fails
	// with imagex.ErrBusy. It must hold one decoder and one encoder.
	Memory int64
	// MemoryWait bounds the wait for room in that budget (default 1
	// minute; the caller's context ends it sooner).
	MemoryWait time.Duration
	// Threads bounds the threads each ffmpeg process uses (default 2).
	Threads int
	// MaxConcurrent bounds the decodes and encodes running at once across
	// requests (default 2); others wait for a turn or their context.
	MaxConcurrent int
}

// Address-space limits (RLIMIT_AS) of each kind of child, and the default
// budget they are reserved from. Measured with ffmpeg 5.1 at 1080p and
// two threads (MALLOC_ARENA_MAX=2): ffprobe reserves 260 MiB of address
// space (48 MiB resident), a decoder 410–440 MiB (80 MiB resident), the
// x264 encoder 804 MiB (408 MiB resident).
const (
	ProbeMemory   = 512 << 20
	DecodeMemory  = 768 << 20
	EncodeMemory  = 1 << 30
	DefaultMemory = 2*DecodeMemory + EncodeMemory
)

// Engine runs ffmpeg and ffprobe for the service. It is safe for
// concurrent use.
type Engine struct {
	ffmpeg, ffprobe string
	lim             Limits
	cpu             int
	wall            time.Duration
	// slack is added to every run's deadline: zero in the service; the
	// measuring tests set it so that a shared, overloaded machine does
	// not turn a slow run into a miss.
	slack   time.Duration
	threads int
	turns   chan struct{}
	mem     *imagex.Budget
	peakRSS atomic.Int64
	// childCPU is the CPU time (user and system, ns) of every child
	// waited for: what the benchmarks report as ffmpeg's share.
	childCPU atomic.Int64
}

// New looks the tools up and returns an Engine, or an error wrapping
// ErrUnavailable when either tool is missing (callers keep serving images
// and answer video requests with 503).
func New(cfg Config) (*Engine, error) {
	if cfg.FFmpeg == "" {
		cfg.FFmpeg = "ffmpeg"
	}
	if cfg.FFprobe == "" {
		cfg.FFprobe = "ffprobe"
	}
	ff, err := exec.LookPath(cfg.FFmpeg)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrUnavailable, err)
	}
	fp, err := exec.LookPath(cfg.FFprobe)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrUnavailable, err)
	}
	if cfg.CPUSeconds <= 0 {
		cfg.CPUSeconds = 300
	}
	if cfg.WallTime <= 0 {
		cfg.WallTime = 10 * time.Minute
	}
	if cfg.Threads <= 0 {
		cfg.Threads = 2
	}
	if cfg.MaxConcurrent <= 0 {
		cfg.MaxConcurrent = 2
	}
	if cfg.Limits.MaxBytes == 0 {
		cfg.Limits = DefaultLimits()
	}
	if cfg.Memory <= 0 {
		cfg.Memory = DefaultMemory
	}
	if cfg.Memory < DecodeMemory+EncodeMemory {
		return nil, fmt.Errorf("video: memory budget %d MiB holds no signing run (%d MiB)", cfg.Memory>>20, (DecodeMemory+EncodeMemory)>>20)
	}
	if cfg.MemoryWait <= 0 {
		cfg.MemoryWait = time.Minute
	}
	mem, err := imagex.NewBudget(imagex.BudgetConfig{Capacity: cfg.Memory, Wait: cfg.MemoryWait})
	if err != nil {
		return nil, fmt.Errorf("video: %w", err)
	}
	return &Engine{ffmpeg: ff, ffprobe: fp, lim: cfg.Limits, cpu: cfg.CPUSeconds, wall: cfg.WallTime, threads: cfg.Threads,
		turns: make(chan struct{}, cfg.MaxConcurrent), mem: mem}, nil
}

// Limits returns the limits the engine enforces.
func (e *Engine) Limits() Limits { return e.lim }

// inputArgs are the options placed before every -i: only the file
// protocol and the MP4/MOV and Matroska/WebM demuxers.
func inputArgs(path string) []string {
	return []string{
		"-protocol_whitelist", "file",
		"-format_whitelist", "mov,mp4,m4a,3gp,3g2,mj2,matroska,webm",
		"-i", "file:" + path,
	}
}

// decodeArgs are inputArgs with the decoder's frame size ceiling: a
// frame of more pixels than the limits allow is refused by the decoder
// before it allocates it, whatever the container said (a stream may
// switch to 15360×15360 after a first frame of 640×360).
func (e *Engine) decodeArgs(path string) []string {
	return append([]string{"-max_pixels", strconv.Itoa(e.maxPixels())}, inputArgs(path)...)
}

// maxPixels is the largest frame the limits admit.
func (e *Engine) maxPixels() int { return e.lim.MaxWidth * e.lim.MaxHeight }

// turn waits for one of the MaxConcurrent slots; release gives it back.
func (e *Engine) turn(ctx context.Context) (release func(), err error) {
	select {
	case e.turns <- struct{}{}:
		return func() { <-e.turns }, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// admit takes a turn and reserves n bytes of the memory budget for the
// children of one run; release gives both back.
func (e *Engine) admit(ctx context.Context, n int64) (release func(), err error) {
	if err := ctx.Err(); err != nil {
		return nil, err // a free slot must not start work for a request that ended
	}
	rt, err := e.turn(ctx)
	if err != nil {
		return nil, err
	}
	rm, err := e.mem.Acquire(ctx, n)
	if err != nil {
		rt()
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, err
	}
	return func() { rm(); rt() }, nil
}

// Deadline parameters: a run may take probeWall (ffprobe), or runBase
// plus perSecond times the probed duration (decodes) or encodePerSecond
// times it (embedding, which decodes and encodes), and never more than
// Config.WallTime. Signing a 1080p clip measured up to 5× its duration
// on two loaded cores; these leave room for that while a clip whose
// container claims 2 s is stopped within half a minute.
const (
	probeWall       = 30 * time.Second
	runBase         = 20 * time.Second
	perSecond       = 3
	encodePerSecond = 8
)

// deadline is the wall-clock allowance of one run over a video of
// duration d.
func (e *Engine) deadline(d time.Duration, factor int) time.Duration {
	return min(e.wall, runBase+time.Duration(factor)*d) + e.slack
}
