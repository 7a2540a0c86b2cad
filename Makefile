# a2a: netcat for agents.
GO      ?= go
BIN     ?= bin/a2a
VERSION ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo dev)
LDFLAGS := -s -w -X github.com/a2acli/a2a/internal/cli.version=$(VERSION)

.PHONY: all build install test test-short bench fuzz lint vet-fmt cross release-snapshot man docs fmt clean conformance conformance-diff soak soak-measure

all: build

## build: compile ./bin/a2a, statically linked as the release is (no cgo: no dynamic loader at start-up, ~1 ms)
build:
	CGO_ENABLED=0 $(GO) build -trimpath -ldflags '$(LDFLAGS)' -o $(BIN) ./cmd/a2a

## install: install a2a into $(go env GOPATH)/bin
install:
	CGO_ENABLED=0 $(GO) install -trimpath -ldflags '$(LDFLAGS)' ./cmd/a2a

## test: fetch the modules the tests need, vet, format check, and every test with the race detector; ends with one
## line naming each group of tests skipped for a missing tool (internal/testskip records them) and its install line
test:
	$(GO) mod download
	@$(MAKE) --no-print-directory vet-fmt
	@skips=$$(mktemp); trap 'rm -f "$$skips"' EXIT; \
	A2A_SKIP_LOG="$$skips" $(GO) test -race -count=1 -timeout 20m ./...; rc=$$?; \
	./.ci/skips "$$skips"; exit $$rc

## test-short: unit tests only (skips the e2e layer)
test-short:
	$(GO) test -short -count=1 ./...

## soak: three serve replicas on one PostgreSQL behind HAProxy, 70 s of open-loop load from a2a bench while one replica
## is killed (-9) and restarted, PostgreSQL restarts and one replica is paused (SIGSTOP); then every task a client
## heard of is checked on every replica (e2e/soak_test.go; make test runs a shorter one). SOAK_RATE and
## SOAK_ECHO_RATE (requests/s) override the load; the report goes to SOAK_REPORT too when set.
SOAK_RATE ?=
SOAK_ECHO_RATE ?=
SOAK_REPORT ?=
soak:
	A2A_SOAK=full A2A_SOAK_RATE=$(SOAK_RATE) A2A_SOAK_ECHO_RATE=$(SOAK_ECHO_RATE) A2A_SOAK_REPORT=$(SOAK_REPORT) \
		$(GO) test -count=1 -run '^TestSoak$$' -timeout 15m -v ./e2e/

## soak-measure: the figures of docs/production.md: throughput and latency with 1, 2 and 3 replicas, memory and
## database size with 100,000 stored tasks
soak-measure:
	A2A_SOAK=measure A2A_SOAK_REPORT=$(SOAK_REPORT) $(GO) test -count=1 -run '^TestSoak(Scaling|Retention)$$' -timeout 30m -v ./e2e/

## conformance: the A2A TCK (../shared/conformance/tck, beside the checkout) against serve --reference on every
## transport and protocol version; fails on a failure conformance/known-failures.txt does not list. Then the
## differential (conformance-diff). PORT_BASE and TCK_WORK pass through to the TCK's runner.
PORT_BASE ?= 18700
TCK_WORK  ?= /tmp/a2a-tck
conformance: build
	PORT_BASE=$(PORT_BASE) TCK_WORK=$(TCK_WORK) ./conformance/run.sh ./$(BIN)
	$(MAKE) conformance-diff

## conformance-diff: `a2a conformance` and the TCK against the same agents (serve --reference, a2a-go SDK agents,
## agents broken one MUST at a time); fails where they disagree on a requirement both check (docs/conformance.md).
conformance-diff:
	A2A_TCK_RUN=$${TCK_RUN:-$(CURDIR)/../shared/conformance/tck/run.sh} TCK_WORK=$(TCK_WORK) \
		$(GO) test -count=1 -timeout 30m -run 'TestConformanceAgreesWithTCK' -v ./e2e/

## bench: the benchmarks named in the issues (start-up, round trips, serve throughput), with the references they
## are measured beside, built at exact versions into bin/ref (never part of a2a): hey, the bare HTTP load generator
## of BenchmarkBenchVsBare and BenchmarkBenchAccuracy, and the upstream a2a-go CLI (go.mod's version) of
## BenchmarkStartup.
## BENCH_PKGS narrows the run, e.g. make bench BENCH_PKGS=./e2e BENCH=BenchmarkBenchVsBare
BENCH_PKGS ?= ./...
BENCH      ?= .
HEY_VERSION := v0.1.4
bench: bin/ref/hey bin/ref/upstream/a2a
	A2A_HEY=$(CURDIR)/bin/ref/hey A2A_UPSTREAM_BIN=$(CURDIR)/bin/ref/upstream/a2a \
		$(GO) test -run '^$$' -bench '$(BENCH)' -benchmem -count 5 -timeout 60m $(BENCH_PKGS)

bin/ref/hey:
	GOBIN=$(CURDIR)/bin/ref CGO_ENABLED=0 $(GO) install github.com/rakyll/hey@$(HEY_VERSION)

