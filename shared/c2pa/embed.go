package c2pa

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"fmt"
	"strconv"
	"time"
)

const (
	hashAlg      = "sha256"
	dataHashName = "jumbf manifest"
	// dataHashPad is the zero padding of the c2pa.hash.data assertion;
	// Embed converges on the exclusion length without needing it, but
	// other tools that rewrite exclusions in place expect some.
	dataHashPad = 16
)

// Embed writes m into file (JPEG: APP11 JUMBF segments; PNG: caBX chunk),
// replacing any manifest store already there, with a c2pa.hash.data hard
// binding over the output. It returns the output, the active manifest's
// label (URN) and the manifest store bytes.
//
// The claim is a v1 "c2pa.claim" signed with COSE_Sign1 (ES256 or EdDSA,
// the chain in the protected x5chain header, no timestamp). The hard
// binding's single exclusion covers exactly the bytes that carry the store
// (all APP11 segments, or the whole caBX chunk).
//
// Every standard manifest must start from c2pa.created or c2pa.opened.
// When m.Parent is set, or when m.Actions has neither, Embed adds a
// parentOf c2pa.ingredient for the incoming file (pointing at the parent's
// active manifest when there is one) and a c2pa.opened action that
// references it; a c2pa.created action becomes c2pa.opened when there is a
// parent, since that file was not created here. The parent's manifests
// are copied unchanged into the new store, before the new active manifest.
func Embed(file []byte, m Manifest, s Signer) (out []byte, manifestID string, store []byte, err error) {
	format, _, spans, err := locate(file)
	if err != nil {
		return nil, "", nil, err
	}
	if m.Format != "" && m.Format != format {
		return nil, "", nil, fmt.Errorf("c2pa: manifest format %q but the file is %s", m.Format, format)
	}
	if _, err := signatureAlg(s); err != nil {
		return nil, "", nil, err
	}
	stripped := removeSpans(file, spans)
	at, err := insertionPoint(format, stripped)
	if err != nil {
		return nil, "", nil, err
	}
	var parent *parsedStore
	if m.Parent != nil {
		parent, err = parseManifests(m.Parent)
		if err != nil {
			return nil, "", nil, fmt.Errorf("c2pa: parent manifest store: %w", err)
		}
	}
	// The output minus the excluded range is stripped itself, so the hard
	// binding's hash does not depend on the store.
	digest := sha256.Sum256(stripped)
	label, err := newURN()
	if err != nil {
		return nil, "", nil, err
	}
	b := builder{m: m, s: s, format: format, label: label, parent: parent, digest: digest[:], start: uint64(at)}
	if format == mimeJPEG {
		b.en = jpegInstance(stripped)
	}
	// The exclusion length is written into the store it measures: start
	// from zero and rebuild until the length stops changing (its CBOR
	// encoding grows in steps, so two or three rounds).
	var framed []byte
	for round := 0; ; round++ {
		if round == 6 {
			return nil, "", nil, fmt.Errorf("c2pa: exclusion length did not converge")
		}
		store, err = b.build()
		if err != nil {
			return nil, "", nil, err
		}
		if len(store) > MaxStoreBytes {
			return nil, "", nil, fmt.Errorf("%w: the new store would be %d bytes, over %d", ErrTooLarge, len(store), MaxStoreBytes)
		}
		framed = b.frame(store)
		if uint64(len(framed)) == b.length {
			break
		}
		b.length = uint64(len(framed))
	}
	out = make([]byte, 0, len(stripped)+len(framed))
	out = append(out, stripped[:at]...)
	out = append(out, framed...)
	out = append(out, stripped[at:]...)
	return out, label, store, nil
}

type builder struct {
	m      Manifest
	s      Signer
	format string
	label  string
	parent *parsedStore
	digest []byte
	start  uint64
	length uint64
	en     uint16
}

func (b *builder) frame(store []byte) []byte {
	if b.format == mimeJPEG {
		return frameJPEG(store, b.en)
	}
	return framePNG(store)
}

// uri returns the absolute JUMBF URI of a box inside the new manifest.
func (b *builder) uri(path string) string {
	return "self#jumbf=/c2pa/" + b.label + "/" + path
}

