package content

import (
	"bytes"
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/provenant/provenant/origin/internal/anchor"
	"github.com/provenant/provenant/origin/internal/content/counters"
	"github.com/provenant/provenant/origin/internal/ids"
	"github.com/provenant/provenant/origin/internal/store"
	"github.com/provenant/provenant/shared/record"
	"github.com/provenant/provenant/shared/wire"
)

// Filter selects records in List and PublicSearch. Zero fields select
// everything.
type Filter struct {
	OriginType       string
	BlockchainStatus string
	// Status is "active" or "revoked" (List only).
	Status string
	// SHA256 matches the signed file's hash, or (List only: the owner's
	// own records) the original upload's.
	SHA256 string
	// OrgName matches the signer's organisation, case-insensitively
	// (PublicSearch only).
	OrgName string
	// From and To bound created_at: From <= created_at < To.
	From, To time.Time
	owner    string
	// signedOnly restricts SHA256 to the signed file's hash: the original
	// upload's hash is private to the record's owner.
	signedOnly bool
}

func (f Filter) match(r *Record) bool {
	switch {
	case f.OriginType != "" && r.OriginType != f.OriginType,
		f.BlockchainStatus != "" && r.BlockchainStatus != f.BlockchainStatus,
		f.Status != "" && r.Status != f.Status,
		f.SHA256 != "" && r.SHA256 != f.SHA256 && (f.signedOnly || r.OriginalSHA256 != f.SHA256),
		f.OrgName != "" && !strings.EqualFold(r.Signer.OrgName, f.OrgName),
		f.owner != "" && r.Owner != f.owner,
		!f.From.IsZero() && r.CreatedAt.Before(f.From),
		!f.To.IsZero() && !r.CreatedAt.Before(f.To):
		return false
	}
	return true
}

// MaxScanPerPage bounds the index entries one page examines when filters
// reject most records; the page then comes back short with a cursor.
const MaxScanPerPage = 5000

// scanIndex walks index keys under prefix (each ending in "/<id>") from
// cursor, loads the records, keeps those f matches, and stops at limit
// matches or MaxScanPerPage entries. Cursors are base64url of the last
// examined key's suffix and stay valid across inserts.
func scanIndex(tx store.Txn, prefix []byte, start []byte, cursor string, limit int, f Filter, stopAfter func(*Record) bool) ([]*Record, string, error) {
	seek := start
	if cursor != "" {
		suffix, err := base64.RawURLEncoding.DecodeString(cursor)
		if err != nil || len(suffix) == 0 {
			return nil, "", store.ErrBadCursor
		}
		seek = append(append(bytes.Clone(prefix), suffix...), 0)
	}
	var out []*Record
	var last []byte
	next := ""
	n := 0
	err := tx.Scan(prefix, seek, func(k, _ []byte) error {
		if len(out) == limit || n == MaxScanPerPage {
			next = base64.RawURLEncoding.EncodeToString(last[len(prefix):])
			return store.ErrStopIteration
		}
		n++
		last = k
		id := string(k[bytes.LastIndexByte(k, '/')+1:])
		r, err := getRecord(tx, id)
		if errors.Is(err, ErrNotFound) {
			return nil
		}
		if err != nil {
			return err
		}
		if stopAfter != nil && stopAfter(r) {
			last = nil
			return store.ErrStopIteration
		}
		if f.match(r) {
			out = append(out, r)
		}
		return nil
	})
	if err != nil {
		return nil, "", err
	}
	return out, next, nil
}

func timeStart(prefix []byte, from time.Time) []byte {
	if from.IsZero() {
		return nil
	}
	return append(bytes.Clone(prefix), fmt.Sprintf("%016x", uint64(from.UnixNano()))...)
}

func pastTo(f Filter) func(*Record) bool {
	if f.To.IsZero() {
		return nil
	}
	return func(r *Record) bool { return !r.CreatedAt.Before(f.To) }
}

