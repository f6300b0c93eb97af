package webhooks

import (
	"fmt"
	"os"
	"strings"
	"testing"
	"time"
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
	for _, tc := range []struct{ doc, phrase string }{
		{"webhooks.md", fmt.Sprintf("| `PROVENANT_WEBHOOK_SCHEDULE` | `%s` |", strings.Join(sched, ","))},
		{"webhooks.md", fmt.Sprintf("| `PROVENANT_WEBHOOK_TIMEOUT` | `%ds` |", secs)},
		{"webhooks.md", fmt.Sprintf("| `PROVENANT_WEBHOOK_WORKERS` | `%d` |", DefaultWorkers)},
		{"webhooks.md", fmt.Sprintf("| `PROVENANT_WEBHOOK_PER_ENDPOINT` | `%d` |", DefaultPerEndpoint)},
		{"webhooks.md", fmt.Sprintf("no complete response within\n  **%d s**", secs)},
		{"webhooks.md", fmt.Sprintf("It looks again every %d ms", DefaultPollInterval/time.Millisecond)},
		{"webhooks.md", fmt.Sprintf("For the next %d hours the previous secret", hours)},
		{"webhooks.md", fmt.Sprintf("Limits: %d webhooks per account", DefaultMaxPerAccount)},
		{"api.md", fmt.Sprintf("the account already has %d webhooks", DefaultMaxPerAccount)},
		{"api.md", fmt.Sprintf("For %d hours the previous secret also signs", hours)},
		{"api.md", fmt.Sprintf("spec schedule, %d s, %d, %d", secs, DefaultWorkers, DefaultPerEndpoint)},
	} {
		b, err := os.ReadFile("../../../docs/" + tc.doc)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(b), tc.phrase) {
			t.Errorf("docs/%s no longer says %q: the default or the doc changed alone", tc.doc, tc.phrase)
		}
	}
}
