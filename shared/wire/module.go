package wire

// DecodedHeader is the JSON header of the verifier module's
// analyze_decoded input, which a host that decoded the file itself with
// the module's own decoder compiled natively sends before the planes
// (docs/widget.md, "analyze_decoded"). The module checks every field
// against its limits; the host's word is taken only for the digest, the
// decode and the manifest sniff.
type DecodedHeader struct {
	// SHA256 is the file's digest, lowercase hex.
	SHA256 string `json:"sha256"`
	Format string `json:"format"`
	// Width, Height and Orientation are the header's: the stored size,
	// before EXIF orientation.
	Width       int `json:"width"`
	Height      int `json:"height"`
	Orientation int `json:"orientation"`
	// Scale is the reduction the luminance was decoded at: 1, 2, 4 or 8.
	Scale int `json:"scale"`
	// ChromaWidth and ChromaHeight are the size of the Cb and Cr planes
	// that follow the luminance (oriented); zero when none follow.
	ChromaWidth  int `json:"chroma_width,omitempty"`
	ChromaHeight int `json:"chroma_height,omitempty"`
	// C2PAManifest says the file may carry a C2PA manifest store
	// (shared/c2pa/sniff.MayCarry), passed back in analyze's output.
	C2PAManifest bool `json:"c2pa_manifest,omitempty"`
}
