// Package video probes, fingerprints and watermarks video files with the
// system's ffmpeg and ffprobe. Every ffmpeg run takes a fixed argument
// list: the only caller-influenced value is the path of a file the caller
// wrote itself, passed as a "file:" URL after -i, so upload bytes are
// never read as options. Inputs are limited to the MP4/MOV, Matroska/WebM
// demuxers and the file protocol, so a file cannot make ffmpeg open other
// files or the network (HLS, concat, ...). Frames travel through pipes as
// raw video, one frame at a time, so memory does not grow with the
// length of the video. Each process runs under a CPU-time limit (ffmpeg's
// -timelimit, RLIMIT_CPU) and a wall-time limit, and is killed when the
// caller's context ends (client disconnect).
package video

import (
	"context"
	"errors"
	"fmt"
	"os/exec"
	"time"
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
	// the limits.
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
	// MaxStreams bounds the number of streams of any kind.
	MaxStreams int
	// VideoCodecs lists the accepted ffprobe codec names.
	VideoCodecs []string
}

// DefaultLimits: 200 MB, 10 minutes, 1920×1080 (either orientation),
// 60 fps, 4 streams, H.264, H.265, VP8, VP9 and AV1.
func DefaultLimits() Limits {
	return Limits{
		MaxBytes:     200 << 20,
		MaxDuration:  10 * time.Minute,
		MinShortSide: 64,
		MaxWidth:     1920, MaxHeight: 1080,
		MaxFPS:      60,
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
	// WallTime bounds each ffmpeg/ffprobe run (default 10 minutes).
	WallTime time.Duration
	// Threads bounds the threads each ffmpeg process uses (default 2).
	Threads int
	// MaxConcurrent bounds the decodes and encodes running at once across
	// requests (default 2); others wait for a turn or their context.
	MaxConcurrent int
}

// Engine runs ffmpeg and ffprobe for the service. It is safe for
// concurrent use.
type Engine struct {
	ffmpeg, ffprobe string
	lim             Limits
	cpu             int
	wall            time.Duration
	threads         int
	turns           chan struct{}
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
	return &Engine{ffmpeg: ff, ffprobe: fp, lim: cfg.Limits, cpu: cfg.CPUSeconds, wall: cfg.WallTime, threads: cfg.Threads,
		turns: make(chan struct{}, cfg.MaxConcurrent)}, nil
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

// turn waits for one of the MaxConcurrent slots; release gives it back.
func (e *Engine) turn(ctx context.Context) (release func(), err error) {
	select {
	case e.turns <- struct{}{}:
		return func() { <-e.turns }, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

func (e *Engine) withTimeout(ctx context.Context) (context.Context, context.CancelFunc) {
	return context.WithTimeout(ctx, e.wall)
}
