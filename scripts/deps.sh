#!/usr/bin/env bash
# Installs what sysgate needs on a fresh Debian/Ubuntu machine, and nothing
# that is already there. Quiet when everything is present.
#   scripts/deps.sh            build + test dependencies (libseccomp, pkg-config)
#   scripts/deps.sh --suites   also the pinned npm packages of the MCP suites
#   scripts/deps.sh --bench    also strace, which the benchmarks compare against
#   scripts/deps.sh --test     also sudo (the tests of the sudo path run it for real), ShellCheck (the
#                              lint tests run it over scripts/ and the workflows' run: steps), actionlint,
#                              and curl and jq (the action's release install, in its dry runs)
set -euo pipefail
cd "$(dirname "$0")/.."

want_suites=0 want_bench=0 want_test=0
for arg in "$@"; do
	case "$arg" in
	--suites) want_suites=1 ;;
	--bench) want_bench=1 ;;
	--test) want_test=1 ;;
	*) echo "deps.sh: unknown flag $arg" >&2; exit 2 ;;
	esac
done

sudo_cmd=()
if [ "$(id -u)" -ne 0 ]; then
	if command -v sudo >/dev/null; then sudo_cmd=(sudo); fi
fi

missing=()
command -v pkg-config >/dev/null || missing+=(pkg-config)
if ! pkg-config --exists libseccomp 2>/dev/null; then missing+=(libseccomp-dev); fi
command -v gcc >/dev/null || missing+=(gcc)
command -v python3 >/dev/null || missing+=(python3)
command -v git >/dev/null || missing+=(git)
if [ "$want_suites" = 1 ]; then
	command -v node >/dev/null || missing+=(nodejs)
	command -v npm >/dev/null || missing+=(npm)
fi
if [ "$want_bench" = 1 ]; then
	command -v strace >/dev/null || missing+=(strace)
fi
if [ "$want_test" = 1 ] && [ "$(id -u)" -eq 0 ]; then
	command -v sudo >/dev/null || missing+=(sudo)
fi
if [ "$want_test" = 1 ]; then
	command -v shellcheck >/dev/null || missing+=(shellcheck)
	# The action's dry runs: curl downloads a release, jq reads GitHub's tags API.
	command -v curl >/dev/null || missing+=(curl)
	command -v jq >/dev/null || missing+=(jq)
fi

if [ "${#missing[@]}" -gt 0 ]; then
	if ! command -v apt-get >/dev/null; then
		echo "deps.sh: missing ${missing[*]} and no apt-get here: install them with your package manager" >&2
		exit 3
	fi
	echo "deps.sh: installing ${missing[*]}"
	export DEBIAN_FRONTEND=noninteractive
	if ! "${sudo_cmd[@]}" apt-get install -y -qq "${missing[@]}" >/dev/null; then
		"${sudo_cmd[@]}" apt-get update -qq >/dev/null
		"${sudo_cmd[@]}" apt-get install -y -qq "${missing[@]}" >/dev/null
	fi
fi

# actionlint runs as a tool in ci's tests (go run, pinned in ci/lint_test.go,
# not linked into the module): fetch and build it now, so tests fetch
# nothing. The module cache serves as the first proxy: offline once cached.
# Only for the tests: a build or a CI job that gates suites needs none of it.
if [ "$want_test" = 1 ] && command -v go >/dev/null; then
	actionlint=$(sed -n 's/^const actionlint = "\(.*\)"$/\1/p' ci/lint_test.go)
	GOPROXY="file://$(go env GOMODCACHE)/cache/download,$(go env GOPROXY)" go run "$actionlint" -version >/dev/null
	# cmd/sysgate's go install test builds with the go directive's own
	# toolchain (GOTOOLCHAIN=go1.x.y): have it in the module cache.
	GOTOOLCHAIN="go$(sed -n 's/^go //p' go.mod)" go version >/dev/null
fi

if [ "$want_suites" = 1 ] && [ -f suites/package-lock.json ]; then
	# npm ci only when the installed tree does not match the lock file.
	stamp=suites/node_modules/.sysgate-lock-sha256
	sum=$(sha256sum suites/package-lock.json | cut -d' ' -f1)
	if [ ! -f "$stamp" ] || [ "$(cat "$stamp")" != "$sum" ]; then
		echo "deps.sh: npm ci in suites/"
		(cd suites && npm ci --no-audit --no-fund --loglevel=error >/dev/null)
		echo "$sum" >"$stamp"
	fi
fi
