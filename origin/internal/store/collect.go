package store

import "context"

// Collect reads, in one read transaction of st, one T for each key under
// prefix, in key order: get maps the key to its T, reading what it needs in
// the same transaction. The slice is never nil (an empty listing encodes as
// [] rather than null), and a transaction the store runs again (pgstore
// reads again after a lost connection) starts from an empty slice, so no
// item appears twice. The first error of get or of the scan ends the read
// and is returned unchanged.
func Collect[T any](ctx context.Context, st Store, prefix []byte, get func(tx Txn, key []byte) (T, error)) ([]T, error) {
	out := []T{}
	err := st.View(ctx, func(tx Txn) error {
		out = out[:0]
		return tx.Scan(prefix, nil, func(k, _ []byte) error {
			v, err := get(tx, k)
			if err != nil {
				return err
			}
			out = append(out, v)
			return nil
		})
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}