# The version go.mod requires, built in its own module as our release is built (static, -trimpath -s -w), so that
# start-up and size compare like with like.
bin/ref/upstream/a2a:
	cd "$$($(GO) list -m -f '{{.Dir}}' github.com/a2aproject/a2a-go/v2)" && \
		CGO_ENABLED=0 $(GO) build -trimpath -ldflags '-s -w' -o $(CURDIR)/bin/ref/upstream/a2a ./cmd/a2a

## fuzz: run every fuzz target for FUZZTIME (default 10s) each; go test -fuzz takes one target at a time.
## The targets are what `go test -list '^Fuzz'` finds (PKG:NAME, one per target), unless FUZZ_TARGETS names some;
## a target that names no fuzz test is an error (go test -fuzz reports success when its pattern matches nothing).
FUZZTIME ?= 10s
FUZZ_PKGS ?= ./...
FUZZ_TARGETS ?=
# A failed run that wrote no failing input while the committed corpus still passes is Go's own race at the
# end of -fuzztime (golang/go#75804, fixed in Go 1.27), not a finding: it is reported and not counted.
fuzz:
	@set -e; targets='$(FUZZ_TARGETS)'; \
	if [ -z "$$targets" ]; then \
		targets=$$($(GO) test -list '^Fuzz' $(FUZZ_PKGS) | \
			awk '/^Fuzz/ { names[++n] = $$1; next } /^ok/ { for (i = 1; i <= n; i++) print $$2 ":" names[i] } { n = 0 }' | \
			sed 's|^github.com/a2acli/a2a/|./|'); \
	fi; \
	[ -n "$$targets" ] || { echo "fuzz: no fuzz targets in $(FUZZ_PKGS)"; exit 1; }; \
	for t in $$targets; do \
		pkg=$${t%%:*}; name=$${t#*:}; dir=$$pkg/testdata/fuzz/$$name; \
		if ! $(GO) test -list "^$$name\$$" $$pkg | grep -qx "$$name"; then \
			echo "fuzz: $$pkg has no fuzz test $$name"; exit 1; \
		fi; \
		echo "fuzz $$pkg $$name ($(FUZZTIME))"; \
		before=$$(ls $$dir 2>/dev/null | wc -l); \
		if ! $(GO) test -run '^$$' -fuzz "^$$name\$$" -fuzztime $(FUZZTIME) $$pkg; then \
			if [ "$$(ls $$dir 2>/dev/null | wc -l)" != "$$before" ]; then \
				echo "fuzz: $$name found a failing input, saved in $$dir"; exit 1; \
			fi; \
			$(GO) test -count=1 -run "^$$name\$$" $$pkg; \
			echo "fuzz: $$name: go test failed without a failing input (golang/go#75804): not counted"; \
		fi; \
	done

## lint: go vet, the gofmt check and golangci-lint (.golangci.yml; GOLANGCI_LINT names the binary)
GOLANGCI_LINT ?= golangci-lint
GOLANGCI_LINT_VERSION := v2.15.0
lint: vet-fmt
	@command -v $(GOLANGCI_LINT) >/dev/null || { echo "lint: no $(GOLANGCI_LINT): go install github.com/golangci/golangci-lint/v2/cmd/golangci-lint@$(GOLANGCI_LINT_VERSION)"; exit 1; }
	$(GOLANGCI_LINT) run ./...

## vet-fmt: go vet and a gofmt check
vet-fmt:
	$(GO) vet ./...
	@out=$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go')); \
	if [ -n "$$out" ]; then echo "gofmt needed:"; echo "$$out"; exit 1; fi

## cross: build for every system releases cover (see .goreleaser.yaml)
CROSS ?= linux/amd64 linux/arm64 darwin/amd64 darwin/arm64 windows/amd64
cross:
	@set -e; for p in $(CROSS); do \
		echo "build $$p"; GOOS=$${p%%/*} GOARCH=$${p#*/} CGO_ENABLED=0 $(GO) build -trimpath -o /dev/null ./cmd/a2a; \
	done

## release-snapshot: the release archives (linux, darwin, windows; amd64, arm64) and checksums.txt in dist/,
## nothing published. goreleaser comes pinned from the Go module proxy (go install, once: ~12 min on 2 busy
## cores); a run takes ~6 min there, so CI does not run it.
GORELEASER_VERSION := v2.15.1
GORELEASER ?= $(shell $(GO) env GOPATH)/bin/goreleaser
release-snapshot:
	@$(GORELEASER) --version 2>/dev/null | grep -q 'GitVersion: *$(GORELEASER_VERSION)$$' || \
		$(GO) install github.com/goreleaser/goreleaser/v2@$(GORELEASER_VERSION)
	$(GORELEASER) release --snapshot --clean --skip=publish

## docs: the command reference generated from the command tree: docs/reference (Markdown) and docs/man (man
## pages; read with man -l docs/man/a2a-send.1). Run it after changing a command, flag or help text: a test fails
## until the committed files match the commands.
docs:
	$(GO) run ./cmd/a2a-man -man docs/man -md docs/reference

## man: the man pages alone (docs/man)
man:
	$(GO) run ./cmd/a2a-man -man docs/man

fmt:
	gofmt -w $$(git ls-files '*.go')

clean:
	rm -rf bin dist
