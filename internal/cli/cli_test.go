package cli

import (
	"bytes"
	"strings"
	"testing"
)

func TestLogger(t *testing.T) {
	// level → whether a debug line is written
	for level, debug := range map[string]bool{"debug": true, "info": false, "WARN": false, "error": false} {
		var buf bytes.Buffer
		log, err := Logger(level, &buf)
		if err != nil {
			t.Fatalf("Logger(%q): %v", level, err)
		}
		log.Debug("d")
		log.Error("e")
		if got := strings.Contains(buf.String(), "msg=d"); got != debug {
			t.Errorf("Logger(%q): debug line written %v, want %v: %q", level, got, debug, buf.String())
		}
		if !strings.Contains(buf.String(), "level=ERROR msg=e") {
			t.Errorf("Logger(%q): error line missing: %q", level, buf.String())
		}
	}
	for _, level := range []string{"loud", ""} {
		if _, err := Logger(level, &bytes.Buffer{}); err == nil || !strings.Contains(err.Error(), "log level") {
			t.Errorf("Logger(%q): error %v, want one naming the log level", level, err)
		}
	}
}