// List returns one page of owner's records in creation order, filtered.
// A SHA-256 filter uses the hash index instead of the owner's list.
func (s *Service) List(ctx context.Context, owner, cursor string, limit int, f Filter) (store.Page[*Record], error) {
	var p store.Page[*Record]
	err := s.cfg.Store.View(ctx, func(tx store.Txn) error {
		var err error
		if f.SHA256 != "" {
			f.owner = owner
			p.Items, p.Next, err = scanIndex(tx, shaPrefix(f.SHA256), nil, cursor, limit, f, nil)
			return err
		}
		pre := ownerPrefix(owner)
		p.Items, p.Next, err = scanIndex(tx, pre, timeStart(pre, f.From), cursor, limit, f, pastTo(f))
		return err
	})
	if err != nil {
		return store.Page[*Record]{}, fmt.Errorf("content: list: %w", err)
	}
	return p, nil
}

// Get returns owner's record id, or ErrNotFound (also for another
// account's record).
func (s *Service) Get(ctx context.Context, owner, id string) (*Record, error) {
	r, err := s.Find(ctx, id)
	if err != nil {
		return nil, err
	}
	if r.Owner != owner {
		return nil, ErrNotFound
	}
	return r, nil
}

// Find returns record id of any account, for the public views of a
// record (certificate, receipt, badge), or ErrNotFound. Callers must not
// expose its private fields (Record.Public is what may be shown).
func (s *Service) Find(ctx context.Context, id string) (*Record, error) {
	if !ids.IsUUID(id) {
		return nil, ErrNotFound
	}
	var r *Record
	err := s.cfg.Store.View(ctx, func(tx store.Txn) (err error) {
		r, err = getRecord(tx, id)
		return err
	})
	if errors.Is(err, ErrNotFound) {
		return nil, ErrNotFound
	}
	if err != nil {
		return nil, fmt.Errorf("content: get: %w", err)
	}
	return r, nil
}

// Detail is a record with its current anchoring state.
type Detail struct {
	Record *Record
	Anchor anchor.State
	// Network is the chain the service anchors on (ChainConfig.Network).
	Network *wire.Network
}

// GetDetail returns owner's record and its anchoring state (the Merkle
// proof once anchored).
func (s *Service) GetDetail(ctx context.Context, owner, id string) (Detail, error) {
	r, err := s.Get(ctx, owner, id)
	if err != nil {
		return Detail{}, err
	}
	return Detail{Record: r, Anchor: s.AnchorState(ctx, r), Network: s.cfg.Chain.Network}, nil
}

// AnchorState returns r's anchoring state as the proof source reports
// it (the Merkle proof once anchored); a state that cannot be read, or a
// stored signature that cannot be, is anchor.Unavailable (logged), never
// pending.
func (s *Service) AnchorState(ctx context.Context, r *Record) anchor.State {
	sg, err := r.Signed()
	if err != nil {
		return anchor.State{Outcome: anchor.Unavailable, Detail: "unavailable: stored signature unreadable"}
	}
	st, err := s.cfg.Chain.Proofs.AnchorState(ctx, r.ID, anchor.Hash(sg.LeafHash()))
	if err != nil {
		s.log.Warn("anchor state unavailable", "record_id", r.ID, "err", err)
		return anchor.State{Outcome: anchor.Unavailable, Detail: "unavailable: the anchoring state could not be read"}
	}
	return st
}

// Certificate returns the public certificate of record id (any owner):
// the spec's summary fields, the signed canonical bytes and the signature,
// and the Merkle inclusion once anchored; revoked reports revocation.
func (s *Service) Certificate(ctx context.Context, id string) (wire.Certificate, *Record, error) {
	r, err := s.Find(ctx, id)
	if err != nil {
		return wire.Certificate{}, nil, err
	}
	sg, err := r.Signed()
	if err != nil {
		return wire.Certificate{}, nil, err
	}
	c := record.Certificate{Signed: sg}
	c.Anchor = s.AnchorState(ctx, r).Anchor()
	w, err := c.Wire()
	if err != nil {
		return wire.Certificate{}, nil, fmt.Errorf("content: certificate %s: %w", id, err)
	}
	w.Network = s.cfg.Chain.Network
	return w, r, nil
}

