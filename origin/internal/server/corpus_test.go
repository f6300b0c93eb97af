package server

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/provenant/provenant/internal/ratelimit"
	"github.com/provenant/provenant/origin/internal/httpapi"
	"github.com/provenant/provenant/origin/origintest/corpus"
	"github.com/provenant/provenant/shared/wire"
)

var updateCorpus = flag.Bool("update-corpus", false, "rewrite origin/origintest/corpus/testdata/corpus.golden.json from this run")

// TestConformanceCorpus verifies every file of the conformance corpus
// (origin/origintest/corpus: signed, re-encoded, cropped, edited,
// composite, transplanted, unrelated, originals, revoked record, key
// compromised before and after anchoring, key retired, derivative,
// registered by hash with a device key, small without a watermark,
// pending, C2PA-carrying signed output) at the origin's POST /verify,
// natively from the lookup answer and in the WebAssembly module: the three
// answers must be equal member for member, keep the wording rules, and
// reduce (corpus.Summarize: authentic, match, record, key rule, each
// check's tri-state, headline, tone, chain) to the golden row of the case.
// The edge runs the same corpus with both engines (edge/internal/server).
func TestConformanceCorpus(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a corpus of signed records")
	}
	many := func(name string) ratelimit.Policy {
		return ratelimit.Policy{Name: name, Quota: 10000, Window: time.Minute}
	}
	ts := startServer(t, "", nil, batchesOf(2), func(c *Config, _ *deps) {
		c.Anchor.BatchInterval = time.Hour
		c.Limits = httpapi.Limits{Verify: many("verify"), Lookup: many("verify-lookup"), Register: many("register")}
	})
	m := wasmVerifier(t)
	cp, golden := corpus.BuildForTest(t, corpus.Origin{URL: ts.base, Advance: func(d time.Duration) { ts.clock.Advance(d) }, Tag: "origin"})
	if len(cp.Cases) < 40 {
		t.Fatalf("corpus has %d files, want at least 40", len(cp.Cases))
	}
	rows := map[string]corpus.Row{}
	for _, c := range cp.Cases {
		t.Run(c.Name, func(t *testing.T) {
			ts := *ts
			ts.t = t
			var v wire.VerifyResponse
			if c.NotAnImage {
				v = ts.verifyWire(c.File)
			} else {
				v = ts.everySurface(m, c.Name, c.File)
			}
			row := corpus.Summarize(v, cp.Roles)
			rows[c.Name] = row
			if *updateCorpus {
				writePresentInput(t, c.Name, v, cp.Roles)
				return
			}
			cp.Expect(t, golden, c, v) // a missing row: run with -update-corpus
		})
	}
	if *updateCorpus {
		b, _ := json.MarshalIndent(rows, "", "  ")
		if err := os.WriteFile("../../origintest/corpus/"+corpus.GoldenPath, append(b, '\n'), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// writePresentInput keeps the verify answer of a corpus file as an input
// of shared/present's golden test, its record ids replaced by fixed ids
// named after their roles (real answers, stable files).
func writePresentInput(t *testing.T, name string, v wire.VerifyResponse, roles map[string]string) {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	s := string(b)
	for id, role := range roles {
		s = strings.ReplaceAll(s, id, fmt.Sprintf("00000000-0000-4000-8000-%012x", []byte(role)))
	}
	slug := strings.Trim(strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= '0' && r <= '9' {
			return r
		}
		if r >= 'A' && r <= 'Z' {
			return r + 'a' - 'A'
		}
		return '-'
	}, name), "-")
	if err := os.WriteFile("../../../shared/present/testdata/corpus-"+slug+".verify.json", []byte(s+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
}
