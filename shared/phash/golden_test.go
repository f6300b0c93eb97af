package phash

import "testing"

// TestGolden pins the hashes of the test photos, so native and WebAssembly
// runs (GOOS=js go test, with go_js_wasm_exec on PATH) must agree bit for bit.
func TestGolden(t *testing.T) {
	tests := []struct{ file, want string }{
		{"photo.jpg", "8468a38f55f7585584696884a3da8ee555d6f71958475516cb2591e855aad26c295f873b5edc554a"},
		{"photo.png", "8468a38f55f7585584696884a3da8ee555d6f61958475516cb2591e855aad26c295f973b5edc554a"},
		{"photo.webp", "8468a38f55f7585584696884a3da8ee555d6f71958475516cb2591e855aad26c295f873b5edc554a"},
		{"other.jpg", "a8aa55d5a8c857a7a804aaab555fd55ba8e4c8e05703a71fa34d586c9ce0adf35715836ea1be5916"},
	}
	for _, tt := range tests {
		h, err := Compute(lumaOf(t, tt.file))
		if err != nil {
			t.Fatal(err)
		}
		if got := h.String(); got != tt.want {
			t.Errorf("Compute(%s) = %s, want %s", tt.file, got, tt.want)
		}
	}
}
