package content

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"time"

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
