#!/usr/bin/env bash
# make stress (and the end of make bench): the Stress specs of suites/stress
# on 8 Ginkgo processes at once, 5 times in a row, next to a logged noise
# process; prints the totals. Needs root, audit and seccomp LOG.
set -euo pipefail
cd "$(dirname "$0")/.."
procs=${STRESS_PROCS:-8}
repeat=${STRESS_REPEAT:-4} # extra rounds: 4 means 5 in all
log=$(mktemp)
trap 'rm -f "$log"' EXIT
echo "== parallel stress: $procs Ginkgo processes x 8 specs x 6 concurrent runs, $((repeat + 1)) rounds; load: $(cut -d' ' -f1-3 /proc/loadavg)"
status=0
SYSGATE_STRESS_LOG=$log go run github.com/onsi/ginkgo/v2/ginkgo -p --procs="$procs" --label-filter=stress \
	--repeat="$repeat" --no-color --succinct ./suites/stress || status=$?
python3 - "$log" <<'PY'
import json, sys
t = {"Runs": 0, "Events": 0, "Misattributed": 0, "Lost": 0, "SilentLoss": 0, "Stalls": 0, "MaxMillis": 0}
specs = 0
for line in open(sys.argv[1]):
    d = json.loads(line)
    specs += 1
    for k in t:
        t[k] = max(t[k], d[k]) if k == "MaxMillis" else t[k] + d[k]
print(f"stress totals over {specs} spec runs: {t['Runs']} gated runs, {t['Events']} events, "
      f"{t['Misattributed']} misattributed, {t['Lost']} with loss (inconclusive), {t['SilentLoss']} with unnoticed loss, "
      f"{t['Stalls']} stalls, "
      f"slowest run {t['MaxMillis']} ms")
PY
exit $status
