package webhooks

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/provenant/provenant/internal/docfigures"
)

// TestDocsQuoteTheDefaults: the dispatcher defaults, the rotation grace
// and the per-account cap that docs/webhooks.md and docs/api.md state are
// the constants and DefaultSchedule, so that changing one alone fails
// here.
func TestDocsQuoteTheDefaults(t *testing.T) {
	var sched []string
	for _, d := range DefaultSchedule() {
		sched = append(sched, fmt.Sprintf("%dm", int(d/time.Minute)))
	}
	secs := int(DefaultTimeout / time.Second)
	hours := int(DefaultRotationGrace / time.Hour)
	docfigures.Check(t, []docfigures.Phrase{
		{Doc: "webhooks.md", Text: fmt.Sprintf("| `PROVENANT_WEBHOOK_SCHEDULE` | `%s` |", strings.Join(sched, ","))},
		{Doc: "webhooks.md", Text: fmt.Sprintf("| `PROVENANT_WEBHOOK_TIMEOUT` | `%ds` |", secs)},
		{Doc: "webhooks.md", Text: fmt.Sprintf("| `PROVENANT_WEBHOOK_WORKERS` | `%d` |", DefaultWorkers)},
		{Doc: "webhooks.md", Text: fmt.Sprintf("| `PROVENANT_WEBHOOK_PER_ENDPOINT` | `%d` |", DefaultPerEndpoint)},
		{Doc: "webhooks.md", Text: fmt.Sprintf("no complete response within\n  **%d s**", secs)},
		{Doc: "webhooks.md", Text: fmt.Sprintf("It looks again every %d ms", DefaultPollInterval/time.Millisecond)},
		{Doc: "webhooks.md", Text: fmt.Sprintf("For the next %d hours the previous secret", hours)},
		{Doc: "webhooks.md", Text: fmt.Sprintf("Limits: %d webhooks per account", DefaultMaxPerAccount)},
		{Doc: "api.md", Text: fmt.Sprintf("the account already has %d webhooks", DefaultMaxPerAccount)},
		{Doc: "api.md", Text: fmt.Sprintf("For %d hours the previous secret also signs", hours)},
		{Doc: "api.md", Text: fmt.Sprintf("spec schedule, %d s, %d, %d", secs, DefaultWorkers, DefaultPerEndpoint)},
	})
}
