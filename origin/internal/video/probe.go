package video

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/provenant/provenant/shared/imagex"
)

// Info is what Probe learned about a file.
type Info struct {
	// Container is "mp4" (MP4, MOV and relatives) or "webm" (WebM and
	// Matroska).
	Container string
	// VideoCodec is ffprobe's name of the first video stream's codec.
	VideoCodec string
	// AudioCodec is the first audio stream's codec ("" when none).
	AudioCodec string
	// Width and Height are the displayed size (rotation applied).
	Width, Height int
	// FPS is the average frame rate, FPSNum/FPSDen as a fraction.
	FPS            float64
	FPSNum, FPSDen int
	Duration       time.Duration
	Streams        int
	Size           int64
}

// Sniff reports whether b starts like an ISO base media file (MP4, MOV)
// or an EBML document (WebM, Matroska): the containers Probe accepts.
//
// A still image in the same container (AVIF, HEIC: an ftyp box whose major
// brand is an image brand) is not a video: it goes to the image path,
// which names its format.
func Sniff(b []byte) bool {
	if len(b) >= 12 && string(b[4:8]) == "ftyp" {
		return imagex.ISOImageBrand(b) == ""
	}
	// QuickTime files may start with other top-level atoms.
	if len(b) >= 8 {
		switch string(b[4:8]) {
		case "moov", "mdat", "wide", "free", "skip":
			return true
		}
	}
	return len(b) >= 4 && bytes.Equal(b[:4], []byte{0x1a, 0x45, 0xdf, 0xa3})
}

// Probe runs ffprobe on the file at path (a file the caller wrote) and
// checks it against the limits. Errors wrap ErrEmpty, ErrTooLarge,
// ErrUnsupported, ErrCorrupt, ErrLimit or ErrTimeout.
func (e *Engine) Probe(ctx context.Context, path string) (Info, error) {
	st, err := os.Stat(path)
	if err != nil {
		return Info{}, fmt.Errorf("video: probe: %w", err)
	}
	if st.Size() == 0 {
		return Info{}, ErrEmpty
	}
	if st.Size() > e.lim.MaxBytes {
		return Info{}, fmt.Errorf("%w: %d bytes, at most %d", ErrTooLarge, st.Size(), e.lim.MaxBytes)
	}
	head := make([]byte, 12)
	if f, err := os.Open(path); err == nil {
		n, _ := f.Read(head)
		f.Close()
		head = head[:n]
	}
	if !Sniff(head) {
		return Info{}, fmt.Errorf("%w: not an MP4, MOV or WebM file", ErrUnsupported)
	}
	if err := ctx.Err(); err != nil {
		return Info{}, err
	}
	release, err := e.mem.Acquire(ctx, ProbeMemory)
	if err != nil {
		return Info{}, err
	}
	defer release()
	ctx, cancel := context.WithTimeout(ctx, min(e.wall, probeWall))
	defer cancel()
	args := []string{"-v", "error", "-show_format", "-show_streams", "-of", "json"}
	args = append(args, inputArgs(path)...)
	out, err := e.run(ctx, e.ffprobe, args, ProbeMemory, 4<<20)
	if err != nil {
		if errors.Is(err, ErrTimeout) || errors.Is(err, ErrLimit) || errors.Is(err, context.Canceled) {
			return Info{}, err
		}
		return Info{}, fmt.Errorf("%w: the container cannot be read", ErrCorrupt)
	}
	info, err := parseProbe(out)
	if err != nil {
		return Info{}, err
	}
	info.Size = st.Size()
	return info, e.check(info)
}

type probeJSON struct {
	Streams []struct {
		CodecType    string `json:"codec_type"`
		CodecName    string `json:"codec_name"`
		Width        int    `json:"width"`
		Height       int    `json:"height"`
		AvgFrameRate string `json:"avg_frame_rate"`
		RFrameRate   string `json:"r_frame_rate"`
		Duration     string `json:"duration"`
		Disposition  struct {
			AttachedPic int `json:"attached_pic"`
		} `json:"disposition"`
		Tags struct {
			Rotate string `json:"rotate"`
		} `json:"tags"`
		SideData []struct {
			Rotation float64 `json:"rotation"`
		} `json:"side_data_list"`
	} `json:"streams"`
	Format struct {
		FormatName string `json:"format_name"`
		Duration   string `json:"duration"`
	} `json:"format"`
}

