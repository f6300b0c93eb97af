package c2pa

import (
	"bytes"
	"crypto/sha256"
	"crypto/sha512"
	"crypto/x509"
	"encoding/asn1"
	"encoding/base64"
	"hash"
	"strings"
	"time"

	"github.com/provenant/provenant/shared/digest"
)

// parsedManifest is one manifest of a store, parsed but not validated.
type parsedManifest struct {
	box       *box
	label     string
	update    bool
	claimBox  *box
	claimCBOR []byte
	claim     claimAny
	sigCBOR   []byte
	store     *box // c2pa.assertions
}

type parsedStore struct {
	root      *box
	manifests []*parsedManifest
	// sums caches digests: a hostile claim may reference one large box
	// thousands of times, and each box is hashed once per algorithm.
	sums map[sumKey][]byte
	// hashed counts the bytes digested, for the tests of that bound.
	hashed int
}

type sumKey struct {
	data *byte
	n    int
	alg  string
}

// sum returns the digest of data under alg (the claim's default when
// empty), nil when the algorithm is unsupported.
func (p *parsedStore) sum(alg, fallback string, data []byte) []byte {
	if alg == "" {
		alg = fallback
	}
	hf := hasherFor(alg, "")
	if hf == nil {
		return nil
	}
	k := sumKey{n: len(data), alg: alg}
	if len(data) > 0 {
		k.data = &data[0]
	}
	if d, ok := p.sums[k]; ok {
		return d
	}
	h := hf()
	h.Write(data)
	p.hashed += len(data)
	d := h.Sum(nil)
	if p.sums == nil {
		p.sums = map[sumKey][]byte{}
	}
	p.sums[k] = d
	return d
}

func (p *parsedStore) active() *parsedManifest { return p.manifests[len(p.manifests)-1] }

func (p *parsedStore) byLabel(label string) *parsedManifest {
	for i := len(p.manifests) - 1; i >= 0; i-- {
		if p.manifests[i].label == label {
			return p.manifests[i]
		}
	}
	return nil
}

// parseManifests parses a store's structure: every manifest's claim,
// assertion store and signature boxes, and the claim CBOR.
func parseManifests(store []byte) (*parsedStore, error) {
	root, err := parseStore(store)
	if err != nil {
		return nil, err
	}
	ps := &parsedStore{root: root}
	seen := map[string]bool{}
	for _, c := range root.children {
		if !c.isSuper() || (c.uuid != uuidManifest && c.uuid != uuidUpdate) {
			continue
		}
		if c.label == "" || seen[c.label] {
			return nil, malformed("manifest without a label or with a repeated one")
		}
		seen[c.label] = true
		m := &parsedManifest{box: c, label: c.label, update: c.uuid == uuidUpdate}
		claims := c.childrenByUUID(uuidClaim)
		if len(claims) != 1 {
			return nil, malformed("manifest %s has %d claims", c.label, len(claims))
		}
		m.claimBox = claims[0]
		cb := m.claimBox.firstLeaf("cbor")
		if cb == nil {
			return nil, malformed("manifest %s: claim has no CBOR box", c.label)
		}
		m.claimCBOR = cb.payload
		if err := decMode.Unmarshal(m.claimCBOR, &m.claim); err != nil {
			return nil, malformed("manifest %s: claim CBOR: %v", c.label, err)
		}
		stores := c.childrenByUUID(uuidAssertions)
		if len(stores) != 1 {
			return nil, malformed("manifest %s has %d assertion stores", c.label, len(stores))
		}
		m.store = stores[0]
		sigs := c.childrenByUUID(uuidSignature)
		if len(sigs) != 1 {
			return nil, malformed("manifest %s has %d signatures", c.label, len(sigs))
		}
		sb := sigs[0].firstLeaf("cbor")
		if sb == nil {
			return nil, malformed("manifest %s: signature has no CBOR box", c.label)
		}
		m.sigCBOR = sb.payload
		ps.manifests = append(ps.manifests, m)
	}
	if len(ps.manifests) == 0 {
		return nil, malformed("store holds no manifest")
	}
	return ps, nil
}

