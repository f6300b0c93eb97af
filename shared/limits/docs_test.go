package limits

import (
	"fmt"
	"os"
	"strings"
	"testing"
)

// TestDocsQuoteTheDefaults: the default limits docs/verification.md and
// docs/api.md quote are the constants: each phrase is written from the
// constant, so changing either the constant or the doc without the other
// fails here.
func TestDocsQuoteTheDefaults(t *testing.T) {
	mib := func(n int) int { return n >> 20 }
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
