# a2a: netcat for agents.
GO      ?= go
BIN     ?= bin/a2a
VERSION ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo dev)
LDFLAGS := -s -w -X github.com/a2acli/a2a/internal/cli.version=$(VERSION)

.PHONY: all build install test test-short bench fuzz lint fmt clean

all: build

## build: compile ./bin/a2a
build:
	$(GO) build -trimpath -ldflags '$(LDFLAGS)' -o $(BIN) ./cmd/a2a

## install: install a2a into $(go env GOPATH)/bin
install:
	$(GO) install -trimpath -ldflags '$(LDFLAGS)' ./cmd/a2a

## test: vet, format check, and every test with the race detector
test: lint
	$(GO) test -race -count=1 -timeout 20m ./...

## test-short: unit tests only (skips the e2e layer)
test-short:
	$(GO) test -short -count=1 ./...

## bench: the benchmarks named in the issues (start-up, round trips, serve throughput)
bench:
	$(GO) test -run '^$$' -bench . -benchmem -count 5 -timeout 60m ./...

## fuzz: run every fuzz target for FUZZTIME (default 10s) each; go test -fuzz takes one target at a time
FUZZTIME ?= 10s
FUZZ_TARGETS := \
	./internal/exec:FuzzChunker ./internal/exec:FuzzLineSplitter \
	./internal/serve:FuzzWire ./internal/serve:FuzzWireJSON ./internal/serve:FuzzDecodeSend \
	./internal/serve:FuzzDecodeRPC ./internal/serve:FuzzSubscribeID ./internal/serve:FuzzScanEvent \
	./internal/cli:FuzzParseCard ./internal/cli:FuzzSSEEvents ./internal/devtool:FuzzDecode \
	./internal/output:FuzzArtifactUpdateJSON
fuzz:
	@set -e; for t in $(FUZZ_TARGETS); do \
		pkg=$${t%%:*}; name=$${t#*:}; \
		echo "fuzz $$pkg $$name ($(FUZZTIME))"; \
		$(GO) test -run '^$$' -fuzz "^$$name\$$" -fuzztime $(FUZZTIME) $$pkg; \
	done

## lint: go vet and a gofmt check
lint:
	$(GO) vet ./...
	@out=$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go')); \
	if [ -n "$$out" ]; then echo "gofmt needed:"; echo "$$out"; exit 1; fi

fmt:
	gofmt -w $$(git ls-files '*.go')

clean:
	rm -rf bin
