package wasmtest

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// CacheMaxAge is how long a directory under CacheDir's parent may go
// unused before CacheDir removes it.
const CacheMaxAge = 24 * time.Hour

// cacheKeyLen is the length, in hex digits, of a cache directory's name.
const cacheKeyLen = 16

// CacheDir returns the directory under parent in which tests keep wazero's
// compiled code (wazero.NewCompilationCacheWithDir) for the verifier
// module they run: parent/<the first 16 hex digits of module's SHA-256>,
// created if needed and marked as used now (its modification time). Any
// other module the same tests compile (the C2PA module, a swapped-in
// build) is kept there too and goes with it.
//
// Wazero names its cache files by module, so one shared directory grows
// by the module's compiled size (about 35 MB) with every build and never
// shrinks; keyed directories can be dropped whole. CacheDir removes the
// sibling directories, by their names its own or wazero's layout of a
// shared directory (wazero-<version>-<arch>-<os>), that have not been used
// for CacheMaxAge: another checkout running other code within a day keeps
// its own. Nothing else under parent is touched.
func CacheDir(parent string, module []byte) (string, error) {
	sum := sha256.Sum256(module)
	key := hex.EncodeToString(sum[:])[:cacheKeyLen]
	dir := filepath.Join(parent, key)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", fmt.Errorf("wasmtest: cache directory: %w", err)
	}
	now := time.Now()
	if err := os.Chtimes(dir, now, now); err != nil {
		return "", fmt.Errorf("wasmtest: cache directory: %w", err)
	}
	entries, err := os.ReadDir(parent)
	if err != nil {
		return "", fmt.Errorf("wasmtest: cache directory: %w", err)
	}
	for _, e := range entries {
		name := e.Name()
		if !e.IsDir() || name == key || !(isCacheKey(name) || strings.HasPrefix(name, "wazero-")) {
			continue
		}
		info, err := e.Info()
		if err != nil || now.Sub(info.ModTime()) < CacheMaxAge {
			continue
		}
		// Best effort: a directory another process removes first, or
		// cannot be removed, costs only disk space.
		_ = os.RemoveAll(filepath.Join(parent, name))
	}
	return dir, nil
}

// isCacheKey reports whether name is a directory name CacheDir chooses.
func isCacheKey(name string) bool {
	if len(name) != cacheKeyLen {
		return false
	}
	_, err := hex.DecodeString(name)
	return err == nil
}
