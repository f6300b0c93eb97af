package videos

import (
	"context"
	"fmt"

	"github.com/provenant/provenant/origin/internal/video"
	"github.com/provenant/provenant/shared/localsig"
	"github.com/provenant/provenant/shared/watermark"
)

// Format and MIME name the signed output of a video.
const (
	Format = "mp4"
	MIME   = "video/mp4"
)

// Marked is a signed video's output and what its record is made of.
type Marked struct {
	// Fingerprint is the output's; Index.Put keeps it with the record.
	Fingerprint video.Fingerprint
	// Mid is the second whose frame stands for the video in its record:
	// the middle one, the frame a clip trimmed at either end most likely
	// still holds. The record's perceptual hash is Fingerprint.Hashes[Mid].
	Mid int
	// LocalSig is the encoded local-signature grid of that frame
	// (localsig.Grid.Encode), each block's detail measured without the
	// mark.
	LocalSig []byte
}

// Mark embeds payload in the frames of the video at in (probed as info)
// and re-encodes it to out (H.264, audio kept; video.Engine.Embed), then
// probes and fingerprints the output and takes the local signatures of
// its middle second's frame. Nothing of the video is held in memory
// beyond single frames, whatever its length. Errors are the engine's
// (video sentinels for unusable files).
func Mark(ctx context.Context, eng *video.Engine, in string, info video.Info, out string, payload watermark.Payload) (*Marked, error) {
	if _, err := eng.Embed(ctx, in, info, out, payload, video.EmbedOptions{}); err != nil {
		return nil, err
	}
	outInfo, err := eng.Probe(ctx, out)
	if err != nil {
		return nil, fmt.Errorf("content: sign video: probe output: %w", err)
	}
	fp, err := eng.Fingerprint(ctx, out, outInfo)
	if err != nil {
		return nil, err
	}
	mid := len(fp.Hashes) / 2
	frame, err := eng.FrameAt(ctx, out, outInfo, mid)
	if err != nil {
		return nil, err
	}
	g := localsig.Compute(frame)
	// The detail of a block counts the mark's own texture, which video
	// carries stronger than images (video.DefaultGain) and every
	// re-encode strips: in a flat block it lifts the detail over
	// localsig.DetailMin, and a CRF 28 re-encode then reads as a loss of
	// detail (an edit). The detail kept is that of the unmarked upload's
	// frame at the same second where lower: the picture's, not the mark's.
	if src, err := eng.FrameAt(ctx, in, info, mid); err == nil {
		unmarkedDetail(g, localsig.Compute(src))
	}
	grid, err := g.Encode()
	if err != nil {
		return nil, fmt.Errorf("content: local signatures: %w", err)
	}
	return &Marked{Fingerprint: fp, Mid: mid, LocalSig: grid}, nil
}

// unmarkedDetail lowers each block's detail in g to that of the same
// block in u, the grid of the picture before the mark was added, when the
// two grids cover the same plane; it never raises one, so a block keeps at
// most the detail the signed picture itself showed.
func unmarkedDetail(g, u *localsig.Grid) {
	if u.Width != g.Width || u.Height != g.Height || u.Cols != g.Cols || u.Rows != g.Rows || len(u.Blocks) != len(g.Blocks) {
		return
	}
	for i := range g.Blocks {
		g.Blocks[i].Detail = min(g.Blocks[i].Detail, u.Blocks[i].Detail)
	}
}
