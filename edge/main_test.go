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
		{[]string{"--origin", "http://o", "--max-conns", "-1"}, "--max-conns"},
		{[]string{"--origin", "http://o", "--header-timeout", "0s"}, "timeouts"},
		{[]string{"--origin", "http://o", "--min-body-rate", "0"}, "--min-body-rate"},
		{[]string{"--precompile", "--verifier-wasm", "v.wasm"}, ""},
		{[]string{"--precompile"}, "--origin is required"},
		{[]string{"--precompile", "--origin", "http://o", "--verifier", "native"}, "--precompile"},
	} {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			_, err := parseFlags(tt.args, io.Discard)
			if tt.err == "" && err != nil || tt.err != "" && (err == nil || !strings.Contains(err.Error(), tt.err)) {
				t.Fatalf("err = %v, want %q", err, tt.err)
			}
		})
	}
}

// TestAdminTokenAllowsPrivateAddress: a non-loopback admin address is
// accepted only with the admin token set.
func TestAdminTokenAllowsPrivateAddress(t *testing.T) {
	args := []string{"--origin", "http://o", "--admin-listen", "10.0.0.5:8091"}
	if _, err := parseFlags(args, io.Discard); err == nil || !strings.Contains(err.Error(), "loopback") {
		t.Fatalf("without the token: %v, want a loopback error", err)
	}
	t.Setenv(adminTokenEnv, "long-random-token")
	o, err := parseFlags(args, io.Discard)
	if err != nil || o.adminToken != "long-random-token" {
		t.Fatalf("with the token: %v %+v", err, o)
	}
}
