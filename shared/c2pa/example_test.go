package c2pa_test

import (
	"bytes"
	"fmt"
	"image"
	"image/jpeg"
	"log"
	"time"

	"github.com/provenant/provenant/shared/c2pa"
	"github.com/provenant/provenant/shared/c2pa/c2patest"
)

// exampleSigner stands in for an organisation's claim-signing key and
// certificate chain (the origin issues those under its own CA).
func exampleSigner() c2pa.Signer {
	ca, err := c2patest.GenerateCA("Example CA")
	if err != nil {
		log.Fatal(err)
	}
	s, err := ca.GenerateSigner(c2patest.CertOptions{Org: "Example News"})
	if err != nil {
		log.Fatal(err)
	}
	return s
}

func Example() {
	var buf bytes.Buffer
	if err := jpeg.Encode(&buf, image.NewGray(image.Rect(0, 0, 32, 32)), nil); err != nil {
		log.Fatal(err)
	}
	out, id, _, err := c2pa.Embed(buf.Bytes(), c2pa.Manifest{
		ClaimGenerator: "Provenant/1.0",
		Title:          "harbour.jpg",
		Format:         "image/jpeg",
		Actions: []c2pa.Action{{
			Action:            "c2pa.created",
			DigitalSourceType: "http://cv.iptc.org/newscodes/digitalsourcetype/digitalCapture",
			SoftwareAgent:     "Provenant/1.0",
			When:              time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC),
		}},
		SoftBindings: []c2pa.SoftBinding{{Alg: "io.provenant.watermark.1", Value: []byte{0x2a}}},
		Assertions:   []c2pa.Assertion{{Label: "io.provenant.record", Data: map[string]string{"id": "rec-1"}}},
	}, exampleSigner())
	if err != nil {
		log.Fatal(err)
	}
	r, err := c2pa.Read(out, time.Now())
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(r.ActiveManifest == id, r.State, r.Signer)
	fmt.Println(r.Actions[0].Action, r.SoftBindings[0].Alg)
	// Output:
	// true valid Example News / Example News claim signer
	// c2pa.created io.provenant.watermark.1
}
