# sysgate: see README.md. The two commands a user runs are
#   make security-test   the gate: the embedded suites against committed baselines
#   make test            the project's own tests (privileged ones run as root)
GO      ?= go
# GINKGO is the version go.mod pins with its tool directive (see there).
GINKGO  := $(GO) run github.com/onsi/ginkgo/v2/ginkgo
PKGS    := ./...
BIN     := bin/sysgate
DIST    ?= dist

# The version `sysgate version` prints; go install takes the module's instead.
VERSION ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo "(devel)")
VERSION_LDFLAGS := -X github.com/sysgate/sysgate/cmd/sysgate/cli.version=$(VERSION)

export CGO_ENABLED := 1

# `sudo make ...` runs with sudo's secure_path, which seldom holds Go:
# fall back to where the official tarball puts it. (Elsewhere, e.g.
# setup-go's tool cache: sudo env "PATH=$$PATH" make ...)
ifeq ($(shell command -v $(GO) 2>/dev/null),)
ifneq ($(wildcard /usr/local/go/bin/go),)
export PATH := /usr/local/go/bin:$(PATH)
endif
endif

# Without HOME (some CI shells) the go command finds neither a module cache
# nor a build cache ("off"): fall back to root's, or a local one.
GO_BUILD_CACHE := $(shell $(GO) env GOCACHE 2>/dev/null)
ifeq ($(shell $(GO) env GOMODCACHE 2>/dev/null),)
export GOPATH := $(if $(wildcard /root/go/pkg/mod),/root/go,$(CURDIR)/.cache/gopath)
endif
ifneq ($(filter-out off,$(GO_BUILD_CACHE)),$(GO_BUILD_CACHE))
export GOCACHE := $(if $(wildcard /root/.cache/go-build),/root/.cache/go-build,$(CURDIR)/.cache/go-build)
endif
ifeq ($(GO_BUILD_CACHE),)
export GOCACHE := $(if $(wildcard /root/.cache/go-build),/root/.cache/go-build,$(CURDIR)/.cache/go-build)
endif

.PHONY: all deps deps-suites deps-test deps-bench rootfs build release release-arm64 test race unit security-test baseline-update bench stress lint portable generate fuzz clean

all: build

deps:
	@scripts/deps.sh

deps-suites:
	@scripts/deps.sh --suites

deps-test:
	@scripts/deps.sh --suites --test

deps-bench:
	@scripts/deps.sh --suites --bench

# The Debian 13 (trixie) root file system suites/distro runs the agents in,
# built with mmdebstrap into /var/cache/sysgate/rootfs once per machine
# (SYSGATE_ROOTFS_CACHE moves it); prints its path. See docs/distributions.md.
rootfs:
	@scripts/rootfs.sh trixie

# Position-independent: no address in sysgate is the same from run to run
# (no filter rule depends on one anyway; see docs/threat-model.md).
build: deps
	$(GO) build -buildmode=pie -ldflags '$(VERSION_LDFLAGS)' -o $(BIN) ./cmd/sysgate

# A static, position-independent amd64 binary (libseccomp.a from libseccomp-dev, glibc static; the
# netgo and osusergo tags keep glibc's NSS out) that runs on a machine
# without libseccomp, and its checksum: cd $(DIST) && sha256sum -c SHA256SUMS.
# cmd/sysgate's TestReleaseRunsWithoutLibseccomp runs it with the library hidden.
RELEASE_BIN := sysgate-linux-amd64
release: deps
	rm -rf $(DIST) && mkdir -p $(DIST)
	GOOS=linux GOARCH=amd64 $(GO) build -buildmode=pie -trimpath -tags netgo,osusergo \
		-ldflags '-s -w $(VERSION_LDFLAGS) -linkmode external -extldflags "-static-pie"' \
		-o $(DIST)/$(RELEASE_BIN) ./cmd/sysgate
	@file $(DIST)/$(RELEASE_BIN) | grep -q 'static-pie linked' || \
		{ echo "$(DIST)/$(RELEASE_BIN) is not statically linked:"; file $(DIST)/$(RELEASE_BIN); exit 1; }
	cd $(DIST) && sha256sum $(RELEASE_BIN) > SHA256SUMS

