#!/usr/bin/env bash
# make test, after its deps-test and lint prerequisites: the unit and
# kernel tests, the tooling module, the fault specs on the notify backend
# and the race pass, each step printed before it runs. It ends with one
# line that says whether make test passed and how long it took from
# make's start (SYSGATE_TEST_START, set by the Makefile), against CI's
# budget: CI stops a submission's run at 15 minutes.
set -euo pipefail
cd "$(dirname "$0")/.."
GO=${GO:-go}
start=${SYSGATE_TEST_START:-$(date +%s)}
budget=900
bg_outs=()
report_time() {
	local status=$? took verdict="passed" over=""
	took=$(($(date +%s) - start))
	rm -f "${bg_outs[@]}"
	if [ "$status" != 0 ]; then verdict="FAILED (exit $status)"; fi
	if [ "$took" -gt "$budget" ]; then over=": over it"; fi
	printf 'make test: %s in %dm%02ds (CI budget %dm%02ds%s)\n' "$verdict" \
		$((took / 60)) $((took % 60)) $((budget / 60)) $((budget % 60)) "$over"
}
trap report_time EXIT

step() {
	echo "$*"
	"$@"
}

# beside CMD... starts CMD in the background, its output kept for joined,
# which waits for it and prints that output after the foreground step's.
beside() {
	bg_out=$(mktemp)
	bg_outs+=("$bg_out")
	bg_cmd="$*"
	echo "$bg_cmd (beside the next step)"
	"$@" >"$bg_out" 2>&1 &
	bg_pid=$!
}
joined() {
	local status=0
	wait "$bg_pid" || status=$?
	echo "$bg_cmd:"
	cat "$bg_out"
	return "$status"
}

# The distribution suite's Debian 13 root, built once per machine (about
# 20 s) and reused; exit 3 (Debian's archive unreachable) is left to
# suites/distro, which skips, or fails under CI=true.
if [ "$(id -u)" -eq 0 ]; then
	scripts/rootfs.sh trixie >/dev/null || [ $? -eq 3 ]
fi
# The development tooling's own module (tools/go.mod): the action's dry
# run, which runs action.yml end to end, and the benchmarks. It runs
# beside the main module's tests, whose last minutes are one package
# (the fault suite) on one core; its output follows theirs.
beside "$GO" -C tools test -count=1 -timeout 20m ./...
main_status=0
step "$GO" test -count=1 -timeout 20m ./... || main_status=$?
tools_status=0
joined || tools_status=$?
if [ "$main_status" != 0 ]; then exit "$main_status"; fi
if [ "$tools_status" != 0 ]; then exit "$tools_status"; fi
# The fault specs again on the notify backend (root picks audit): all but
# the audit path's own (record loss, kernel-wide audit faults, the
# settings audit runs hold) and those that name both backends themselves,
# which the first pass ran on each already. Beside it, the concurrent
# parts again under the race detector (make race): the notify pass waits
# on its agents more than it computes. The race pass prints after it.
beside make --no-print-directory GO="$GO" race
notify_status=0
step env SYSGATE_BACKEND=notify "$GO" test -count=1 -timeout 10m ./suites/faults \
	-ginkgo.label-filter='!loss && !exclusive-kernel && !global-audit-rule && !audit-settings && !names-backend' ||
	notify_status=$?
race_status=0
joined || race_status=$?
if [ "$notify_status" != 0 ]; then exit "$notify_status"; fi
if [ "$race_status" != 0 ]; then exit "$race_status"; fi
