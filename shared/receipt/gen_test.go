package receipt_test

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

// TestWriteTestdata regenerates testdata/example.json and the fuzz seed
// when RECEIPT_UPDATE is set; TestSeedCorpus and the example fail when
// they are stale.
func TestWriteTestdata(t *testing.T) {
	if os.Getenv("RECEIPT_UPDATE") == "" {
		t.Skip("set RECEIPT_UPDATE=1 to regenerate testdata")
	}
	rc, _ := fixture(t)
	b, _ := rc.Marshal()
	if err := os.WriteFile(filepath.Join("testdata", "fuzz", "FuzzParse", "valid"), fmt.Appendf(nil, "go test fuzz v1\n[]byte(%q)\n", b), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join("testdata", "example.json"), append(b, '\n'), 0o644); err != nil {
		t.Fatal(err)
	}
}
