package accounts

import (
	"crypto/subtle"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"

	"golang.org/x/crypto/argon2"
)

// PasswordParams are the argon2id parameters for new password hashes.
type PasswordParams struct {
	Memory  uint32 // KiB
	Time    uint32 // iterations
	Threads uint8
	KeyLen  uint32 // bytes of derived key
	SaltLen uint32 // bytes of random salt
}

// DefaultPasswordParams are the OWASP Password Storage Cheat Sheet minimum
// for argon2id: 19 MiB of memory, 2 iterations, 1 degree of parallelism.
func DefaultPasswordParams() PasswordParams {
	return PasswordParams{Memory: 19456, Time: 2, Threads: 1, KeyLen: 32, SaltLen: 16}
}

// Upper bounds accepted when parsing a stored hash, so a corrupted or
// hostile record cannot make verification allocate without bound.
const (
	maxMemoryKiB = 1 << 20 // 1 GiB
	maxTime      = 64
	maxKeyLen    = 128
)

var errBadHash = errors.New("accounts: malformed password hash")

func (p PasswordParams) validate() error {
	if p.Memory < 8 || p.Memory > maxMemoryKiB || p.Time < 1 || p.Time > maxTime || p.Threads < 1 ||
		p.KeyLen < 16 || p.KeyLen > maxKeyLen || p.SaltLen < 8 {
		return fmt.Errorf("accounts: invalid argon2id parameters %+v", p)
	}
	return nil
}

// hashPassword returns a PHC string: $argon2id$v=19$m=..,t=..,p=..$salt$hash
// (unpadded standard base64, as the reference implementation writes it).
func hashPassword(rnd io.Reader, p PasswordParams, password string) (string, error) {
	salt := make([]byte, p.SaltLen)
	if _, err := io.ReadFull(rnd, salt); err != nil {
		return "", fmt.Errorf("accounts: read salt: %w", err)
	}
	key := argon2.IDKey([]byte(password), salt, p.Time, p.Memory, p.Threads, p.KeyLen)
	enc := base64.RawStdEncoding
	return fmt.Sprintf("$argon2id$v=%d$m=%d,t=%d,p=%d$%s$%s", argon2.Version, p.Memory, p.Time, p.Threads,
		enc.EncodeToString(salt), enc.EncodeToString(key)), nil
}

// verifyPassword reports whether password matches the PHC string, and the
// parameters the hash was made with.
func verifyPassword(phc, password string) (bool, PasswordParams, error) {
	parts := strings.Split(phc, "$")
	// "", "argon2id", "v=19", "m=..,t=..,p=..", salt, hash
	if len(parts) != 6 || parts[0] != "" || parts[1] != "argon2id" || parts[2] != "v="+strconv.Itoa(argon2.Version) {
		return false, PasswordParams{}, errBadHash
	}
	var p PasswordParams
	var threads uint32
	if _, err := fmt.Sscanf(parts[3], "m=%d,t=%d,p=%d", &p.Memory, &p.Time, &threads); err != nil || threads == 0 || threads > 255 {
		return false, PasswordParams{}, errBadHash
	}
	p.Threads = uint8(threads)
	enc := base64.RawStdEncoding
	salt, err := enc.DecodeString(parts[4])
	if err != nil {
		return false, PasswordParams{}, errBadHash
	}
	want, err := enc.DecodeString(parts[5])
	if err != nil {
		return false, PasswordParams{}, errBadHash
	}
	p.SaltLen, p.KeyLen = uint32(len(salt)), uint32(len(want))
	if p.validate() != nil {
		return false, PasswordParams{}, errBadHash
	}
	got := argon2.IDKey([]byte(password), salt, p.Time, p.Memory, p.Threads, p.KeyLen)
	return subtle.ConstantTimeCompare(got, want) == 1, p, nil
}
