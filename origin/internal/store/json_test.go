package store

import (
	"context"
	"encoding/json"
	"errors"
	"math"
	"strings"
	"testing"
)

type jsonRec struct {
	Name string `json:"name"`
	N    int    `json:"n"`
}

func TestGetPutJSON(t *testing.T) {
	st := openTest(t, t.TempDir())
	defer st.Close()
	ctx := context.Background()
	want := jsonRec{Name: "a", N: 7}
	err := st.Update(ctx, func(tx Txn) error {
		if err := PutJSON(tx, []byte("j/rec"), want); err != nil {
			return err
		}
		return tx.Set([]byte("j/bad"), []byte("{not json"))
	})
	if err != nil {
		t.Fatalf("Update: %v", err)
	}
	err = st.View(ctx, func(tx Txn) error {
		raw, err := tx.Get([]byte("j/rec"))
		if err != nil || string(raw) != `{"name":"a","n":7}` {
			t.Errorf("stored bytes = %q, %v; want %q", raw, err, `{"name":"a","n":7}`)
		}
		got, err := GetJSON[jsonRec](tx, []byte("j/rec"))
		if err != nil || got != want {
			t.Errorf("GetJSON(j/rec) = %+v, %v; want %+v, nil", got, err, want)
		}
		got, err = GetJSON[jsonRec](tx, []byte("j/missing"))
		if !errors.Is(err, ErrNotFound) || got != (jsonRec{}) {
			t.Errorf("GetJSON(j/missing) = %+v, %v; want zero, ErrNotFound", got, err)
		}
		got, err = GetJSON[jsonRec](tx, []byte("j/bad"))
		var syntaxErr *json.SyntaxError
		if !errors.As(err, &syntaxErr) || errors.Is(err, ErrNotFound) || got != (jsonRec{}) {
			t.Errorf("GetJSON(j/bad) = %+v, %v; want zero and a wrapped *json.SyntaxError", got, err)
		}
		errMine := errors.New("mine: not found")
		if got, err := GetJSONOr[jsonRec](tx, []byte("j/rec"), errMine, "mine: rec"); err != nil || got != want {
			t.Errorf("GetJSONOr(j/rec) = %+v, %v; want %+v, nil", got, err, want)
		}
		if _, err := GetJSONOr[jsonRec](tx, []byte("j/missing"), errMine, "mine: missing"); err != errMine {
			t.Errorf("GetJSONOr(j/missing) = %v, want the caller's sentinel itself", err)
		}
		_, err = GetJSONOr[jsonRec](tx, []byte("j/bad"), errMine, "mine: bad")
		if !errors.As(err, &syntaxErr) || errors.Is(err, errMine) || !strings.HasPrefix(err.Error(), "mine: bad: ") {
			t.Errorf("GetJSONOr(j/bad) = %v, want a *json.SyntaxError wrapped with what", err)
		}
		return nil
	})
	if err != nil {
		t.Fatalf("View: %v", err)
	}
}

func TestPutJSONEncodeError(t *testing.T) {
	st := openTest(t, t.TempDir())
	defer st.Close()
	ctx := context.Background()
	err := st.Update(ctx, func(tx Txn) error {
		return PutJSON(tx, []byte("j/nan"), math.NaN())
	})
	var unsupported *json.UnsupportedValueError
	if !errors.As(err, &unsupported) {
		t.Fatalf("PutJSON(NaN) = %v, want a wrapped *json.UnsupportedValueError", err)
	}
	err = st.View(ctx, func(tx Txn) error {
		if _, err := tx.Get([]byte("j/nan")); !errors.Is(err, ErrNotFound) {
			t.Errorf("Get(j/nan) after failed PutJSON = %v, want ErrNotFound", err)
		}
		return nil
	})
	if err != nil {
		t.Fatalf("View: %v", err)
	}
}
