package corpus

import (
	"context"
	"os"
	"path/filepath"
	"runtime"
	"testing"
	"time"

	"github.com/provenant/provenant/shared/c2pa/c2patest"
	"github.com/provenant/provenant/shared/wire"
)

// BuildForTest builds the corpus on o for t and returns it with the golden
// rows, failing t on any error. Fields o leaves unset get the defaults every
// surface's conformance test uses: the two stock pictures of the origin's
// server testdata, a real clock (time.Sleep), and a third-party camera
// maker's C2PA signer the origin does not trust.
func BuildForTest(t testing.TB, o Origin) (*Corpus, map[string]Row) {
	t.Helper()
	if o.Images == nil {
		o.Images = StockImages(t)
	}
	if o.Advance == nil {
		o.Advance = time.Sleep
	}
	if o.ThirdPartyC2PA.Key == nil {
		o.ThirdPartyC2PA = c2patest.NewSigner(t, c2patest.CertOptions{Org: "Third Party Camera"})
	}
	cp, err := Build(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	golden, err := Golden()
	if err != nil {
		t.Fatal(err)
	}
	return cp, golden
}

// Expect fails t unless v, the answer a surface gave for case c, reduces
// to c's row of golden (roles from cp); a case without a golden row fails
// too.
func (cp *Corpus) Expect(t testing.TB, golden map[string]Row, c Case, v wire.VerifyResponse) {
	t.Helper()
	want, ok := golden[c.Name]
	if !ok {
		t.Fatalf("no golden row for %q", c.Name)
	}
	if d := Diff(c, want, Summarize(v, cp.Roles)); d != "" {
		t.Errorf("%s", d)
	}
}

// StockImages reads the pictures the corpus signs (meadow.jpg and
// water.jpg) from the origin's server testdata, found from this source
// file's place in the tree so that a test in any package can use them.
func StockImages(t testing.TB) map[string][]byte {
	t.Helper()
	_, self, _, ok := runtime.Caller(0)
	if !ok {
		t.Fatal("corpus: cannot locate the source tree")
	}
	dir := filepath.Join(filepath.Dir(self), "..", "..", "internal", "server", "testdata")
	out := map[string][]byte{}
	for _, name := range []string{"meadow.jpg", "water.jpg"} {
		b, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		out[name] = b
	}
	return out
}
