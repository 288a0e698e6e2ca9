#!/usr/bin/env bash
# Run sysgate's GitHub Action (action.yml) here, as GitHub's runner would,
# against an agent's repository: every step as action.yml writes it (its
# if:, env: and working-directory:, run: through bash --noprofile --norc
# -eo pipefail), actions/cache against a local store, actions/setup-go
# only where a Go already runs, actions/upload-artifact into a directory.
#
#   scripts/action-dry-run.sh --dir ~/src/my-agent \
#       --input command='python3 agent.py' --input baselines=agent.yaml [--input mode=record] ...
#
# Flags:
#   --dir DIR           the agent's repository (GITHUB_WORKSPACE), required
#   --input NAME=VALUE  an input of action.yml (repeatable); the rest get its defaults
#   --out DIR           runner temp, artifacts/, logs/, step-summary.md, dry-run.json
#                       (default: a new directory under $TMPDIR, printed first)
#   --cache-dir DIR     actions/cache's store (default: ~/.cache/sysgate/action-dry-run)
#   --tool-cache DIR    RUNNER_TOOL_CACHE (default: empty, as on a fresh hosted runner)
#   --github KEY=VALUE  github.job, repository, run_id, action_ref, action_repository,
#                       api_url, server_url, token or event_name
#   --runner-os OS      runner.os and RUNNER_OS the steps see (default Linux)
#   --event FILE        the event's payload (github.event, GITHUB_EVENT_PATH), e.g. a
#                       pull_request's {"pull_request":{"base":{"sha":"..."}}}
#
# It ends with each step's outcome, the action's outputs and annotations,
# and exits with the job's result: 0, else the first failed step's exit
# code (the gate's 1 violation, 2 bad input, 3 inconclusive, 4 agent
# failed); 125 when the dry run itself cannot go on (a bad input name, an
# expression or action it does not simulate: extend tools/internal/actionrun).
# The gate needs what the action needs: root for the audit backend (else
# notify), Go to build sysgate from this checkout.
set -euo pipefail

here=$(cd "$(dirname "$0")/.." && pwd)
tmp=$(mktemp -d "${TMPDIR:-/tmp}/action-dry-run.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
go -C "$here/tools" build -buildvcs=false -o "$tmp/action-dry-run" ./cmd/action-dry-run
code=0
"$tmp/action-dry-run" --action "$here" "$@" || code=$?
exit "$code"