# The same static binary for arm64, cross-compiled with Debian's toolchain
# (gcc-aarch64-linux-gnu, and libseccomp-dev:arm64 after
# dpkg --add-architecture arm64), added to $(DIST) after make release:
# SHA256SUMS then lists both. Checked by running it under qemu-user where
# qemu-aarch64(-static) is installed.
RELEASE_BIN_ARM64 := sysgate-linux-arm64
ARM64_CC          ?= aarch64-linux-gnu-gcc
release-arm64: deps
	@command -v $(ARM64_CC) >/dev/null || { echo "no $(ARM64_CC): apt-get install gcc-aarch64-linux-gnu"; exit 1; }
	mkdir -p $(DIST)
	CC=$(ARM64_CC) PKG_CONFIG_LIBDIR=/usr/lib/aarch64-linux-gnu/pkgconfig GOOS=linux GOARCH=arm64 \
		$(GO) build -buildmode=pie -trimpath -tags netgo,osusergo \
		-ldflags '-s -w $(VERSION_LDFLAGS) -linkmode external -extldflags "-static-pie"' \
		-o $(DIST)/$(RELEASE_BIN_ARM64) ./cmd/sysgate
	@file $(DIST)/$(RELEASE_BIN_ARM64) | grep 'ARM aarch64' | grep -q 'static-pie linked' || \
		{ echo "$(DIST)/$(RELEASE_BIN_ARM64) is not a static arm64 binary:"; file $(DIST)/$(RELEASE_BIN_ARM64); exit 1; }
	@qemu=$$(command -v qemu-aarch64-static || command -v qemu-aarch64 || true); \
		if [ -n "$$qemu" ]; then $$qemu $(DIST)/$(RELEASE_BIN_ARM64) version; else echo "no qemu-aarch64: $(RELEASE_BIN_ARM64) not run here"; fi
	cd $(DIST) && sha256sum sysgate-linux-* > SHA256SUMS

# staticcheck is pinned in tools/go.mod (a module of its own, so it adds
# nothing to the product's dependencies; the dry run and the benchmarks live
# there too and are vetted and checked the same way) and configured by staticcheck.conf;
# spawn*.c are compiled with -Wall -Wextra -Werror (spawn.go's #cgo CFLAGS).
STATICCHECK := $(CURDIR)/.cache/bin/staticcheck
lint: deps portable
	@out=$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go')); \
	if [ -n "$$out" ]; then echo "gofmt needed:"; echo "$$out"; exit 1; fi
	$(GO) vet $(PKGS)
	$(GO) -C tools vet $(PKGS)
	$(GO) -C tools build -o $(STATICCHECK) honnef.co/go/tools/cmd/staticcheck
	$(STATICCHECK) $(PKGS)
	cd tools && $(STATICCHECK) $(PKGS)

# The project's tests: unit tests everywhere, the privileged kernel tests
# when run as root (under CI=true a skipped privileged test is a failure).
# scripts/test.sh runs the steps and prints the time make test took,
# counted from here, against CI's budget.
TEST_START := $(shell date +%s)
test: deps-test lint
	@SYSGATE_TEST_START=$(TEST_START) GO=$(GO) scripts/test.sh

# The concurrent parts (the audit stream, its router and barrier, the
# harness, parallel runs) again under the race detector.
RACE_PKGS := ./auditlog/... ./harness ./internal/auditnl ./suites/stress
race: deps-suites
	$(GO) test -race -count=1 -timeout 10m $(RACE_PKGS)

security-test: deps-suites
	@scripts/security-test.sh

# Incremental by default (only what the baselines lack is logged and
# added); FULL=1 records everything, FULL=1 PRUNE=1 also removes what no
# run made.
baseline-update: deps-suites
	@scripts/security-test.sh --record

bench: deps-bench
	@scripts/bench.sh

# The parallel stress alone (make bench runs it too).
stress: deps-suites
	@scripts/stress.sh

# cgo only where the kernel is: these build without cgo, DARWIN_PKGS
# (sysgate itself: its verbs that judge no run) for darwin too, and
# PORTABLE_PKGS with their tests there (vet compiles them); the
# launcher's and the filter compiler's stubs fail with ErrNotSupported,
# as their tests check, and cmd/sysgate/cli's TestCgoFreeBuild runs the
# cgo-free sysgate. See docs/development.md. From a cold cache under
# load it took about 80 s here, most of it darwin's standard library.
PORTABLE_PKGS := ./baseline/... ./internal/scmp
DARWIN_PKGS   := $(PORTABLE_PKGS) ./ci ./update/... ./verdict/... ./runenv ./observe ./cmd/sysgate
NOCGO_PKGS    := $(DARWIN_PKGS) ./ci/... ./auditlog/record ./internal/kernel
portable: deps
	CGO_ENABLED=0 $(GO) build $(NOCGO_PKGS)
	CGO_ENABLED=0 $(GO) test -count=1 -run WithoutCgo ./baseline/compile ./internal/kernel
	GOOS=darwin CGO_ENABLED=0 $(GO) build $(DARWIN_PKGS)
	GOOS=darwin CGO_ENABLED=0 $(GO) vet $(PORTABLE_PKGS)

# Generated sources: internal/scmp's syscall tables from the installed
# libseccomp (its TestTablesMatchLibseccomp says when they are stale).
generate:
	$(GO) generate ./...

FUZZTIME ?= 30s
fuzz: deps
	@scripts/fuzz.sh $(FUZZTIME)

clean:
	rm -rf bin $(DIST)
