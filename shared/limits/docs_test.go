package limits

import (
	"fmt"
	"os"
	"strings"
	"testing"
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
	for _, tc := range []struct{ doc, phrase string }{
		{"verification.md", fmt.Sprintf("defaults %d MP,\n%d px per side, %d MiB of decode memory, %d MiB, %d hashes, %d\ncandidates",
			DefaultMaxPixels/1_000_000, DefaultMaxSide, mib(DefaultMaxDecodeBytes), mib(DefaultMaxUploadBytes), DefaultMaxProofLen, DefaultMaxCandidates)},
		{"verification.md", fmt.Sprintf("at most %d candidate records (`limits.MaxCandidates`)", DefaultMaxCandidates)},
		{"api.md", fmt.Sprintf("a file is at most **%d MiB** (`limits.DefaultMaxUploadBytes`)", mib(DefaultMaxUploadBytes))},
		{"api.md", fmt.Sprintf("more than %d MP or a side over %d px", DefaultMaxPixels/1_000_000, DefaultMaxSide)},
		{"api.md", fmt.Sprintf("a long side more than %d times the short side", DefaultMaxSignAspect)},
		{"api.md", fmt.Sprintf("more than %d times its short side (`limits.DefaultMaxSignAspect`", DefaultMaxSignAspect)},
		{"api.md", fmt.Sprintf("decoding would need more than %d MiB (`limits.DefaultMaxDecodeBytes`)", mib(DefaultMaxDecodeBytes))},
		{"api.md", fmt.Sprintf("Candidates, at most %d:", DefaultMaxCandidates)},
		{"api.md", fmt.Sprintf("%d MiB upload plus multipart overhead", mib(DefaultMaxUploadBytes))},
		{"api.md", fmt.Sprintf("(`limits.Limits.MaxDecodeBytes`, default %d MiB)", mib(DefaultMaxDecodeBytes))},
		{"api.md", fmt.Sprintf("a side over %d px", side)},
		{"edge.md", fmt.Sprintf("upload (%d MiB plus the multipart framing)", mib(DefaultMaxUploadBytes))},
		{"edge.md", fmt.Sprintf("core's own `MaxDecodeBytes` is %d MiB)", mib(DefaultMaxDecodeBytes))},
		{"edge.md", fmt.Sprintf("the core refuses files over %d MiB, over %d megapixels or\n  %s px a side, and images whose decode would need over %d MiB",
			mib(DefaultMaxUploadBytes), mp, sideSpaced, mib(DefaultMaxDecodeBytes))},
		{"widget.md", fmt.Sprintf("(over the default limits: %d MiB, %d MP, %s\npx a side, %d MiB of decode memory)",
			mib(DefaultMaxUploadBytes), mp, sideComma, mib(DefaultMaxDecodeBytes))},
		{"video.md", fmt.Sprintf("images keep their %d MiB cap", mib(DefaultMaxUploadBytes))},
		{"operations.md", fmt.Sprintf("at most %d\n(`limits.DefaultMaxCandidates`)", DefaultMaxCandidates)},
	} {
		b, err := os.ReadFile("../../docs/" + tc.doc)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(b), tc.phrase) {
			t.Errorf("docs/%s no longer says %q: the constant or the doc changed alone", tc.doc, tc.phrase)
		}
	}
}
