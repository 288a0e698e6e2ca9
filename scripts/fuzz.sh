#!/usr/bin/env bash
# Runs every Go fuzz target for the given time each: the product module's
# and the tools module's (tools/: the action dry run's parsers).
set -euo pipefail
cd "$(dirname "$0")/.."
fuzztime=${1:-30s}
for mod in . tools; do
	go -C "$mod" list -f '{{.ImportPath}} {{.Dir}}' ./... | while read -r pkg dir; do
		{ grep -ho '^func Fuzz[A-Za-z0-9_]*' "$dir"/*_test.go 2>/dev/null || true; } | sed 's/^func //' | while read -r target; do
			echo "fuzz $pkg $target ($fuzztime)"
			go -C "$mod" test -run '^$' -fuzz "^${target}\$" -fuzztime "$fuzztime" "$pkg"
		done
	done
done
