package main

import (
	"fmt"
	"path/filepath"
)

// dumpSynth writes the generated hard-case images as PNG into dir.
func dumpSynth(dir string) error {
	for name, m := range synthImages() {
		if err := writePNG(filepath.Join(dir, name+".png"), m); err != nil {
			return fmt.Errorf("write %s: %w", name, err)
		}
	}
	return nil
}