// build assembles and signs the whole store for the current exclusion.
func (b *builder) build() ([]byte, error) {
	type assertion struct {
		label string
		cbor  []byte
	}
	var list []assertion
	add := func(label string, v any) error {
		enc, err := encMode.Marshal(v)
		if err != nil {
			return fmt.Errorf("c2pa: encoding assertion %s: %w", label, err)
		}
		list = append(list, assertion{label, enc})
		return nil
	}
	labelled := map[string]int{}
	unique := func(label string) string {
		n := labelled[label]
		labelled[label] = n + 1
		if n == 0 {
			return label
		}
		return label + "__" + strconv.Itoa(n)
	}

	// The ingredient goes first: the actions reference it by hash.
	actions := b.m.Actions
	needsIngredient := b.parent != nil || !hasStartAction(actions)
	var ingredientRef *hashedURI
	if needsIngredient {
		ing := ingredientMap{
			Title:        b.m.Title,
			Format:       b.format,
			InstanceID:   b.m.InstanceID,
			Relationship: "parentOf",
		}
		if b.parent != nil {
			act := b.parent.active()
			h := sha256.Sum256(act.box.content)
			ing.Manifest = &hashedURI{URL: "self#jumbf=/c2pa/" + act.label, Alg: hashAlg, Hash: h[:]}
			if act.claim.Title != "" {
				ing.Title = act.claim.Title
			}
			if act.claim.Format != "" {
				ing.Format = act.claim.Format
			}
			if act.claim.InstanceID != "" {
				ing.InstanceID = act.claim.InstanceID
			}
		}
		if ing.Title == "" {
			ing.Title = "untitled"
		}
		if ing.InstanceID == "" {
			id, err := newURN()
			if err != nil {
				return nil, err
			}
			ing.InstanceID = "xmp:iid:" + id[len("urn:uuid:"):]
		}
		if err := add(unique("c2pa.ingredient"), ing); err != nil {
			return nil, err
		}
		enc := cborAssertionBox(list[len(list)-1].label, list[len(list)-1].cbor)
		h := sha256.Sum256(boxContent(enc))
		ingredientRef = &hashedURI{URL: b.uri("c2pa.assertions/" + list[len(list)-1].label), Alg: hashAlg, Hash: h[:]}
	}

	am := actionsMap{}
	opened := false
	for _, a := range actions {
		name := a.Action
		if name == "c2pa.created" && b.parent != nil {
			name = "c2pa.opened"
		}
		e := actionMap{Action: name, DigitalSourceType: a.DigitalSourceType}
		if !a.When.IsZero() {
			e.When = a.When.UTC().Format(time.RFC3339)
		}
		if a.SoftwareAgent != "" {
			sa, err := encMode.Marshal(a.SoftwareAgent)
			if err != nil {
				return nil, err
			}
			e.SoftwareAgent = sa
		}
		if name == "c2pa.opened" && ingredientRef != nil && !opened {
			e.Parameters = &actionParamsMap{Ingredient: ingredientRef}
			opened = true
		}
		am.Actions = append(am.Actions, e)
	}
	if ingredientRef != nil && !opened {
		e := actionMap{Action: "c2pa.opened", Parameters: &actionParamsMap{Ingredient: ingredientRef}}
		if len(actions) > 0 && !actions[0].When.IsZero() {
			e.When = actions[0].When.UTC().Format(time.RFC3339)
		}
		if b.m.ClaimGenerator != "" {
			sa, err := encMode.Marshal(b.m.ClaimGenerator)
			if err != nil {
				return nil, err
			}
			e.SoftwareAgent = sa
		}
		am.Actions = append([]actionMap{e}, am.Actions...)
	}
	if err := add(unique("c2pa.actions"), am); err != nil {
		return nil, err
	}

	if err := add(unique("c2pa.hash.data"), dataHash{
		Exclusions: []exclusion{{Start: b.start, Length: b.length}},
		Name:       dataHashName,
		Alg:        hashAlg,
		Hash:       b.digest,
		Pad:        make([]byte, dataHashPad),
	}); err != nil {
		return nil, err
	}
	for _, sb := range b.m.SoftBindings {
		if sb.Alg == "" {
			return nil, fmt.Errorf("c2pa: soft binding without an algorithm identifier")
		}
		if err := add(unique("c2pa.soft-binding"), softBindingMap{
			Alg:    sb.Alg,
			Blocks: []softBindingBlock{{Scope: map[string]any{}, Value: base64.StdEncoding.EncodeToString(sb.Value)}},
			Pad:    []byte{},
		}); err != nil {
			return nil, err
		}
	}
	for _, a := range b.m.Assertions {
		if err := checkCustomLabel(a.Label); err != nil {
			return nil, err
		}
		if err := add(unique(a.Label), a.Data); err != nil {
			return nil, err
		}
	}

	boxes := make([][]byte, len(list))
	refs := make([]hashedURI, len(list))
	for i, a := range list {
		boxes[i] = cborAssertionBox(a.label, a.cbor)
		h := sha256.Sum256(boxContent(boxes[i]))
		refs[i] = hashedURI{URL: b.uri("c2pa.assertions/" + a.label), Alg: hashAlg, Hash: h[:]}
	}
	gen := b.m.ClaimGenerator
	if gen == "" {
		gen = "Provenant"
	}
	claim := claimV1{
		ClaimGenerator:     gen,
		ClaimGeneratorInfo: []generatorInfo{generatorInfoOf(gen)},
		Signature:          b.uri("c2pa.signature"),
		Assertions:         refs,
		Format:             b.format,
		InstanceID:         b.m.InstanceID,
		Title:              b.m.Title,
		Alg:                hashAlg,
	}
	if claim.InstanceID == "" {
		claim.InstanceID = "xmp:iid:" + b.label[len("urn:uuid:"):]
	}
	claimCBOR, err := encMode.Marshal(claim)
	if err != nil {
		return nil, fmt.Errorf("c2pa: encoding the claim: %w", err)
	}
	sig, err := signClaim(claimCBOR, b.s)
	if err != nil {
		return nil, err
	}
	manifest := superBox(uuidManifest, b.label,
		superBox(uuidAssertions, "c2pa.assertions", boxes...),
		superBox(uuidClaim, "c2pa.claim", appendBox(nil, "cbor", claimCBOR)),
		superBox(uuidSignature, "c2pa.signature", appendBox(nil, "cbor", sig)),
	)
	var manifests [][]byte
	if b.parent != nil {
		for _, pm := range b.parent.manifests {
			manifests = append(manifests, pm.box.raw)
		}
	}
	manifests = append(manifests, manifest)
	return superBox(uuidStore, "c2pa", manifests...), nil
}