// resolve finds the box a JUMBF URI names, relative to manifest m
// ("self#jumbf=c2pa.assertions/x") or absolute ("self#jumbf=/c2pa/<label>/...").
func (p *parsedStore) resolve(m *parsedManifest, uri string) *box {
	b, _ := p.resolveIn(m, uri)
	return b
}

// resolveIn is resolve that also reports whether the box lies inside m.
func (p *parsedStore) resolveIn(m *parsedManifest, uri string) (*box, bool) {
	path, ok := strings.CutPrefix(uri, "self#jumbf=")
	if !ok {
		return nil, false
	}
	node := m.box
	if rest, ok := strings.CutPrefix(path, "/c2pa/"); ok {
		label, sub, _ := strings.Cut(rest, "/")
		other := p.byLabel(label)
		if other == nil {
			return nil, false
		}
		node, path = other.box, sub
		if path == "" {
			return node, node == m.box
		}
	}
	inside := node == m.box
	for _, part := range strings.Split(path, "/") {
		node = node.child(part)
		if node == nil {
			return nil, false
		}
	}
	return node, inside
}

func hasherFor(alg, fallback string) func() hash.Hash {
	if alg == "" {
		alg = fallback
	}
	switch alg {
	case "sha256":
		return sha256.New
	case "sha384":
		return sha512.New384
	case "sha512":
		return sha512.New
	}
	return nil
}

// Extract returns the raw manifest store bytes carried by file (nil, nil
// when none).
func Extract(file []byte) ([]byte, error) {
	_, store, _, err := locate(file)
	if err != nil {
		return nil, err
	}
	if store == nil {
		return nil, nil
	}
	return bytes.Clone(store), nil
}

// Strip returns file without its manifest store (a copy of file when it
// carries none).
func Strip(file []byte) ([]byte, error) {
	_, _, spans, err := locate(file)
	if err != nil {
		return nil, err
	}
	return removeSpans(file, spans), nil
}

// Read parses and validates the manifest store carried by file
// (ErrNoManifest when none). A store that cannot be parsed is an error
// wrapping ErrMalformed; one that parses but fails validation is a Report
// with State "invalid" and the failure codes. at is the time the signing
// credentials' validity periods are judged at: the caller's clock, never
// read here, so the same bytes and the same at give the same Report.
func Read(file []byte, at time.Time) (*Report, error) {
	_, store, _, err := locate(file)
	if err != nil {
		return nil, err
	}
	if store == nil {
		return nil, ErrNoManifest
	}
	return ReadStore(store, file, at)
}

// ReadStore parses and validates a bare manifest store (what
// /manifests/{id} serves) against the asset file it binds to, or structure
// and signature only when file is nil; at is as for [Read].
func ReadStore(store []byte, file []byte, at time.Time) (*Report, error) {
	if len(store) == 0 {
		return nil, ErrNoManifest
	}
	ps, err := parseManifests(store)
	if err != nil {
		return nil, err
	}
	return ps.report(file, at)
}

