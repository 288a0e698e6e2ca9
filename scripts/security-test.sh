#!/usr/bin/env bash
# make security-test: the embedded suites (suites/python, suites/mcp,
# suites/goagent) run real agents under the gate against the baselines
# committed in suites/baselines, in parallel Ginkgo processes.
#
# make baseline-update (--record): the same specs in record mode
# (SYSGATE_MODE=record, bite specs left out), every spec run RECORD_RUNS times
# (Ginkgo --repeat: a fresh workspace each time; SYSGATE_RECORD_RUNS=1 so
# gatetest.Run runs each agent once per repeat) with the observations merged
# (they keep which runs saw what: the pull-request body and the new lines
# name the entries only some runs needed), then the baseline files rewritten in place
# (canonical layout, sorted, reasons kept) and the changes printed.
# Incremental by default (SYSGATE_INCREMENTAL=1): each spec's committed
# baseline is allowed in the kernel and only the rest is logged, so an
# update costs about what a check costs and only adds; stale entries are
# not checked. FULL=1 records everything (today's record: slower, and
# with PRUNE=1 it removes entries no run made).
#
# As root it uses the audit backend (a kernel with audit and seccomp LOG,
# see `sysgate doctor`); as any other user the notify backend.
# Environment: SYSGATE_BACKEND (auto, audit or notify), SYSGATE_PROCS (Ginkgo processes, default: Ginkgo's -p),
# SYSGATE_SUITE_TIMEOUT (default 5m), RECORD_RUNS (default 3),
# GINKGO_ARGS (extra flags, e.g. --label-filter=agent:python -v).
set -euo pipefail
cd "$(dirname "$0")/.."

record=0
for arg in "$@"; do
	case "$arg" in
	--record) record=1 ;;
	*) echo "usage: scripts/security-test.sh [--record]" >&2; exit 2 ;;
	esac
done

start=$(date +%s%N)
report_time() {
	local status=$? end
	end=$(date +%s%N)
	printf 'sysgate security-test: %s in %d.%01ds\n' \
		"$([ "$status" = 0 ] && echo passed || echo "FAILED (exit $status)")" \
		$(((end - start) / 1000000000)) $(((end - start) / 100000000 % 10))
}
trap report_time EXIT

if [ "$(id -u)" -ne 0 ] && [ -z "${SYSGATE_BACKEND:-}" ]; then
	# Without root the audit backend is out of reach: the suites pick the
	# notify backend by themselves, and the summary names it.
	echo "security-test: not root: the gate runs on the notify backend (a seccomp listener; sudo make security-test uses audit)"
fi
scripts/deps.sh --suites

suites=(./suites/python ./suites/mcp ./suites/goagent)
runs=1
if [ "$record" = 1 ]; then runs=${RECORD_RUNS:-3}; fi
# Ginkgo's --timeout is one deadline for its whole invocation: compiling
# the suites, every suite, and every --repeat. SYSGATE_SUITE_TIMEOUT is
# one suite's run, so the deadline is that for each suite and run (a
# single 5m for 3 suites recorded 3 times left the last suites "not run
# because the timeout elapsed" after a cold build, or with 1 s to spare
# on a warm one, on the loaded development machine).
suite_timeout=${SYSGATE_SUITE_TIMEOUT:-5m}
n=${suite_timeout%[smh]}
case "$n:$suite_timeout" in
'':* | *[!0-9]*:*) seconds= ;;
*:*s) seconds=$((10#$n)) ;;
*:*m) seconds=$((10#$n * 60)) ;;
*:*h) seconds=$((10#$n * 3600)) ;;
*) seconds= ;;
esac
if [ -z "$seconds" ] || [ "$seconds" = 0 ]; then
	echo "security-test: SYSGATE_SUITE_TIMEOUT=$suite_timeout: want a whole number of s, m or h, e.g. 5m" >&2
	exit 2
fi
procs=(-p)
if [ -n "${SYSGATE_PROCS:-}" ]; then procs=(--procs="$SYSGATE_PROCS"); fi
mkdir -p out
flags=(
	"${procs[@]}" --randomize-all --fail-on-empty --keep-going
	--timeout="$((seconds * ${#suites[@]} * runs))s" --poll-progress-after=60s
	--output-dir=out
)
# No colour codes in a redirected log (make security-test > log, CI
# without a terminal), nor when NO_COLOR is set (https://no-color.org).
if [ ! -t 1 ] || [ -n "${NO_COLOR:-}" ]; then flags+=(--no-color); fi
# shellcheck disable=SC2206 # GINKGO_ARGS is a list of flags on purpose
extra=(${GINKGO_ARGS:-})
ginkgo=(go run github.com/onsi/ginkgo/v2/ginkgo)
export CI="${CI:-true}" # a skipped privileged spec is a failure here

if [ "$record" = 0 ]; then
	status=0
	"${ginkgo[@]}" "${flags[@]}" --json-report=security-test.json "${extra[@]}" "${suites[@]}" || status=$?
	# The same summary CI writes to $GITHUB_STEP_SUMMARY.
	if [ -f out/security-test.json ]; then
		go run ./cmd/sysgate report summary --ginkgo-json out/security-test.json || true
	fi
	exit "$status"
fi

obs="${SYSGATE_OBSERVATIONS:-$PWD/out/observations}"
rm -rf "$obs" && mkdir -p "$obs"
incremental=1
if [ "${FULL:-0}" = 1 ]; then incremental=0; fi
if [ "${PRUNE:-0}" = 1 ] && [ "$incremental" = 1 ]; then
	echo "baseline-update: PRUNE=1 needs FULL=1: an incremental record does not see which entries went unused" >&2
	exit 2
fi
echo "baseline-update: recording every spec $runs times ($([ "$incremental" = 1 ] && echo "incremental: the committed baselines allowed, stale entries not checked; FULL=1 records everything" || echo full))"
SYSGATE_MODE=record SYSGATE_RECORD_RUNS=1 SYSGATE_INCREMENTAL=$incremental SYSGATE_OBSERVATIONS="$obs" "${ginkgo[@]}" "${flags[@]}" \
	--json-report=baseline-update.json --label-filter='!bite' --repeat=$((runs - 1)) \
	"${extra[@]}" "${suites[@]}"
if [ "${SYSGATE_RECORD_ONLY:-0}" = 1 ]; then
	# CI record shards: the update job merges every arch's observations and writes.
	echo "baseline-update: observations in $obs (SYSGATE_RECORD_ONLY=1: baselines not rewritten)"
	exit 0
fi
# On a machine whose arch the baselines have no list for yet, the writer
# refuses (an unexpected arch is never added silently): pass ARCH=<arch>
# to add it, e.g. sudo make baseline-update ARCH=aarch64.
# The same writer the baseline-update workflow runs (sysgate report pr-body).
# Locally entries no run made are kept (--keep-unseen), so a second update
# changes nothing; PRUNE=1 drops them, as the workflow's pull request does.
keep=(--keep-unseen)
if [ "${PRUNE:-0}" = 1 ]; then keep=(); fi
archflag=()
if [ -n "${ARCH:-}" ]; then archflag=(--arch "$ARCH"); fi
go run ./cmd/sysgate report pr-body --write "${keep[@]}" "${archflag[@]}" --baselines suites/baselines \
	--reproduce 'sudo make baseline-update   # record every suite as root and rewrite the baselines' \
	--reproduce 'sudo make security-test     # the gate against the updated baselines' \
	"$obs"/*.json >out/baseline-update.md
echo "baseline-update: pull-request body in out/baseline-update.md"
if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
	git --no-pager diff --stat -- suites/baselines
fi
