package pgtest

import (
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestStartKillRestart starts a cluster, writes a row, crashes the cluster
// and checks the row survived recovery.
func TestStartKillRestart(t *testing.T) {
	c := Start(t)
	u := c.NewDatabase()
	psql := func(sql string) string {
		t.Helper()
		out, err := exec.Command(filepath.Join(c.bin, "psql"), "-X", "-At", "-d", u, "-c", sql).CombinedOutput()
		if err != nil {
			t.Fatalf("psql %q: %v\n%s", sql, err, out)
		}
		return strings.TrimSpace(string(out))
	}
	psql("CREATE TABLE x (v int); INSERT INTO x VALUES (42)")
	c.Kill()
	if got := psql("SELECT v FROM x"); got != "42" {
		t.Fatalf("after crash SELECT = %q, want 42", got)
	}
}
