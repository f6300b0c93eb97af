package wire

// BatchAnchored is the data object of a batch.anchored webhook event
// (docs/webhooks.md): a Merkle batch whose root is on chain, sent to the
// owners of its records. The origin encodes it and receivers decode the
// same type.
type BatchAnchored struct {
	BatchID string `json:"batch_id"`
	// MerkleRoot is 64 hex digits without 0x, as in certificates (Anchor).
	MerkleRoot string `json:"merkle_root"`
	LeafCount  uint64 `json:"leaf_count"`
	// TxHash is 0x-prefixed hex, as Ethereum tools write it.
	TxHash      string   `json:"tx_hash"`
	BlockNumber uint64   `json:"block_number"`
	Network     string   `json:"network"`
	RecordIDs   []string `json:"record_ids"`
}
