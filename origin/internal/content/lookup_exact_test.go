package content

import (
	"context"
	"crypto/sha256"
	"encoding/json"
	"reflect"
	"testing"
	"time"

	"github.com/provenant/provenant/shared/facts"
	"github.com/provenant/provenant/shared/lookup"
	"github.com/provenant/provenant/shared/wire"
)

// TestLookupExactAnswersOnlySignedOutput: LookupExact answers the
// service's own signed output exactly as Lookup does with the file's
// analysed facts (and a client deciding from it with the SHA-256 alone
// gets Verify's answer), counted once with report; every other file, the
// signer's original upload and a registered record's hash included, is
// not exact: an empty answer, nothing counted.
func TestLookupExactAnswersOnlySignedOutput(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	alice := e.newOwner("alice@example.com", "Example News")
	bob := e.newOwner("bob@example.com", "Other Agency")
	signed := e.sign(alice, photo(t, 40, 640, 480), "signed.jpg")
	if _, err := e.svc.Register(ctx, e.registration(bob, "Other Agency", 9, "")); err != nil {
		t.Fatal(err)
	}
	counted := func() uint64 { return e.stats(alice).TotalVerified + e.stats(bob).TotalVerified }

	sum := sha256.Sum256(signed.File)
	want, err := e.svc.Verify(ctx, signed.File, nil)
	if err != nil {
		t.Fatal(err)
	}
	sf, err := facts.Analyze(signed.File, e.svc.Limits(), time.Now())
	if err != nil {
		t.Fatal(err)
	}
	full, err := e.svc.Lookup(ctx, fromFacts(sf), false)
	if err != nil {
		t.Fatal(err)
	}
	before := counted()
	res, exact, err := e.svc.LookupExact(ctx, sum, nil, true)
	if err != nil {
		t.Fatal(err)
	}
	if !exact || len(res.Candidates) == 0 || !reflect.DeepEqual(res, full) {
		t.Fatalf("signed output: exact %v, answer %+v; want Lookup's %+v", exact, res, full)
	}
	if n := counted() - before; n != 1 {
		t.Errorf("signed output with report counted %d times, want once", n)
	}
	b, _ := json.Marshal(res)
	var got wire.LookupResponse
	if err := json.Unmarshal(b, &got); err != nil {
		t.Fatal(err)
	}
	d := lookup.Decide(facts.Facts{SHA256: sum}, got, e.svc.Limits())
	if d.ExactSigned != signed.Record.ID || !reflect.DeepEqual(d.Response, want.Response) {
		t.Fatalf("decided from the SHA-256 alone (exact signed %q):\n%+v\nVerify:\n%+v", d.ExactSigned, d.Response, want.Response)
	}

	for _, tt := range []struct {
		name string
		sum  [32]byte
	}{
		{"original upload", sha256.Sum256(photo(t, 40, 640, 480))},
		{"registered record", sha256.Sum256([]byte{9})},
		{"re-encoded copy", sha256.Sum256(reencode(t, signed.File, 80))},
		{"unknown", sha256.Sum256([]byte("nobody signed this"))},
	} {
		t.Run(tt.name, func(t *testing.T) {
			before := counted()
			res, exact, err := e.svc.LookupExact(ctx, tt.sum, nil, true)
			if err != nil {
				t.Fatal(err)
			}
			if exact || res.Candidates != nil || res.C2PACA != "" || res.C2PA != nil {
				t.Errorf("exact %v, answer %+v; want not exact and nothing", exact, res)
			}
			if n := counted() - before; n != 0 {
				t.Errorf("counted %d times, want never", n)
			}
		})
	}
}
