package anchor

import (
	"fmt"
	"os"
	"strings"
	"testing"
)

// TestDocsQuoteTheBatchLimits: the batch size default and maximum and the
// batch interval default that docs/anchoring.md, docs/api.md,
// docs/design.md and docs/operations.md state are DefaultBatchSize,
// MaxBatchSize and DefaultBatchInterval, so that changing one alone fails
// here.
func TestDocsQuoteTheBatchLimits(t *testing.T) {
	// The docs group thousands with a comma.
	thousands := func(n int) string { return fmt.Sprintf("%d,%03d", n/1000, n%1000) }
	size, most := thousands(DefaultBatchSize), thousands(MaxBatchSize)
	secs := int(DefaultBatchInterval.Seconds())
	for _, tc := range []struct{ doc, phrase string }{
		{"anchoring.md", fmt.Sprintf("(default %s, at most %s:", size, most)},
		{"anchoring.md", fmt.Sprintf("`BatchInterval` (default %d s,", secs)},
		{"anchoring.md", fmt.Sprintf("`--batch-interval` (%d s)", secs)},
		{"api.md", fmt.Sprintf("| %d records (at most %s) |", DefaultBatchSize, most)},
		{"api.md", fmt.Sprintf("closes Merkle batches every %s records or\n%d s", size, secs)},
		{"design.md", fmt.Sprintf("(every %s records or %d s)", size, secs)},
		{"design.md", fmt.Sprintf("closing an anchoring batch of up to %s records", most)},
		{"operations.md", fmt.Sprintf("records per Merkle batch (at most %s)", most)},
	} {
		b, err := os.ReadFile("../../../docs/" + tc.doc)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(b), tc.phrase) {
			t.Errorf("docs/%s no longer says %q: the constant or the doc changed alone", tc.doc, tc.phrase)
		}
	}
}
