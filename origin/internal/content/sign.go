package content

import (
	"context"
	"crypto/ed25519"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/provenant/provenant/origin/internal/accounts"
	"github.com/provenant/provenant/origin/internal/anchor"
	"github.com/provenant/provenant/origin/internal/content/manifests"
	"github.com/provenant/provenant/origin/internal/events"
	"github.com/provenant/provenant/origin/internal/ids"
	"github.com/provenant/provenant/origin/internal/keys"
	"github.com/provenant/provenant/origin/internal/store"
	"github.com/provenant/provenant/origin/internal/validate"
	"github.com/provenant/provenant/shared/imagex"
	"github.com/provenant/provenant/shared/localsig"
	"github.com/provenant/provenant/shared/phash"
	"github.com/provenant/provenant/shared/record"
	"github.com/provenant/provenant/shared/watermark"
	"github.com/provenant/provenant/shared/wire"
)

// MaxFilenameLen bounds the stored original filename, in bytes.
const MaxFilenameLen = 255

// SignInput is one file to sign.
type SignInput struct {
	Owner        string
	SigningKeyID string
	// File is the exact uploaded bytes; the caller may reuse it after Sign
	// returns.
	File []byte
	// Filename is the client's file name (informational, sanitised).
	Filename string
	// SHA256, if non-nil, is the SHA-256 of File the caller computed while
	// reading it (the streaming upload reader does); nil means Sign hashes.
	SHA256 *[32]byte
	// DerivativeOf, if set, declares the upload a derivative of that
	// record (required to re-sign another account's content).
	DerivativeOf string
	// NoC2PA leaves the C2PA manifest out of a JPEG or PNG output
	// (docs/c2pa.md, "Opting out"); a manifest the upload carried is
	// then not kept either.
	NoC2PA bool
}

// SignResult is a signed record and the watermarked file.
type SignResult struct {
	Record *Record
	// File is the watermarked output, the file whose SHA-256 the record
	// carries; ContentType is its media type. For a video File is nil and
	// the output is the file at Path (see SignVideo).
	File        []byte
	Path        string
	ContentType string
	Certificate wire.Certificate
}

// Response returns the spec's JSON sign response.
func (r *SignResult) Response() wire.SignResponse {
	return wire.SignResponse{
		RecordID: r.Record.ID, SHA256: r.Record.SHA256, PerceptualHash: r.Record.PerceptualHash,
		WatermarkPayloadHex: r.Record.WatermarkPayloadHex, Watermark: r.Record.WatermarkState(),
		WatermarkReason: r.Record.WatermarkReason, SignatureHex: r.Record.SignatureHex,
		BlockchainStatus: r.Record.BlockchainStatus, Certificate: r.Certificate,
		ParentRecordID: r.Record.ParentRecordID, ParentEvidence: r.Record.ParentEvidence,
		DownloadURL: r.Record.FileURL(), C2PAManifestID: r.Record.C2PAManifestID,
	}
}

// signedEvent is the data of content.signed (docs/webhooks.md, Events).
type signedEvent struct {
	RecordID         string       `json:"record_id"`
	SHA256           string       `json:"sha256"`
	PerceptualHash   string       `json:"perceptual_hash"`
	SignatureHex     string       `json:"signature_hex"`
	OriginalFilename string       `json:"original_filename"`
	OriginType       string       `json:"origin_type"`
	Signer           signerDigest `json:"signer"`
	BlockchainStatus string       `json:"blockchain_status"`
	// ParentRecordID and ParentEvidence are set for a derivative, so a
	// receiver learns of the link without fetching the record.
	ParentRecordID string   `json:"parent_record_id,omitempty"`
	ParentEvidence []string `json:"parent_evidence,omitempty"`
}

type signerDigest struct {
	OrgName string `json:"org_name"`
	OrgType string `json:"org_type"`
	KeyName string `json:"key_name,omitempty"`
}

