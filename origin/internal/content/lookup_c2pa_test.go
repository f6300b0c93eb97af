package content

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/provenant/provenant/origin/internal/blobs"
	"github.com/provenant/provenant/origin/internal/c2pacert"
	"github.com/provenant/provenant/shared/wire"
)

// TestLookupC2PAReadsOnlyTheKeptFile: LookupC2PA answers the verify
// response's c2pa member for a kept signed output, and none once the
// kept bytes no longer hash to the record's file: a blob changed on disk
// must not be spoken for, even though it still carries a manifest this
// origin signed (which would read "does not validate").
func TestLookupC2PAReadsOnlyTheKeptFile(t *testing.T) {
	e := newEnv(t)
	ca, err := c2pacert.New(c2pacert.Config{Store: e.st, Sealer: e.keys, Clock: e.clk, Rand: rand.Reader})
	if err != nil {
		t.Fatal(err)
	}
	root := filepath.Join(t.TempDir(), "blobs")
	kept, err := blobs.OpenDir(root)
	if err != nil {
		t.Fatal(err)
	}
	e.cfg.Outputs = OutputConfig{Blobs: kept, C2PA: ca}
	e.svc = e.service(e.cfg)
	ctx := context.Background()
	alice := e.newOwner("alice@example.com", "Example News")
	signed := e.sign(alice, photo(t, 31, 640, 480), "kept.jpg").File
	sum := sha256.Sum256(signed)

	want, err := e.svc.Verify(ctx, signed, nil)
	if err != nil {
		t.Fatal(err)
	}
	var res wire.LookupResponse
	if err := e.svc.LookupC2PA(ctx, sum, &res); err != nil {
		t.Fatal(err)
	}
	if res.C2PA == nil || !res.C2PA.Ours || !reflect.DeepEqual(res.C2PA, want.Response.C2PA) || res.C2PACA == "" {
		t.Fatalf("kept signed output: c2pa %+v (ca %d bytes), verify's %+v", res.C2PA, len(res.C2PACA), want.Response.C2PA)
	}

	// Flip a bit in the image data of the kept file: the manifest is still
	// there, the bytes are no longer the signed output.
	name := hex.EncodeToString(sum[:])
	path := filepath.Join(root, name[:2], name)
	tampered := append([]byte(nil), signed...)
	tampered[len(tampered)-3] ^= 0x40
	if err := os.Remove(path); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, tampered, 0o400); err != nil {
		t.Fatal(err)
	}
	res = wire.LookupResponse{}
	if err := e.svc.LookupC2PA(ctx, sum, &res); err != nil {
		t.Fatal(err)
	}
	if res.C2PA != nil || res.C2PACA == "" {
		t.Errorf("kept file changed on disk: c2pa %+v (ca %d bytes); want no member and the CA", res.C2PA, len(res.C2PACA))
	}
}
