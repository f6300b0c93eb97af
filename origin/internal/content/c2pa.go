package content

import (
	"context"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/provenant/provenant/origin/internal/store"
	"github.com/provenant/provenant/shared/c2pa"
	"github.com/provenant/provenant/shared/facts"
	"github.com/provenant/provenant/shared/imagex"
	"github.com/provenant/provenant/shared/phash"
	"github.com/provenant/provenant/shared/watermark"
)

// C2PAAuthority signs C2PA manifests for organisations (c2pacert).
type C2PAAuthority interface {
	// Signer returns the organisation's key and certificate chain.
	Signer(ctx context.Context, accountID, orgName string) (c2pa.Signer, error)
	// CAPEM returns the CA certificate the chains end in.
	CAPEM(ctx context.Context) ([]byte, error)
}

// ClaimGenerator names this service in the manifests it writes.
const ClaimGenerator = "Provenant/1.0"

// iptcBase is the IPTC digital source type vocabulary.
const iptcBase = "http://cv.iptc.org/newscodes/digitalsourcetype/"

// digitalSourceTypes maps a record's origin type to the IPTC digital
// source type of its c2pa.created action (docs/c2pa.md has the table).
var digitalSourceTypes = map[string]string{
	"camera_image":         "digitalCapture",
	"camera_video":         "digitalCapture",
	"ai_generated_image":   "trainedAlgorithmicMedia",
	"ai_generated_video":   "trainedAlgorithmicMedia",
	"edited_image":         "humanEdits",
	"edited_video":         "humanEdits",
	"ai_edited_image":      "compositeWithTrainedAlgorithmicMedia",
	"composite_image":      "composite",
	"screenshot":           "screenCapture",
	"screen_recording":     "screenCapture",
	"scanned_document":     "print",
	"scanned_image":        "print",
	"digital_illustration": "digitalCreation",
	"rendered_3d":          "algorithmicMedia",
}

// DigitalSourceType returns the IPTC digital source type URI for an
// origin type ("" when it has none).
func DigitalSourceType(originType string) string {
	if t, ok := digitalSourceTypes[originType]; ok {
		return iptcBase + t
	}
	return ""
}

// c2paOut is what the manifest step produced: the output with its
// manifest, the manifest's id and its store, or the output unchanged.
type c2paOut struct {
	file  []byte
	id    string
	store []byte
}

// c2paIn is what the manifest step needs from Sign.
type c2paIn struct {
	owner, orgName, originType, recordID, title string
	upload, out                                 []byte
	format                                      imagex.Format
	payload                                     watermark.Payload
	marked                                      bool
	ph                                          phash.Hash
	when                                        time.Time
}

// embedC2PA writes a Provenant manifest into a signed JPEG or PNG: the
// actions (created with the origin type's digital source type, or opened
// when the upload carried credentials, which become the parent
// ingredient; then watermarked), our soft bindings and the record link.
// Other formats, and a service without an authority, are left as they are.
func (s *Service) embedC2PA(ctx context.Context, in c2paIn) (c2paOut, error) {
	if s.cfg.C2PA == nil || (in.format != imagex.JPEG && in.format != imagex.PNG) {
		return c2paOut{file: in.out}, nil
	}
	signer, err := s.cfg.C2PA.Signer(ctx, in.owner, in.orgName)
	if err != nil {
		return c2paOut{}, fmt.Errorf("content: C2PA signer: %w", err)
	}
	m := c2pa.Manifest{
		ClaimGenerator: ClaimGenerator, Title: in.title, Format: in.format.MIMEType(),
		InstanceID: "xmp:iid:" + in.recordID,
		Assertions: []c2pa.Assertion{{Label: facts.RecordAssertion, Data: facts.RecordLink{
			RecordID:       in.recordID,
			CertificateURL: "/api/v1/content-records/" + in.recordID + "/certificate",
			ReceiptURL:     "/api/v1/content-records/" + in.recordID + "/receipt",
		}}},
		SoftBindings: []c2pa.SoftBinding{{Alg: facts.AlgPHash, Value: in.ph.Bytes()}},
	}
	// Credentials the upload carries are kept: they become the parent
	// ingredient, and our actions are new ones on top of them. A store
	// that cannot be read is refused, never dropped without a word.
	parent, err := c2pa.Extract(in.upload)
	if errors.Is(err, c2pa.ErrMalformed) {
		return c2paOut{}, fmt.Errorf("%w: %v", ErrC2PAUnreadable, err)
	}
	if len(parent) > maxKeptStore {
		return c2paOut{}, fmt.Errorf("content: C2PA manifest: %w: the upload's store is %d bytes, at most %d can be kept with ours", c2pa.ErrTooLarge, len(parent), maxKeptStore)
	}
	if len(parent) > 0 {
		m.Parent = parent
		m.Actions = append(m.Actions, c2pa.Action{Action: "c2pa.opened", SoftwareAgent: ClaimGenerator, When: in.when})
	} else {
		m.Actions = append(m.Actions, c2pa.Action{Action: "c2pa.created", DigitalSourceType: DigitalSourceType(in.originType),
			SoftwareAgent: ClaimGenerator, When: in.when})
	}
	if in.marked {
		m.Actions = append(m.Actions, c2pa.Action{Action: "c2pa.watermarked", SoftwareAgent: ClaimGenerator, When: in.when})
		m.SoftBindings = append([]c2pa.SoftBinding{{Alg: facts.AlgWatermark,
			Value: binary.BigEndian.AppendUint64(nil, uint64(in.payload))}}, m.SoftBindings...)
	}
	if m.Title == "" {
		m.Title = "signed.png"
		if in.format == imagex.JPEG {
			m.Title = "signed.jpg"
		}
	}
	out, id, st, err := c2pa.Embed(in.out, m, signer)
	if m.Parent != nil && errors.Is(err, c2pa.ErrMalformed) {
		return c2paOut{}, fmt.Errorf("%w: %v", ErrC2PAUnreadable, err)
	}
	if err != nil {
		return c2paOut{}, fmt.Errorf("content: C2PA manifest: %w", err)
	}
	if len(st) > maxKeptStore {
		return c2paOut{}, fmt.Errorf("content: C2PA manifest: %w: the new store is %d bytes, at most %d can be kept", c2pa.ErrTooLarge, len(st), maxKeptStore)
	}
	return c2paOut{file: out, id: id, store: st}, nil
}

