package seedtest

import (
	"bytes"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestSeedIsGoCorpusFormat: the file holds the version line and one
// []byte literal that unquotes to the input, whatever its bytes.
func TestSeedIsGoCorpusFormat(t *testing.T) {
	if got, want := string(Seed([]byte("ab"))), "go test fuzz v1\n[]byte(\"ab\")\n"; got != want {
		t.Fatalf("Seed(ab) = %q, want %q", got, want)
	}
	in := []byte("\x00\xff\"\\\n\u00e9end")
	body, ok := strings.CutPrefix(string(Seed(in)), "go test fuzz v1\n[]byte(")
	if !ok {
		t.Fatalf("no version line: %q", Seed(in))
	}
	lit, ok := strings.CutSuffix(body, ")\n")
	if !ok {
		t.Fatalf("no closing line: %q", body)
	}
	back, err := strconv.Unquote(lit)
	if err != nil || !bytes.Equal([]byte(back), in) {
		t.Fatalf("literal %s unquotes to %q (%v), want %q", lit, back, err, in)
	}
}

// TestWriteSeedPlacesTheFile: the seed lands where `go test` looks for
// the target's corpus, directories created.
func TestWriteSeedPlacesTheFile(t *testing.T) {
	t.Chdir(t.TempDir())
	WriteSeed(t, "FuzzX", "one", []byte{1, 2})
	b, err := os.ReadFile(filepath.Join("testdata", "fuzz", "FuzzX", "one"))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(b, Seed([]byte{1, 2})) {
		t.Fatalf("file = %q, want %q", b, Seed([]byte{1, 2}))
	}
}

// TestRegenerateOnlyWhenAsked: unset, the test is skipped; set, it runs.
func TestRegenerateOnlyWhenAsked(t *testing.T) {
	const env = "SEEDTEST_UPDATE_FOR_TEST"
	for _, tc := range []struct {
		value   string
		skipped bool
	}{{"", true}, {"1", false}} {
		t.Setenv(env, tc.value)
		ran := false
		t.Run("value="+tc.value, func(t *testing.T) {
			Regenerate(t, env, "nothing")
			ran = true
		})
		if ran == tc.skipped {
			t.Errorf("%s=%q: ran %v, want skipped %v", env, tc.value, ran, tc.skipped)
		}
	}
}
