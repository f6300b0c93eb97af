// Package receipt defines the offline receipt of a content record
// ("provenant-receipt/v1", docs/receipt.md): one self-contained JSON
// document holding the canonical signed record, its Ed25519 signature and
// key, its Merkle leaf, the inclusion proof to the anchored batch root, and
// where that root was written on chain. Everything but the chain lookup is
// checked offline by [Receipt.Verify]; [Receipt.CheckChain] does the chain
// lookup through any node the caller trusts.
package receipt

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/provenant/provenant/shared/limits"
	"github.com/provenant/provenant/shared/merkle"
	"github.com/provenant/provenant/shared/record"
	"github.com/provenant/provenant/shared/rfc3339"
	"github.com/provenant/provenant/shared/wire"
)

// Format is the value of the format member of every version 1 receipt.
const Format = "provenant-receipt/v1"

// MaxSize bounds the encoded receipt Parse reads. A receipt holds at most a
// 4 KiB record (about 5.5 KiB in base64) and 64 path hashes (about 4.3 KiB).
const MaxSize = 32 << 10

// CalldataTag is the prefix of an anchoring transaction's calldata: the
// calldata is exactly the tag followed by the 32-byte Merkle root.
var CalldataTag = [4]byte{'P', 'V', 'N', '1'}

// Errors callers branch on. Every error Parse, Verify and CheckChain return
// wraps exactly one of them.
var (
	// ErrMalformed: not a well-formed version 1 receipt (bad JSON, unknown or
	// missing member, wrong encoding of a value, size over MaxSize).
	ErrMalformed = errors.New("receipt: malformed")
	// ErrUnsupportedFormat: the format member names another format.
	ErrUnsupportedFormat = errors.New("receipt: unsupported format")
	// ErrMismatch: a summary member (record_id, signer_public_key,
	// leaf_hash) disagrees with the signed record.
	ErrMismatch = errors.New("receipt: member disagrees with the signed record")
	// ErrSignature: the signature does not verify over the record.
	ErrSignature = errors.New("receipt: signature does not verify")
	// ErrInclusion: the audit path does not lead from the leaf to the root.
	ErrInclusion = errors.New("receipt: inclusion proof does not verify")
	// ErrChain: the chain contradicts the receipt (other chain id, no such
	// transaction, other calldata, other block, block not canonical).
	ErrChain = errors.New("receipt: chain does not confirm the anchor")
	// ErrChainUnavailable: the chain could not be read; nothing was decided.
	ErrChainUnavailable = errors.New("receipt: chain unavailable")
	// ErrKeyRevoked: the service states that the record's signing key was
	// revoked and that the record was not anchored before the key's
	// cutoff (key_revocation.decision "not_authentic").
	ErrKeyRevoked = errors.New("receipt: the signing key was revoked before this record was anchored")
)

// Receipt is the JSON document. Hex members are lowercase; Merkle hashes
// are 64 hex digits, chain hashes 0x followed by 64 hex digits (as Ethereum
// tools print them). The zero value is not a valid receipt.
type Receipt struct {
	// Format is always [Format].
	Format string `json:"format"`
	// RecordID is the record's UUID, as inside Record.
	RecordID string `json:"record_id"`
	// Record is the canonical signed record bytes (shared/record), base64
	// (standard alphabet, padded).
	Record string `json:"record"`
	// SignatureHex is the Ed25519 signature over the record bytes.
	SignatureHex string `json:"signature_hex"`
	// SignerPublicKey is the Ed25519 key inside Record, hex.
	SignerPublicKey string `json:"signer_public_key"`
	// LeafHash is the RFC 9162 leaf hash of record bytes ‖ signature.
	LeafHash string `json:"leaf_hash"`
	// LeafIndex and TreeSize place the leaf in its batch's tree.
	LeafIndex uint64 `json:"leaf_index"`
	TreeSize  uint64 `json:"tree_size"`
	// AuditPath is the RFC 9162 inclusion proof, leaf to root.
	AuditPath []string `json:"audit_path"`
	// MerkleRoot is the batch root the transaction carries.
	MerkleRoot string `json:"merkle_root"`
	// ChainID is the EIP-155 chain id of the chain holding TxHash.
	ChainID uint64 `json:"chain_id"`
	// TxHash is the anchoring transaction, whose calldata is "PVN1" ‖ root.
	TxHash string `json:"tx_hash"`
	// BlockNumber and BlockHash are the block that includes TxHash.
	BlockNumber uint64 `json:"block_number"`
	BlockHash   string `json:"block_hash"`
	// KeyRevocation, present only when the record's signing key is
	// revoked, is the service's statement of what that decided. It is the
	// one member not checked offline: revocation is news after the fact.
	KeyRevocation *wire.KeyRevocation `json:"key_revocation,omitempty"`
	// Network, optional, is the service's description of the chain chain_id
	// names (its name, whether it is public, an explorer link). Like
	// key_revocation it is the service's word, not checked offline: it
	// tells a reader whether the anchor is a public timestamp at all.
	Network *wire.Network `json:"network,omitempty"`
}

