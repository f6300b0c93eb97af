package verifier

import (
	"context"
	"errors"
	"sync/atomic"

	"github.com/provenant/provenant/shared/wire"
)

// ErrNotReady means the engine is still starting (the module is being
// compiled); the caller should let the origin verify instead. It does not
// wrap ErrEngine: nothing failed.
var ErrNotReady = errors.New("verifier: the engine is still starting")

// Deferred is an Engine that becomes usable later: the edge listens at
// once and compiles its module in the background (tens of seconds without
// a compile cache), and until [Deferred.Set] every call answers
// ErrNotReady. It is safe for concurrent use; once set, the engine never
// changes (a module swap happens inside it).
type Deferred struct {
	e atomic.Pointer[Engine]
}

// Set makes e the engine of every later call. Only the first Set counts.
func (d *Deferred) Set(e Engine) { d.e.CompareAndSwap(nil, &e) }

// Ready reports whether Set was called.
func (d *Deferred) Ready() bool { return d.e.Load() != nil }

func (d *Deferred) engine() Engine {
	if p := d.e.Load(); p != nil {
		return *p
	}
	return nil
}

// Name implements Engine: the engine's name, or "starting".
func (d *Deferred) Name() string {
	if e := d.engine(); e != nil {
		return e.Name()
	}
	return "starting"
}

// CanDecide implements Engine; false before Set.
func (d *Deferred) CanDecide(c2pa bool) bool {
	e := d.engine()
	return e != nil && e.CanDecide(c2pa)
}

// Analyze implements Engine; ErrNotReady before Set.
func (d *Deferred) Analyze(ctx context.Context, file []byte) (Analysis, error) {
	if e := d.engine(); e != nil {
		return e.Analyze(ctx, file)
	}
	return Analysis{}, ErrNotReady
}

// Decide implements Engine; ErrNotReady before Set.
func (d *Deferred) Decide(ctx context.Context, a Analysis, lookupJSON []byte) (wire.VerifyResponse, error) {
	if e := d.engine(); e != nil {
		return e.Decide(ctx, a, lookupJSON)
	}
	return wire.VerifyResponse{}, ErrNotReady
}

// ReadC2PA implements Engine; ErrNotReady before Set.
func (d *Deferred) ReadC2PA(ctx context.Context, file []byte) (*wire.C2PAFacts, error) {
	if e := d.engine(); e != nil {
		return e.ReadC2PA(ctx, file)
	}
	return nil, ErrNotReady
}

// Swap replaces the module of the engine set (which must have one, as
// [Wasm] does); ErrNotReady before Set.
func (d *Deferred) Swap(ctx context.Context, module []byte) (string, error) {
	e := d.engine()
	if e == nil {
		return "", ErrNotReady
	}
	s, ok := e.(interface {
		Swap(context.Context, []byte) (string, error)
	})
	if !ok {
		return "", errors.New("verifier: the engine has no module to swap")
	}
	return s.Swap(ctx, module)
}
