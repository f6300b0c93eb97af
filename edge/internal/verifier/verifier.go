// Package verifier runs the verification core at the edge: the facts of a
// file (analyze) and the verdict over the origin's lookup answer (decide),
// either in the same WebAssembly module the browser runs, inside wazero
// ([Wasm]), or compiled into the edge ([Native]). Both give the answer the
// origin's POST /api/v1/verify gives, because both end in
// shared/lookup.Decide.
package verifier

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/provenant/provenant/shared/clock"
	"github.com/provenant/provenant/shared/facts"
	"github.com/provenant/provenant/shared/imagex"
	"github.com/provenant/provenant/shared/limits"
	"github.com/provenant/provenant/shared/lookup"
	"github.com/provenant/provenant/shared/wire"
)

// Engine computes facts and verdicts. Implementations are safe for
// concurrent use.
type Engine interface {
	// Analyze returns the facts of file (shared/facts.Analyze) and its
	// local-signature probe (nil when none). A file the core refuses is an
	// *AnalyzeError; any other error means the engine itself failed.
	Analyze(ctx context.Context, file []byte) (Analysis, error)
	// Decide checks every candidate of the lookup answer (JSON of
	// wire.LookupResponse) and returns the verify response for a file with
	// facts a.
	Decide(ctx context.Context, a Analysis, lookupJSON []byte) (wire.VerifyResponse, error)
	// ReadC2PA reads the C2PA manifest of a file that Analyze left unread
	// (Analysis.C2PAUnread): the facts' c2pa, nil when the file carries
	// none after all. Any error means the engine itself failed.
	ReadC2PA(ctx context.Context, file []byte) (*wire.C2PAFacts, error)
	// CanDecide reports whether Decide, and ReadC2PA when c2pa is true,
	// run now. A caller that would decide without Analyze (the exact
	// probe of the edge's verify) asks first: Analyze is where a file the
	// engine cannot finish is refused, and the origin then answers it.
	CanDecide(c2pa bool) bool
	// Name is "wasm" or "native", with the module's hash for wasm.
	Name() string
}

// Analysis is what Analyze found: the facts as the lookup takes them, and
// the probe decide needs to tell a watermark copy from the signed picture.
type Analysis struct {
	Facts wire.Facts
	Local *wire.Probe
	// C2PAUnread says the file may carry a C2PA manifest that Analyze did
	// not read (Facts.C2PA is nil): the lookup is asked for the service's
	// own reading of it (wire.LookupRequest.C2PAManifest), which answers
	// the verdict's c2pa member for a file that is byte for byte the
	// service's signed output; for any other file the caller reads it
	// with ReadC2PA. The C2PA module is then known to be ready.
	C2PAUnread bool
}

// Refusal codes of an *AnalyzeError, as the module names them.
const (
	CodeUnsupported  = "unsupported_format"
	CodeTooLarge     = "image_too_large"
	CodeInvalidImage = "invalid_image"
	CodeBadInput     = "bad_input"
	// CodeNoC2PAModule: the file may carry a C2PA manifest and the engine
	// has no C2PA module to read it (WasmConfig.C2PAModule).
	CodeNoC2PAModule = "c2pa_module_missing"
)

// AnalyzeError is the core's refusal of a file (not an image, too large,
// corrupt). The origin answers such files itself (a registered file that
// is not an image still verifies by its hash there), so the edge forwards
// them.
type AnalyzeError struct {
	Code   string
	Detail string
}

func (e *AnalyzeError) Error() string { return "verifier: file refused: " + e.Code + ": " + e.Detail }

// ErrEngine is wrapped by errors of the engine itself: a module instance
// that trapped, ran out of memory or overran its deadline. The instance
// was discarded; the next call gets a fresh one.
var ErrEngine = errors.New("verifier: engine failed")

// Native is the core compiled into the edge: no sandbox, no copy.
type Native struct {
	Limits limits.Limits
	// Clock judges the validity of C2PA credentials; nil is the system
	// clock.
	Clock clock.Clock
}

// Name implements Engine.
func (Native) Name() string { return "native" }

// CanDecide implements Engine: the core is compiled in.
func (Native) CanDecide(bool) bool { return true }

// Analyze implements Engine.
func (n Native) Analyze(_ context.Context, file []byte) (Analysis, error) {
	clk := n.Clock
	if clk == nil {
		clk = clock.System{}
	}
	f, err := facts.Analyze(file, n.Limits, clk.Now())
	switch {
	case errors.Is(err, imagex.ErrUnsupportedFormat):
		return Analysis{}, &AnalyzeError{Code: CodeUnsupported, Detail: err.Error()}
	case errors.Is(err, imagex.ErrTooLarge), errors.Is(err, imagex.ErrTooManyPixels):
		return Analysis{}, &AnalyzeError{Code: CodeTooLarge, Detail: err.Error()}
	case err != nil:
		return Analysis{}, &AnalyzeError{Code: CodeInvalidImage, Detail: err.Error()}
	}
	return Analysis{Facts: f.Wire(), Local: f.WireProbe()}, nil
}

// ReadC2PA implements Engine. Native's Analyze reads every manifest
// itself, so this is only the same reading again.
func (n Native) ReadC2PA(_ context.Context, file []byte) (*wire.C2PAFacts, error) {
	clk := n.Clock
	if clk == nil {
		clk = clock.System{}
	}
	return facts.C2PA(file, clk.Now()), nil
}

// Decide implements Engine.
func (n Native) Decide(_ context.Context, a Analysis, lookupJSON []byte) (wire.VerifyResponse, error) {
	var lr wire.LookupResponse
	if err := json.Unmarshal(lookupJSON, &lr); err != nil {
		return wire.VerifyResponse{}, fmt.Errorf("verifier: lookup answer: %w", err)
	}
	f, err := facts.FromWire(a.Facts)
	if err != nil {
		return wire.VerifyResponse{}, fmt.Errorf("verifier: facts: %w", err)
	}
	if f.Local, err = facts.ProbeFromWire(a.Local); err != nil {
		return wire.VerifyResponse{}, fmt.Errorf("verifier: probe: %w", err)
	}
	return lookup.Decide(f, lr, n.Limits).Response, nil
}