// parseProbe turns ffprobe's JSON into Info. It checks structure only
// (a video stream with a size and a rate); limits are Engine.check's.
func parseProbe(b []byte) (Info, error) {
	var p probeJSON
	if err := json.Unmarshal(b, &p); err != nil {
		return Info{}, fmt.Errorf("%w: unreadable probe output", ErrCorrupt)
	}
	var info Info
	switch {
	case strings.Contains(p.Format.FormatName, "mp4") || strings.HasPrefix(p.Format.FormatName, "mov"):
		info.Container = "mp4"
	case strings.Contains(p.Format.FormatName, "matroska") || strings.Contains(p.Format.FormatName, "webm"):
		info.Container = "webm"
	default:
		return Info{}, fmt.Errorf("%w: container %q", ErrUnsupported, p.Format.FormatName)
	}
	info.Streams = len(p.Streams)
	found := false
	for _, s := range p.Streams {
		switch s.CodecType {
		case "video":
			if found || s.Disposition.AttachedPic != 0 {
				continue
			}
			found = true
			info.VideoCodec = s.CodecName
			info.Width, info.Height = s.Width, s.Height
			rot := 0.0
			if len(s.SideData) > 0 {
				rot = s.SideData[0].Rotation
			} else if r, err := strconv.ParseFloat(s.Tags.Rotate, 64); err == nil {
				rot = r
			}
			if q := int(math.Round(rot/90)) % 2; q != 0 {
				info.Width, info.Height = info.Height, info.Width
			}
			info.FPSNum, info.FPSDen = rate(s.AvgFrameRate)
			if info.FPSNum == 0 {
				info.FPSNum, info.FPSDen = rate(s.RFrameRate)
			}
			if info.FPSNum > 0 {
				info.FPS = float64(info.FPSNum) / float64(info.FPSDen)
			}
			if d, err := strconv.ParseFloat(s.Duration, 64); err == nil {
				info.Duration = seconds(d)
			}
		case "audio":
			if info.AudioCodec == "" {
				info.AudioCodec = s.CodecName
			}
		}
	}
	if !found {
		return Info{}, fmt.Errorf("%w: no video stream", ErrCorrupt)
	}
	if d, err := strconv.ParseFloat(p.Format.Duration, 64); err == nil && seconds(d) > info.Duration {
		info.Duration = seconds(d)
	}
	if info.Width <= 0 || info.Height <= 0 || info.FPS <= 0 || info.Duration <= 0 {
		return Info{}, fmt.Errorf("%w: the video stream has no size, frame rate or duration", ErrCorrupt)
	}
	return info, nil
}

func seconds(f float64) time.Duration {
	if math.IsNaN(f) || f < 0 || f > 1e6 {
		return 0
	}
	return time.Duration(f * float64(time.Second))
}

// rate parses ffprobe's "num/den" into positive integers (0, 0 when it
// is not one), so the values later written into a filter are ours.
func rate(s string) (int, int) {
	n, d, ok := strings.Cut(s, "/")
	if !ok {
		return 0, 0
	}
	a, err1 := strconv.ParseUint(n, 10, 31)
	b, err2 := strconv.ParseUint(d, 10, 31)
	if err1 != nil || err2 != nil || a == 0 || b == 0 {
		return 0, 0
	}
	return int(a), int(b)
}

func (e *Engine) check(i Info) error {
	l := e.lim
	if !slices.Contains(l.VideoCodecs, i.VideoCodec) {
		return fmt.Errorf("%w: video codec %q (accepted: %s)", ErrUnsupported, i.VideoCodec, strings.Join(l.VideoCodecs, ", "))
	}
	long, short := max(i.Width, i.Height), min(i.Width, i.Height)
	switch {
	case i.Duration > l.MaxDuration:
		return fmt.Errorf("%w: duration %.1f s, at most %.0f s", ErrLimit, i.Duration.Seconds(), l.MaxDuration.Seconds())
	case long > max(l.MaxWidth, l.MaxHeight) || short > min(l.MaxWidth, l.MaxHeight):
		return fmt.Errorf("%w: %d×%d, at most %d×%d", ErrLimit, i.Width, i.Height, l.MaxWidth, l.MaxHeight)
	case short < l.MinShortSide:
		return fmt.Errorf("%w: %d×%d, the short side must be at least %d", ErrLimit, i.Width, i.Height, l.MinShortSide)
	case i.FPS > l.MaxFPS:
		return fmt.Errorf("%w: %.2f frames per second, at most %.0f", ErrLimit, i.FPS, l.MaxFPS)
	case i.FPS < l.MinFPS:
		return fmt.Errorf("%w: %.4f frames per second on average, at least %.0f", ErrLimit, i.FPS, l.MinFPS)
	case i.Streams > l.MaxStreams:
		return fmt.Errorf("%w: %d streams, at most %d", ErrLimit, i.Streams, l.MaxStreams)
	}
	return nil
}