// Inclusion is where a signed record was anchored, the input of [New].
type Inclusion struct {
	LeafIndex   uint64
	TreeSize    uint64
	AuditPath   []merkle.Hash
	Root        merkle.Hash
	ChainID     uint64
	TxHash      [32]byte
	BlockNumber uint64
	BlockHash   [32]byte
}

// New builds the receipt of s anchored at in. It returns an error unless
// the result verifies offline, so a receipt New returns is never wrong about
// anything but the chain.
func New(s record.Signed, in Inclusion) (*Receipt, error) {
	rec, err := record.Parse(s.Bytes)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrMalformed, err)
	}
	r := &Receipt{
		Format: Format, RecordID: rec.ID.String(), Record: base64.StdEncoding.EncodeToString(s.Bytes),
		SignatureHex: hex.EncodeToString(s.Signature), SignerPublicKey: hex.EncodeToString(rec.SignerPublicKey),
		LeafHash: s.LeafHash().String(), LeafIndex: in.LeafIndex, TreeSize: in.TreeSize,
		AuditPath: make([]string, len(in.AuditPath)), MerkleRoot: in.Root.String(), ChainID: in.ChainID,
		TxHash: chainHex(in.TxHash), BlockNumber: in.BlockNumber, BlockHash: chainHex(in.BlockHash),
	}
	for i, h := range in.AuditPath {
		r.AuditPath[i] = h.String()
	}
	if _, err := r.Verify(); err != nil {
		return nil, err
	}
	return r, nil
}

// Parse decodes a receipt strictly: one JSON object of at most MaxSize
// bytes, every member present, no unknown member, every value in its
// canonical encoding. It does not verify anything: call [Receipt.Verify].
func Parse(b []byte) (*Receipt, error) {
	if len(b) > MaxSize {
		return nil, fmt.Errorf("%w: %d bytes > %d", ErrMalformed, len(b), MaxSize)
	}
	var probe struct {
		Format *string `json:"format"`
	}
	if err := json.Unmarshal(b, &probe); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrMalformed, err)
	}
	if probe.Format == nil {
		return nil, fmt.Errorf("%w: format is missing", ErrMalformed)
	}
	if *probe.Format != Format {
		return nil, fmt.Errorf("%w: %q", ErrUnsupportedFormat, *probe.Format)
	}
	// Every member is required: decode into a map first to see which are
	// present, since the zero value of a number is also a valid value.
	var members map[string]json.RawMessage
	if err := json.Unmarshal(b, &members); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrMalformed, err)
	}
	for _, name := range memberNames {
		if _, ok := members[name]; !ok {
			return nil, fmt.Errorf("%w: %s is missing", ErrMalformed, name)
		}
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	var r Receipt
	if err := dec.Decode(&r); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrMalformed, err)
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return nil, fmt.Errorf("%w: trailing data after the receipt", ErrMalformed)
	}
	if _, err := r.decode(); err != nil {
		return nil, err
	}
	return &r, nil
}

