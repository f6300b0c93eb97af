package client

import (
	"bytes"
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"image/jpeg"
	"image/png"
	"time"

	"github.com/provenant/provenant/shared/imagex"
	"github.com/provenant/provenant/shared/limits"
	"github.com/provenant/provenant/shared/phash"
	"github.com/provenant/provenant/shared/record"
	"github.com/provenant/provenant/shared/watermark"
)

// LocalSignRequest signs a file on this machine with a key the caller
// holds (a device key: only its public half is registered with the
// origin).
type LocalSignRequest struct {
	// File is the picture to sign (JPEG, PNG, GIF or WebP); Filename is
	// kept as the record's original_filename.
	File     []byte
	Filename string
	// Key is the device's Ed25519 private key.
	Key ed25519.PrivateKey
	// SigningKeyID is the id the origin gave the key when its public half
	// was registered; empty finds the key by its public key.
	SigningKeyID string
	// OrgName is the account's organisation name exactly as the origin
	// stores it: the signed record covers it, and the origin rebuilds the
	// record with its own value, so another spelling fails the signature.
	OrgName string
	// OriginType is the origin type code the record declares (the
	// signature covers it).
	OriginType string
	// JPEGQuality is the quality of a JPEG output (JPEG in, JPEG out;
	// other formats come out as PNG); zero means 90.
	JPEGQuality int
	// Limits bound the decode; zero means limits.Default().
	Limits limits.Limits
	// Now is the signing time; nil means time.Now.
	Now func() time.Time
}

// LocalSigned is a file signed on this machine: the watermarked output,
// the canonical record and its signature, and the register request that
// carries them (hash-only) to the origin.
type LocalSigned struct {
	// File is the watermarked output; ContentType is image/jpeg or
	// image/png and Ext its extension.
	File        []byte
	ContentType string
	Ext         string
	// Signed is the canonical record bytes and their Ed25519 signature.
	Signed   record.Signed
	Register RegisterContentRequest
}

// ErrKeyRequired is returned by [SignLocally] without a private key.
var ErrKeyRequired = errors.New("client: local signing needs the device's Ed25519 private key")

// SignLocally embeds a fresh random watermark payload in req.File with the
// shared core, re-encodes it, computes the output's SHA-256 and the
// marked picture's perceptual hash, and signs the canonical record
// (shared/record, version 1; docs/record-format.md) with req.Key. Nothing
// is sent: see [Client.SignLocal].
func SignLocally(req LocalSignRequest) (*LocalSigned, error) {
	if len(req.Key) != ed25519.PrivateKeySize {
		return nil, ErrKeyRequired
	}
	if req.OrgName == "" || req.OriginType == "" {
		return nil, errors.New("client: local signing needs OrgName and OriginType (both are signed)")
	}
	lim := req.Limits
	if lim == (limits.Limits{}) {
		lim = limits.Default()
	}
	q := req.JPEGQuality
	if q == 0 {
		q = 90
	}
	now := time.Now
	if req.Now != nil {
		now = req.Now
	}
	img, err := imagex.Decode(req.File, lim)
	if err != nil {
		return nil, fmt.Errorf("client: decode: %w", err)
	}
	var pb [8]byte
	for binary.BigEndian.Uint64(pb[:]) == 0 {
		if _, err := rand.Read(pb[:]); err != nil {
			return nil, fmt.Errorf("client: payload: %w", err)
		}
	}
	payload := watermark.Payload(binary.BigEndian.Uint64(pb[:]))
	marked, err := watermark.Embed(img.Image, payload)
	if err != nil {
		return nil, fmt.Errorf("client: embed watermark: %w", err)
	}
	var out bytes.Buffer
	ct, ext := "image/png", ".png"
	if img.Format == imagex.JPEG {
		ct, ext = "image/jpeg", ".jpg"
		err = jpeg.Encode(&out, marked, &jpeg.Options{Quality: q})
	} else {
		err = (&png.Encoder{CompressionLevel: png.BestSpeed}).Encode(&out, marked)
	}
	if err != nil {
		return nil, fmt.Errorf("client: encode output: %w", err)
	}
	// The perceptual hash is that of the marked picture, as the origin
	// computes it when it signs.
	ph, err := phash.Compute(imagex.ToLuma(marked))
	if err != nil {
		return nil, fmt.Errorf("client: perceptual hash: %w", err)
	}
	idStr, err := newIdempotencyKey() // a random UUIDv4
	if err != nil {
		return nil, err
	}
	id, err := record.ParseID(idStr)
	if err != nil {
		return nil, err
	}
	ts := now().UTC().Truncate(time.Millisecond)
	rec := &record.Record{
		ID: id, SHA256: sha256.Sum256(out.Bytes()), PerceptualHash: ph,
		SignerPublicKey: req.Key.Public().(ed25519.PublicKey), Timestamp: ts,
		OriginType: req.OriginType, Org: req.OrgName, WatermarkPayload: pb[:],
	}
	signed, err := record.Sign(req.Key, rec)
	if err != nil {
		return nil, fmt.Errorf("client: sign record: %w", err)
	}
	return &LocalSigned{
		File: out.Bytes(), ContentType: ct, Ext: ext, Signed: signed,
		Register: RegisterContentRequest{
			RecordID: id.String(), SHA256: hex.EncodeToString(rec.SHA256[:]), PerceptualHash: ph.String(),
			WatermarkPayloadHex: payload.String(), SignatureHex: hex.EncodeToString(signed.Signature),
			SigningKeyID: req.SigningKeyID, SignerPublicKey: hex.EncodeToString(rec.SignerPublicKey),
			OriginType: req.OriginType, Timestamp: ts.Format(record.TimeFormat), OriginalFilename: req.Filename,
		},
	}, nil
}

// SignLocal signs req.File on this machine ([SignLocally]) and registers
// the record (hash-only: the file never leaves the machine). The
// registration is idempotent across retries. It returns the signed file
// and the registered record; write LocalSigned.File where it belongs.
func (c *Client) SignLocal(ctx context.Context, req LocalSignRequest) (*LocalSigned, *Record, error) {
	ls, err := SignLocally(req)
	if err != nil {
		return nil, nil, err
	}
	rec, err := c.RegisterContent(ctx, ls.Register)
	if err != nil {
		return ls, nil, err
	}
	return ls, rec, nil
}
