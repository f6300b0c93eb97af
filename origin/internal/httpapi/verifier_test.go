package httpapi

import "testing"

func TestPickEncoding(t *testing.T) {
	for _, tt := range []struct{ accept, want string }{
		{"", ""},
		{"identity", ""},
		{"gzip", "gzip"},
		{"gzip, deflate, br, zstd", "br"},
		{"BR", "br"},
		{"br;q=0.1, gzip;q=0.9", "gzip"},
		{"br;q=0, gzip;q=0", ""},
		{"*", "br"},
		{"*;q=0.5, br;q=0", "gzip"},
		{"gzip; q=0.8 , br ; q=0.8", "br"},
		{"br;q=nonsense", "br"},
	} {
		if got := pickEncoding(tt.accept); got != tt.want {
			t.Errorf("pickEncoding(%q) = %q, want %q", tt.accept, got, tt.want)
		}
	}
}
