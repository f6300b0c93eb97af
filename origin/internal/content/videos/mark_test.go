package videos

import (
	"path/filepath"
	"testing"

	"github.com/provenant/provenant/internal/testtool"
	"github.com/provenant/provenant/origin/internal/video"
	"github.com/provenant/provenant/origin/internal/video/videotest"
	"github.com/provenant/provenant/shared/localsig"
	"github.com/provenant/provenant/shared/watermark"
)

// TestUnmarkedDetail: a block's detail is lowered to the unmarked
// picture's, never raised, and a grid of another plane changes nothing.
func TestUnmarkedDetail(t *testing.T) {
	grid := func(details ...uint8) *localsig.Grid {
		g := &localsig.Grid{Width: 64, Height: 32, Cols: len(details), Rows: 1}
		for _, d := range details {
			g.Blocks = append(g.Blocks, localsig.Block{Detail: d})
		}
		return g
	}
	tests := []struct {
		name           string
		marked, source *localsig.Grid
		want           []uint8
	}{
		{"lowered where the source is flatter", grid(9, 4), grid(2, 6), []uint8{2, 4}},
		{"never raised", grid(1, 1), grid(5, 5), []uint8{1, 1}},
		{"another plane leaves it", grid(9, 4), func() *localsig.Grid { g := grid(2, 2); g.Width = 66; return g }(), []uint8{9, 4}},
		{"another block count leaves it", grid(9, 4), grid(2, 2, 2), []uint8{9, 4}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			unmarkedDetail(tt.marked, tt.source)
			for i, b := range tt.marked.Blocks {
				if b.Detail != tt.want[i] {
					t.Errorf("block %d detail %v, want %v", i, b.Detail, tt.want[i])
				}
			}
		})
	}
}

// TestMark: a signed output carries the payload, is fingerprinted one
// hash a second, stands for itself by its middle second, and its local
// signatures are that second's frame's, each block's detail no more than
// the unmarked upload's frame showed (the mark's own texture is not
// counted as picture detail).
func TestMark(t *testing.T) {
	eng, err := video.New(video.Config{})
	if err != nil {
		testtool.Missing(t, "ffmpeg not installed (apt-get install ffmpeg): %v", err)
	}
	dir := t.TempDir()
	in := filepath.Join(dir, "upload.mp4")
	// A test card: flat fields, where the mark's texture would otherwise
	// count as detail, beside edges and moving shapes.
	videotest.FFmpeg(t, "-f", "lavfi", "-i", "testsrc2=size=640x360:rate=24:duration=5",
		"-c:v", "libx264", "-preset", "ultrafast", "-crf", "18", "-pix_fmt", "yuv420p", in)
	ctx := t.Context()
	info, err := eng.Probe(ctx, in)
	if err != nil {
		t.Fatal(err)
	}
	const payload = watermark.Payload(0x5eed_cafe_0042_0001)
	out := filepath.Join(dir, "upload.signed.mp4")
	m, err := Mark(ctx, eng, in, info, out, payload)
	if err != nil {
		t.Fatal(err)
	}
	outInfo, err := eng.Probe(ctx, out)
	if err != nil {
		t.Fatal(err)
	}
	ex, err := eng.Extract(ctx, out, outInfo)
	if err != nil {
		t.Fatal(err)
	}
	if !ex.Detection.Found || ex.Payload != payload {
		t.Fatalf("the output carries %v (found %v), want %v", ex.Payload, ex.Detection.Found, payload)
	}
	if n := len(m.Fingerprint.Hashes); n < 4 || n > 6 || m.Mid != n/2 {
		t.Fatalf("fingerprint of %d seconds with middle %d, want about 5 and their middle", n, m.Mid)
	}
	got, err := localsig.Parse(m.LocalSig)
	if err != nil {
		t.Fatal(err)
	}
	marked, err := eng.FrameAt(ctx, out, outInfo, m.Mid)
	if err != nil {
		t.Fatal(err)
	}
	source, err := eng.FrameAt(ctx, in, info, m.Mid)
	if err != nil {
		t.Fatal(err)
	}
	mg, sg := localsig.Compute(marked), localsig.Compute(source)
	if len(got.Blocks) != len(mg.Blocks) || len(got.Blocks) != len(sg.Blocks) {
		t.Fatalf("local signatures of %d blocks, frames of %d and %d", len(got.Blocks), len(mg.Blocks), len(sg.Blocks))
	}
	lowered := 0
	for i, b := range got.Blocks {
		if want := min(mg.Blocks[i].Detail, sg.Blocks[i].Detail); b.Detail != want {
			t.Fatalf("block %d detail %d, want %d (marked %d, unmarked %d)", i, b.Detail, want, mg.Blocks[i].Detail, sg.Blocks[i].Detail)
		}
		if b.Detail < mg.Blocks[i].Detail {
			lowered++
		}
		if b.Signs != mg.Blocks[i].Signs || b.Mean != mg.Blocks[i].Mean {
			t.Fatalf("block %d is not the signed frame's", i)
		}
	}
	if lowered == 0 {
		t.Fatal("no block's detail was lowered to the unmarked frame's: the test card shows no mark texture")
	}
}
