package content

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
	if err := s.cfg.Blobs.Put(ctx, sum, file); err != nil {
		return err
	}
	th, err := Thumbnail(pic)
	if err != nil {
		s.log.Warn("content: thumbnail not made", "err", err)
		return nil
	}
	ts := sha256.Sum256(th)
	key := hex.EncodeToString(ts[:])
	if err := s.cfg.Blobs.Put(ctx, key, th); err != nil {
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
	r, err := s.Get(ctx, owner, id)
	if err != nil {
		return nil, nil, err
	}
	if r.Thumbnail == "" || s.cfg.Blobs == nil {
		return nil, nil, ErrNoThumbnail
	}
	b, err := s.cfg.Blobs.Open(ctx, r.Thumbnail)
	if errors.Is(err, blobs.ErrNotFound) {
		return nil, nil, fmt.Errorf("content: record %s names thumbnail %s, which is missing: %w", id, r.Thumbnail, ErrNoThumbnail)
	}
	if err != nil {
		return nil, nil, err
	}
	return r, b, nil
}

// ThumbnailURL is the path of the record's preview, "" when it has none.
func (r *Record) ThumbnailURL() string {
	if r.Thumbnail == "" {
		return ""
	}
	return "/api/v1/content-records/" + r.ID + "/thumbnail"
}
