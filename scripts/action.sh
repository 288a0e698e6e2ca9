#!/usr/bin/env bash
# The bootstrap of the sysgate GitHub Action (action.yml), before a sysgate binary exists; the later
# steps are `sysgate action ...`. plan: a release binary (a tag, or the release tagged at a pinned SHA;
# amd64, arm64) or a source build, and its cache key. install: download and verify it (SHA256SUMS, and
# its attestation where gh is), or build from the action's source (once per key); put it on GITHUB_PATH.
set -euo pipefail
action_dir=$(cd "$(dirname "$0")/.." && pwd)
die() { echo "::error title=sysgate::${*:2}"; echo "sysgate action: ${*:2}" >&2; exit "$1"; }
output() { echo "$1=$2" >>"${GITHUB_OUTPUT:?GITHUB_OUTPUT is not set: run inside a GitHub Actions step or scripts/action-dry-run.sh}"; }
as_root() { # root itself (a container job), passwordless sudo (hosted runners), else this user
	if [ "$(id -u)" -ne 0 ] && command -v sudo >/dev/null && sudo -n true 2>/dev/null; then sudo -n "$@"; else "$@"; fi; }
repo=${ACTION_REPOSITORY:-sysgate/sysgate} api=${GITHUB_API_URL:-https://api.github.com}
base=${SYSGATE_RELEASE_BASE:-${GITHUB_SERVER_URL:-https://github.com}/$repo/releases/download}
tmpf=$(mktemp) && trap 'rm -f "$tmpf"' EXIT
case "$(uname -m)" in x86_64) asset=sysgate-linux-amd64 ;; aarch64) asset=sysgate-linux-arm64 ;; *) asset="" ;; esac
source_hash() { # the action's Go source: the cache key of a source build
	(cd "$action_dir" && find go.mod go.sum cmd auditlog baseline ci harness internal -type f \( -name '*.go' -o -name 'go.mod' \
		-o -name 'go.sum' -o -name '*.yaml' -o -name '*.json' \) -print0 | LC_ALL=C sort -z | xargs -0 sha256sum | sha256sum | cut -c1-16); }
# go_usable: a go 1.21+ (it fetches the toolchain go.mod names by itself). fetch URL FILE: the API
# token for GitHub's API only (downloads redirect to storage).
go_usable() { command -v go >/dev/null && go env GOVERSION 2>/dev/null | grep -qE '^go(1\.(2[1-9]|[3-9][0-9])|[2-9])'; }
fetch() { local a=(); [[ -n "${SYSGATE_API_TOKEN:-}" && "$1" == "$api/"* ]] && a=(-H "Authorization: Bearer $SYSGATE_API_TOKEN")
	curl -fsSL --retry 3 --max-time 60 "${a[@]}" -o "$2" "$1"; }
