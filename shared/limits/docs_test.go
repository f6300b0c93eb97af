package limits

import (
	"fmt"
	"testing"

	"github.com/provenant/provenant/internal/docfigures"
)

// TestDocsQuoteTheDefaults: the default limits docs/verification.md,
// docs/api.md, docs/edge.md, docs/widget.md, docs/video.md and
// docs/operations.md quote are the constants: each phrase is written from the
// constant, so changing either the constant or the doc without the other
// fails here.
func TestDocsQuoteTheDefaults(t *testing.T) {
	mib := func(n int) int { return n >> 20 }
	mp := DefaultMaxPixels / 1_000_000
	// The docs group the side's digits three ways.
	side, sideSpaced, sideComma := DefaultMaxSide, fmt.Sprintf("%d %03d", DefaultMaxSide/1000, DefaultMaxSide%1000), fmt.Sprintf("%d,%03d", DefaultMaxSide/1000, DefaultMaxSide%1000)
	docfigures.Check(t, []docfigures.Phrase{
		{Doc: "verification.md", Text: fmt.Sprintf("defaults %d MP,\n%d px per side, %d MiB of decode memory, %d MiB, %d hashes, %d\ncandidates",
			DefaultMaxPixels/1_000_000, DefaultMaxSide, mib(DefaultMaxDecodeBytes), mib(DefaultMaxUploadBytes), DefaultMaxProofLen, DefaultMaxCandidates)},
		{Doc: "verification.md", Text: fmt.Sprintf("at most %d candidate records (`limits.MaxCandidates`)", DefaultMaxCandidates)},
		{Doc: "api.md", Text: fmt.Sprintf("a file is at most **%d MiB** (`limits.DefaultMaxUploadBytes`)", mib(DefaultMaxUploadBytes))},
		{Doc: "api.md", Text: fmt.Sprintf("more than %d MP or a side over %d px", DefaultMaxPixels/1_000_000, DefaultMaxSide)},
		{Doc: "api.md", Text: fmt.Sprintf("a long side more than %d times the short side", DefaultMaxSignAspect)},
		{Doc: "api.md", Text: fmt.Sprintf("more than %d times its short side (`limits.DefaultMaxSignAspect`", DefaultMaxSignAspect)},
		{Doc: "api.md", Text: fmt.Sprintf("decoding would need more than %d MiB (`limits.DefaultMaxDecodeBytes`)", mib(DefaultMaxDecodeBytes))},
		{Doc: "api.md", Text: fmt.Sprintf("Candidates, at most %d:", DefaultMaxCandidates)},
		{Doc: "api.md", Text: fmt.Sprintf("%d MiB upload plus multipart overhead", mib(DefaultMaxUploadBytes))},
		{Doc: "api.md", Text: fmt.Sprintf("(`limits.Limits.MaxDecodeBytes`, default %d MiB)", mib(DefaultMaxDecodeBytes))},
		{Doc: "api.md", Text: fmt.Sprintf("a side over %d px", side)},
		{Doc: "edge.md", Text: fmt.Sprintf("upload (%d MiB plus the multipart framing)", mib(DefaultMaxUploadBytes))},
		{Doc: "edge.md", Text: fmt.Sprintf("core's own `MaxDecodeBytes` is %d MiB)", mib(DefaultMaxDecodeBytes))},
		{Doc: "edge.md", Text: fmt.Sprintf("the core refuses files over %d MiB, over %d megapixels or\n  %s px a side, and images whose decode would need over %d MiB",
			mib(DefaultMaxUploadBytes), mp, sideSpaced, mib(DefaultMaxDecodeBytes))},
		{Doc: "widget.md", Text: fmt.Sprintf("(over the default limits: %d MiB, %d MP, %s\npx a side, %d MiB of decode memory)",
			mib(DefaultMaxUploadBytes), mp, sideComma, mib(DefaultMaxDecodeBytes))},
		{Doc: "video.md", Text: fmt.Sprintf("images keep their %d MiB cap", mib(DefaultMaxUploadBytes))},
		{Doc: "operations.md", Text: fmt.Sprintf("at most %d\n(`limits.DefaultMaxCandidates`)", DefaultMaxCandidates)},
	})
}
