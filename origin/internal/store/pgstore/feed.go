package pgstore

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"
	"github.com/provenant/provenant/origin/internal/store"
)

var _ store.ChangeFeed = (*Store)(nil)

// Changes implements store.ChangeFeed. Every row carries the id of the
// transaction that last wrote it (column x). The cursor is the xmin of a
// snapshot: every transaction with a smaller id had ended when it was
// taken, so a row not yet visible then carries an id ≥ xmin and is read by
// the next call, which asks for x ≥ cursor (rows of transactions still
// running are read again: callers are idempotent). One REPEATABLE READ
// transaction gives the cursor and the rows the same snapshot; the index
// on x makes a call cost the rows written since, not the table.
func (s *Store) Changes(ctx context.Context, prefix, since []byte, fn func(key, value []byte) error) ([]byte, error) {
	tx, err := s.pool.BeginTx(ctx, pgx.TxOptions{IsoLevel: pgx.RepeatableRead, AccessMode: pgx.ReadOnly})
	if err != nil {
		return nil, fmt.Errorf("pgstore: changes: %w", err)
	}
	defer func() { _ = tx.Rollback(ctx) }()
	var xmin uint64
	if err := tx.QueryRow(ctx, `SELECT pg_snapshot_xmin(pg_current_snapshot())::text::bigint`).Scan(&xmin); err != nil {
		return nil, fmt.Errorf("pgstore: changes: %w", err)
	}
	next := binary.BigEndian.AppendUint64(nil, xmin)
	if since == nil {
		return next, nil
	}
	if len(since) != 8 {
		return nil, errors.New("pgstore: changes: malformed cursor")
	}
	from := append([]byte{}, prefix...)
	end := prefixEnd(prefix)
	if end == nil {
		return nil, errors.New("pgstore: changes: prefix has no upper bound")
	}
	rows, err := tx.Query(ctx, s.q.changes, fmt.Sprint(binary.BigEndian.Uint64(since)), from, end)
	if err != nil {
		return nil, fmt.Errorf("pgstore: changes: %w", err)
	}
	type row struct{ k, v []byte }
	var got []row
	for rows.Next() {
		var r row
		if err := rows.Scan(&r.k, &r.v); err != nil {
			rows.Close()
			return nil, fmt.Errorf("pgstore: changes: %w", err)
		}
		got = append(got, r)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("pgstore: changes: %w", err)
	}
	for _, r := range got {
		if err := fn(r.k, r.v); err != nil {
			return nil, err
		}
	}
	return next, nil
}
