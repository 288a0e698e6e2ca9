#!/usr/bin/env bash
# make bench: benchmarks side by side with a bare run and strace -f.
set -euo pipefail
cd "$(dirname "$0")/.."
echo "sysgate bench: not built yet (see issue 7)" >&2
exit 3
