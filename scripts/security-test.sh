#!/usr/bin/env bash
# The main job: runs the embedded Ginkgo suites against the committed baselines.
set -euo pipefail
cd "$(dirname "$0")/.."
echo "sysgate security-test: the suites are not built yet (see issue 5)" >&2
exit 3
