package verdict_test

import (
	"crypto/ed25519"
	"crypto/sha256"
	"fmt"
	"time"

	"github.com/provenant/provenant/shared/phash"
	"github.com/provenant/provenant/shared/record"
	"github.com/provenant/provenant/shared/verdict"
)

func ExampleDecide() {
	priv := ed25519.NewKeyFromSeed(make([]byte, ed25519.SeedSize))
	file := []byte("signed file bytes")
	ph := phash.Hash{P64: 1, P256: [4]uint64{1, 2, 3, 4}}
	signed, _ := record.Sign(priv, &record.Record{
		SHA256: sha256.Sum256(file), PerceptualHash: ph, WatermarkPayload: []byte{0xab, 0xcd},
		SignerPublicKey: priv.Public().(ed25519.PublicKey), Timestamp: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC),
	})

	// The same picture, re-encoded: another SHA-256, the watermark still
	// reads. The record predates local signatures (version 1), so nothing
	// the signature covers shows the content unchanged: derived, not
	// authentic (a version 3 record with its local signatures would be).
	facts := verdict.Facts{
		SHA256:    sha256.Sum256([]byte("re-encoded bytes")),
		PHash:     phash.Hash{P64: 1, P256: [4]uint64{1, 2, 3, 7}}, // 2 bits away
		Watermark: verdict.Watermark{Found: true, Payload: []byte{0xab, 0xcd}},
	}
	r := verdict.Decide(facts, []verdict.Candidate{{Signed: signed}}, verdict.Options{})
	fmt.Println(r.Authentic, r.Confidence, r.Match)
	fmt.Println(r.Checks.SHA256.Passed, r.Checks.Watermark.Passed, r.Checks.PerceptualHash.Passed, r.Checks.Blockchain.Passed)
	fmt.Println(r.Checks.Blockchain.Details)
	// Output:
	// false 0.45 perceptual
	// false false false false
	// pending: record 00000000-0000-0000-0000-000000000000 is not anchored yet
}