// memberNames lists every member of a version 1 receipt.
var memberNames = []string{"format", "record_id", "record", "signature_hex", "signer_public_key", "leaf_hash",
	"leaf_index", "tree_size", "audit_path", "merkle_root", "chain_id", "tx_hash", "block_number", "block_hash"}

// Marshal returns the receipt's JSON encoding (members in the order of the
// struct, no insignificant whitespace).
func (r *Receipt) Marshal() ([]byte, error) {
	if _, err := r.decode(); err != nil {
		return nil, err
	}
	return json.Marshal(r)
}

// decoded is a receipt's values in binary form.
type decoded struct {
	signed    record.Signed
	pub       []byte
	leaf      merkle.Hash
	path      []merkle.Hash
	root      merkle.Hash
	tx, block [32]byte
}

func (r *Receipt) decode() (*decoded, error) {
	bad := func(member, want string) error {
		return fmt.Errorf("%w: %s must be %s", ErrMalformed, member, want)
	}
	if r.Format != Format {
		return nil, fmt.Errorf("%w: %q", ErrUnsupportedFormat, r.Format)
	}
	d := &decoded{}
	var err error
	if _, err := record.ParseID(r.RecordID); err != nil || r.RecordID != strings.ToLower(r.RecordID) {
		return nil, bad("record_id", "a lowercase UUID")
	}
	if d.signed.Bytes, err = base64.StdEncoding.Strict().DecodeString(r.Record); err != nil ||
		len(d.signed.Bytes) == 0 || len(d.signed.Bytes) > limits.MaxRecordBytes {
		return nil, bad("record", "base64 of at most 4096 bytes")
	}
	if d.signed.Signature, err = lowerHex(r.SignatureHex, record.SignatureSize); err != nil {
		return nil, bad("signature_hex", "128 lowercase hex digits")
	}
	if d.pub, err = lowerHex(r.SignerPublicKey, record.PublicKeySize); err != nil {
		return nil, bad("signer_public_key", "64 lowercase hex digits")
	}
	if d.leaf, err = merkleHash(r.LeafHash); err != nil {
		return nil, bad("leaf_hash", "64 lowercase hex digits")
	}
	if r.TreeSize == 0 || r.LeafIndex >= r.TreeSize {
		return nil, bad("leaf_index", "below tree_size, which must be at least 1")
	}
	if r.AuditPath == nil || len(r.AuditPath) > limits.DefaultMaxProofLen {
		return nil, bad("audit_path", fmt.Sprintf("an array of at most %d hashes", limits.DefaultMaxProofLen))
	}
	d.path = make([]merkle.Hash, len(r.AuditPath))
	for i, s := range r.AuditPath {
		if d.path[i], err = merkleHash(s); err != nil {
			return nil, bad(fmt.Sprintf("audit_path[%d]", i), "64 lowercase hex digits")
		}
	}
	if d.root, err = merkleHash(r.MerkleRoot); err != nil {
		return nil, bad("merkle_root", "64 lowercase hex digits")
	}
	if r.ChainID == 0 {
		return nil, bad("chain_id", "a positive integer")
	}
	if d.tx, err = parseChainHex(r.TxHash); err != nil {
		return nil, bad("tx_hash", "0x and 64 lowercase hex digits")
	}
	if r.BlockNumber == 0 {
		return nil, bad("block_number", "a positive integer")
	}
	if d.block, err = parseChainHex(r.BlockHash); err != nil {
		return nil, bad("block_hash", "0x and 64 lowercase hex digits")
	}
	if k := r.KeyRevocation; k != nil {
		if k.Decision != wire.KeyDecisionValid && k.Decision != wire.KeyDecisionNotAuthentic {
			return nil, bad("key_revocation.decision", `"valid" or "not_authentic"`)
		}
		for name, v := range map[string]string{"key_revoked_at": k.KeyRevokedAt, "cutoff": k.Cutoff, "compromised_since": k.CompromisedSince} {
			if _, err := rfc3339.Parse(v); err != nil && (v != "" || name != "compromised_since") {
				return nil, bad("key_revocation."+name, "an RFC 3339 time")
			}
		}
		if len(k.Reason) > 1000 || len(k.Detail) > 1000 {
			return nil, bad("key_revocation", "reason and detail of at most 1000 bytes")
		}
	}
	if n := r.Network; n != nil {
		if n.Name == "" || len(n.Name) > 100 || len(n.Description) > 1000 || len(n.ExplorerTxURL) > 1000 {
			return nil, bad("network", "a name of 1 to 100 bytes, description and explorer_tx_url of at most 1000")
		}
		if n.ChainID != r.ChainID {
			return nil, bad("network.chain_id", "the receipt's chain_id")
		}
		if n.ExplorerTxURL != "" && (!strings.HasPrefix(n.ExplorerTxURL, "https://") || !strings.Contains(n.ExplorerTxURL, "{tx}")) {
			return nil, bad("network.explorer_tx_url", `an https URL template holding "{tx}"`)
		}
		if n.ExplorerTxURL != "" && !n.Public {
			return nil, bad("network.explorer_tx_url", "absent for a chain that is not public")
		}
	}
	return d, nil
}