func hasStartAction(actions []Action) bool {
	for _, a := range actions {
		if a.Action == "c2pa.created" || a.Action == "c2pa.opened" {
			return true
		}
	}
	return false
}

// generatorInfoOf splits "Name/version" into claim_generator_info.
func generatorInfoOf(gen string) generatorInfo {
	for i := 0; i < len(gen); i++ {
		if gen[i] == '/' {
			return generatorInfo{Name: gen[:i], Version: gen[i+1:]}
		}
	}
	return generatorInfo{Name: gen}
}

// checkCustomLabel refuses labels that would collide with the assertions
// Embed writes itself or break JUMBF URIs.
func checkCustomLabel(label string) error {
	switch label {
	case "", "c2pa.actions", "c2pa.hash.data", "c2pa.ingredient", "c2pa.soft-binding":
		return fmt.Errorf("c2pa: custom assertion label %q is reserved or empty", label)
	}
	for _, r := range label {
		if r == '/' || r == 0 || r == '#' {
			return fmt.Errorf("c2pa: custom assertion label %q has a '/', '#' or NUL", label)
		}
	}
	return nil
}

// newURN returns a fresh v1 manifest label, urn:uuid:<random UUID v4>.
func newURN() (string, error) {
	var u [16]byte
	if _, err := rand.Read(u[:]); err != nil {
		return "", fmt.Errorf("c2pa: random manifest id: %w", err)
	}
	u[6] = u[6]&0x0f | 0x40
	u[8] = u[8]&0x3f | 0x80
	return fmt.Sprintf("urn:uuid:%x-%x-%x-%x-%x", u[0:4], u[4:6], u[6:8], u[8:10], u[10:16]), nil
}
