#!/usr/bin/env bash
# Builds a Debian root file system for the distribution suite (suites/distro)
# with mmdebstrap, once per machine, into a cache outside the repository:
#   scripts/rootfs.sh [SUITE]     prints the root's path (SUITE: trixie)
# The root is named by a hash of what goes into it (suite, variant, package
# list, this script's recipe version), built in a temporary directory beside
# it and renamed into place, so a half-built root is never used and a second
# run finds the first one's. SYSGATE_ROOTFS_CACHE moves the cache
# (default /var/cache/sysgate/rootfs). Needs root (mmdebstrap's root mode)
# and Debian's archive; exits 3 when the archive cannot be reached.
set -euo pipefail

suite=${1:-trixie}
cache=${SYSGATE_ROOTFS_CACHE:-/var/cache/sysgate/rootfs}
mirror=${SYSGATE_ROOTFS_MIRROR:-http://deb.debian.org/debian}
variant=minbase
# python3: the suites' Python agent (json, subprocess, urllib.request, socket);
# git: its read-only scenario runs git status; nodejs: the MCP filesystem
# server (its node_modules are bound in from suites/ by the suite, under
# the suite's own repository in /tmp).
packages=python3,git,nodejs
recipe=1

case "$suite" in
trixie) ;;
*) echo "rootfs.sh: suite $suite: only trixie is known (scripts/rootfs.sh)" >&2; exit 2 ;;
esac

key=$(printf '%s\n' "$suite" "$variant" "$packages" "$recipe" | sha256sum | cut -c1-12)
root="$cache/$suite-$key"
if [ -x "$root/usr/bin/python3" ]; then
	echo "$root"
	exit 0
fi
if [ "$(id -u)" -ne 0 ]; then
	echo "rootfs.sh: building $root needs root (mmdebstrap --mode=root): run sudo make rootfs" >&2
	exit 4
fi
if ! command -v mmdebstrap >/dev/null; then
	echo "rootfs.sh: installing mmdebstrap" >&2
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq mmdebstrap >/dev/null ||
		{ apt-get update -qq >/dev/null && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq mmdebstrap >/dev/null; }
fi

mkdir -p "$cache"
tmp=$(mktemp -d "$cache/.$suite-$key.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
log="$tmp.log"
echo "rootfs.sh: building $root (mmdebstrap $suite, $variant + $packages; log $log)" >&2
start=$(date +%s)
# shellcheck disable=SC2016 # "$1" is the hook's argument, expanded by mmdebstrap's shell
if ! mmdebstrap --mode=root --variant="$variant" --include="$packages" \
	--aptopt='Acquire::Retries "3"' \
	--customize-hook='rm -rf "$1"/var/cache/apt/archives/*.deb "$1"/var/lib/apt/lists/*' \
	"$suite" "$tmp/root" "$mirror" >"$log" 2>&1; then
	tail -20 "$log" >&2
	if grep -qE "Could not resolve|Failed to fetch|Temporary failure|Connection failed|Unable to connect" "$log"; then
		echo "rootfs.sh: Debian's archive ($mirror) cannot be reached" >&2
		exit 3
	fi
	echo "rootfs.sh: mmdebstrap failed (log above, $log)" >&2
	exit 1
fi
# A place to bind a run's workspace at (the suite binds under /tmp, which
# needs none).
mkdir -p "$tmp/root/workspace"
mv -T "$tmp/root" "$root" 2>/dev/null || {
	# Another build won the race: use its root.
	[ -x "$root/usr/bin/python3" ] || { echo "rootfs.sh: cannot rename into $root" >&2; exit 1; }
}
rm -f "$log"
echo "rootfs.sh: built in $(($(date +%s) - start))s" >&2
echo "$root"
