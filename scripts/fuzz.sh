#!/usr/bin/env bash
# Runs every Go fuzz target in the module for the given time each.
set -euo pipefail
cd "$(dirname "$0")/.."
fuzztime=${1:-30s}
go list -f '{{.ImportPath}} {{.Dir}}' ./... | while read -r pkg dir; do
	{ grep -ho '^func Fuzz[A-Za-z0-9_]*' "$dir"/*_test.go 2>/dev/null || true; } | sed 's/^func //' | while read -r target; do
		echo "fuzz $pkg $target ($fuzztime)"
		go test -run '^$' -fuzz "^${target}\$" -fuzztime "$fuzztime" "$pkg"
	done
done
