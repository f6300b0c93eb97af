package manifests

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

// Authority signs C2PA manifests for organisations
// (origin/internal/c2pacert implements it).
type Authority interface {
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

// Output is what the manifest step produced: the output with its
// manifest, the manifest's id and its store, or the output unchanged
// (ID and Store empty).
type Output struct {
	File  []byte
	ID    string
	Store []byte
}

// Input is what the manifest step needs from signing.
type Input struct {
	// Owner and OrgName name the signing account and organisation the
	// authority certifies.
	Owner, OrgName string
	// OriginType is the record's origin type (DigitalSourceType).
	OriginType string
	// RecordID is the record the manifest links to; Title the file's
	// name ("" names it signed.jpg or signed.png).
	RecordID, Title string
	// Upload is the file as uploaded (its manifest, if any, becomes the
	// parent ingredient); Out the signed output, in Format.
	Upload, Out []byte
	Format      imagex.Format
	// Marked says Out carries watermark Payload.
	Payload watermark.Payload
	Marked  bool
	// PHash is the output's perceptual hash, When the signing time.
	PHash phash.Hash
	When  time.Time
}

// Embed writes a Provenant manifest, signed by a, into a signed JPEG or
// PNG: the actions (created with the origin type's digital source type,
// or opened when the upload carried credentials, which become the parent
// ingredient; then watermarked), our soft bindings and the record link.
// Other formats, and a nil authority, leave the output as it is. Errors:
// ErrUnreadable for an upload whose manifest store cannot be read,
// c2pa.ErrTooLarge for a store too large to keep.
func Embed(ctx context.Context, a Authority, in Input) (Output, error) {
	if a == nil || (in.Format != imagex.JPEG && in.Format != imagex.PNG) {
		return Output{File: in.Out}, nil
	}
	signer, err := a.Signer(ctx, in.Owner, in.OrgName)
	if err != nil {
		return Output{}, fmt.Errorf("manifests: C2PA signer: %w", err)
	}
	m := c2pa.Manifest{
		ClaimGenerator: ClaimGenerator, Title: in.Title, Format: in.Format.MIMEType(),
		InstanceID: "xmp:iid:" + in.RecordID,
		Assertions: []c2pa.Assertion{{Label: facts.RecordAssertion, Data: facts.RecordLink{
			RecordID:       in.RecordID,
			CertificateURL: "/api/v1/content-records/" + in.RecordID + "/certificate",
			ReceiptURL:     "/api/v1/content-records/" + in.RecordID + "/receipt",
		}}},
		SoftBindings: []c2pa.SoftBinding{{Alg: facts.AlgPHash, Value: in.PHash.Bytes()}},
	}
	// Credentials the upload carries are kept: they become the parent
	// ingredient, and our actions are new ones on top of them. A store
	// that cannot be read is refused, never dropped without a word.
	parent, err := c2pa.Extract(in.Upload)
	if errors.Is(err, c2pa.ErrMalformed) {
		return Output{}, fmt.Errorf("%w: %v", ErrUnreadable, err)
	}
	if len(parent) > maxKeptStore {
		return Output{}, fmt.Errorf("manifests: C2PA manifest: %w: the upload's store is %d bytes, at most %d can be kept with ours", c2pa.ErrTooLarge, len(parent), maxKeptStore)
	}
	if len(parent) > 0 {
		m.Parent = parent
		m.Actions = append(m.Actions, c2pa.Action{Action: "c2pa.opened", SoftwareAgent: ClaimGenerator, When: in.When})
	} else {
		m.Actions = append(m.Actions, c2pa.Action{Action: "c2pa.created", DigitalSourceType: DigitalSourceType(in.OriginType),
			SoftwareAgent: ClaimGenerator, When: in.When})
	}
	if in.Marked {
		m.Actions = append(m.Actions, c2pa.Action{Action: "c2pa.watermarked", SoftwareAgent: ClaimGenerator, When: in.When})
		m.SoftBindings = append([]c2pa.SoftBinding{{Alg: facts.AlgWatermark,
			Value: binary.BigEndian.AppendUint64(nil, uint64(in.Payload))}}, m.SoftBindings...)
	}
	if m.Title == "" {
		m.Title = "signed.png"
		if in.Format == imagex.JPEG {
			m.Title = "signed.jpg"
		}
	}
	out, id, st, err := c2pa.Embed(in.Out, m, signer)
	if m.Parent != nil && errors.Is(err, c2pa.ErrMalformed) {
		return Output{}, fmt.Errorf("%w: %v", ErrUnreadable, err)
	}
	if err != nil {
		return Output{}, fmt.Errorf("manifests: C2PA manifest: %w", err)
	}
	if len(st) > maxKeptStore {
		return Output{}, fmt.Errorf("manifests: C2PA manifest: %w: the new store is %d bytes, at most %d can be kept", c2pa.ErrTooLarge, len(st), maxKeptStore)
	}
	return Output{File: out, ID: id, Store: st}, nil
}

// maxKeptStore is the largest manifest store a signed file may carry:
// the store is kept (base64, in JSON) as one value of the database,
// whose values are at most 16 MiB (Badger's value-log file size), so
// about three quarters of that, less room for the record link.
const maxKeptStore = 12<<20 - 64<<10

// ErrUnreadable: the upload carries a C2PA manifest store that cannot
// be read, so it cannot be kept as the parent of ours; signing without a
// manifest (content.SignInput.NoC2PA) leaves it out knowingly.
var ErrUnreadable = errors.New("manifests: the upload's C2PA manifest store cannot be read")
