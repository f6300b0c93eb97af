# The two commands a newcomer needs: `make run` and `make test`.
# docs/testing.md says what each target checks and how long it takes.
GO ?= go
WASIP1_ENV := GOOS=wasip1 GOARCH=wasm
JS_ENV := GOOS=js GOARCH=wasm

# Packages with goroutines, locks or background loops, run under -race.
RACE_PKGS := ./origin/internal/store/... ./origin/internal/anchor \
	./origin/internal/webhooks/... ./internal/... ./origin/internal/httpapi/... \
	./origin/internal/metrics/... \
	./origin/internal/domains/... ./origin/internal/blobs/... \
	./client/... ./cmd/provenant/... \
	./edge/...

# wazero runs the wasip1 test binaries. A wazero of this version already on
# PATH is used (CI installs one into GOPATH/bin); otherwise `make` installs
# it once into ./bin (gitignored), saying so.
WAZERO_VERSION := v1.12.0
WAZERO_DIR := $(CURDIR)/bin/wazero-$(WAZERO_VERSION)

# The browser verifier module (./wasm, a wasip1 reactor), written where the
# origin embeds it (go:embed); gitignored. Always rebuilt: go's build cache
# makes an unchanged build a ~3 s relink, and the output is reproducible,
# so a branch switch can never leave a stale module embedded.
VERIFIER_WASM := origin/internal/verifierwasm/build/verifier.wasm
# The C2PA module (./wasm/c2pa), beside it: the verifier module is built
# with the tag noc2pa and leaves C2PA manifests to this one, which the
# widget fetches only for a picture that carries one (docs/widget.md).
C2PA_WASM := origin/internal/verifierwasm/build/c2pa.wasm

.PHONY: run test test-go test-wasm test-race test-wasip1 bench lint tidy-check fuzz-smoke wasm mutants

## wasm: build the browser verifier module that the origin embeds and
## serves at /api/v1/widget/verifier-<hash>.wasm (docs/widget.md).
# WASM_GCFLAGS: the standard library and runtime are compiled without
# inlining, our own packages (the hot loops) with it: 72 KB less brotli
# for the verifier module at no measurable cost to analyze in wazero
# (docs/widget.md, "Size"). The field arithmetic of Ed25519 and P-256
# (and math/bits, which both call) keeps its inlining: without it every
# limb product is a call, so that a record's signature check was half of
# decide and ECDSA most of the C2PA module's read. wasm/wasmtest.BuildArgs
# carries the same.
WASM_GCFLAGS := -gcflags=all=-l -gcflags=github.com/provenant/provenant/...= \
	-gcflags=filippo.io/edwards25519/field= -gcflags=math/bits= \
	-gcflags=crypto/internal/fips140/nistec/...= -gcflags=crypto/internal/fips140/bigmod=
wasm:
	$(WASIP1_ENV) $(GO) build -tags noc2pa,verifyonly -buildmode=c-shared -ldflags='-s -w' $(WASM_GCFLAGS) -trimpath -o $(VERIFIER_WASM) ./wasm
	$(WASIP1_ENV) $(GO) build -buildmode=c-shared -ldflags='-s -w' $(WASM_GCFLAGS) -trimpath -o $(C2PA_WASM) ./wasm/c2pa
	$(GO) run ./origin/internal/verifierwasm/wasmbr $(dir $(VERIFIER_WASM))
	@echo "built $(VERIFIER_WASM) ($$(wc -c < $(VERIFIER_WASM)) bytes) and $(C2PA_WASM) ($$(wc -c < $(C2PA_WASM)) bytes)"

## run: start the origin on its embedded defaults (data in ./data, :8080),
## with the verifier module built first so the widget works.
run: wasm
	$(GO) run ./origin -demo

.PHONY: run-turbo test-turbo turbo-check

## run-turbo: as run, with the sign path's JPEG decode and encode through
## libjpeg-turbo (build tag turbo, cgo; needs libturbojpeg0-dev).
run-turbo: wasm turbo-check
	$(GO) run -tags turbo ./origin -demo

