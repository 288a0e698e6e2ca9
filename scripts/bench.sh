#!/usr/bin/env bash
# make bench: sysgate (the audit backend, and notify where the kernel has
# it) measured side by side with bare runs and strace -f in one invocation
# (tools/bench: medians and ratios in one table), then the parallel stress
# (scripts/stress.sh). Needs root, audit, seccomp LOG, make deps-bench
# (strace, node servers). Numbers are reported, never judged: nothing here
# fails on a timing.
#   BENCH_REPS (5)  BENCH_LAUNCHES (200)  BENCH_STRESS (1: run the stress)
#   BENCH_SECTIONS (all: check,record,programs,files,network,startup,cli,rss,falsealarms;
#   e.g. cli for the CLI's whole-process start-up alone, falsealarms for the
#   false-alarm counts alone)
#   BENCH_FALSE_ALARM_CHECKS (100: checks per agent and backend)
#   BENCH_FALSE_ALARM_CROSS (30: checks per direction, recorded on one
#   backend and checked on the other; 0: none)
#   BENCH_FALSE_ALARM_RECORDS (1: recordings of each agent; each runs until stable, later ones --merge)
# The false-alarm section counts non-zero exits of unchanged agents: a
# measurement like the rest. It fails only when an agent cannot be
# recorded or started at all.
set -euo pipefail
cd "$(dirname "$0")/.."
if [ "$(id -u)" != 0 ]; then
	echo "bench: needs root (sudo make bench)" >&2
	exit 3
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
go build -o "$tmp/sysgate" ./cmd/sysgate
go -C tools build -o "$tmp/bench" ./bench
"$tmp/bench" -reps "${BENCH_REPS:-5}" -launches "${BENCH_LAUNCHES:-200}" -sysgate "$tmp/sysgate" \
	-false-alarm-checks "${BENCH_FALSE_ALARM_CHECKS:-100}" -false-alarm-cross "${BENCH_FALSE_ALARM_CROSS:-30}" \
	-false-alarm-records "${BENCH_FALSE_ALARM_RECORDS:-1}" \
	${BENCH_SECTIONS:+-sections "$BENCH_SECTIONS"}
echo "load average at end: $(cut -d' ' -f1-3 /proc/loadavg)"
if [ "${BENCH_STRESS:-1}" = 1 ]; then
	echo
	scripts/stress.sh
fi
