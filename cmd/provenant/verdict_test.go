package main

import (
	"bytes"
	"flag"
	"path/filepath"
	"strings"
	"testing"

	"github.com/provenant/provenant/client"
	"github.com/provenant/provenant/shared/present"
	"github.com/provenant/provenant/shared/present/presenttest"
)

var update = flag.Bool("update", false, "rewrite the golden verdict texts in testdata/verdict")

// TestVerdictText renders every golden verdict of shared/present as
// `provenant verify` prints it and compares the text with its golden copy
// (go test -run TestVerdictText -update rewrites them): the headline,
// explanation, chain and checks are the shared presentation's, the text
// keeps the wording rules (present.TextViolations), and an authentic
// verdict shows no failed check.
func TestVerdictText(t *testing.T) {
	presenttest.Verdicts(t, "../../shared/present/testdata", func(t *testing.T, name string, r client.VerifyResponse) {
		var b bytes.Buffer
		writeVerdict(&b, name+".jpg", &r, name == "reencoded-anchored", 0)
		got := b.String()
		p := client.Describe(&r)
		if !strings.HasPrefix(got, name+".jpg: "+p.Headline+"\n  "+p.Explanation+"\n") {
			t.Errorf("text does not open with the shared headline and explanation:\n%s", got)
		}
		if p.Chain != "" && !strings.Contains(got, p.Chain) {
			t.Errorf("text lacks the provenance chain %q:\n%s", p.Chain, got)
		}
		for _, v := range present.TextViolations(r, written(r, got)) {
			t.Errorf("wording: %s\n%s", v, got)
		}
		if r.Authentic && strings.Contains(got, "✗") {
			t.Errorf("an authentic verdict shows a failed check:\n%s", got)
		}
		presenttest.Golden(t, filepath.Join("testdata", "verdict", name+".txt"), b.Bytes(), *update)
	})
}

// written is text without the resemblance's detail, which is the
// verdict's own sentence quoted as it is ("… no local signatures to show
// it is unchanged"): the wording rules hold the words the CLI writes.
func written(v client.VerifyResponse, text string) string {
	if v.Resembles != nil && v.Resembles.Detail != "" {
		return strings.ReplaceAll(text, v.Resembles.Detail, "")
	}
	return text
}
