// Package ids generates the random identifiers used by origin resources.
package ids

import (
	"fmt"
	"io"
)

// NewUUID returns a random (version 4, RFC 9562) UUID in its canonical
// lower-case text form, reading 16 bytes from r (crypto/rand.Reader in
// production). It fails only if r fails.
func NewUUID(r io.Reader) (string, error) {
	var b [16]byte
	if _, err := io.ReadFull(r, b[:]); err != nil {
		return "", fmt.Errorf("read random uuid bytes: %w", err)
	}
	b[6] = (b[6] & 0x0f) | 0x40
	b[8] = (b[8] & 0x3f) | 0x80
	return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:16]), nil
}

// IsUUID reports whether s is a UUID in canonical lower-case text form
// (8-4-4-4-12 hex digits). It does not check the version.
func IsUUID(s string) bool {
	if len(s) != 36 {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch i {
		case 8, 13, 18, 23:
			if c != '-' {
				return false
			}
		default:
			if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f') {
				return false
			}
		}
	}
	return true
}
