package content

// The kept files of signed records: the signed output (Record.Blob) and
// a small preview of a signed picture (Record.Thumbnail), both in the
// blob store.

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"image"
	"image/jpeg"

	xdraw "golang.org/x/image/draw"

	"github.com/provenant/provenant/origin/internal/blobs"
)

// ThumbnailMaxSide is the longer side, in pixels, of the preview kept
// with a signed picture: enough for a list row and a record page at twice
// the density of a phone screen, about 10–25 kB as JPEG.
const ThumbnailMaxSide = 320

// thumbnailQuality is the JPEG quality of the preview. It is a picture
// to recognise, not the file: a lower quality keeps it small.
const thumbnailQuality = 78

// ErrNoThumbnail: the record has no preview (a registered record, a
// video, or one signed before previews were kept).
var ErrNoThumbnail = errors.New("content: no thumbnail kept for this record")

// keepWithThumbnail stores the signed file under sum and, beside it in the
// same blob store, a small JPEG preview of pic, whose key it records in
// r.Thumbnail. The preview is a convenience for the owner's lists: if it
// cannot be made or stored the record goes on without one (logged); the
// signed file itself must be stored.
func (s *Service) keepWithThumbnail(ctx context.Context, r *Record, sum string, file []byte, pic image.Image) error {
	if err := s.cfg.Outputs.Blobs.Put(ctx, sum, file); err != nil {
		return err
	}
	th, err := Thumbnail(pic)
	if err != nil {
		s.log.Warn("content: thumbnail not made", "err", err)
		return nil
	}
	ts := sha256.Sum256(th)
	key := hex.EncodeToString(ts[:])
	if err := s.cfg.Outputs.Blobs.Put(ctx, key, th); err != nil {
		s.log.Warn("content: thumbnail not kept", "err", err)
		return nil
	}
	r.Thumbnail = key
	return nil
}

// Thumbnail returns a JPEG preview of pic whose longer side is at most
// ThumbnailMaxSide pixels (a smaller picture keeps its size).
func Thumbnail(pic image.Image) ([]byte, error) {
	b := pic.Bounds()
	if b.Dx() <= 0 || b.Dy() <= 0 {
		return nil, fmt.Errorf("content: thumbnail of an empty picture")
	}
	w, h := b.Dx(), b.Dy()
	if long := max(w, h); long > ThumbnailMaxSide {
		w = max(1, w*ThumbnailMaxSide/long)
		h = max(1, h*ThumbnailMaxSide/long)
	}
	dst := image.NewRGBA(image.Rect(0, 0, w, h))
	xdraw.BiLinear.Scale(dst, dst.Bounds(), pic, b, xdraw.Src, nil)
	var buf bytes.Buffer
	if err := jpeg.Encode(&buf, dst, &jpeg.Options{Quality: thumbnailQuality}); err != nil {
		return nil, fmt.Errorf("content: thumbnail: %w", err)
	}
	return buf.Bytes(), nil
}

// OpenThumbnail opens the preview of owner's record id (the caller
// closes it): ErrNoThumbnail when there is none.
func (s *Service) OpenThumbnail(ctx context.Context, owner, id string) (*Record, blobs.Blob, error) {
	return s.openKept(ctx, owner, id, "thumbnail", (*Record).thumbnailKey, ErrNoThumbnail, ErrNoThumbnail)
}

// File returns owner's record id and its signed file, open for reading
// (the caller closes it). Errors: ErrNotFound (no such record of owner),
// ErrFileNotKept.
func (s *Service) File(ctx context.Context, owner, id string) (*Record, blobs.Blob, error) {
	return s.openKept(ctx, owner, id, "blob", (*Record).blobKey, ErrFileNotKept, nil)
}

func (r *Record) blobKey() string      { return r.Blob }
func (r *Record) thumbnailKey() string { return r.Thumbnail }

// openKept opens the blob that key names for owner's record id: none when
// it names none or no files are kept; a named blob that is missing is an
// error wrapping missing (nil: blobs.ErrNotFound).
func (s *Service) openKept(ctx context.Context, owner, id, what string, key func(*Record) string, none, missing error) (*Record, blobs.Blob, error) {
	r, err := s.Get(ctx, owner, id)
	if err != nil {
		return nil, nil, err
	}
	k := key(r)
	if k == "" || s.cfg.Outputs.Blobs == nil {
		return nil, nil, none
	}
	b, err := s.cfg.Outputs.Blobs.Open(ctx, k)
	if errors.Is(err, blobs.ErrNotFound) {
		if missing == nil {
			missing = err
		}
		return nil, nil, fmt.Errorf("content: record %s names %s %s, which is missing: %w", id, what, k, missing)
	}
	if err != nil {
		return nil, nil, err
	}
	return r, b, nil
}

// OpenBlob opens the kept signed file whose SHA-256 is sum (the caller
// closes it): blobs.ErrNotFound, or ErrFileNotKept when no files are kept.
func (s *Service) OpenBlob(ctx context.Context, sum string) (blobs.Blob, error) {
	if s.cfg.Outputs.Blobs == nil {
		return nil, ErrFileNotKept
	}
	return s.cfg.Outputs.Blobs.Open(ctx, sum)
}

// ThumbnailURL is the path of the record's preview, "" when it has none.
func (r *Record) ThumbnailURL() string {
	if r.Thumbnail == "" {
		return ""
	}
	return "/api/v1/content-records/" + r.ID + "/thumbnail"
}