// Result is what a successful [Receipt.Verify] established.
type Result struct {
	// Record is the signed record; its signature verified under
	// Record.SignerPublicKey.
	Record *record.Record
	// Leaf is the record's leaf hash, included under Root.
	Leaf merkle.Hash
	// Root is the batch root that the chain must hold (CheckChain).
	Root merkle.Hash
	// KeyRevocation is the receipt's key_revocation member, nil when the
	// signing key is not revoked.
	KeyRevocation *wire.KeyRevocation
	// Network is the receipt's network member (the service's word), nil
	// when absent; when it is not Public the anchor is no public timestamp.
	Network *wire.Network
}

// Verify checks offline everything but the chain: the record parses, its
// signature verifies under the key inside it, record_id, signer_public_key
// and leaf_hash agree with it, and the audit path leads from the leaf to
// merkle_root. When key_revocation says the record is not authentic,
// Verify returns the Result with an error wrapping ErrKeyRevoked. Whether that key belongs to the organisation the record
// names is the registry's question, not this one.
func (r *Receipt) Verify() (Result, error) {
	d, err := r.decode()
	if err != nil {
		return Result{}, err
	}
	rec, err := record.Verify(d.signed)
	switch {
	case errors.Is(err, record.ErrBadSignature):
		return Result{}, fmt.Errorf("%w: %w", ErrSignature, err)
	case err != nil:
		return Result{}, fmt.Errorf("%w: record: %w", ErrMalformed, err)
	}
	if rec.ID.String() != r.RecordID {
		return Result{}, fmt.Errorf("%w: record_id %s, record holds %s", ErrMismatch, r.RecordID, rec.ID)
	}
	if !bytes.Equal(rec.SignerPublicKey, d.pub) {
		return Result{}, fmt.Errorf("%w: signer_public_key is not the key inside the record", ErrMismatch)
	}
	leaf := d.signed.LeafHash()
	if leaf != d.leaf {
		return Result{}, fmt.Errorf("%w: leaf_hash %s, record and signature hash to %s", ErrMismatch, d.leaf, leaf)
	}
	if err := merkle.VerifyInclusion(r.LeafIndex, r.TreeSize, leaf, d.path, d.root); err != nil {
		return Result{}, fmt.Errorf("%w: %w", ErrInclusion, err)
	}
	res := Result{Record: rec, Leaf: leaf, Root: d.root, KeyRevocation: r.KeyRevocation, Network: r.Network}
	if r.KeyRevocation != nil && r.KeyRevocation.Decision != wire.KeyDecisionValid {
		return res, fmt.Errorf("%w: %s", ErrKeyRevoked, r.KeyRevocation.Detail)
	}
	return res, nil
}

// ChainTx is a mined transaction as a chain node reports it.
type ChainTx struct {
	// Input is the transaction's calldata.
	Input []byte
	// BlockNumber and BlockHash are the block that includes it.
	BlockNumber uint64
	BlockHash   [32]byte
}

// ErrTxNotFound is what a ChainReader returns (possibly wrapped) when the
// node does not know the transaction or it is not mined.
var ErrTxNotFound = errors.New("receipt: transaction not found")

