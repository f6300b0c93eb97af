// Package c2pa writes and reads C2PA manifest stores (Content Credentials):
// JUMBF boxes (ISO/IEC 19566-5), a v1 claim with CBOR assertions, a
// COSE_Sign1 claim signature carrying the X.509 chain, embedded in JPEG as
// APP11 segments and in PNG as a caBX chunk, with a c2pa.hash.data hard
// binding over the whole output.
//
// The package is pure Go and builds for GOOS=js and GOOS=wasip1: the
// verifier module reads manifests with it. Read validates structure, hashes
// and the signature against the chain the file carries; whether that chain
// is trusted is the caller's decision.
package c2pa

import (
	"crypto"
	"crypto/x509"
	"errors"
	"time"
)

// Signer signs claims: an ECDSA P-256 or Ed25519 key and its certificate
// chain, leaf first (C2PA requires X.509; the chain is carried in the COSE
// x5chain header).
type Signer struct {
	Key   crypto.Signer
	Chain []*x509.Certificate
}

// Action is one c2pa.actions entry.
type Action struct {
	Action            string // "c2pa.created", "c2pa.watermarked", "c2pa.opened", ...
	DigitalSourceType string // IPTC URI, empty when none
	SoftwareAgent     string
	When              time.Time
}

// SoftBinding is one c2pa.soft-binding assertion.
type SoftBinding struct {
	Alg   string // our algorithm identifier
	Value []byte
}

// Assertion is any other assertion, stored as CBOR of Data (a Go value).
type Assertion struct {
	Label string
	Data  any
}

// Manifest is what the origin asks to write.
type Manifest struct {
	ClaimGenerator string // "Provenant/<version>"
	Title          string
	Format         string // "image/jpeg" or "image/png"
	InstanceID     string
	Actions        []Action
	SoftBindings   []SoftBinding
	Assertions     []Assertion // custom ones, e.g. our record link
	// Parent, when set, is the manifest store found in the incoming file: it
	// becomes the new manifest's parentOf ingredient (and its manifests are
	// carried in the new store).
	Parent []byte
}

// Report is what a reader learns from a file's manifest store.
type Report struct {
	ActiveManifest string
	ClaimGenerator string
	Signer         string // the leaf certificate's subject (O / CN)
	Issuer         string
	Chain          []*x509.Certificate
	Actions        []Action
	SoftBindings   []SoftBinding
	Assertions     map[string][]byte // label -> raw CBOR of custom assertions
	Ingredients    []Ingredient
	// State is "valid" or "invalid" (with Codes). Trust is the caller's:
	// Read checks structure, hashes and the signature against the carried
	// chain, not a trust list.
	State string
	Codes []string // C2PA status codes, e.g. "assertion.dataHash.mismatch"
}

// Ingredient is one ingredient the active manifest lists.
type Ingredient struct{ Title, Relationship, ManifestID string }

// ErrNoManifest is returned when a file carries no manifest store.
var ErrNoManifest = errors.New("c2pa: no manifest")
