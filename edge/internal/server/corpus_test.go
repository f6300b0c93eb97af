package server

import (
	"encoding/json"
	"net/http"
	"testing"

	"github.com/provenant/provenant/origin/origintest/corpus"
	"github.com/provenant/provenant/shared/wire"
)

// TestConformanceCorpus: every file of the conformance corpus
// (origin/origintest/corpus) verified through the edge, with the wasm
// engine and with the native one, is answered byte for byte as the
// origin's own POST /api/v1/verify answers it, and reduces to the golden
// row of its case (the same table the origin's, the module's and the
// native core's answers are held to).
func TestConformanceCorpus(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a corpus of signed records")
	}
	origin, _ := startOrigin(t, "--trusted-proxies", "127.0.0.1/32", "--batch-size", "2", "--batch-interval", "30m")
	edges := map[string]string{}
	for _, eng := range []string{"wasm", "native"} {
		edges[eng], _ = startEdge(t, origin, edgeOpts{engine: eng})
	}
	cp, golden := corpus.BuildForTest(t, corpus.Origin{URL: origin, Tag: "edge",
		Decorate: func(r *http.Request) { r.Header.Set("X-Forwarded-For", nextClient()) }})
	for _, c := range cp.Cases {
		t.Run(c.Name, func(t *testing.T) {
			want, _ := verifyEverywhere(t, origin, edges, c.File)
			var v wire.VerifyResponse
			if err := json.Unmarshal(want.body, &v); err != nil {
				t.Fatal(err)
			}
			g, ok := golden[c.Name]
			if !ok {
				t.Fatalf("no golden row for %q", c.Name)
			}
			if d := corpus.Diff(c, g, corpus.Summarize(v, cp.Roles)); d != "" {
				t.Errorf("%s", d)
			}
		})
	}
}