func (p *parsedStore) report(file []byte, now time.Time) (*Report, error) {
	m := p.active()
	r := &Report{
		ActiveManifest: m.label,
		ClaimGenerator: m.claim.ClaimGenerator,
		Assertions:     map[string][]byte{},
	}
	if r.ClaimGenerator == "" {
		var gi struct {
			Name    string `cbor:"name"`
			Version string `cbor:"version"`
		}
		var gis []struct {
			Name    string `cbor:"name"`
			Version string `cbor:"version"`
		}
		if decMode.Unmarshal(m.claim.ClaimGeneratorInfo, &gi) == nil && gi.Name != "" {
			r.ClaimGenerator = strings.TrimSuffix(gi.Name+"/"+gi.Version, "/")
		} else if decMode.Unmarshal(m.claim.ClaimGeneratorInfo, &gis) == nil && len(gis) > 0 {
			r.ClaimGenerator = strings.TrimSuffix(gis[0].Name+"/"+gis[0].Version, "/")
		}
	}
	fail := func(code string) {
		for _, c := range r.Codes {
			if c == code {
				return
			}
		}
		r.Codes = append(r.Codes, code)
	}

	// Signature over the claim, and the carried chain's profile.
	if want, inside := p.resolveIn(m, m.claim.Signature); want == nil || !inside || want.uuid != uuidSignature {
		fail("claimSignature.missing")
	}
	vs, err := verifyClaim(m.sigCBOR, m.claimCBOR)
	if err != nil {
		return nil, err
	}
	for _, c := range vs.codes {
		fail(c)
	}
	if len(vs.chain) > 0 {
		r.Chain = vs.chain
		r.Signer = subjectName(vs.chain[0].Subject.Organization, vs.chain[0].Subject.CommonName)
		r.Issuer = subjectName(vs.chain[0].Issuer.Organization, vs.chain[0].Issuer.CommonName)
		for _, c := range checkChain(vs.chain, now) {
			fail(c)
		}
	}

	// Assertions the claim references, each by hash.
	refs := m.claim.Assertions
	if len(refs) == 0 {
		refs = append(append(refs, m.claim.Created...), m.claim.Gathered...)
	}
	hardBindings := 0
	seen := map[*box]bool{}
	var dataHashes [][]byte
	unsupportedBinding := false
	for _, ref := range refs {
		bx, inside := p.resolveIn(m, ref.URL)
		if bx == nil || !bx.isSuper() {
			fail("assertion.missing")
			continue
		}
		if !inside {
			fail("assertion.outsideManifest")
			continue
		}
		d := p.sum(ref.Alg, m.claim.Alg, bx.content)
		if d == nil {
			fail("algorithm.unsupported")
			continue
		}
		if !bytes.Equal(d, ref.Hash) {
			fail("assertion.hashedURI.mismatch")
			continue
		}
		if seen[bx] {
			continue // a repeated reference adds nothing
		}
		seen[bx] = true
		label, _, _ := strings.Cut(bx.label, "__")
		cb := bx.firstLeaf("cbor")
		switch label {
		case "c2pa.hash.data":
			hardBindings++
			if cb == nil {
				fail("assertion.dataHash.malformed")
				continue
			}
			dataHashes = append(dataHashes, cb.payload)
		case "c2pa.hash.boxes", "c2pa.hash.bmff", "c2pa.hash.bmff.v2", "c2pa.hash.bmff.v3", "c2pa.hash.collection.data":
			hardBindings++
			unsupportedBinding = true
		case "c2pa.actions", "c2pa.actions.v2":
			if cb == nil {
				fail("assertion.cbor.invalid")
				continue
			}
			acts, code := decodeActions(cb.payload, p, m)
			if code != "" {
				fail(code)
			}
			r.Actions = append(r.Actions, acts...)
		case "c2pa.soft-binding":
			var sb softBindingMap
			if cb == nil || decMode.Unmarshal(cb.payload, &sb) != nil {
				fail("assertion.cbor.invalid")
				continue
			}
			for _, blk := range sb.Blocks {
				v, err := base64.StdEncoding.DecodeString(blk.Value)
				if err != nil {
					v = []byte(blk.Value)
				}
				r.SoftBindings = append(r.SoftBindings, SoftBinding{Alg: sb.Alg, Value: v})
			}
		case "c2pa.ingredient", "c2pa.ingredient.v2", "c2pa.ingredient.v3":
			var ing ingredientMap
			if cb == nil || decMode.Unmarshal(cb.payload, &ing) != nil {
				fail("assertion.cbor.invalid")
				continue
			}
			in := Ingredient{Title: ing.Title, Relationship: ing.Relationship}
			ref := ing.Manifest
			if ref == nil {
				ref = ing.ActiveManifest
			}
			if ref != nil {
				if code := p.checkIngredientManifest(m, *ref, &in); code != "" {
					fail(code)
				}
			}
			r.Ingredients = append(r.Ingredients, in)
		default:
			if cb != nil && !strings.HasPrefix(label, "c2pa.") {
				r.Assertions[bx.label] = bytes.Clone(cb.payload)
			}
		}
	}
	switch {
	case !m.update && hardBindings == 0:
		fail("claim.hardBindings.missing")
	case hardBindings > 1:
		// Not checked against the file: one hash of the file per binding
		// is what a hostile claim would make us pay.
		fail("assertion.multipleHardBindings")
	case file != nil && len(dataHashes) == 1:
		if code := checkDataHash(dataHashes[0], file, m.claim.Alg); code != "" {
			fail(code)
		}
	case file != nil && unsupportedBinding:
		// We cannot recompute these bindings: say so rather than pass
		// them.
		fail("assertion.hardBinding.unsupported")
	}
	r.State = "valid"
	if len(r.Codes) > 0 {
		r.State = "invalid"
	}
	return r, nil
}

