package record_test

import (
	"crypto/ed25519"
	"crypto/sha256"
	"fmt"
	"time"

	"github.com/provenant/provenant/shared/merkle"
	"github.com/provenant/provenant/shared/record"
)

// Sign a record, anchor it in a batch and verify the certificate offline.
func Example() {
	priv := ed25519.NewKeyFromSeed(make([]byte, ed25519.SeedSize)) // use crypto/rand in real code
	file := []byte("the exact uploaded bytes")
	id, _ := record.ParseID("0190f3a1-7b2c-7d4e-8f00-123456789abc")
	r := &record.Record{
		ID:              id,
		SHA256:          sha256.Sum256(file),
		SignerPublicKey: priv.Public().(ed25519.PublicKey),
		Timestamp:       time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC),
		OriginType:      "camera_image",
		Org:             "Example News",
	}
	signed, err := record.Sign(priv, r)
	if err != nil {
		panic(err)
	}

	// The anchor service batches leaves into a Merkle tree.
	other := merkle.LeafHash([]byte("another record"))
	tree := merkle.Build([]merkle.Hash{other, signed.LeafHash()})
	proof, _ := tree.InclusionProof(1)

	cert := record.Certificate{Signed: signed, Anchor: &record.Anchor{
		LeafIndex: 1, TreeSize: tree.Size(), AuditPath: proof, Root: tree.Root(), TxHash: "0x…",
	}}
	got, err := cert.Verify()
	fmt.Println(got.ID, got.Org, err)
	// Output: 0190f3a1-7b2c-7d4e-8f00-123456789abc Example News <nil>
}

func ExampleVerify() {
	priv := ed25519.NewKeyFromSeed(make([]byte, ed25519.SeedSize))
	r := &record.Record{SignerPublicKey: priv.Public().(ed25519.PublicKey), Timestamp: time.UnixMilli(0)}
	s, _ := record.Sign(priv, r)
	s.Bytes[21] ^= 1 // tamper with the file hash inside the record
	_, err := record.Verify(s)
	fmt.Println(err)
	// Output: record: signature does not verify
}
