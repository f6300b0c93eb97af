package verifier

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/tetratelabs/wazero"
	"github.com/tetratelabs/wazero/api"
	"github.com/tetratelabs/wazero/imports/wasi_snapshot_preview1"

	"github.com/provenant/provenant/shared/wire"
)

// pageSize is a WebAssembly page.
const pageSize = 64 << 10

// WasmConfig configures the WebAssembly engine.
type WasmConfig struct {
	// Module is verifier.wasm (the wasm/ package built for wasip1).
	Module []byte
	// C2PAModule is its C2PA module (c2pa.wasm, wasm/c2pa), which reads
	// the C2PA manifest of a file whose analyze says it carries one and
	// decides the manifest's trust. It is compiled in the background once
	// NewWasm has returned (so it adds nothing to the edge's start; until
	// it is ready such files get ErrNotReady) and instantiated only for
	// such files whose manifest the lookup did not answer (ReadC2PA).
	// nil: such files are refused with CodeNoC2PAModule. The edge passes
	// both to the origin.
	C2PAModule []byte
	// CacheDir keeps wazero's compiled code on disk, so that a restart
	// with the same module does not compile it again; "" compiles in
	// memory only.
	CacheDir string
	// Instances bounds the module instances alive at once (each a Go
	// runtime with its own heap); a call waits for a free one.
	Instances int
	// MemoryBytes is the most linear memory one instance may grow to; a
	// call that needs more fails and its instance is discarded.
	MemoryBytes uint64
	// RecycleBytes: an instance whose memory grew past this (a large image
	// went through it) is discarded after its call instead of going back
	// to the pool, so that idle instances hold little memory. 0: never.
	RecycleBytes uint64
	// Deadline, when > 0, bounds each call: wazero then checks for a
	// cancelled context inside the module (WithCloseOnContextDone), which
	// makes every call slower (docs/edge.md has the measured cost).
	Deadline time.Duration
	// ModuleDecode makes the module decode every file itself (analyze_hashed),
	// as before the edge decoded JPEGs natively for a module that exports
	// analyze_decoded (see [Wasm.Analyze]): for comparisons.
	ModuleDecode bool
	// ReadC2PAFirst makes Analyze read every manifest with the C2PA
	// module, as before the lookup answered the service's own signed
	// output's (Analysis.C2PAUnread): for comparisons.
	ReadC2PAFirst bool
	Logger        *slog.Logger
}

// Wasm runs verifier.wasm in wazero: compiled once, a bounded pool of
// instances reused across calls, each with a memory limit; an instance
// that fails is closed, never reused. [Wasm.Swap] replaces the module
// while calls are running. It is safe for concurrent use.
type Wasm struct {
	cfg   WasmConfig
	cache wazero.CompilationCache
	// swap serialises Swap calls.
	swap sync.Mutex
	cur  atomic.Pointer[generation]
	// c2pa is the C2PA module's generation, nil without one or until it
	// is compiled (c2paDone closes then; c2paErr says why it is not); a
	// Swap leaves it as it is (its ABI, the wire C2PA facts, does not
	// change with the verifier module).
	c2pa     atomic.Pointer[generation]
	c2paDone chan struct{}
	c2paErr  error
	// c2paCalls counts the C2PA module's calls (C2PACalls).
	c2paCalls atomic.Int64
}

// ErrOutOfMemory is an engine failure caused by the instance's memory
// limit; it wraps ErrEngine.
var ErrOutOfMemory = fmt.Errorf("%w: the module ran out of memory", ErrEngine)

// ErrDeadline is an engine failure caused by the call deadline; it wraps
// ErrEngine.
var ErrDeadline = fmt.Errorf("%w: the call overran its deadline", ErrEngine)

