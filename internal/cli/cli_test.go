package cli

import (
	"bytes"
	"strings"
	"testing"
)

func TestLogger(t *testing.T) {
	for _, c := range []struct {
		level      string
		debug, err bool
	}{
		{level: "debug", debug: true},
		{level: "info"},
		{level: "WARN"},
		{level: "error"},
		{level: "loud", err: true},
		{level: "", err: true},
	} {
		var buf bytes.Buffer
		log, err := Logger(c.level, &buf)
		if (err != nil) != c.err {
			t.Fatalf("Logger(%q): err %v, want error %v", c.level, err, c.err)
		}
		if err != nil {
			if !strings.Contains(err.Error(), "log level") {
				t.Errorf("Logger(%q): error %q does not name the flag", c.level, err)
			}
			continue
		}
		log.Debug("d")
		log.Error("e")
		if got := strings.Contains(buf.String(), "msg=d"); got != c.debug {
			t.Errorf("Logger(%q): debug line written %v, want %v: %q", c.level, got, c.debug, buf.String())
		}
		if !strings.Contains(buf.String(), "level=ERROR msg=e") {
			t.Errorf("Logger(%q): error line missing: %q", c.level, buf.String())
		}
	}
}
