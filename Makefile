# The two commands a newcomer needs: `make run` and `make test`.
GO ?= go
WASIP1_ENV := GOOS=wasip1 GOARCH=wasm
JS_ENV := GOOS=js GOARCH=wasm

.PHONY: run test test-go test-wasm bench lint fuzz-smoke

## run: start the origin on its embedded defaults (data in ./data, :8080).
run:
	$(GO) run ./origin

## test: every Go test, plus the verification core built for both WebAssembly targets.
test: test-wasm test-go

test-go:
	$(GO) test -count=1 -timeout 25m ./...

test-wasm:
	$(JS_ENV) $(GO) build ./shared/...
	$(WASIP1_ENV) $(GO) build ./shared/...

## bench: Go micro-benchmarks of the verification core (see bench/README.md for the harness).
bench:
	$(GO) test -run '^$$' -bench . -benchmem ./shared/...

## lint: formatting and vet.
lint:
	@out=$$(gofmt -l $$(git ls-files '*.go')); if [ -n "$$out" ]; then echo "gofmt needed:"; echo "$$out"; exit 1; fi
	$(GO) vet ./...
	$(JS_ENV) $(GO) vet ./shared/...