## test: every Go test natively, the concurrent packages again under the
## race detector, the verification core built for js/wasm and tested
## under wasip1/wasm (wazero), and the turbo build's codec tests. The
## verifier module is built first.
test: wasm test-wasm test-go test-race test-wasip1 test-turbo

test-go:
	$(GO) test -count=1 -timeout 25m ./...

test-wasm:
	$(JS_ENV) $(GO) build ./shared/...
	$(WASIP1_ENV) $(GO) build ./shared/... ./wasm ./wasm/c2pa
	$(WASIP1_ENV) $(GO) build -tags noc2pa ./shared/... ./wasm
	$(WASIP1_ENV) $(GO) build -tags noc2pa,verifyonly ./shared/... ./wasm

## test-race: the packages with concurrency, under the race detector.
test-race:
	$(GO) test -race -count=1 -timeout 15m $(RACE_PKGS)

## test-turbo: the turbo build (libjpeg-turbo on the sign path): the
## origin builds with it, and the codec, its binding and the sign path are
## tested with it (seed corpus of the binding's fuzz target included).
test-turbo: turbo-check
	$(GO) build -tags turbo -o /dev/null ./origin
	$(GO) vet -tags turbo ./internal/turbojpeg ./origin/internal/content
	$(GO) test -tags turbo -count=1 -timeout 15m ./shared/imagex/... ./internal/turbojpeg/... ./origin/internal/content/...

# turbo-check: the TurboJPEG header is there (cgo needs it), or say what
# to install.
turbo-check:
	@echo '#include <turbojpeg.h>' | $$($(GO) env CC) -E - >/dev/null 2>&1 || \
		{ echo "turbo build: turbojpeg.h not found; install libturbojpeg0-dev (Debian) or libjpeg-turbo's TurboJPEG headers"; exit 1; }

## test-wasip1: the shared/ tests compiled to wasip1/wasm and run by wazero,
## so native and WebAssembly are checked for identical results.
test-wasip1:
	@if [ "$$(wazero version 2>/dev/null)" = "$(WAZERO_VERSION)" ]; then \
		dir=$$(dirname "$$(command -v wazero)"); \
	else \
		dir="$(WAZERO_DIR)"; \
		if [ ! -x "$$dir/wazero" ]; then \
			echo "installing wazero $(WAZERO_VERSION) into $$dir"; \
			GOBIN="$$dir" $(GO) install github.com/tetratelabs/wazero/cmd/wazero@$(WAZERO_VERSION) || exit 1; \
		fi; \
	fi; \
	echo "$(WASIP1_ENV) go test ./shared/... (wazero in $$dir)"; \
	PATH="$$($(GO) env GOROOT)/lib/wasm:$$dir:$$PATH" GOWASIRUNTIME=wazero $(WASIP1_ENV) \
		$(GO) test -count=1 -timeout 20m ./shared/...

## fuzz-smoke: every fuzz target for a few seconds (FUZZ_BUDGET seconds in all).
fuzz-smoke:
	GO="$(GO)" bash .ci/fuzz-smoke

## mutants: the mutation test of the security checks (bench/mutants,
## docs/testing.md "Mutation testing"); not part of `make test` (minutes).
mutants:
	$(GO) run ./bench/mutants

## bench: Go micro-benchmarks of the verification core (see bench/README.md for the harness).
bench:
	$(GO) test -run '^$$' -bench . -benchmem ./shared/...

## lint: formatting, vet (native, js/wasm, and wasip1 for the module) and a tidy go.mod.
lint: tidy-check
	@out=$$(gofmt -l $$(git ls-files '*.go')); if [ -n "$$out" ]; then echo "gofmt needed:"; echo "$$out"; exit 1; fi
	$(GO) vet ./...
	$(JS_ENV) $(GO) vet ./shared/...
	$(WASIP1_ENV) $(GO) vet ./wasm/...
	$(WASIP1_ENV) $(GO) vet -tags noc2pa ./wasm/... ./shared/facts ./shared/lookup

## tidy-check: go.mod and go.sum are what `go mod tidy` would write.
tidy-check:
	@$(GO) mod tidy -diff || { echo "go.mod/go.sum not tidy: run 'go mod tidy'"; exit 1; }
