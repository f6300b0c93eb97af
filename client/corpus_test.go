package client_test

import (
	"context"
	"errors"
	"testing"

	"github.com/provenant/provenant/client"
	"github.com/provenant/provenant/origin/origintest"
)

// TestConformanceCorpusVerifyLocal is the SDK's leg of the conformance
// corpus (origin/origintest/corpus): every picture of the corpus verified
// with VerifyLocal (facts computed here, only they sent, the verdict
// decided here) reduces to the golden row of its case, the row the
// origin's /verify, the core, the module, the edge and the browser are
// held to. A registered file that is not a picture is refused here as
// unsupported, without a request, and verified by upload instead.
func TestConformanceCorpusVerifyLocal(t *testing.T) {
	o, cp, golden := origintest.StartCorpus(t, "sdk")
	c, err := client.New(client.Config{BaseURL: o.URL})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	for _, cs := range cp.Cases {
		t.Run(cs.Name, func(t *testing.T) {
			var v *client.VerifyResponse
			lv, err := c.VerifyLocal(ctx, cs.File, client.LocalOptions{})
			var le *client.LocalError
			switch {
			case cs.NotAnImage && errors.As(err, &le) && le.Unsupported():
				if v, err = c.Verify(ctx, client.BytesUpload(cs.Name, cs.File)); err != nil {
					t.Fatalf("Verify: %v", err)
				}
			case err != nil:
				t.Fatalf("VerifyLocal: %v", err)
			default:
				if len(lv.Rejected) > 0 {
					t.Errorf("an honest origin's candidates rejected: %+v", lv.Rejected)
				}
				v = &lv.Response
			}
			cp.Expect(t, golden, cs, *v)
		})
	}
}

// buildCorpus builds the conformance corpus on o (tag makes its accounts
// unique) and returns it with the golden rows.