// maxKeptStore is the largest manifest store a signed file may carry:
// the store is kept (base64, in JSON) as one value of the database,
// whose values are at most 16 MiB (Badger's value-log file size), so
// about three quarters of that, less room for the record link.
const maxKeptStore = 12<<20 - 64<<10

// ErrC2PAUnreadable: the upload carries a C2PA manifest store that cannot
// be read, so it cannot be kept as the parent of ours; signing with
// NoC2PA leaves it out knowingly.
var ErrC2PAUnreadable = errors.New("content: the upload's C2PA manifest store cannot be read")

// c2paManifest is a stored manifest store and the record it belongs to,
// kept so that the Soft Binding Resolution API can serve the manifest of
// a copy stripped of it.
type c2paManifest struct {
	RecordID string `json:"record_id"`
	Store    []byte `json:"store"`
}

func c2paManifestKey(id string) []byte  { return []byte("c2pam/" + id) }
func c2paRecordKey(recID string) []byte { return []byte("c2par/" + recID) }

// putC2PA stores r's manifest, inside the transaction that stores r.
func putC2PA(tx store.Txn, r *Record) error {
	if r.C2PAManifestID == "" {
		return nil
	}
	if err := store.PutJSON(tx, c2paManifestKey(r.C2PAManifestID), c2paManifest{RecordID: r.ID, Store: r.c2paStore}); err != nil {
		return err
	}
	return tx.Set(c2paRecordKey(r.ID), []byte(r.C2PAManifestID))
}

// ErrNoManifest: no manifest by that id (or the record has none).
var ErrNoManifest = errors.New("content: no such C2PA manifest")

// C2PAManifest returns the manifest store stored under id and its record.
func (s *Service) C2PAManifest(ctx context.Context, id string) (manifestStore []byte, recordID string, err error) {
	var m c2paManifest
	err = s.cfg.Store.View(ctx, func(tx store.Txn) error {
		var err error
		m, err = store.GetJSON[c2paManifest](tx, c2paManifestKey(id))
		return err
	})
	if errors.Is(err, store.ErrNotFound) {
		return nil, "", ErrNoManifest
	}
	if err != nil {
		return nil, "", fmt.Errorf("content: C2PA manifest: %w", err)
	}
	return m.Store, m.RecordID, nil
}

// C2PAManifestOf returns the id of the manifest written into record
// recID's signed file ("" when none).
func (s *Service) C2PAManifestOf(ctx context.Context, recID string) (string, error) {
	var id string
	err := s.cfg.Store.View(ctx, func(tx store.Txn) error {
		v, err := tx.Get(c2paRecordKey(recID))
		if errors.Is(err, store.ErrNotFound) {
			return nil
		}
		id = string(v)
		return err
	})
	if err != nil {
		return "", fmt.Errorf("content: C2PA manifest of %s: %w", recID, err)
	}
	return id, nil
}