# release_of_ref REF: the release tag at a commit SHA, or at the commit a major tag (v1) points at,
# from the newest 300 tags; the highest version wins, a release over a pre-release. 1: none, 2: unreadable.
release_of_ref() {
	local pairs="" page commit=$1; command -v jq >/dev/null || return 2
	for page in 1 2 3; do
		fetch "$api/repos/$repo/tags?per_page=100&page=$page" "$tmpf" || return 2
		pairs+=$(jq -r '.[] | "\(.name) \(.commit.sha)"' "$tmpf")$'\n'
		[ "$(jq length "$tmpf")" -eq 100 ] || break
	done
	[[ "$1" =~ ^[0-9a-f]{40}$ ]] || commit=$(awk -v r="$1" '$1 == r { print $2; exit }' <<<"$pairs")
	[ -n "$commit" ] || return 1
	awk -v c="$commit" '$2 == c { print $1 }' <<<"$pairs" | grep -E '^v[0-9]+\.[0-9]+\.[0-9]+(-[0-9A-Za-z.-]+)?$' |
		awk '{ print (index($0, "-") ? 0 : 1), $0 }' | sort -k1,1n -k2,2V | tail -1 | cut -d' ' -f2 | grep .
}
sums_line() { grep -E "^[0-9a-f]{64} [ *]$asset\$" "$1"; } # this asset's line of a SHA256SUMS
step_plan() {
	local tag=${INPUT_VERSION:-} from=source rc=0 key need_go=false ref=${ACTION_REF:-}
	if [ -z "$tag" ] && [[ "$ref" =~ ^v[0-9]+\.[0-9]+\.[0-9]+$ ]]; then tag=$ref
	elif [ -z "$tag" ] && [[ "$ref" =~ ^[0-9a-f]{40}$|^v[0-9]+$ ]]; then
		tag=$(release_of_ref "$ref") || rc=$? # the release at the pinned commit is built from this source
		case "$rc" in
		0) { [ -n "$asset" ] && fetch "$base/$tag/SHA256SUMS" "$tmpf" && sums_line "$tmpf" >/dev/null; } ||
			{ echo "sysgate: $tag (the release of $ref) has no ${asset:-binary for $(uname -m)} in its SHA256SUMS: building from source"; tag=""; } ;;
		1) echo "sysgate: no release of $repo is tagged at $ref: building from source" ;;
		*) echo "sysgate: could not read the tags of $repo from $api (and jq): building from source" ;;
		esac
	fi
	if [ -n "$tag" ] && [ -n "$asset" ]; then from=release
	elif [ -n "$tag" ]; then echo "sysgate: release binaries are amd64 and arm64 only; building $tag's source of this action on $(uname -m)"; tag=""; fi
	if [ "$from" = source ]; then key="sysgate-source-$(source_hash)-linux-$(uname -m)"; else key="sysgate-release-$tag-linux-$(uname -m)"; fi
	if { [ "$from" = source ] || [ -n "${INPUT_PACKAGES:-}" ]; } && ! go_usable; then need_go=true; fi
	output from "$from"; output release "$tag"; output cache-key "$key"; output need-go "$need_go"; output bin-dir "${RUNNER_TOOL_CACHE:-${RUNNER_TEMP:-/tmp}}/sysgate/$key"
	echo "sysgate: install from $from${tag:+ ($tag)}; cache key $key; set up Go: $need_go"
}
apt_install() { # what a cgo build of sysgate (and of the packages' tests) needs
	local missing=() i=(env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq)
	command -v pkg-config >/dev/null || missing+=(pkg-config)
	pkg-config --exists libseccomp 2>/dev/null || missing+=(libseccomp-dev)
	command -v gcc >/dev/null || missing+=(gcc libc6-dev)
	[ "${#missing[@]}" -eq 0 ] && return 0
	command -v apt-get >/dev/null || die 3 "missing ${missing[*]} and no apt-get: install them first (a cgo build of sysgate needs them)"
	echo "sysgate: installing ${missing[*]}"
	{ as_root "${i[@]}" "${missing[@]}" || { as_root apt-get update -qq && as_root "${i[@]}" "${missing[@]}"; }; } >/dev/null 2>&1 ||
		die 3 "apt-get install ${missing[*]} failed (root or passwordless sudo is needed to install them)"
}
step_install() {
	local dir=${SYSGATE_BIN_DIR:?} tag=${SYSGATE_RELEASE:-} tmp version=${ACTION_REF:-} flags
	mkdir -p "$dir"
	if [ -n "${INPUT_PACKAGES:-}" ]; then apt_install; fi
	if "$dir/sysgate" version >/dev/null 2>&1; then echo "sysgate: cached: $("$dir/sysgate" version | head -1)"
	elif [ "${SYSGATE_FROM:-source}" = release ]; then
		tmp=$(mktemp -d)
		fetch "$base/$tag/$asset" "$tmp/$asset" || die 3 "cannot download sysgate $tag from $base (is it a release tag?)"
		fetch "$base/$tag/SHA256SUMS" "$tmp/SHA256SUMS" || die 3 "cannot download $tag's SHA256SUMS from $base"
		sums_line "$tmp/SHA256SUMS" >"$tmp/sum" || die 3 "sysgate $tag: its SHA256SUMS lists no $asset"
		(cd "$tmp" && sha256sum --quiet -c sum) || die 3 "sysgate $tag: the binary does not match the release's SHA256SUMS: not installed"
		if command -v gh >/dev/null; then # its build provenance (release.yml's attest job); SHA256SUMS holds either way
			flags=(--repo "$repo" --signer-workflow "$repo/.github/workflows/release.yml"); [[ "$version" =~ ^[0-9a-f]{40}$ ]] && flags+=(--source-digest "$version")
			GH_TOKEN=${SYSGATE_API_TOKEN:-${GH_TOKEN:-}} gh attestation verify "$tmp/$asset" "${flags[@]}" >/dev/null ||
				die 3 "sysgate $tag: gh attestation verify found no build provenance from $repo's release workflow for $asset: not installed"
			echo "sysgate: build provenance verified (gh attestation verify ${flags[*]})"
		else echo "sysgate: gh is not installed: the release's build provenance was not verified (its SHA256SUMS was)"; fi
		install -m 0755 "$tmp/$asset" "$dir/sysgate" && rm -rf "$tmp"
		echo "sysgate: installed the release binary: $("$dir/sysgate" version | head -1)"
	else
		apt_install
		go_usable || die 3 "no Go 1.21+ to build sysgate from source (the action's setup-go step installs one when none is on PATH)"
		[ -n "$version" ] || version="source-$(source_hash)"
		echo "sysgate: building $version from the action's source (cached afterwards)"
		(cd "$action_dir" && CGO_ENABLED=1 go build -trimpath -ldflags "-X github.com/sysgate/sysgate/cmd/sysgate/cli.version=$version" -o "$dir/sysgate" ./cmd/sysgate)
	fi
	echo "$dir" >>"${GITHUB_PATH:?}"
}
[ "${RUNNER_OS:-Linux}" = Linux ] || die 2 "sysgate runs on Linux runners only (this is $RUNNER_OS): seccomp and the kernel's audit log are Linux's"
# Every step exits inside this case: bash reads a script as it runs it, and nothing after it may run.
case "${1:-}" in plan) step_plan; exit 0 ;; install) step_install; exit 0 ;;
*) echo "usage: scripts/action.sh plan|install (the bootstrap steps of action.yml; the rest are sysgate action ...)" >&2; exit 2 ;; esac