// checkIngredientManifest resolves an ingredient's manifest reference and
// checks its hash. Writers have hashed three things over the versions: the
// manifest superbox without its header (current), the claim's CBOR
// (before 1.2), or the box the URI names when it points inside the
// manifest; any of them matching is a match.
func (p *parsedStore) checkIngredientManifest(m *parsedManifest, ref hashedURI, in *Ingredient) string {
	path, ok := strings.CutPrefix(ref.URL, "self#jumbf=/c2pa/")
	if !ok {
		return "ingredient.manifest.missing"
	}
	label, _, _ := strings.Cut(path, "/")
	target := p.byLabel(label)
	if target == nil {
		return "ingredient.manifest.missing"
	}
	in.ManifestID = label
	if hasherFor(ref.Alg, m.claim.Alg) == nil {
		return "algorithm.unsupported"
	}
	candidates := [][]byte{target.box.content, target.claimCBOR}
	if b := p.resolve(m, ref.URL); b != nil {
		candidates = append(candidates, b.content)
	}
	for _, c := range candidates {
		if bytes.Equal(p.sum(ref.Alg, m.claim.Alg, c), ref.Hash) {
			return ""
		}
	}
	return "ingredient.manifest.mismatch"
}

func subjectName(org []string, cn string) string {
	if len(org) > 0 && org[0] != "" {
		if cn != "" && cn != org[0] {
			return org[0] + " / " + cn
		}
		return org[0]
	}
	return cn
}

// checkDataHash recomputes a c2pa.hash.data assertion over file.
func checkDataHash(payload, file []byte, claimAlg string) string {
	var dh dataHash
	if err := decMode.Unmarshal(payload, &dh); err != nil {
		return "assertion.dataHash.malformed"
	}
	hf := hasherFor(dh.Alg, claimAlg)
	if hf == nil {
		return "algorithm.unsupported"
	}
	h := hf()
	if len(dh.Hash) != h.Size() {
		return "assertion.dataHash.malformed"
	}
	pos := uint64(0)
	size := uint64(len(file))
	ex := append([]exclusion(nil), dh.Exclusions...)
	for i := 1; i < len(ex); i++ { // insertion sort: a handful of ranges
		for j := i; j > 0 && ex[j].Start < ex[j-1].Start; j-- {
			ex[j], ex[j-1] = ex[j-1], ex[j]
		}
	}
	parts := make([][]byte, 0, len(ex)+1)
	for _, e := range ex {
		if e.Start < pos || e.Length == 0 || e.Start > size || e.Length > size-e.Start {
			return "assertion.dataHash.malformed"
		}
		parts = append(parts, file[pos:e.Start])
		pos = e.Start + e.Length
	}
	parts = append(parts, file[pos:])
	var sum []byte
	if alg := dh.Alg; alg == "sha256" || alg == "" && claimAlg == "sha256" {
		// The whole file goes through this hash: shared/digest's, whose
		// block function is assembly in WebAssembly (the C2PA module).
		d := digest.Sum256Concat(parts...)
		sum = d[:]
	} else {
		for _, p := range parts {
			h.Write(p)
		}
		sum = h.Sum(nil)
	}
	if !bytes.Equal(sum, dh.Hash) {
		return "assertion.dataHash.mismatch"
	}
	return ""
}