// C2PACA returns the CA certificate (PEM) this origin's manifests are
// signed under, to add as a trust anchor; ErrNoManifest when the service
// writes no manifests.
func (s *Service) C2PACA(ctx context.Context) ([]byte, error) {
	if s.cfg.C2PA == nil {
		return nil, ErrNoManifest
	}
	return s.cfg.C2PA.CAPEM(ctx)
}

// c2paCA is the CA certificate (PEM) the verify answer's trust decision
// uses; "" without an authority.
func (s *Service) c2paCA(ctx context.Context) string {
	if s.cfg.C2PA == nil {
		return ""
	}
	p, err := s.cfg.C2PA.CAPEM(ctx)
	if err != nil {
		s.log.Warn("C2PA CA unavailable", "err", err)
		return ""
	}
	return string(p)
}

// C2PAMatch is one manifest a soft binding or a file resolves to.
type C2PAMatch struct {
	ManifestID string
	RecordID   string
	// Score is the similarity, 0 to 100: 100 for an exact file, our
	// watermark or an identical perceptual hash, less as the perceptual
	// hashes differ.
	Score int
}

// ErrUnknownAlgorithm: the soft-binding algorithm is not one of ours.
var ErrUnknownAlgorithm = errors.New("content: unsupported soft-binding algorithm")

// ErrBindingValue: the value does not have the algorithm's form.
var ErrBindingValue = errors.New("content: soft-binding value does not fit the algorithm")

// C2PAMatchesByBinding resolves a soft-binding value of one of our
// algorithms (facts.AlgWatermark: the 8-byte payload; facts.AlgPHash:
// the 40-byte perceptual hash, matched when the 256-bit hashes are within
// phash.NearDistance256) to the manifests of active records, best first,
// at most max.
func (s *Service) C2PAMatchesByBinding(ctx context.Context, alg string, value []byte, max int) ([]C2PAMatch, error) {
	var f Facts
	switch alg {
	case facts.AlgWatermark:
		if len(value) != 8 {
			return nil, ErrBindingValue
		}
		f.Watermark.Found, f.Watermark.Payload = true, value
	case facts.AlgPHash:
		h, err := phash.FromBytes(value)
		if err != nil {
			return nil, ErrBindingValue
		}
		f.PHash = h
	default:
		return nil, ErrUnknownAlgorithm
	}
	return s.c2paMatches(ctx, f, alg == facts.AlgPHash, max)
}

// C2PAMatchesByContent computes the watermark and perceptual hash of file
// (shared/facts, as verify does) and resolves them, with the file's exact
// SHA-256, to manifests as C2PAMatchesByBinding does.
func (s *Service) C2PAMatchesByContent(ctx context.Context, file []byte, max int) ([]C2PAMatch, error) {
	release, err := s.cfg.DecodeBudget.Reserve(ctx, file, s.cfg.Limits, imagex.UseVerify)
	if err != nil {
		return nil, err
	}
	ff, err := facts.Analyze(file, s.cfg.Limits, s.cfg.Clock.Now())
	release()
	if err != nil {
		return nil, err
	}
	return s.c2paMatches(ctx, fromFacts(ff), true, max)
}

// c2paMatches scores the records the candidate search finds for f: the
// exact SHA-256 and the watermark payload score 100, a perceptual
// neighbour by its 256-bit distance (none past NearDistance256, none at
// all unless byHash). Revoked records and records without a manifest are
// left out.
func (s *Service) c2paMatches(ctx context.Context, f Facts, byHash bool, max int) ([]C2PAMatch, error) {
	if !byHash {
		f.NotDecoded = true // no perceptual search
	}
	cands, err := s.candidates(ctx, f)
	if err != nil {
		return nil, err
	}
	var out []C2PAMatch
	for _, c := range cands {
		r := c.rec
		if r.Status == StatusRevoked || c.byOrig {
			continue
		}
		score := 0
		switch {
		case r.SHA256 == hex.EncodeToString(f.SHA256[:]):
			score = 100
		case f.Watermark.Found && r.WatermarkPayloadHex == hex.EncodeToString(f.Watermark.Payload):
			score = 100
		case byHash:
			h, err := phash.Parse(r.PerceptualHash)
			if err != nil {
				continue
			}
			d := phash.Distance256(h.P256, f.PHash.P256)
			if d > phash.NearDistance256 {
				continue
			}
			score = 100 - (100*d+phash.Bits256/2)/phash.Bits256
		}
		if score == 0 {
			continue
		}
		id, err := s.C2PAManifestOf(ctx, r.ID)
		if err != nil {
			return nil, err
		}
		if id == "" {
			continue
		}
		out = append(out, C2PAMatch{ManifestID: id, RecordID: r.ID, Score: score})
	}
	slices.SortStableFunc(out, func(a, b C2PAMatch) int { return b.Score - a.Score })
	if max > 0 && len(out) > max {
		out = out[:max]
	}
	return out, nil
}
