package c2pa_test

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/provenant/provenant/shared/c2pa"
	"github.com/provenant/provenant/shared/c2pa/c2patest"
)

// The independent reader (c2pa-ts) must accept what Embed writes, see our
// assertions, and catch a changed image byte.
func TestIndependentReader(t *testing.T) {
	for _, tc := range signedCases(t) {
		t.Run(tc.name, func(t *testing.T) {
			res := c2patest.ReadBytes(t, tc.out, tc.ext)
			if res.Validation == nil || !res.Validation.IsValid {
				t.Fatalf("reader says invalid: %v\n%s", res.Failures(), res.Raw)
			}
			if res.ActiveManifest != tc.id || res.Format != tc.format {
				t.Fatalf("reader active manifest %q format %q, want %q %q", res.ActiveManifest, res.Format, tc.id, tc.format)
			}
			for _, code := range []string{"claimSignature.validated", "assertion.dataHash.match"} {
				if !res.Has(code) {
					t.Errorf("reader did not report %s:\n%s", code, res.Raw)
				}
			}
			m := res.Manifest(tc.id)
			for _, want := range []struct{ label, contains string }{
				{"c2pa.actions", `"c2pa.watermarked"`},
				{"c2pa.actions", `digitalCapture`},
				{"c2pa.soft-binding", `"io.provenant.watermark.1"`},
				{"io.provenant.record", `"r-123"`},
				{"c2pa.hash.data", `"exclusions"`},
			} {
				a := m.Assertion(want.label)
				if a == nil || !strings.Contains(string(a.Content), want.contains) {
					t.Errorf("reader's %s assertion lacks %s: %v", want.label, want.contains, a)
				}
			}
			if !strings.Contains(m.Signer, "Provenant Test Org") {
				t.Errorf("reader signer %q", m.Signer)
			}

			// One byte of image data, well away from the manifest.
			flipped := slices.Clone(tc.out)
			flipped[len(flipped)-20] ^= 0x01
			res = c2patest.ReadBytes(t, flipped, tc.ext)
			if res.Validation == nil || res.Validation.IsValid || !slices.Contains(res.Failures(), "assertion.dataHash.mismatch") {
				t.Fatalf("reader did not report the binding mismatch: %v\n%s", res.Failures(), res.Raw)
			}
			r, err := c2pa.Read(flipped, time.Now())
			if err != nil {
				t.Fatal(err)
			}
			if r.State != "invalid" || !slices.Contains(r.Codes, "assertion.dataHash.mismatch") {
				t.Fatalf("Read of the changed file: %s %v", r.State, r.Codes)
			}
		})
	}
}

// A file that arrives with a third-party manifest (made by the reader's
// own signing code, under another CA) keeps it: the new store carries it
// and the new manifest lists it as its parentOf ingredient.
func TestThirdPartyParent(t *testing.T) {
	camera := c2patest.NewSigner(t, c2patest.CertOptions{Org: "Third Party Camera"})
	s := c2patest.NewSigner(t, c2patest.CertOptions{})
	for _, tc := range containerCases(t) {
		t.Run(tc.name, func(t *testing.T) {
			in, cameraLabel := c2patest.ThirdParty(t, tc.file, tc.ext, camera)
			if res := c2patest.ReadBytes(t, in, tc.ext); !res.Validation.IsValid {
				t.Fatalf("the reader's own manifest is invalid: %v", res.Failures())
			}
			prev, err := c2pa.Read(in, time.Now())
			if err != nil {
				t.Fatal(err)
			}
			if prev.State != "valid" || prev.ActiveManifest != cameraLabel || !strings.HasPrefix(prev.Signer, "Third Party Camera") {
				t.Fatalf("Read of the third-party file: %+v", prev)
			}
			parent, err := c2pa.Extract(in)
			if err != nil || parent == nil {
				t.Fatalf("extract: %v", err)
			}
			m := testManifest(tc.format)
			m.Actions = []c2pa.Action{{Action: "c2pa.watermarked", SoftwareAgent: "Provenant/test"}}
			m.Parent = parent
			out, id, _ := mustEmbed(t, in, m, s)

			res := c2patest.ReadBytes(t, out, tc.ext)
			if !res.Validation.IsValid {
				t.Fatalf("reader says invalid: %v\n%s", res.Failures(), res.Raw)
			}
			if res.ActiveManifest != id || len(res.Manifests) != 2 || res.Manifest(cameraLabel) == nil {
				t.Fatalf("reader manifests %v, want the camera's %s and ours %s", labels(res), cameraLabel, id)
			}
			ing := res.Manifest(id).Assertion("c2pa.ingredient")
			if ing == nil {
				t.Fatalf("no ingredient assertion:\n%s", res.Raw)
			}
			var content struct {
				Relationship string `json:"relationship"`
				Manifest     struct {
					URL string `json:"url"`
				} `json:"c2pa_manifest"`
			}
			if err := json.Unmarshal(ing.Content, &content); err != nil {
				t.Fatal(err)
			}
			if content.Relationship != "parentOf" || content.Manifest.URL != "self#jumbf=/c2pa/"+cameraLabel {
				t.Fatalf("ingredient %s", ing.Content)
			}
			if acts := res.Manifest(id).Assertion("c2pa.actions"); acts == nil || !strings.Contains(string(acts.Content), `"c2pa.opened"`) {
				t.Fatalf("actions lack c2pa.opened: %v", acts)
			}

			r, err := c2pa.Read(out, time.Now())
			if err != nil {
				t.Fatal(err)
			}
			if r.State != "valid" || len(r.Ingredients) != 1 || r.Ingredients[0].ManifestID != cameraLabel ||
				r.Ingredients[0].Relationship != "parentOf" || r.Ingredients[0].Title != "camera capture" {
				t.Fatalf("Read: %s %v %+v", r.State, r.Codes, r.Ingredients)
			}
		})
	}
}

func labels(r *c2patest.Result) []string {
	var out []string
	for _, m := range r.Manifests {
		out = append(out, m.Label)
	}
	return out
}
