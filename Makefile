# upgraph — common tasks. `make help` lists them.
GO       ?= go
BIN      ?= bin/upgraph
DEMO_OUT ?= out/demo
# Benchmark output lands here; set to a disk path to include disk writes.
BENCH_OUT_DIR ?=

.PHONY: help build test vet demo bench bench-build clean

help:
	@echo "make build   build $(BIN)"
	@echo "make test    vet + all tests (what CI runs)"
	@echo "make demo    generate the embedded demo tree into $(DEMO_OUT)"
	@echo "make bench   full-generation benchmark on the real graph-data"

build:
	$(GO) build -trimpath -o $(BIN) ./cmd/upgraph

vet:
	$(GO) vet ./...
	@test -z "$$(gofmt -l .)" || { echo "gofmt needed:"; gofmt -l .; exit 1; }

test: vet
	$(GO) test -count=1 -timeout 20m ./...

demo: build
	./$(BIN) generate --demo --out $(DEMO_OUT)
	@echo "demo tree: $(DEMO_OUT) (try: jq . $(DEMO_OUT)/graph/amd64/stable-4.16.json)"

bench:
	BENCH_OUT_DIR=$(BENCH_OUT_DIR) $(GO) test -run '^$$' -bench 'BenchmarkBuild|BenchmarkGenerate' -benchtime 3x -benchmem ./generator/

clean:
	rm -rf bin out
