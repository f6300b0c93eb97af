package c2pa_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/provenant/provenant/shared/c2pa"
	"github.com/provenant/provenant/shared/c2pa/c2patest"
	"github.com/provenant/provenant/shared/internal/seedtest"
)

// TestWriteSeeds regenerates the fuzz seed corpora under testdata/fuzz
// when C2PA_UPDATE is set: signed JPEG and PNG files (one with a parent
// ingredient, one made by the independent reader when it is installed)
// and their bare stores.
func TestWriteSeeds(t *testing.T) {
	seedtest.Regenerate(t, "C2PA_UPDATE", "the fuzz seeds")
	s := c2patest.NewSigner(t, c2patest.CertOptions{})
	jpg, png := testJPEG(t), testPNG(t)
	files := map[string][]byte{}
	stores := map[string][]byte{}
	for name, in := range map[string][]byte{"jpeg": jpg, "png": png} {
		format := "image/" + name
		out, _, store := mustEmbed(t, in, testManifest(format), s)
		files["signed-"+name] = out
		stores["store-"+name] = store
		m := testManifest(format)
		m.Parent = store
		out, _, store = mustEmbed(t, out, m, s)
		files["parent-"+name] = out
		stores["store-parent-"+name] = store
	}
	if _, err := os.Stat(filepath.Join("testdata", "reader", "reader.mjs")); err == nil {
		tp, _ := c2patest.ThirdParty(t, jpg, ".jpg", c2patest.NewSigner(t, c2patest.CertOptions{Org: "Third Party Camera"}))
		files["thirdparty-jpeg"] = tp
		st, err := c2pa.Extract(tp)
		if err != nil {
			t.Fatal(err)
		}
		stores["store-thirdparty"] = st
	}
	for name, b := range files {
		seedtest.WriteSeed(t, "FuzzRead", name, b)
		if name != "thirdparty-jpeg" { // mostly signature padding: Read's seed is enough
			seedtest.WriteSeed(t, "FuzzExtract", name, b)
		}
	}
	for name, b := range stores {
		seedtest.WriteSeed(t, "FuzzJUMBF", name, b)
	}
}
