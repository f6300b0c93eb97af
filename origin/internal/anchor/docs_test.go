package anchor

import (
	"fmt"
	"testing"

	"github.com/provenant/provenant/internal/docfigures"
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
	docfigures.Check(t, []docfigures.Phrase{
		{Doc: "anchoring.md", Text: fmt.Sprintf("(default %s, at most %s:", size, most)},
		{Doc: "anchoring.md", Text: fmt.Sprintf("`BatchInterval` (default %d s,", secs)},
		{Doc: "anchoring.md", Text: fmt.Sprintf("`--batch-interval` (%d s)", secs)},
		{Doc: "api.md", Text: fmt.Sprintf("| %d records (at most %s) |", DefaultBatchSize, most)},
		{Doc: "api.md", Text: fmt.Sprintf("closes Merkle batches every %s records or\n%d s", size, secs)},
		{Doc: "design.md", Text: fmt.Sprintf("(every %s records or %d s)", size, secs)},
		{Doc: "design.md", Text: fmt.Sprintf("closing an anchoring batch of up to %s records", most)},
		{Doc: "operations.md", Text: fmt.Sprintf("records per Merkle batch (at most %s)", most)},
	})
}
