package seedtest

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

// TestSeedIsGoCorpusFormat: the file holds the version line and one
// []byte literal that unquotes to the input, whatever its bytes.
func TestSeedIsGoCorpusFormat(t *testing.T) {
	if got, want := string(Seed([]byte("ab"))), "go test fuzz v1\n[]byte(\"ab\")\n"; got != want {
		t.Fatalf("Seed(ab) = %q, want %q", got, want)
	}
	for _, in := range [][]byte{nil, []byte("\x00\xff\"\\\n\u00e9end"), bytes.Repeat([]byte{0x80, '`'}, 300)} {
		back, err := parseSeed(Seed(in))
		if err != nil || !bytes.Equal(back, in) {
			t.Errorf("parseSeed(Seed(%q)) = %q, %v", in, back, err)
		}
	}
	for _, bad := range []string{"", "[]byte(\"a\")\n", "go test fuzz v1\nstring(\"a\")\n", "go test fuzz v1\n[]byte(\"a)\n", "go test fuzz v1\n[]byte(\"a\")\n[]byte(\"b\")\n"} {
		if b, err := parseSeed([]byte(bad)); err == nil {
			t.Errorf("parseSeed(%q) = %q, want an error", bad, b)
		}
	}
}

// TestWriteSeedPlacesTheFile: the seed lands where `go test` looks for
// the target's corpus, directories created.
func TestWriteSeedPlacesTheFile(t *testing.T) {
	t.Chdir(t.TempDir())
	WriteSeed(t, "FuzzX", "one", []byte{1, 2})
	if _, err := os.Stat(filepath.Join("testdata", "fuzz", "FuzzX", "one")); err != nil {
		t.Fatal(err)
	}
	if got := ReadSeed(t, "FuzzX", "one"); !bytes.Equal(got, []byte{1, 2}) {
		t.Fatalf("ReadSeed = %v, want [1 2]", got)
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
