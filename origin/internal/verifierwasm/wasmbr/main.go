// Command wasmbr precompresses the modules `make wasm` built: for each of
// verifier.wasm and c2pa.wasm in the build directory (its argument) it
// writes <name>.br, the module's brotli encoding at
// verifierwasm.BrotliBuildLevel (the smaller of two windows), which the origin then serves instead of
// the level-9 encoding it would make on first use. An encoding that still
// decodes to its module with one of those windows is kept, so an unchanged build costs nothing.
//
//	go run ./origin/internal/verifierwasm/wasmbr origin/internal/verifierwasm/build
package main

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/provenant/provenant/origin/internal/verifierwasm"
)

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: wasmbr BUILD_DIR")
		os.Exit(2)
	}
	if err := run(os.Args[1]); err != nil {
		fmt.Fprintln(os.Stderr, "wasmbr:", err)
		os.Exit(1)
	}
}

func run(dir string) error {
	for _, name := range []string{verifierwasm.FileName, verifierwasm.C2PAFileName} {
		p := filepath.Join(dir, name)
		raw, err := os.ReadFile(p)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return err
		}
		out := p + verifierwasm.BrotliSuffix
		if old, err := os.ReadFile(out); err == nil && verifierwasm.IsPrecompressed(old, raw) {
			fmt.Printf("%s: up to date (%d bytes)\n", out, len(old))
			continue
		}
		br := verifierwasm.Precompress(raw)
		tmp := out + ".tmp"
		if err := os.WriteFile(tmp, br, 0o644); err != nil {
			return err
		}
		if err := os.Rename(tmp, out); err != nil {
			return err
		}
		fmt.Printf("%s: %d bytes (brotli %d of %d)\n", out, len(br), verifierwasm.BrotliBuildLevel, len(raw))
	}
	return nil
}
