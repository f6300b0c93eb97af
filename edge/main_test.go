package main

import (
	"io"
	"strings"
	"testing"
)

func TestParseFlags(t *testing.T) {
	for _, tt := range []struct {
		args []string
		err  string
	}{
		{[]string{"--origin", "http://127.0.0.1:8080"}, ""},
		{[]string{"--origin", "http://o", "--verifier", "native", "--admin-listen", ""}, ""},
		{[]string{}, "--origin is required"},
		{[]string{"--origin", "http://o", "--verifier", "js"}, "--verifier"},
		{[]string{"--origin", "http://o", "--admin-listen", "0.0.0.0:8091"}, "loopback"},
		{[]string{"--origin", "http://o", "--wasm-instances", "0"}, "--wasm-instances"},
		{[]string{"--origin", "http://o", "--wasm-memory-mib", "8"}, "--wasm-memory-mib"},
	} {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			_, err := parseFlags(tt.args, io.Discard)
			if tt.err == "" && err != nil || tt.err != "" && (err == nil || !strings.Contains(err.Error(), tt.err)) {
				t.Fatalf("err = %v, want %q", err, tt.err)
			}
		})
	}
}
