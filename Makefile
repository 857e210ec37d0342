# upgraph — common tasks. `make help` lists them.
GO       ?= go
BIN      ?= bin/upgraph
DEMO_OUT ?= out/demo
# Benchmark output lands here; set to a disk path to include disk writes.
BENCH_OUT_DIR ?=
# `make image` writes an OCI image layout to IMAGE_OUT or, with
# IMAGE=REGISTRY/REPO:TAG, pushes there; IMAGE_FLAGS adds imagebuild flags
# (--insecure, --source URL, --platforms …).
IMAGE       ?=
IMAGE_OUT   ?= out/image
IMAGE_FLAGS ?=

.PHONY: help build deps test fuzz vet demo bench bench-scrape bench-publish bench-serve bench-freshness clean

help:
	@echo "make build   build $(BIN)"
	@echo "make test    vet + all tests (what CI runs)"
	@echo "make demo    generate the embedded demo tree into $(DEMO_OUT)"
	@echo "make image   multi-platform container image, no daemon: OCI layout in $(IMAGE_OUT), or pushed to IMAGE=REGISTRY/REPO:TAG"
	@echo "make bench   full-generation benchmark on the real graph-data"
	@echo "make bench-scrape  cold vs warm scrape of 1,000 tags from a local registry"
	@echo "make bench-publish  publish a tree to a local S3 (versitygw): first and unchanged (BENCH_TREE=dir)"
	@echo "make bench-serve  wrk load test: upgraph serve vs nginx on the same tree"
	@echo "make bench-freshness  upgraph service at real scale: time for a new release and a graph-data change to be served and published"

build:
	$(GO) build -trimpath -o $(BIN) ./cmd/upgraph

# Reproducible: the same commit gives the same index digest, printed last.
.PHONY: image
image:
	$(GO) run ./internal/imagebuild/cmd/imagebuild $(if $(IMAGE),--image $(IMAGE),--out $(IMAGE_OUT)) $(IMAGE_FLAGS)

# actionlint comes from the Go module proxy (.ci/deps installs it).
ACTIONLINT ?= $(shell command -v actionlint 2>/dev/null || echo $$($(GO) env GOPATH)/bin/actionlint)

vet:
	$(GO) vet ./...
	@test -z "$$(gofmt -l .)" || { echo "gofmt needed:"; gofmt -l .; exit 1; }
	$(ACTIONLINT) .github/workflows/*.yml

deps:
	bash .ci/deps

# Fuzzers (package:function) of the request parsing and of the release
# documents' fast decoder, each for a bounded number of inputs
# (FUZZTIME; about 5-15 s each here). A count, not a duration: go1.26's fuzz
# coordinator can report "context deadline exceeded" when a duration ends
# while a starved worker is mid-input (golang/go#75804, fixed in go1.27),
# failing CI without any failing input.
FUZZTIME ?= 30000x
FUZZERS  ?= site:FuzzGraphQuery site:FuzzAccept site:FuzzSignaturePath site:FuzzFastRequest \
            release/source:FuzzMetadataFast catalog/declcfg:FuzzCanonical catalog/declcfg:FuzzTypedDecode \
            catalog/declcfg:FuzzYAMLDirect catalog/declcfg:FuzzSubsetYAML catalog/model:FuzzSkipRangeSpans

test: deps vet
	$(GO) test -count=1 -timeout 25m ./...
	$(MAKE) deploy-check
	$(MAKE) fuzz

# deploy/check, a module of its own (kustomize, k8s.io/api, openshift/api):
# every kustomization under deploy/ builds and its objects decode strictly.
.PHONY: deploy-check
deploy-check:
	cd deploy/check && $(GO) vet ./... && $(GO) test -count=1 ./...

fuzz:
	@for f in $(FUZZERS); do \
	  pkg=$${f%%:*}; fn=$${f#*:}; \
	  echo "fuzz $$fn in ./$$pkg for $(FUZZTIME)"; \
	  $(GO) test -run '^$$' -fuzz "^$$fn$$" -fuzztime $(FUZZTIME) -timeout 5m ./$$pkg/ || exit 1; \
	done

demo: build
	./$(BIN) generate --demo --out $(DEMO_OUT)
	@echo "demo tree: $(DEMO_OUT) (try: jq . $(DEMO_OUT)/graph/amd64/stable-4.16.json)"

bench:
	BENCH_OUT_DIR=$(BENCH_OUT_DIR) .ci/steal $(GO) test -run '^$$' -bench 'BenchmarkBuild|BenchmarkGenerate|BenchmarkIncremental' -benchtime 3x -benchmem ./generator/

bench-scrape: deps
	.ci/steal $(GO) test -run '^$$' -bench BenchmarkScrape -benchtime 3x -timeout 30m ./release/scrape/

BENCH_TREE ?=
bench-publish: deps
	UPGRAPH_BENCH_TREE=$(BENCH_TREE) .ci/steal $(GO) test -run '^$$' -bench BenchmarkPublish -benchtime 1x -timeout 30m ./site/publish/

bench-serve:
	bash site/bench/serve.sh

# Real scale (real graph-data, ~5,800 synthesised release images, a local
# registry and S3): a few minutes of set-up, then one iteration per change.
bench-freshness: deps
	.ci/steal $(GO) test -run '^$$' -bench BenchmarkFreshness -benchtime 1x -timeout 30m ./cmd/upgraph/

# The command-line reference, generated from the command definitions;
# TestDocs fails when the committed copies are stale.
.PHONY: docs
docs:
	$(GO) run ./cmd/upgraph docs --format markdown > docs/cli.md
	$(GO) run ./cmd/upgraph docs --format man > docs/upgraph.1

clean:
	rm -rf bin out
