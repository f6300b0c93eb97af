package content

import (
	"context"
	"errors"
	"log/slog"

	"github.com/provenant/provenant/origin/internal/content/nearindex"
	"github.com/provenant/provenant/origin/internal/content/phindex"
	"github.com/provenant/provenant/origin/internal/content/videos"
	"github.com/provenant/provenant/origin/internal/store"
	"github.com/provenant/provenant/shared/record"
)

// ErrGeometricIndexOff: a sign or register of a picture reached an origin
// that does not hold the geometric index
// (nearindex.Options.WithoutGeometric), which look-before-mark needs.
var ErrGeometricIndexOff = errors.New("content: this origin holds no geometric index and serves verification only")

// nearLayout is where the records keep the indexes a nearindex.Index
// holds in memory.
func nearLayout() nearindex.Layout {
	return nearindex.Layout{Main: pfxPHash, Geo: pfxGeoIndex, Video: videos.FramePrefix, Claims: pfxTime}
}

// LoadNear reads st's near-duplicate indexes of content records into
// memory (nearindex.Load) and returns once they are loaded; a Service
// given it in NearConfig.Index answers its lookups from memory.
func LoadNear(ctx context.Context, st store.Store, log *slog.Logger) (*nearindex.Index, error) {
	return nearindex.Load(ctx, st, nearLayout(), log)
}

// StartNear returns at once the in-memory near-duplicate index of st's
// content records, loading in the background until ctx ends
// (nearindex.Start): until it is loaded, a search that needs it fails
// with nearindex.ErrLoading.
func StartNear(ctx context.Context, st store.Store, log *slog.Logger, opts nearindex.Options) *nearindex.Index {
	return nearindex.Start(ctx, st, nearLayout(), log, opts)
}

// nearCommitted adds a committed record's perceptual hash, and the
// geometric and video frame hashes its transaction kept, to the in-memory
// indexes (once they are loaded, if they are loading).
func (s *Service) nearCommitted(ctx context.Context, rec *record.Record) error {
	n := s.cfg.Near.Index
	if n == nil {
		return nil
	}
	e := nearindex.Entry{ID: rec.ID, Main: rec.PerceptualHash.P64}
	err := s.cfg.Store.View(ctx, func(tx store.Txn) error {
		if n.Geo() != nil {
			gs, err := geoHashes(tx, rec.ID.String())
			if err != nil {
				return err
			}
			for _, h := range gs {
				e.Geo = append(e.Geo, h.P64)
			}
		}
		vs, err := videos.Indexed(tx, rec.ID)
		for _, h := range vs {
			e.Video = append(e.Video, h.P64)
		}
		return err
	})
	if err != nil {
		return err
	}
	n.Add(e)
	return nil
}

// The store indexes of the perceptual hashes and of the geometric hashes
// of mirrors and turns (videoIndex is the video frames'); each answered
// from its in-memory index when the service has one.
func (s *Service) phindex() phindex.Index {
	return s.cfg.Near.index(pfxPHash, (*nearindex.Index).Main)
}

func (s *Service) geoIndex() phindex.Index {
	return s.cfg.Near.index(pfxGeoIndex, (*nearindex.Index).Geo)
}
