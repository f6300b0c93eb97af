//go:build !noc2pa

package facts

import (
	"os"
	"slices"
	"testing"
	"time"

	"github.com/provenant/provenant/shared/c2pa"
	"github.com/provenant/provenant/shared/c2pa/c2pafacts"
	"github.com/provenant/provenant/shared/c2pa/c2patest"
	"github.com/provenant/provenant/shared/limits"
)

// TestC2PAFacts: Analyze reports a carried manifest (with the record a
// Provenant one names and the chain), nothing for a file without one,
// and an invalid state once the image bytes change.
func TestC2PAFacts(t *testing.T) {
	raw, err := os.ReadFile(meadowJPEG)
	if err != nil {
		t.Fatal(err)
	}
	s := c2patest.NewSigner(t, c2patest.CertOptions{Org: "Example News"})
	when := time.Date(2026, 3, 4, 10, 0, 0, 0, time.UTC)
	out, id, _, err := c2pa.Embed(raw, c2pa.Manifest{ClaimGenerator: "Provenant/1.0", Format: "image/jpeg", Title: "m.jpg",
		Actions:      []c2pa.Action{{Action: "c2pa.created", DigitalSourceType: "http://cv.iptc.org/newscodes/digitalsourcetype/digitalCapture", When: when}},
		SoftBindings: []c2pa.SoftBinding{{Alg: AlgWatermark, Value: []byte{1, 2, 3, 4, 5, 6, 7, 8}}},
		Assertions:   []c2pa.Assertion{{Label: RecordAssertion, Data: RecordLink{RecordID: "rec-1", CertificateURL: "/c"}}},
	}, s)
	if err != nil {
		t.Fatal(err)
	}
	f, err := Analyze(out, limits.Default(), time.Now())
	if err != nil {
		t.Fatal(err)
	}
	c := f.C2PA
	if c == nil || c.ValidationState != "valid" || c.ActiveManifest != id || c.RecordID != "rec-1" || len(c.Chain) != 2 ||
		len(c.Actions) != 1 || c.Actions[0].When != "2026-03-04T10:00:00Z" || c.ClaimGenerator != "Provenant/1.0" {
		t.Fatalf("c2pa facts %+v", c)
	}
	if w := f.Wire(); w.C2PA != c {
		t.Error("the wire facts do not carry the manifest")
	}
	if back, err := FromWire(f.Wire()); err != nil || back.C2PA != c {
		t.Errorf("FromWire lost the manifest: %v", err)
	}

	if f, err := Analyze(raw, limits.Default(), time.Now()); err != nil || f.C2PA != nil {
		t.Fatalf("a file without manifest: %+v %v", f.C2PA, err)
	}

	flipped := slices.Clone(out)
	flipped[len(flipped)-20] ^= 1
	if c := C2PA(flipped, time.Now()); c == nil || c.ValidationState != "invalid" || !slices.Contains(c.ValidationCodes, "assertion.dataHash.mismatch") {
		t.Fatalf("a changed file: %+v", c)
	}
}

// BenchmarkC2PARead is what reading a manifest adds to Analyze: C2PA
// (extract, parse, hard-binding hash, signature) on a file carrying one,
// against Analyze of the same file, medians, c2pa/analyze-x their ratio.
//
//	go test ./shared/facts -run '^$' -bench C2PARead -benchtime 20x -count 3
func BenchmarkC2PARead(b *testing.B) {
	raw, err := os.ReadFile(meadowJPEG)
	if err != nil {
		b.Fatal(err)
	}
	out, _, _, err := c2pa.Embed(raw, c2pa.Manifest{ClaimGenerator: "Provenant/1.0", Format: "image/jpeg"},
		c2patest.NewSigner(b, c2patest.CertOptions{}))
	if err != nil {
		b.Fatal(err)
	}
	var an, rd []time.Duration
	for i := 0; i < b.N; i++ {
		t0 := time.Now()
		if _, err := Analyze(out, limits.Default(), time.Now()); err != nil {
			b.Fatal(err)
		}
		t1 := time.Now()
		if C2PA(out, time.Now()) == nil {
			b.Fatal("no manifest read")
		}
		an, rd = append(an, t1.Sub(t0)), append(rd, time.Since(t1))
	}
	a, r := median(an), median(rd)
	b.ReportMetric(a/1e6, "analyze-ms")
	b.ReportMetric(r/1e6, "c2pa-ms")
	b.ReportMetric(r/a, "c2pa/analyze-x")
}

// TestRecordAssertionIsTheReaders: the label the origin writes is the one
// the shared reader looks for.
func TestRecordAssertionIsTheReaders(t *testing.T) {
	if RecordAssertion != c2pafacts.RecordAssertion {
		t.Fatalf("facts %q, c2pafacts %q", RecordAssertion, c2pafacts.RecordAssertion)
	}
}
