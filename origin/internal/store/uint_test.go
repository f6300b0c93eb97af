package store

import (
	"context"
	"testing"
)

// TestGetPutUint64: a counter round-trips as 8 big-endian bytes, a missing
// key reads as 0, and a value of another length is an error, not a number.
func TestGetPutUint64(t *testing.T) {
	st := openTest(t, t.TempDir())
	defer st.Close()
	ctx := context.Background()
	const big = uint64(1)<<63 | 0x0102
	err := st.Update(ctx, func(tx Txn) error {
		if err := PutUint64(tx, []byte("u/n"), big); err != nil {
			return err
		}
		return tx.Set([]byte("u/short"), []byte{1, 2, 3})
	})
	if err != nil {
		t.Fatalf("Update: %v", err)
	}
	err = st.View(ctx, func(tx Txn) error {
		raw, err := tx.Get([]byte("u/n"))
		if err != nil || string(raw) != "\x80\x00\x00\x00\x00\x00\x01\x02" {
			t.Errorf("stored bytes = %q, %v; want 8 big-endian bytes", raw, err)
		}
		if n, err := GetUint64(tx, []byte("u/n")); err != nil || n != big {
			t.Errorf("GetUint64(u/n) = %d, %v; want %d, nil", n, err, big)
		}
		if n, err := GetUint64(tx, []byte("u/missing")); err != nil || n != 0 {
			t.Errorf("GetUint64(u/missing) = %d, %v; want 0, nil", n, err)
		}
		if n, err := GetUint64(tx, []byte("u/short")); err == nil {
			t.Errorf("GetUint64(u/short) = %d, nil; want an error", n)
		}
		return nil
	})
	if err != nil {
		t.Fatalf("View: %v", err)
	}
}
