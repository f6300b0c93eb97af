package receipt_test

import (
	"path/filepath"
	"testing"

	"github.com/provenant/provenant/shared/internal/seedtest"
)

// TestWriteTestdata regenerates testdata/example.json and the fuzz seed
// when RECEIPT_UPDATE is set; TestSeedCorpus and the example fail when
// they are stale.
func TestWriteTestdata(t *testing.T) {
	seedtest.Regenerate(t, "RECEIPT_UPDATE", "testdata")
	rc, _ := fixture(t)
	b, _ := rc.Marshal()
	seedtest.WriteSeed(t, "FuzzParse", "valid", b)
	seedtest.Write(t, filepath.Join("testdata", "example.json"), append(b, '\n'))
}