// NewWasm compiles cfg.Module, smoke-tests it and returns the engine.
func NewWasm(ctx context.Context, cfg WasmConfig) (*Wasm, error) {
	if cfg.Instances <= 0 {
		return nil, errors.New("verifier: Instances must be positive")
	}
	if cfg.MemoryBytes < pageSize || cfg.MemoryBytes > 4<<30 {
		return nil, errors.New("verifier: MemoryBytes must be between 64 KiB and 4 GiB")
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	w := &Wasm{cfg: cfg}
	if cfg.CacheDir != "" {
		c, err := wazero.NewCompilationCacheWithDir(cfg.CacheDir)
		if err != nil {
			return nil, fmt.Errorf("verifier: compilation cache: %w", err)
		}
		w.cache = c
	} else {
		w.cache = wazero.NewCompilationCache()
	}
	g, err := w.load(ctx, cfg.Module)
	if err != nil {
		w.cache.Close(ctx)
		return nil, err
	}
	w.cur.Store(g)
	w.c2paDone = make(chan struct{})
	if cfg.C2PAModule == nil {
		close(w.c2paDone)
		return w, nil
	}
	go func() {
		defer close(w.c2paDone)
		c, err := w.compile(context.WithoutCancel(ctx), cfg.C2PAModule, c2paExports, smokeTestC2PA)
		if err != nil {
			w.c2paErr = err
			cfg.Logger.Error("C2PA module failed; files that carry a C2PA manifest are passed to the origin", "err", err)
			return
		}
		w.c2pa.Store(c)
	}()
	return w, nil
}

// WaitC2PA waits until the background compile of the C2PA module ends and
// returns its error (nil also when there is no C2PA module): what
// --precompile and tests call before relying on it.
func (w *Wasm) WaitC2PA(ctx context.Context) error {
	select {
	case <-w.c2paDone:
		return w.c2paErr
	case <-ctx.Done():
		return ctx.Err()
	}
}

// Name implements Engine: "wasm:" and the first 16 hex digits of the
// module's SHA-256.
func (w *Wasm) Name() string { return "wasm:" + w.cur.Load().hash }

// Swap compiles module, smoke-tests it (a small image through analyze and
// decide) and makes it the module of every later call. Calls already
// running finish on the previous module, whose instances are closed as
// they come back. On error the current module stays.
func (w *Wasm) Swap(ctx context.Context, module []byte) (string, error) {
	w.swap.Lock()
	defer w.swap.Unlock()
	g, err := w.load(ctx, module)
	if err != nil {
		return "", err
	}
	old := w.cur.Swap(g)
	old.retire(ctx)
	w.cfg.Logger.Info("verifier module swapped", "old", old.hash, "new", g.hash)
	return g.hash, nil
}

// Close releases every instance and the compiled code; calls running
// finish first.
func (w *Wasm) Close(ctx context.Context) error {
	w.cur.Load().retire(ctx)
	<-w.c2paDone
	if c := w.c2pa.Load(); c != nil {
		c.retire(ctx)
	}
	return w.cache.Close(ctx)
}

// verifierExports and c2paExports are the exports each module must have.
var (
	verifierExports = []string{"_initialize", "alloc", "free", "analyze", "decide"}
	c2paExports     = []string{"_initialize", "alloc", "free", "c2pa_read", "c2pa_member"}
)

func (w *Wasm) load(ctx context.Context, module []byte) (*generation, error) {
	return w.compile(ctx, module, verifierExports, smokeTest)
}

// compile compiles module (which must export exports) and runs smoke on
// an instance of it.
func (w *Wasm) compile(ctx context.Context, module []byte, exports []string, smoke func(context.Context, *generation) error) (*generation, error) {
	sum := sha256.Sum256(module)
	rc := wazero.NewRuntimeConfigCompiler().WithCompilationCache(w.cache).
		WithMemoryLimitPages(uint32(w.cfg.MemoryBytes / pageSize)).WithCloseOnContextDone(w.cfg.Deadline > 0)
	rt := wazero.NewRuntimeWithConfig(ctx, rc)
	if _, err := wasi_snapshot_preview1.Instantiate(ctx, rt); err != nil {
		rt.Close(ctx)
		return nil, fmt.Errorf("verifier: wasi: %w", err)
	}
	hash := hex.EncodeToString(sum[:8])
	t0 := time.Now()
	cm, err := rt.CompileModule(ctx, module)
	if err != nil {
		rt.Close(ctx)
		return nil, fmt.Errorf("verifier: compile: %w", err)
	}
	t1 := time.Now()
	fns := cm.ExportedFunctions()
	_, hashed := fns["analyze_hashed"]
	_, decoded := fns["analyze_decoded"]
	g := &generation{rt: rt, compiled: cm, hash: hash, sem: make(chan struct{}, w.cfg.Instances), cfg: &w.cfg, exports: exports,
		hashed: hashed, decoded: decoded}
	if err := smoke(ctx, g); err != nil {
		g.retire(ctx)
		return nil, fmt.Errorf("verifier: module %s failed its smoke test: %w", g.hash, err)
	}
	// A compile of a second or less came from the cache; tens of seconds
	// mean the cache was empty, or built by another wazero version.
	w.cfg.Logger.Info("verifier module compiled and smoke-tested", "module", hash, "bytes", len(module),
		"compile_ms", t1.Sub(t0).Milliseconds(), "smoke_test_ms", time.Since(t1).Milliseconds())
	return g, nil
}

// generation is one compiled module with its pool of instances.
type generation struct {
	cfg      *WasmConfig
	rt       wazero.Runtime
	compiled wazero.CompiledModule
	hash     string
	exports  []string
	// hashed says the module exports analyze_hashed, which takes the
	// file's SHA-256 from the host instead of hashing it in the sandbox
	// (~100× slower there than natively); a module without it (an older
	// one swapped in) gets analyze.
	hashed bool
	// decoded says the module exports analyze_decoded, which takes a
	// JPEG's luminance decoded by the host with the module's own decoder
	// (decoding is most of analyze's cost in the sandbox).
	decoded bool
	// sem holds one token per instance alive or being created.
	sem chan struct{}

	mu      sync.Mutex
	idle    []*instance
	refs    int
	retired bool
}

type instance struct {
	mod    api.Module
	stderr *headBuffer
}

// acquire takes a reference on the current generation (one not retired).
func (w *Wasm) acquire() *generation {
	for {
		g := w.cur.Load()
		g.mu.Lock()
		if !g.retired {
			g.refs++
			g.mu.Unlock()
			return g
		}
		g.mu.Unlock()
	}
}

func (g *generation) release(ctx context.Context) {
	g.mu.Lock()
	g.refs--
	done := g.retired && g.refs == 0
	g.mu.Unlock()
	if done {
		g.rt.Close(ctx)
	}
}

// retire closes the idle instances now and the runtime once no call
// holds a reference.
func (g *generation) retire(ctx context.Context) {
	g.mu.Lock()
	g.retired = true
	idle := g.idle
	g.idle = nil
	done := g.refs == 0
	g.mu.Unlock()
	for _, in := range idle {
		in.mod.Close(ctx)
	}
	if done {
		g.rt.Close(ctx)
	}
}

// get returns an idle instance or a new one, waiting while the pool is
// at its bound.
func (g *generation) get(ctx context.Context) (*instance, error) {
	select {
	case g.sem <- struct{}{}:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	g.mu.Lock()
	if n := len(g.idle); n > 0 {
		in := g.idle[n-1]
		g.idle = g.idle[:n-1]
		g.mu.Unlock()
		return in, nil
	}
	g.mu.Unlock()
	in, err := g.instantiate(ctx)
	if err != nil {
		<-g.sem
		return nil, err
	}
	return in, nil
}

// put returns in to the pool, or closes it when it failed, grew too large
// or its module was swapped out.
func (g *generation) put(ctx context.Context, in *instance, failed bool) {
	keep := !failed && (g.cfg.RecycleBytes == 0 || uint64(in.mod.Memory().Size()) <= g.cfg.RecycleBytes)
	g.mu.Lock()
	if keep && !g.retired {
		g.idle = append(g.idle, in)
		in = nil
	}
	g.mu.Unlock()
	if in != nil {
		in.mod.Close(ctx)
	}
	<-g.sem
}

func (g *generation) instantiate(ctx context.Context) (*instance, error) {
	in := &instance{stderr: &headBuffer{max: 1024}}
	mc := wazero.NewModuleConfig().WithName("").WithStartFunctions().WithSysWalltime().WithSysNanotime().
		WithRandSource(randReader{}).WithStderr(in.stderr)
	mod, err := g.rt.InstantiateModule(ctx, g.compiled, mc)
	if err != nil {
		return nil, fmt.Errorf("%w: instantiate: %w", ErrEngine, err)
	}
	for _, name := range g.exports {
		if mod.ExportedFunction(name) == nil {
			mod.Close(ctx)
			return nil, fmt.Errorf("%w: the module does not export %s", ErrEngine, name)
		}
	}
	if _, err := mod.ExportedFunction("_initialize").Call(ctx); err != nil {
		mod.Close(ctx)
		return nil, fmt.Errorf("%w: _initialize: %w", ErrEngine, err)
	}
	in.mod = mod
	return in, nil
}

// call runs one export on an instance of the current module.
func (w *Wasm) call(ctx context.Context, export string, in []byte) ([]byte, error) {
	g := w.acquire()
	defer g.release(context.WithoutCancel(ctx))
	return g.call(ctx, export, in)
}

// call runs export on one of g's instances with the concatenation of
// input as its input.
func (g *generation) call(ctx context.Context, export string, input ...[]byte) ([]byte, error) {
	return g.callPrepared(ctx, func() (string, [][]byte) { return export, input })
}

// callPrepared is call for an export and input that prepare gives once an
// instance is free, so that work on the host for the call (a native
// decode) runs at most as many times at once as the module does.
func (g *generation) callPrepared(ctx context.Context, prepare func() (export string, input [][]byte)) ([]byte, error) {
	in, err := g.get(ctx)
	if err != nil {
		return nil, err
	}
	export, input := prepare()
	cctx := ctx
	if g.cfg.Deadline > 0 {
		var cancel context.CancelFunc
		cctx, cancel = context.WithTimeout(ctx, g.cfg.Deadline)
		defer cancel()
	}
	out, err := in.call(cctx, export, input...)
	g.put(context.WithoutCancel(ctx), in, err != nil)
	if err != nil {
		switch {
		case bytes.Contains(in.stderr.Bytes(), []byte("out of memory")):
			err = fmt.Errorf("%w (%w)", ErrOutOfMemory, err)
		case g.cfg.Deadline > 0 && errors.Is(cctx.Err(), context.DeadlineExceeded):
			err = fmt.Errorf("%w (%w)", ErrDeadline, err)
		case !errors.Is(err, ErrEngine):
			err = fmt.Errorf("%w: %s: %w", ErrEngine, export, err)
		}
		g.cfg.Logger.Warn("verifier instance failed and was discarded", "module", g.hash, "export", export, "err", err)
	}
	return out, err
}

// call copies the parts of input one after the other into the instance
// (no concatenated copy on the host), calls export(ptr, len) and copies
// the packed (ptr<<32 | len) result out, freeing both buffers.
func (in *instance) call(ctx context.Context, export string, input ...[]byte) ([]byte, error) {
	m := in.mod
	n := 0
	for _, p := range input {
		n += len(p)
	}
	res, err := m.ExportedFunction("alloc").Call(ctx, uint64(n))
	if err != nil {
		return nil, fmt.Errorf("alloc: %w", err)
	}
	ptr := uint32(res[0])
	at := ptr
	for _, p := range input {
		if !m.Memory().Write(at, p) {
			return nil, fmt.Errorf("%w: alloc returned an address out of range", ErrEngine)
		}
		at += uint32(len(p))
	}
	res, err = m.ExportedFunction(export).Call(ctx, uint64(ptr), uint64(n))
	if err != nil {
		return nil, err
	}
	if _, err := m.ExportedFunction("free").Call(ctx, uint64(ptr)); err != nil {
		return nil, fmt.Errorf("free: %w", err)
	}
	optr, olen := uint32(res[0]>>32), uint32(res[0])
	b, ok := m.Memory().Read(optr, olen)
	if !ok {
		return nil, fmt.Errorf("%w: result out of range", ErrEngine)
	}
	out := bytes.Clone(b)
	if _, err := m.ExportedFunction("free").Call(ctx, uint64(optr)); err != nil {
		return nil, fmt.Errorf("free: %w", err)
	}
	return out, nil
}

type callFailure struct {
	OK    bool `json:"ok"`
	Error struct {
		Code   string `json:"code"`
		Detail string `json:"detail"`
	} `json:"error"`
}

type analyzeOut struct {
	callFailure
	Facts        wire.Facts  `json:"facts"`
	Local        *wire.Probe `json:"local"`
	C2PAManifest bool        `json:"c2pa_manifest"`
}

// Analyze implements Engine. The file's SHA-256 is computed here,
// natively, and handed to the module's analyze_hashed, which takes it as
// given: the module is this host's own code, run on bytes this host
// holds, so the digest crosses no trust boundary (the same bytes go in
// the same call). A JPEG is also decoded here, by the module's own
// decoder compiled natively, under the module's limits, while an
// instance is held (hostDecode), and its luminance handed to
// analyze_decoded, which runs every check after the decode in the
// sandbox: the same facts, byte for byte, for a fraction of the CPU. A
// file that may carry a C2PA manifest is answered with C2PAUnread once
// the C2PA module is ready (refused before: the origin answers it), so
// that the lookup, not the C2PA module, reads the manifest of the
// service's own signed output; ReadC2PA reads any other file's.
// ReadC2PAFirst reads it here instead.
func (w *Wasm) Analyze(ctx context.Context, file []byte) (Analysis, error) {
	g := w.acquire()
	out, err := g.callPrepared(ctx, func() (string, [][]byte) {
		if !g.hashed {
			return "analyze", [][]byte{file}
		}
		sum := sha256.Sum256(file)
		if g.decoded && !w.cfg.ModuleDecode {
			if parts, ok := hostDecode(file, sum, w.cfg.MemoryBytes); ok {
				return "analyze_decoded", parts
			}
		}
		return "analyze_hashed", [][]byte{sum[:], file}
	})
	g.release(context.WithoutCancel(ctx))
	if err != nil {
		return Analysis{}, err
	}
	a, manifest, err := parseAnalyze(out)
	if err != nil || !manifest {
		return a, err
	}
	switch c := w.c2pa.Load(); {
	case c == nil && w.cfg.C2PAModule == nil:
		return Analysis{}, &AnalyzeError{Code: CodeNoC2PAModule, Detail: "the file may carry a C2PA manifest and this edge has no C2PA module"}
	case c == nil:
		return Analysis{}, ErrNotReady
	}
	if !w.cfg.ReadC2PAFirst {
		// The lookup answers the manifest of the service's own signed
		// output; only another file's needs the C2PA module (ReadC2PA).
		a.C2PAUnread = true
		return a, nil
	}
	if a.Facts.C2PA, err = w.ReadC2PA(ctx, file); err != nil {
		return Analysis{}, err
	}
	return a, nil
}

// CanDecide implements Engine: a manifest takes the C2PA module, which
// may still be compiling, or not be configured at all (Analyze then
// refuses such a file).
func (w *Wasm) CanDecide(c2pa bool) bool { return !c2pa || w.c2pa.Load() != nil }

// ReadC2PA implements Engine: the C2PA module's c2pa_read. Analyze set
// C2PAUnread only once the C2PA module was ready, and a ready one stays
// (it is retired only at Close).
func (w *Wasm) ReadC2PA(ctx context.Context, file []byte) (*wire.C2PAFacts, error) {
	c := w.c2pa.Load()
	if c == nil {
		return nil, fmt.Errorf("%w: no C2PA module to read the manifest", ErrEngine)
	}
	out, err := w.callC2PA(ctx, c, "c2pa_read", file)
	if err != nil {
		return nil, err
	}
	var r struct {
		callFailure
		C2PA *wire.C2PAFacts `json:"c2pa"`
	}
	if err := json.Unmarshal(out, &r); err != nil || !r.OK {
		return nil, fmt.Errorf("%w: c2pa_read answered %.200s (%v)", ErrEngine, out, err)
	}
	return r.C2PA, nil
}

// C2PACalls is how many calls the C2PA module has run since NewWasm
// (c2pa_read, c2pa_member; its smoke test excluded): the work the
// service's own signed pictures no longer cost.
func (w *Wasm) C2PACalls() int64 { return w.c2paCalls.Load() }

// callC2PA runs one export on an instance of g (the C2PA module's
// generation, never retired while calls run but at Close).
func (w *Wasm) callC2PA(ctx context.Context, g *generation, export string, in []byte) ([]byte, error) {
	w.c2paCalls.Add(1)
	g.mu.Lock()
	g.refs++
	g.mu.Unlock()
	defer g.release(context.WithoutCancel(ctx))
	return g.call(ctx, export, in)
}

func parseAnalyze(out []byte) (a Analysis, c2paManifest bool, err error) {
	var r analyzeOut
	if err := json.Unmarshal(out, &r); err != nil {
		return Analysis{}, false, fmt.Errorf("%w: analyze answered %d bytes that are not its JSON: %w", ErrEngine, len(out), err)
	}
	if !r.OK {
		return Analysis{}, false, &AnalyzeError{Code: r.Error.Code, Detail: r.Error.Detail}
	}
	return Analysis{Facts: r.Facts, Local: r.Local}, r.C2PAManifest, nil
}

type decideIn struct {
	Facts  wire.Facts      `json:"facts"`
	Lookup json.RawMessage `json:"lookup"`
	Local  *wire.Probe     `json:"local,omitempty"`
}

type decideOut struct {
	callFailure
	Result wire.VerifyResponse `json:"result"`
}

// Decide implements Engine.
func (w *Wasm) Decide(ctx context.Context, a Analysis, lookupJSON []byte) (wire.VerifyResponse, error) {
	in, err := json.Marshal(decideIn{Facts: a.Facts, Lookup: lookupJSON, Local: a.Local})
	if err != nil {
		return wire.VerifyResponse{}, fmt.Errorf("verifier: decide input: %w", err)
	}
	out, err := w.call(ctx, "decide", in)
	if err != nil {
		return wire.VerifyResponse{}, err
	}
	var r decideOut
	if err := json.Unmarshal(out, &r); err != nil {
		return wire.VerifyResponse{}, fmt.Errorf("%w: decide answered %d bytes that are not its JSON: %w", ErrEngine, len(out), err)
	}
	if !r.OK {
		return wire.VerifyResponse{}, fmt.Errorf("verifier: decide refused its input: %s: %s", r.Error.Code, r.Error.Detail)
	}
	if a.Facts.C2PA != nil {
		// The manifest's trust takes X.509, which only the C2PA module
		// carries; Analyze set the facts' c2pa only with one.
		if r.Result.C2PA, err = w.c2paMember(ctx, a.Facts.C2PA, lookupJSON); err != nil {
			return wire.VerifyResponse{}, err
		}
	}
	return r.Result, nil
}

// c2paMember is the verify response's c2pa member from the C2PA module,
// trust decided against the lookup answer's c2pa_ca.
func (w *Wasm) c2paMember(ctx context.Context, f *wire.C2PAFacts, lookupJSON []byte) (*wire.C2PA, error) {
	c := w.c2pa.Load()
	if c == nil {
		return nil, errors.New("verifier: facts with a C2PA manifest and no C2PA module to decide its trust")
	}
	var l struct {
		CA string `json:"c2pa_ca"`
	}
	if err := json.Unmarshal(lookupJSON, &l); err != nil {
		return nil, fmt.Errorf("verifier: lookup answer: %w", err)
	}
	in, err := json.Marshal(struct {
		C2PA *wire.C2PAFacts `json:"c2pa"`
		CA   string          `json:"ca"`
	}{f, l.CA})
	if err != nil {
		return nil, fmt.Errorf("verifier: c2pa_member input: %w", err)
	}
	out, err := w.callC2PA(ctx, c, "c2pa_member", in)
	if err != nil {
		return nil, err
	}
	var r struct {
		callFailure
		C2PA *wire.C2PA `json:"c2pa"`
	}
	if err := json.Unmarshal(out, &r); err != nil || !r.OK {
		return nil, fmt.Errorf("%w: c2pa_member answered %.200s (%v)", ErrEngine, out, err)
	}
	return r.C2PA, nil
}

// headBuffer keeps the first max bytes written to it: a module's stderr,
// whose first line after a failure tells an out-of-memory abort from
// other traps (the goroutine dump that follows is dropped).
type headBuffer struct {
	mu  sync.Mutex
	max int
	b   []byte
}

func (h *headBuffer) Write(p []byte) (int, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if room := h.max - len(h.b); room > 0 {
		h.b = append(h.b, p[:min(room, len(p))]...)
	}
	return len(p), nil
}

func (h *headBuffer) Bytes() []byte {
	h.mu.Lock()
	defer h.mu.Unlock()
	return bytes.Clone(h.b)
}
