package example_test

import (
	"bytes"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/provenant/provenant/origin/internal/testkit"
	"github.com/provenant/provenant/origin/internal/webhooks"
	"github.com/provenant/provenant/origin/internal/webhooks/example"
)

// Example shows the receiver accepting a signed delivery once, ignoring
// its retry, and refusing a forged one.
func Example() {
	const secret = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"
	processed := 0
	rc := &example.Receiver{Secrets: []string{secret}, Handle: func(event string, body []byte) error {
		processed++
		return nil
	}}
	srv := httptest.NewServer(rc)
	defer srv.Close()

	body := []byte(`{"event":"content.signed","timestamp":"2026-03-04T10:00:00Z","data":{"record_id":"r1"}}`)
	send := func(sig string) int {
		req, _ := http.NewRequest("POST", srv.URL, bytes.NewReader(body))
		req.Header.Set("X-Service-Signature", sig)
		req.Header.Set("X-Service-Event", "content.signed")
		req.Header.Set("X-Service-Delivery", "5f0c6e1e-8b1a-4d55-9a57-0d5c2f3b7a10")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			return 0
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	fmt.Println("first:", send(webhooks.Sign(secret, body)))
	fmt.Println("retry:", send(webhooks.Sign(secret, body)))
	fmt.Println("forged:", send(webhooks.Sign("whsec_wrong", body)))
	fmt.Println("processed:", processed)
	// Output:
	// first: 204
	// retry: 200
	// forged: 401
	// processed: 1
}

// TestDocsEmbedReceiver fails when docs/webhooks.md no longer contains
// receiver.go verbatim.
func TestDocsEmbedReceiver(t *testing.T) {
	src := testkit.ReadFile(t, "receiver.go")
	doc := testkit.ReadFile(t, "../../../../docs/webhooks.md")
	if !strings.Contains(string(doc), "```go\n"+string(src)+"```\n") {
		t.Errorf("docs/webhooks.md does not embed origin/internal/webhooks/example/receiver.go verbatim in a ```go block; copy the file into the document")
	}
}