// PublicSearch pages through the public registry (every account's
// records, revoked ones included and marked), by sha256, org_name,
// origin_type and date range. A sha256 filter uses the hash index, an
// org_name filter the organisation index, otherwise the time index.
// sha256 matches only the signed file's hash, never the unwatermarked
// original's, which only its owner can search (List).
func (s *Service) PublicSearch(ctx context.Context, cursor string, limit int, f Filter) (store.Page[PublicRecord], error) {
	f.Status, f.owner, f.signedOnly = "", "", true
	var p store.Page[PublicRecord]
	var rs []*Record
	err := s.cfg.Store.View(ctx, func(tx store.Txn) error {
		var err error
		switch {
		case f.SHA256 != "":
			rs, p.Next, err = scanIndex(tx, shaPrefix(f.SHA256), nil, cursor, limit, f, nil)
		case f.OrgName != "":
			pre := orgPrefix(f.OrgName)
			rs, p.Next, err = scanIndex(tx, pre, timeStart(pre, f.From), cursor, limit, f, pastTo(f))
		default:
			pre := []byte(pfxTime)
			rs, p.Next, err = scanIndex(tx, pre, timeStart(pre, f.From), cursor, limit, f, pastTo(f))
		}
		return err
	})
	if err != nil {
		return store.Page[PublicRecord]{}, fmt.Errorf("content: public search: %w", err)
	}
	s.Identify(ctx, rs...)
	for _, r := range rs {
		p.Items = append(p.Items, r.Public())
	}
	return p, nil
}

// EachOrgRecord calls fn with each record signed under org (matched
// case-insensitively, as PublicSearch does), oldest first, reading at
// most max entries of the organisation index; truncated reports that more
// were left. fn runs inside a read transaction: it must not call the
// Service. It may keep the records it is given.
func (s *Service) EachOrgRecord(ctx context.Context, org string, max int, fn func(*Record)) (truncated bool, err error) {
	n := 0
	err = s.cfg.Store.View(ctx, func(tx store.Txn) error {
		return tx.Scan(orgPrefix(org), nil, func(k, _ []byte) error {
			if n == max {
				truncated = true
				return store.ErrStopIteration
			}
			n++
			r, err := getRecord(tx, string(k[bytes.LastIndexByte(k, '/')+1:]))
			// An index entry whose record is gone counts for nothing; a
			// name with a '/' can share another's prefix, hence EqualFold.
			if err != nil || !strings.EqualFold(r.Signer.OrgName, org) {
				return nil
			}
			fn(r)
			return nil
		})
	})
	if err != nil {
		return false, fmt.Errorf("content: records of organisation: %w", err)
	}
	return truncated, nil
}

// Stats are the dashboard counters of one account.
type Stats struct {
	TotalSigned        uint64
	TotalVerified      uint64
	BlockchainAnchored uint64
	PendingBatch       uint64
	Revoked            uint64
	Recent             []*Record
	// Daily is the last counters.DailyDays UTC days, oldest first, today
	// last.
	Daily []counters.DayCount
}

// RecentLimit is the number of records Stats returns.
const RecentLimit = 10

// Stats returns owner's counters, kept transactionally by sign, register,
// verify, revoke and BatchAnchored (no scan), and the newest records.
func (s *Service) Stats(ctx context.Context, owner string) (Stats, error) {
	var st Stats
	err := s.cfg.Store.View(ctx, func(tx store.Txn) error {
		c, err := counters.Read(tx, owner)
		if err != nil {
			return err
		}
		v, err := counters.ReadVerified(tx, owner)
		if err != nil {
			return err
		}
		st = Stats{TotalSigned: c.Signed, TotalVerified: v, BlockchainAnchored: c.Anchored,
			PendingBatch: c.Signed - min(c.Signed, c.Anchored), Revoked: c.Revoked}
		if st.Daily, err = counters.ReadDaily(tx, owner, s.now()); err != nil {
			return err
		}
		st.Recent, _, err = scanIndex(tx, recentPrefix(owner), nil, "", RecentLimit, Filter{}, nil)
		return err
	})
	if err != nil {
		return Stats{}, fmt.Errorf("content: stats: %w", err)
	}
	return st, nil
}