func cleanFilename(s string) string {
	if i := strings.LastIndexAny(s, `/\`); i >= 0 {
		s = s[i+1:]
	}
	s = strings.Map(func(r rune) rune {
		// Bidi controls would reorder the name where it is shown (a
		// certificate, a download's file name).
		if r < 0x20 || r == 0x7F || validate.IsBidiControl(r) {
			return -1
		}
		return r
	}, strings.ToValidUTF8(s, ""))
	for len(s) > MaxFilenameLen {
		_, n := utf8.DecodeLastRuneInString(s)
		s = s[:len(s)-n]
	}
	return s
}

// Sign decodes in.File under the service's limits, embeds a fresh unique
// watermark payload, re-encodes the result (see encode.go), signs the
// canonical record of the output with the caller's signing key, and stores
// the record, its indexes, its anchoring queue entry, the owner's counters
// and a content.signed event in one transaction.
//
// Every decodable picture is signed: one whose short side is under
// watermark.MinEmbedShortSide is signed without a watermark (Record.Watermark
// "none", with the reason).
//
// Errors: keys.ErrNotFound when the key is not the caller's;
// keys.ErrDeviceKey when it is a device key; imagex sentinels for unusable
// uploads.
func (s *Service) Sign(ctx context.Context, in SignInput) (*SignResult, error) {
	key, user, pub, err := s.serviceSigner(ctx, in.Owner, in.SigningKeyID)
	if err != nil {
		return nil, err
	}
	// A strip too long for the local signature grid is refused from its
	// header, before any decode or embedding.
	if info, err := imagex.DecodeConfig(in.File, s.cfg.Media.Limits); err == nil {
		if err := s.cfg.Media.Limits.CheckSignAspect(info.Width, info.Height); err != nil {
			return nil, err
		}
	}
	release, err := s.cfg.Media.DecodeBudget.Reserve(ctx, in.File, s.cfg.Media.Limits, imagex.UseMark)
	if err != nil {
		return nil, err
	}
	defer release()
	img, err := imagex.DecodeWith(in.File, s.cfg.Media.Limits, s.cfg.Media.JPEG)
	if err != nil {
		return nil, err
	}
	var origSum [32]byte
	if in.SHA256 != nil {
		origSum = *in.SHA256
	} else {
		origSum = sha256.Sum256(in.File)
	}
	// Look before marking: an upload that is already signed content is
	// linked to its record, or refused when it is another account's and
	// not declared a derivative, so that no second watermark goes over a
	// signer's without the link.
	facts, err := factsOf(img, origSum)
	if err != nil {
		return nil, err
	}
	dihedral, err := phash.Dihedral(imagex.ToLuma(img.Image))
	if err != nil {
		return nil, fmt.Errorf("content: phash: %w", err)
	}
	parent, err := s.parentFor(ctx, facts, variants{hs: dihedral[1:]}, in.Owner, in.DerivativeOf)
	if err != nil {
		return nil, err
	}
	// A picture too small to carry the watermark is signed without one:
	// the record says so (no payload, and the reason), and verification
	// rests on the SHA-256 and the perceptual hash.
	var payload watermark.Payload
	marked, noMark := img.Image, ""
	if b := img.Image.Bounds(); min(b.Dx(), b.Dy()) < watermark.MinEmbedShortSide {
		noMark = fmt.Sprintf("%s: %dx%d px, the watermark needs a short side of at least %d px",
			WatermarkReasonTooSmall, b.Dx(), b.Dy(), watermark.MinEmbedShortSide)
	} else {
		if payload, err = s.freshPayload(ctx); err != nil {
			return nil, err
		}
		if marked, err = watermark.Embed(img.Image, payload); err != nil {
			return nil, fmt.Errorf("content: embed: %w", err)
		}
	}
	out, outFmt, quality, err := encodeOutput(s.cfg.Media.JPEG, marked, img.Format, in.File)
	if err != nil {
		return nil, err
	}
	markedLuma := imagex.ToLuma(marked)
	ph, err := phash.Compute(markedLuma)
	if err != nil {
		return nil, fmt.Errorf("content: phash: %w", err)
	}
	// The local signatures bind the record to the signed picture block by
	// block, colour included (canonical version 4), so that verify can
	// tell a crop or a re-encode from an edit or a transplanted watermark.
	cb, cr := imagex.Chroma(marked)
	grid, err := localsig.ComputeColour(markedLuma, cb, cr).Encode()
	if err != nil {
		return nil, fmt.Errorf("content: local signatures: %w", err)
	}
	// Kept beside the record, not in it: a later upload that is this
	// picture cropped or slightly rotated is found by them (look before
	// you mark).
	geo, err := phash.Geometric(markedLuma)
	if err != nil {
		return nil, fmt.Errorf("content: geometric hashes: %w", err)
	}
	idStr, err := ids.NewUUID(s.cfg.Rand)
	if err != nil {
		return nil, err
	}
	now := s.now()
	// The C2PA manifest goes in before the SHA-256 is taken: the record
	// covers the file as it circulates, manifest included.
	cm := manifests.Output{File: out}
	if !in.NoC2PA {
		cm, err = manifests.Embed(ctx, s.cfg.Outputs.C2PA, manifests.Input{Owner: in.Owner, OrgName: user.OrgName, OriginType: key.OriginType,
			RecordID: idStr, Title: cleanFilename(in.Filename), Upload: in.File, Out: out, Format: outFmt, Payload: payload,
			Marked: noMark == "", PHash: ph, When: now})
		if err != nil {
			return nil, err
		}
		out = cm.File
	}
	b := img.Image.Bounds()
	rec := &record.Record{SHA256: sha256.Sum256(out), PerceptualHash: ph, LocalSig: grid}
	r := &Record{
		OriginalSHA256: hex.EncodeToString(origSum[:]), PerceptualHash: ph.String(),
		OriginalFilename: cleanFilename(in.Filename), InputFormat: string(img.Format), OutputFormat: string(outFmt),
		JPEGQuality: quality, Width: b.Dx(), Height: b.Dy(),
		C2PAManifestID: cm.ID, c2paStore: cm.Store,
	}
	if noMark == "" {
		rec.WatermarkPayload = binary.BigEndian.AppendUint64(nil, uint64(payload))
		r.WatermarkPayloadHex = payload.String()
	} else {
		r.WatermarkReason = noMark
	}
	if parent != nil {
		// The parent link is part of what the signature covers (canonical
		// version 2): a derivative cannot later deny its origin.
		pid, err := record.ParseID(parent.rec.ID)
		if err != nil {
			return nil, fmt.Errorf("content: parent id: %w", err)
		}
		rec.Parent = &pid
		r.ParentRecordID, r.ParentEvidence = parent.rec.ID, parent.evidence
	}
	wc, err := s.signAndStore(ctx, newRecord{
		id: idStr, now: now, owner: in.Owner, keyID: in.SigningKeyID, key: key, user: user, pub: pub, rec: rec, r: r,
		keep:  func(ctx context.Context, sum string) error { return s.keepWithThumbnail(ctx, r, sum, out, marked) },
		extra: func(tx store.Txn) error { return s.storeGeometric(tx, rec.ID, geo) },
	})
	if err != nil {
		return nil, err
	}
	return &SignResult{Record: r, File: out, ContentType: outFmt.MIMEType(), Certificate: wc}, nil
}

func signerOf(orgName, orgType string, k keys.SigningKey) wire.Signer {
	return wire.Signer{OrgName: orgName, OrgType: orgType, DeviceID: k.DeviceID, PublicKey: k.PublicKeyHex, KeyName: k.Name}
}

// newRecord is a record Sign or SignVideo has built from its output, to be
// signed and stored by signAndStore.
type newRecord struct {
	// id (ids.NewUUID) and now are drawn by the caller before its output
	// is final: a C2PA manifest in the file names the record and its time.
	id           string
	now          time.Time
	owner, keyID string
	key          keys.SigningKey
	user         accounts.User
	pub          ed25519.PublicKey
	// rec is the canonical record without its id, signer, time, origin
	// and organisation; r the stored record with its file-specific fields
	// (hashes other than the output's, payload, formats, sizes, parent).
	rec *record.Record
	r   *Record
	// keep stores the signed file in the blob store under its SHA-256
	// (called only when the service has one).
	keep func(ctx context.Context, sum string) error
	// extra, if set, stores more keys in the record's transaction.
	extra func(tx store.Txn) error
}

// signAndStore gives n its record id and time, signs its canonical record with
// the caller's key (checking the key did not change since serviceSigner
// and that the signature verifies), keeps the signed file, and stores the
// record with commitNew. It fills n.r and returns the certificate.
func (s *Service) signAndStore(ctx context.Context, n newRecord) (wire.Certificate, error) {
	idStr, now := n.id, n.now
	rid, err := record.ParseID(idStr)
	if err != nil {
		return wire.Certificate{}, err
	}
	rec, r := n.rec, n.r
	rec.ID, rec.SignerPublicKey, rec.Timestamp, rec.OriginType, rec.Org = rid, n.pub, now, n.key.OriginType, n.user.OrgName
	canon, err := rec.Encode()
	if err != nil {
		return wire.Certificate{}, fmt.Errorf("content: encode record: %w", err)
	}
	sig, usedKey, err := s.cfg.Keys.Sign(ctx, n.owner, n.keyID, canon)
	if err != nil {
		return wire.Certificate{}, err
	}
	if usedKey.PublicKeyHex != n.key.PublicKeyHex {
		return wire.Certificate{}, fmt.Errorf("content: signing key %s changed during signing", n.key.ID)
	}
	signed := record.Signed{Bytes: canon, Signature: sig}
	if _, err := record.Verify(signed); err != nil {
		return wire.Certificate{}, fmt.Errorf("content: fresh signature does not verify: %w", err)
	}
	r.ID, r.Owner, r.SigningKeyID, r.Source = idStr, n.owner, n.key.ID, SourceSign
	r.SHA256, r.SignatureHex, r.Canonical = hex.EncodeToString(rec.SHA256[:]), hex.EncodeToString(sig), canon
	r.OriginType, r.Signer = n.key.OriginType, signerOf(n.user.OrgName, n.user.OrgType, n.key)
	r.BlockchainStatus, r.Status, r.CreatedAt = wire.StatusPending, StatusActive, now
	if s.cfg.Outputs.Blobs != nil {
		// The file is durable before the record that names it commits: a
		// crash in between leaves an unreferenced blob, never a record
		// without its file.
		if err := n.keep(ctx, r.SHA256); err != nil {
			return wire.Certificate{}, fmt.Errorf("content: keep signed file: %w", err)
		}
		r.Blob = r.SHA256
	}
	if err := s.commitNew(ctx, r, rec, signed, n.extra); err != nil {
		return wire.Certificate{}, err
	}
	cert := record.Certificate{Signed: signed}
	wc, err := cert.Wire()
	if err != nil {
		return wire.Certificate{}, err
	}
	s.log.Info("content signed", "account_id", n.owner, "record_id", idStr, "signing_key_id", n.key.ID, "format", r.OutputFormat)
	return wc, nil
}

// commitNew stores a new record with everything that must commit with it,
// and what extra (if not nil) adds.
func (s *Service) commitNew(ctx context.Context, r *Record, rec *record.Record, signed record.Signed, extra func(tx store.Txn) error) error {
	data, err := events.NewData(signedEvent{
		RecordID: r.ID, SHA256: r.SHA256, PerceptualHash: r.PerceptualHash, SignatureHex: r.SignatureHex,
		OriginalFilename: r.OriginalFilename, OriginType: r.OriginType,
		Signer:           signerDigest{OrgName: r.Signer.OrgName, OrgType: r.Signer.OrgType, KeyName: r.Signer.KeyName},
		BlockchainStatus: r.BlockchainStatus,
		ParentRecordID:   r.ParentRecordID, ParentEvidence: r.ParentEvidence,
	})
	if err != nil {
		return err
	}
	leaf := signed.LeafHash()
	err = s.cfg.Store.Update(ctx, func(tx store.Txn) error {
		if err := s.insert(tx, r, rec); err != nil {
			return err
		}
		if err := putC2PA(tx, r); err != nil {
			return fmt.Errorf("content: keep C2PA manifest: %w", err)
		}
		if extra != nil {
			if err := extra(tx); err != nil {
				return err
			}
		}
		if err := s.cfg.Chain.Queue.Enqueue(tx, anchor.Entry{RecordID: r.ID, LeafHash: anchor.Hash(leaf), AccountID: r.Owner}); err != nil {
			return fmt.Errorf("content: enqueue for anchoring: %w", err)
		}
		// An idempotent request's claim commits with the record it
		// protects (store.PutIdemClaim).
		if err := store.PutIdemClaim(ctx, tx, r.ID); err != nil {
			return err
		}
		return s.cfg.Events.Publish(tx, events.Event{Type: events.ContentSigned, Time: r.CreatedAt, Accounts: []string{r.Owner}, Data: data})
	})
	if err != nil {
		return fmt.Errorf("content: store record: %w", err)
	}
	if err := s.nearCommitted(ctx, rec); err != nil {
		// Committed, but not yet in this origin's memory: a restart loads
		// it from the store.
		s.log.Error("near-duplicate index: committed record not indexed in memory", "record_id", r.ID, "err", err)
	}
	if s.cfg.AfterCommit != nil {
		s.cfg.AfterCommit(r.ID)
	}
	return nil
}

// freshPayload draws random non-zero 64-bit payloads until one is unused.
// The transaction that stores the record checks again (ErrDuplicate on a
// race, which needs two signers to draw the same 64-bit value).
func (s *Service) freshPayload(ctx context.Context) (watermark.Payload, error) {
	var b [8]byte
	for range 8 {
		if _, err := io.ReadFull(s.cfg.Rand, b[:]); err != nil {
			return 0, fmt.Errorf("content: random payload: %w", err)
		}
		p := watermark.Payload(binary.BigEndian.Uint64(b[:]))
		if p == 0 {
			continue
		}
		used := false
		err := s.cfg.Store.View(ctx, func(tx store.Txn) error {
			_, err := tx.Get(payloadKey(p.String()))
			if err == nil {
				used = true
				return nil
			}
			if errors.Is(err, store.ErrNotFound) {
				return nil
			}
			return err
		})
		if err != nil {
			return 0, fmt.Errorf("content: check payload: %w", err)
		}
		if !used {
			return p, nil
		}
	}
	return 0, ErrPayloadExhausted
}

// serviceSigner returns owner's signing key id, the owner and the key's
// public half, refusing before any file is read a key that is revoked
// (keys.ErrSigningKeyRevoked) or whose private half only the client holds
// (keys.ErrDeviceKey). Sign and SignVideo share it so both refuse alike.
func (s *Service) serviceSigner(ctx context.Context, owner, id string) (keys.SigningKey, accounts.User, ed25519.PublicKey, error) {
	key, err := s.cfg.Keys.GetSigningKey(ctx, owner, id)
	if err != nil {
		return keys.SigningKey{}, accounts.User{}, nil, err
	}
	if key.RevokedAt != nil {
		return keys.SigningKey{}, accounts.User{}, nil, keys.ErrSigningKeyRevoked
	}
	if key.Device() {
		return keys.SigningKey{}, accounts.User{}, nil, keys.ErrDeviceKey
	}
	user, err := s.cfg.Accounts.Get(ctx, owner)
	if err != nil {
		return keys.SigningKey{}, accounts.User{}, nil, fmt.Errorf("content: sign: owner: %w", err)
	}
	pub, err := key.PublicKey()
	if err != nil {
		return keys.SigningKey{}, accounts.User{}, nil, err
	}
	return key, user, pub, nil
}
