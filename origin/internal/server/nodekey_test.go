package server

import (
	"context"
	"os"
	"path/filepath"
	"testing"
)

// TestChainIdentityPerInstallation: each data directory gets its own
// random node key in <data>/secrets (0600), so two installations' embedded
// chains have different identities, and a restart keeps its own.
func TestChainIdentityPerInstallation(t *testing.T) {
	ctx := context.Background()
	var genesis, keys [2]string
	for i := range 2 {
		dir := t.TempDir()
		ts := startServer(t, dir, nil)
		g, err := ts.srv.chain.GenesisHash(ctx)
		if err != nil {
			t.Fatal(err)
		}
		genesis[i] = g.String()
		path := filepath.Join(dir, secretsSubdir, chainKeyFile)
		st, err := os.Stat(path)
		if err != nil || st.Mode().Perm() != 0o600 {
			t.Fatalf("node key file %v (%v), want mode 0600", st, err)
		}
		b, _ := os.ReadFile(path)
		keys[i] = string(b)
		ts.stop()
		ts = startServer(t, dir, nil)
		if g2, _ := ts.srv.chain.GenesisHash(ctx); g2.String() != genesis[i] {
			t.Errorf("restart changed the chain identity: %s → %s", genesis[i], g2)
		}
		ts.stop()
	}
	if genesis[0] == genesis[1] || keys[0] == keys[1] {
		t.Fatalf("two installations share a chain identity: genesis %v", genesis)
	}
}
