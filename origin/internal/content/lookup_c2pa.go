package content

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"

	"github.com/provenant/provenant/origin/internal/blobs"
	"github.com/provenant/provenant/shared/c2pa/c2pafacts"
	"github.com/provenant/provenant/shared/facts"
	"github.com/provenant/provenant/shared/wire"
)

// LookupC2PA completes the lookup answer res for a client that says the
// file may carry a C2PA manifest it did not read (wire.LookupRequest's
// c2pa_manifest): it sets the origin's CA certificate (c2pa_ca) and, when
// sum is the signed output of a record this service signed and the file
// is kept, the verify response's c2pa member (c2pa) read from the stored
// bytes at this moment, exactly as Verify reads it from an upload of
// those bytes. So a page of this service's own signed pictures needs no
// C2PA reader in the browser. Any other file gets no member: the client
// reads its manifest itself.
func (s *Service) LookupC2PA(ctx context.Context, sum [32]byte, res *wire.LookupResponse) error {
	if res.C2PACA == "" {
		res.C2PACA = s.c2paCA(ctx)
	}
	if s.cfg.Outputs.Blobs == nil {
		return nil
	}
	_, signed, found, err := s.exactFacts(ctx, sum)
	if err != nil || !found || !signed {
		return err
	}
	file, err := s.storedFile(ctx, sum)
	if errors.Is(err, blobs.ErrNotFound) || errors.Is(err, errNotTheFile) {
		s.log.Warn("signed output not kept, C2PA member left to the client", "sha256", hex.EncodeToString(sum[:]), "err", err)
		return nil
	}
	if err != nil {
		return err
	}
	res.C2PA = c2pafacts.Member(facts.C2PA(file, s.cfg.Clock.Now()), res.C2PACA)
	return nil
}

// errNotTheFile: a stored blob whose bytes do not hash to its name.
var errNotTheFile = errors.New("content: the stored file does not hash to its name")

// storedFile reads the kept signed file whose SHA-256 is sum, checking
// that its bytes are that file (at most the upload limit).
func (s *Service) storedFile(ctx context.Context, sum [32]byte) ([]byte, error) {
	b, err := s.cfg.Outputs.Blobs.Open(ctx, hex.EncodeToString(sum[:]))
	if err != nil {
		return nil, err
	}
	defer b.Close()
	if n := b.Size(); n <= 0 || n > s.cfg.Media.Limits.MaxUploadBytes {
		return nil, fmt.Errorf("%w: %d bytes", errNotTheFile, n)
	}
	file := make([]byte, b.Size())
	if _, err := b.ReadAt(file, 0); err != nil && !errors.Is(err, io.EOF) {
		return nil, fmt.Errorf("content: read signed file: %w", err)
	}
	if sha256.Sum256(file) != sum {
		return nil, errNotTheFile
	}
	return file, nil
}
