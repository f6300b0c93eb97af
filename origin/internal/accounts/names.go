package accounts

import (
	"context"
	"errors"
	"fmt"

	"github.com/provenant/provenant/origin/internal/store"
)

// OrgNameHolders returns how many accounts have an organisation name that
// folds like name (validate.FoldName: case, width and Latin look-alikes).
// More than one means the name alone does not tell the organisations
// apart, so the display adds the signing key's fingerprint. It stops
// counting at 2.
func (s *Service) OrgNameHolders(ctx context.Context, name string) (int, error) {
	n := 0
	err := s.cfg.Store.View(ctx, func(tx store.Txn) error {
		n = 0
		return tx.Scan(orgNamePrefix(name), nil, func(_, _ []byte) error {
			n++
			if n == 2 {
				return store.ErrStopIteration
			}
			return nil
		})
	})
	if err != nil {
		return 0, fmt.Errorf("accounts: org name holders: %w", err)
	}
	return n, nil
}

// IndexOrgNames adds the organisation-name index entry of every account
// stored before the index existed (and of any it misses); it is idempotent
// and the server runs it once at start. Names stored before the name rules
// are indexed as they are: they keep loading and are only made safe when
// displayed (validate.SafeDisplay).
func (s *Service) IndexOrgNames(ctx context.Context) (added int, err error) {
	var missing [][]byte
	err = s.cfg.Store.View(ctx, func(tx store.Txn) error {
		return tx.Scan([]byte("acct/u/"), nil, func(k, _ []byte) error {
			r, err := store.GetJSON[record](tx, k)
			if err != nil {
				return err
			}
			key := orgNameKey(r.OrgName, r.ID)
			if _, err := tx.Get(key); err == nil {
				return nil
			} else if !errors.Is(err, store.ErrNotFound) {
				return err
			}
			missing = append(missing, key)
			return nil
		})
	})
	if err != nil {
		return 0, fmt.Errorf("accounts: index org names: %w", err)
	}
	for start := 0; start < len(missing); start += 500 {
		chunk := missing[start:min(start+500, len(missing))]
		if err := s.cfg.Store.Update(ctx, func(tx store.Txn) error {
			for _, k := range chunk {
				if err := tx.Set(k, nil); err != nil {
					return err
				}
			}
			return nil
		}); err != nil {
			return added, fmt.Errorf("accounts: index org names: %w", err)
		}
		added += len(chunk)
	}
	return added, nil
}