// ChainReader is the chain lookup CheckChain needs, implemented by the
// caller over any Ethereum JSON-RPC endpoint (eth_chainId,
// eth_getTransactionByHash with eth_getTransactionReceipt,
// eth_getBlockByNumber).
type ChainReader interface {
	// ChainID returns the node's EIP-155 chain id.
	ChainID(ctx context.Context) (uint64, error)
	// Transaction returns a mined transaction, or ErrTxNotFound.
	Transaction(ctx context.Context, hash [32]byte) (ChainTx, error)
	// CanonicalBlockHash returns the hash of the canonical block at number.
	CanonicalBlockHash(ctx context.Context, number uint64) ([32]byte, error)
}

// CheckChain verifies the receipt offline ([Receipt.Verify]) and then asks
// c whether the chain holds it: the chain id is chain_id, transaction
// tx_hash is mined in block block_number with hash block_hash, that block
// is canonical, and the calldata is exactly "PVN1" ‖ merkle_root. Errors
// wrap ErrChain when the chain contradicts the receipt and
// ErrChainUnavailable when it could not be read. Confirmation depth is the
// caller's policy: compare BlockNumber with the node's head.
func (r *Receipt) CheckChain(ctx context.Context, c ChainReader) error {
	res, err := r.Verify()
	if err != nil {
		return err
	}
	d, err := r.decode()
	if err != nil {
		return err
	}
	id, err := c.ChainID(ctx)
	if err != nil {
		return fmt.Errorf("%w: chain id: %w", ErrChainUnavailable, err)
	}
	if id != r.ChainID {
		return fmt.Errorf("%w: the node serves chain %d, the receipt names chain %d", ErrChain, id, r.ChainID)
	}
	tx, err := c.Transaction(ctx, d.tx)
	if errors.Is(err, ErrTxNotFound) {
		return fmt.Errorf("%w: transaction %s is not on chain %d", ErrChain, r.TxHash, id)
	}
	if err != nil {
		return fmt.Errorf("%w: transaction %s: %w", ErrChainUnavailable, r.TxHash, err)
	}
	want := append(CalldataTag[:len(CalldataTag):len(CalldataTag)], res.Root[:]...)
	if !bytes.Equal(tx.Input, want) {
		return fmt.Errorf("%w: transaction %s does not carry root %s", ErrChain, r.TxHash, res.Root)
	}
	if tx.BlockNumber != r.BlockNumber || tx.BlockHash != d.block {
		return fmt.Errorf("%w: transaction %s is in block %d %s, the receipt says block %d %s",
			ErrChain, r.TxHash, tx.BlockNumber, chainHex(tx.BlockHash), r.BlockNumber, r.BlockHash)
	}
	canon, err := c.CanonicalBlockHash(ctx, r.BlockNumber)
	if err != nil {
		return fmt.Errorf("%w: block %d: %w", ErrChainUnavailable, r.BlockNumber, err)
	}
	if canon != d.block {
		return fmt.Errorf("%w: block %s is not the canonical block %d", ErrChain, r.BlockHash, r.BlockNumber)
	}
	return nil
}

func lowerHex(s string, n int) ([]byte, error) {
	if len(s) != 2*n || s != strings.ToLower(s) {
		return nil, ErrMalformed
	}
	return hex.DecodeString(s)
}

func merkleHash(s string) (merkle.Hash, error) {
	var h merkle.Hash
	b, err := lowerHex(s, merkle.HashSize)
	if err != nil {
		return h, ErrMalformed
	}
	copy(h[:], b)
	return h, nil
}

func chainHex(h [32]byte) string { return "0x" + hex.EncodeToString(h[:]) }

func parseChainHex(s string) ([32]byte, error) {
	var h [32]byte
	rest, ok := strings.CutPrefix(s, "0x")
	if !ok {
		return h, ErrMalformed
	}
	b, err := lowerHex(rest, 32)
	if err != nil {
		return h, ErrMalformed
	}
	copy(h[:], b)
	return h, nil
}