// decodeActions reads v1 and v2 action lists and checks that actions which
// must reference an ingredient do.
func decodeActions(payload []byte, p *parsedStore, m *parsedManifest) ([]Action, string) {
	var am actionsMap
	if err := decMode.Unmarshal(payload, &am); err != nil {
		return nil, "assertion.action.malformed"
	}
	var out []Action
	code := ""
	for _, a := range am.Actions {
		act := Action{Action: a.Action, DigitalSourceType: a.DigitalSourceType}
		if a.When != "" {
			if t, err := time.Parse(time.RFC3339, a.When); err == nil {
				act.When = t
			}
		}
		if len(a.SoftwareAgent) > 0 {
			var s string
			var gi struct {
				Name    string `cbor:"name"`
				Version string `cbor:"version"`
			}
			if decMode.Unmarshal(a.SoftwareAgent, &s) == nil {
				act.SoftwareAgent = s
			} else if decMode.Unmarshal(a.SoftwareAgent, &gi) == nil {
				act.SoftwareAgent = strings.TrimSuffix(gi.Name+"/"+gi.Version, "/")
			}
		}
		if a.Action == "c2pa.opened" || a.Action == "c2pa.repackaged" || a.Action == "c2pa.transcoded" {
			var refs []hashedURI
			if a.Parameters != nil {
				if a.Parameters.Ingredient != nil {
					refs = append(refs, *a.Parameters.Ingredient)
				}
				refs = append(refs, a.Parameters.Ingredients...)
			}
			if len(refs) == 0 {
				code = "assertion.action.ingredientMismatch"
			}
			for _, ref := range refs {
				bx := p.resolve(m, ref.URL)
				if bx == nil || !bytes.Equal(p.sum(ref.Alg, m.claim.Alg, bx.content), ref.Hash) {
					code = "assertion.action.ingredientMismatch"
				}
			}
		}
		out = append(out, act)
	}
	return out, code
}

var (
	oidEKUDocumentSigning = asn1.ObjectIdentifier{1, 3, 6, 1, 5, 5, 7, 3, 36}
	oidKeyUsage           = asn1.ObjectIdentifier{2, 5, 29, 15}
)

// checkChain applies the C2PA certificate profile the readers enforce to
// the carried chain — validity at now, version 3, a critical key usage
// with digitalSignature on the signer, an EKU (emailProtection or
// documentSigning, never anyExtendedKeyUsage) on non-CA certificates, CA
// certificates only with keyCertSign and a subject key id — and checks
// each certificate is signed by the next. It does not decide trust.
func checkChain(chain []*x509.Certificate, now time.Time) []string {
	var codes []string
	for i, c := range chain {
		signer := i == 0
		if now.Before(c.NotBefore) || now.After(c.NotAfter) {
			codes = append(codes, "signingCredential.expired")
		}
		if c.Version != 3 || !criticalKeyUsage(c) {
			codes = append(codes, "signingCredential.invalid")
			continue
		}
		if signer {
			if c.KeyUsage&x509.KeyUsageDigitalSignature == 0 || c.IsCA ||
				bytes.Equal(c.RawSubject, c.RawIssuer) || len(c.AuthorityKeyId) == 0 {
				codes = append(codes, "signingCredential.invalid")
			}
			okEKU := false
			for _, u := range c.ExtKeyUsage {
				if u == x509.ExtKeyUsageAny {
					okEKU = false
					break
				}
				if u == x509.ExtKeyUsageEmailProtection {
					okEKU = true
				}
			}
			for _, u := range c.UnknownExtKeyUsage {
				if u.Equal(oidEKUDocumentSigning) {
					okEKU = true
				}
			}
			if !okEKU {
				codes = append(codes, "signingCredential.invalid")
			}
		} else if c.KeyUsage&x509.KeyUsageCertSign != 0 && (!c.IsCA || len(c.SubjectKeyId) == 0) {
			codes = append(codes, "signingCredential.invalid")
		}
		if i+1 < len(chain) {
			if err := c.CheckSignatureFrom(chain[i+1]); err != nil {
				codes = append(codes, "signingCredential.invalid")
			}
		}
	}
	return codes
}

func criticalKeyUsage(c *x509.Certificate) bool {
	for _, e := range c.Extensions {
		if e.Id.Equal(oidKeyUsage) {
			return e.Critical
		}
	}
	return false
}
