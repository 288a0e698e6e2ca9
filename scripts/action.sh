#!/usr/bin/env bash
# The steps of the sysgate GitHub Action (action.yml), one subcommand each:
#   plan     pick how to install: a release binary (a tag, or the release tagged at a pinned SHA;
#            amd64 and arm64) or a source build, and its cache key
#   install  download and verify the release binary (SHA256SUMS, and its attestation where gh is), or build from the action's source (once per key)
#   doctor   sysgate doctor for the chosen backend: stop early, with the fixes, if it cannot run here
#   gate     validate the baselines, run the command or the Go packages, write the reports and outputs
#   verdict  fail the job with the gate's exit code and a one-line reason
# Inputs arrive as INPUT_* variables (action.yml maps them); GitHub's files
# (GITHUB_OUTPUT, GITHUB_STEP_SUMMARY, GITHUB_PATH) as the runner sets them.
# scripts/action-dry-run.sh runs these steps as the runner would.
set -euo pipefail

action_dir=$(cd "$(dirname "$0")/.." && pwd)

die() {
	local code=$1
	shift
	# The gate step's outputs carry its exit code to the verdict step,
	# which fails the job after the reports are uploaded.
	if [ "${in_gate:-0}" = 1 ]; then output code "$code"; fi
	echo "::error title=sysgate::$*"
	echo "sysgate action: $*" >&2
	exit "$code"
}

output() { echo "$1=$2" >>"${GITHUB_OUTPUT:?GITHUB_OUTPUT is not set: run inside a GitHub Actions step or scripts/action-dry-run.sh}"; }

# as_root runs a command as root: directly when this is root (a container
# job), through passwordless sudo where it exists (hosted runners: sudo keeps
# SUDO_UID, so sysgate runs the agent as the job's user), else as this user
# (notify backend: no privilege needed).
sudo_env=(CI GITHUB_ACTIONS SYSGATE_BACKEND SYSGATE_BASELINES SYSGATE_MODE SYSGATE_OBSERVATIONS SYSGATE_INCREMENTAL SYSGATE_USER NO_COLOR)
as_root() {
	if [ "$(id -u)" -eq 0 ]; then
		"$@"
	elif command -v sudo >/dev/null && sudo -n true 2>/dev/null; then
		local keep
		keep=$(IFS=,; echo "${sudo_env[*]}")
		sudo -n --preserve-env="$keep" env "PATH=$PATH" "$@"
	else
		"$@"
	fi
}

# escalates reports whether as_root runs as another user than this one.
escalates() { [ "$(id -u)" -ne 0 ] && command -v sudo >/dev/null && sudo -n true 2>/dev/null; }

# source_hash names the action's Go source: the cache key of a source build.
source_hash() {
	(cd "$action_dir" && find go.mod go.sum cmd auditlog baseline ci harness internal -type f \
		\( -name '*.go' -o -name 'go.mod' -o -name 'go.sum' -o -name '*.yaml' -o -name '*.json' \) -print0 |
		LC_ALL=C sort -z | xargs -0 sha256sum | sha256sum | cut -c1-16)
}

# go_usable: a go command that can build sysgate (1.21+ fetches the
# toolchain go.mod names by itself).
go_usable() {
	command -v go >/dev/null || return 1
	local v
	v=$(go env GOVERSION 2>/dev/null) || return 1
	v=${v#go}
	local major=${v%%.*} rest=${v#*.}
	local minor=${rest%%.*}
	[ "$major" -gt 1 ] || { [ "$major" -eq 1 ] && [ "${minor%%[!0-9]*}" -ge 21 ]; }
}

apt_install() {
	local missing=()
	command -v pkg-config >/dev/null || missing+=(pkg-config)
	pkg-config --exists libseccomp 2>/dev/null || missing+=(libseccomp-dev)
	command -v gcc >/dev/null || missing+=(gcc libc6-dev)
	[ "${#missing[@]}" -eq 0 ] && return 0
	command -v apt-get >/dev/null || die 3 "missing ${missing[*]} and no apt-get: install them first (a cgo build of sysgate needs them)"
	echo "sysgate: installing ${missing[*]}"
	export DEBIAN_FRONTEND=noninteractive
	as_root apt-get install -y -qq "${missing[@]}" >/dev/null 2>&1 ||
		{ as_root apt-get update -qq >/dev/null && as_root apt-get install -y -qq "${missing[@]}" >/dev/null; } ||
		die 3 "apt-get install ${missing[*]} failed (root or passwordless sudo is needed to install them)"
}

# release_asset is this machine's release binary (release.yml builds amd64
# and arm64), empty where there is none.
release_asset() {
	case "$(uname -m)" in
	x86_64) echo sysgate-linux-amd64 ;;
	aarch64) echo sysgate-linux-arm64 ;;
	esac
}

# action_repository is the repository the action comes from: its releases
# are the ones that match its code.
action_repository() { echo "${ACTION_REPOSITORY:-sysgate/sysgate}"; }

release_base() {
	echo "${SYSGATE_RELEASE_BASE:-${GITHUB_SERVER_URL:-https://github.com}/$(action_repository)/releases/download}"
}

# fetch URL FILE: one download, with GitHub's API token for the API only
# (a download URL redirects to storage that must not see it).
fetch() {
	local auth=()
	if [ -n "${SYSGATE_API_TOKEN:-}" ] && [[ "$1" == "${GITHUB_API_URL:-https://api.github.com}/"* ]]; then
		auth=(-H "Authorization: Bearer $SYSGATE_API_TOKEN")
	fi
	curl -fsSL --retry 3 --max-time 60 "${auth[@]}" -o "$2" "$1"
}

# release_of_ref prints the release tag (vX.Y.Z) of ref: a commit SHA, the
# release whose tag points at it; a major tag (v1), the release at the
# commit that tag points at now. It reads the action repository's tags (the
# newest three pages: a pinned release is a recent one). A moving major
# tag names no release of its own; of two version tags on one commit the
# higher wins. Returns 1 when no tag does, 2 when the tags cannot be read
# (no jq, the API refused).
release_of_ref() {
	local ref=$1 api page list pairs="" commit tags
	api="${GITHUB_API_URL:-https://api.github.com}/repos/$(action_repository)/tags?per_page=100"
	command -v jq >/dev/null || return 2
	list=$(mktemp)
	for page in 1 2 3; do
		fetch "$api&page=$page" "$list" || { rm -f "$list"; return 2; }
		pairs+=$(jq -r '.[] | "\(.name) \(.commit.sha)"' "$list")$'\n'
		[ "$(jq length "$list")" -eq 100 ] || break
	done
	rm -f "$list"
	commit=$ref
	if ! [[ "$ref" =~ ^[0-9a-f]{40}$ ]]; then
		commit=$(awk -v r="$ref" '$1 == r { print $2; exit }' <<<"$pairs")
		[ -n "$commit" ] || return 1
	fi
	tags=$(awk -v c="$commit" '$2 == c { print $1 }' <<<"$pairs")
	# A release outranks a pre-release of the same commit.
	{
		grep -E '^v[0-9]+\.[0-9]+\.[0-9]+-[0-9A-Za-z.-]+$' <<<"$tags" | sort -V
		grep -E '^v[0-9]+\.[0-9]+\.[0-9]+$' <<<"$tags" | sort -V
	} | tail -1 | grep .
}

# release_has TAG ASSET: the release's SHA256SUMS lists ASSET.
release_has() {
	local sums
	sums=$(mktemp)
	if fetch "$(release_base)/$1/SHA256SUMS" "$sums" && grep -qE "^[0-9a-f]{64} [ *]$2\$" "$sums"; then
		rm -f "$sums"
		return 0
	fi
	rm -f "$sums"
	return 1
}

step_plan() {
	local arch asset tag="" from=source
	arch=$(uname -m)
	asset=$(release_asset)
	if [ -n "${INPUT_VERSION:-}" ]; then
		tag=$INPUT_VERSION
	elif [[ "${ACTION_REF:-}" =~ ^v[0-9]+\.[0-9]+\.[0-9]+$ ]]; then
		tag=$ACTION_REF
	elif [[ "${ACTION_REF:-}" =~ ^[0-9a-f]{40}$ || "${ACTION_REF:-}" =~ ^v[0-9]+$ ]]; then
		# Pinned by SHA (or by the major tag): the release whose tag points
		# at that commit is built from exactly this source.
		local rc=0
		tag=$(release_of_ref "$ACTION_REF") || rc=$?
		case "$rc" in
		0)
			if [ -z "$asset" ] || ! release_has "$tag" "$asset"; then
				echo "sysgate: $tag (the release of $ACTION_REF) has no ${asset:-binary for $arch} in its SHA256SUMS: building from source"
				tag=""
			fi
			;;
		1) echo "sysgate: no release of $(action_repository) is tagged at $ACTION_REF: building from source" ;;
		*) echo "sysgate: could not read the tags of $(action_repository) from ${GITHUB_API_URL:-https://api.github.com} (and jq): building from source" ;;
		esac
	fi
	if [ -n "$tag" ] && [ -n "$asset" ]; then
		from=release
	elif [ -n "$tag" ]; then
		echo "sysgate: release binaries are amd64 and arm64 only; building $tag's source of this action on $arch"
		tag=""
	fi
	local key
	if [ "$from" = release ]; then
		key="sysgate-release-$tag-linux-$arch"
	else
		key="sysgate-source-$(source_hash)-linux-$arch"
	fi
	local need_go=false
	if { [ "$from" = source ] || [ -n "${INPUT_PACKAGES:-}" ]; } && ! go_usable; then need_go=true; fi
	output from "$from"
	output release "$tag"
	output cache-key "$key"
	output bin-dir "${RUNNER_TOOL_CACHE:-${RUNNER_TEMP:-/tmp}}/sysgate/$key"
	output need-go "$need_go"
	echo "sysgate: install from $from${tag:+ ($tag)}; cache key $key; set up Go: $need_go"
}

# verify_attestation FILE: the release's build provenance (release.yml's
# attest job), checked with gh where the runner has it: signed by this
# repository's release workflow and, when the action is pinned by SHA,
# built from that commit. Where gh is missing it says so and goes on: the
# SHA256SUMS check still holds.
verify_attestation() {
	local file=$1 repo
	repo=$(action_repository)
	if ! command -v gh >/dev/null; then
		echo "sysgate: gh is not installed: the release's build provenance was not verified (its SHA256SUMS was)"
		return 0
	fi
	local flags=(--repo "$repo" --signer-workflow "$repo/.github/workflows/release.yml")
	[[ "${ACTION_REF:-}" =~ ^[0-9a-f]{40}$ ]] && flags+=(--source-digest "$ACTION_REF")
	GH_TOKEN=${SYSGATE_API_TOKEN:-${GH_TOKEN:-}} gh attestation verify "$file" "${flags[@]}" >/dev/null ||
		die 3 "sysgate $SYSGATE_RELEASE: gh attestation verify found no build provenance from $repo's release workflow for $(basename "$file"): not installed"
	echo "sysgate: build provenance verified (gh attestation verify ${flags[*]})"
}

step_install() {
	local dir=${SYSGATE_BIN_DIR:?} bin
	bin="$dir/sysgate"
	mkdir -p "$dir"
	if [ -n "${INPUT_PACKAGES:-}" ]; then apt_install; fi
	if [ -x "$bin" ] && "$bin" version >/dev/null 2>&1; then
		echo "sysgate: cached: $("$bin" version | head -1)"
	elif [ "${SYSGATE_FROM:-source}" = release ]; then
		local base asset tmp
		base=$(release_base)
		asset=$(release_asset)
		tmp=$(mktemp -d)
		fetch "$base/$SYSGATE_RELEASE/$asset" "$tmp/$asset" ||
			die 3 "cannot download sysgate $SYSGATE_RELEASE from $base (is it a release tag?)"
		fetch "$base/$SYSGATE_RELEASE/SHA256SUMS" "$tmp/SHA256SUMS" ||
			die 3 "cannot download $SYSGATE_RELEASE's SHA256SUMS from $base"
		# Only this asset's line: the sums list every arch's binary.
		grep -E "^[0-9a-f]{64} [ *]$asset\$" "$tmp/SHA256SUMS" >"$tmp/sum" ||
			die 3 "sysgate $SYSGATE_RELEASE: its SHA256SUMS lists no $asset"
		(cd "$tmp" && sha256sum --quiet -c sum) ||
			die 3 "sysgate $SYSGATE_RELEASE: the binary does not match the release's SHA256SUMS: not installed"
		verify_attestation "$tmp/$asset"
		install -m 0755 "$tmp/$asset" "$bin"
		rm -rf "$tmp"
		echo "sysgate: installed the release binary: $("$bin" version | head -1)"
	else
		apt_install
		go_usable || die 3 "no Go 1.21+ to build sysgate from source (the action's setup-go step installs one when none is on PATH)"
		local version=${ACTION_REF:-}
		[ -n "$version" ] || version="source-$(source_hash)"
		echo "sysgate: building $version from the action's source (cached afterwards)"
		(cd "$action_dir" && CGO_ENABLED=1 go build -trimpath \
			-ldflags "-X github.com/sysgate/sysgate/cmd/sysgate/cli.version=$version" -o "$bin" ./cmd/sysgate)
	fi
	echo "$dir" >>"${GITHUB_PATH:?}"
}

step_doctor() {
	export SYSGATE_BACKEND=${INPUT_BACKEND:-auto}
	local code=0
	as_root sysgate doctor --backend "$SYSGATE_BACKEND" || code=$?
	[ "$code" -eq 0 ] || die "$code" "this machine cannot run the $SYSGATE_BACKEND backend: the doctor's FAIL lines above say why and how to fix it"
}

# words splits the command input as a shell would, without running it
# through one: xargs honours quotes and backslashes and expands nothing
# ($HOME stays $HOME). One NUL-terminated word per argument on stdout.
words() {
	printf '%s' "$1" | xargs -r printf '%s\0'
}

step_gate() {
	in_gate=1
	local mode=${INPUT_MODE:-check} reports=${INPUT_REPORTS:-sysgate-reports}
	case "$mode" in check | record | enforce) ;; *) die 2 "mode: $mode is not check, record or enforce" ;; esac
	case "${INPUT_INCREMENTAL:-false}" in true | false) ;; *) die 2 "incremental: ${INPUT_INCREMENTAL} is not true or false" ;; esac
	if [ -n "${INPUT_COMMAND:-}" ] && [ -n "${INPUT_PACKAGES:-}" ]; then die 2 "give command or packages, not both"; fi
	if [ -z "${INPUT_COMMAND:-}" ] && [ -z "${INPUT_PACKAGES:-}" ]; then die 2 "give command (the agent's command line) or packages (Go packages with gate specs)"; fi
	export SYSGATE_BACKEND=${INPUT_BACKEND:-auto} NO_COLOR=1
	local baselines=()
	read -r -d '' -a baselines <<<"${INPUT_BASELINES:-}" || true
	if [ -n "${INPUT_COMMAND:-}" ] && [ "$mode" != record ] && [ "${#baselines[@]}" -eq 0 ]; then
		die 2 "baselines: $mode needs the agent's baseline files (record one first: mode: record)"
	fi

	rm -rf "$reports" && mkdir -p "$reports"
	reports=$(cd "$reports" && pwd)
	# Run outputs go to a directory only root can write, in sticky /tmp,
	# when the agent runs as another user: it cannot plant or swap them.
	local out
	out=$(as_root mktemp -d /tmp/sysgate-action.XXXXXX)

	# Validate what can be validated before anything runs: syntax, unknown
	# syscalls, and with strict the unreviewed reasons a record left.
	local files=() b
	for b in "${baselines[@]}"; do
		if [ -d "$b" ]; then
			while IFS= read -r -d '' f; do files+=("$f"); done < <(find "$b" -name '*.yaml' -type f -print0 | LC_ALL=C sort -z)
		elif [ -e "$b" ]; then
			files+=("$b")
		elif [ "$mode" != record ]; then
			die 2 "baselines: $b does not exist"
		fi
	done
	if [ "${#files[@]}" -gt 0 ] && [ "$mode" != record ]; then
		local strict=()
		[ "${INPUT_STRICT:-true}" = true ] && strict=(--strict)
		sysgate baseline validate "${strict[@]}" --format github "${files[@]}" ||
			die 2 "baselines: validate${strict:+ --strict} failed (the annotations name the file and line; record leaves 'unreviewed' reasons a reviewer must replace)"
		local unformatted
		unformatted=$(sysgate baseline fmt -l "${files[@]}" 2>&1) ||
			die 2 "baselines: not in the canonical layout: $(echo "$unformatted" | tr '\n' ' ')(sysgate baseline fmt -w FILE rewrites them)"
	fi

	local code=0
	if [ -n "${INPUT_COMMAND:-}" ]; then
		gate_command "$mode" "$out" || code=$?
	else
		gate_packages "$mode" "$out" || code=$?
	fi
	as_root chown -R "$(id -u):$(id -g)" "$out"
	cp -R "$out"/. "$reports"/
	as_root rm -rf "$out"
	# The upload step runs when there is something to upload: a gate that
	# stopped before the agent ran (a baseline that does not validate)
	# leaves nothing, and an upload of nothing fails the job a second time.
	if [ -n "$(find "$reports" -type f -print -quit)" ]; then output reports "$reports"; fi

	# Reports over what ran: the step summary, annotations on the baseline
	# lines, SARIF, JUnit, and the step outputs verdict, violations and drift.
	local inputs=()
	[ -f "$reports/result.json" ] && inputs+=(--result "$reports/result.json")
	for f in "$reports"/ginkgo-*.json; do [ -f "$f" ] && inputs+=(--ginkgo-json "$f"); done
	if [ "${#inputs[@]}" -eq 0 ]; then
		output code "$([ "$code" -eq 0 ] && echo 3 || echo "$code")"
		output verdict inconclusive
		output violations 0
		output drift false
		die 0 "no result was written (exit $code): the log above says why"
	fi
	sysgate report summary "${inputs[@]}" --junit "$reports/junit.xml" --github-output >"$reports/summary.md"
	if [ -n "${GITHUB_STEP_SUMMARY:-}" ]; then cat "$reports/summary.md" >>"$GITHUB_STEP_SUMMARY"; fi
	sysgate report annotations "${inputs[@]}"
	sysgate report sarif "${inputs[@]}" >"$reports/sysgate.sarif"
	output sarif "$reports/sysgate.sarif"
	local rcode=0
	sysgate report summary "${inputs[@]}" --exit-code >/dev/null || rcode=$?
	# The worse of the run's code and the reports' verdict: a spec that
	# failed for another reason still fails the step.
	if [ "$rcode" -ne 0 ]; then code=$rcode; fi

	# Only runs that learned something leave an observation: a spec that
	# failed before its agent ran leaves the directory empty.
	if [ "$mode" = record ] && [ -n "${INPUT_PACKAGES:-}" ] &&
		[ -n "$(find "$reports/observations" -name '*.json' -type f -print -quit 2>/dev/null)" ]; then
		record_packages_baselines "$reports" "${baselines[@]}"
	fi
	output code "$code"
	echo "sysgate: exit $code"
}

# gate_command runs the command input once under sysgate record, check or
# enforce, with the result, JUnit and observation written to out.
gate_command() {
	local mode=$1 out=$2 argv=() agent=${INPUT_AGENT:-}
	local split
	split=$(mktemp)
	words "$INPUT_COMMAND" >"$split" 2>/dev/null ||
		die 2 "command: cannot split into words (an unclosed quote?): $INPUT_COMMAND"
	while IFS= read -r -d '' w; do argv+=("$w"); done <"$split"
	rm -f "$split"
	[ "${#argv[@]}" -gt 0 ] || die 2 "command: empty"
	local flags=(--timeout "${INPUT_TIMEOUT:-10m}" --result "$out/result.json")
	[ -n "$agent" ] && flags+=(--agent "$agent")
	local baselines=()
	read -r -d '' -a baselines <<<"${INPUT_BASELINES:-}" || true
	if [ "$mode" = record ]; then
		[ "${#baselines[@]}" -ge 1 ] || die 2 "baselines: record needs the file to write (the last one listed; earlier ones are what it extends)"
		local target=${baselines[-1]} b
		[ -z "$agent" ] && agent=$(sed -n 's/^agent: *//p' "$target" 2>/dev/null | head -1)
		[ -z "$agent" ] && agent=$(basename "${argv[0]}")
		flags=(--timeout "${INPUT_TIMEOUT:-10m}" --agent "$agent" --result "$out/result.json")
		if [ "${INPUT_INCREMENTAL:-false}" = true ] && [ -f "$target" ]; then
			# The files allowed in the kernel, the new entries added to
			# the last (it keeps its extends).
			for b in "${baselines[@]}"; do flags+=(--against "$b"); done
		else
			for b in "${baselines[@]:0:${#baselines[@]}-1}"; do flags+=(--extends "$b"); done
			[ -f "$target" ] && flags+=(--merge)
		fi
		as_root mkdir -p "$out/observations"
		# Record writes the baseline into the job's checkout, which the
		# agent's user can write: --force says that is meant.
		as_root sysgate record "${flags[@]}" --force -o "$target" --observation "$out/observations/$agent.json" -- "${argv[@]}" || return $?
		as_root chown "$(id -u):$(id -g)" "$target"
		echo "sysgate: recorded $target"
		return 0
	fi
	local b
	for b in "${baselines[@]}"; do flags+=(-b "$b"); done
	as_root sysgate "$mode" "${flags[@]}" -- "${argv[@]}"
}

# gate_packages compiles each package's tests as this user and runs the
# binaries as root (through sudo), their Ginkgo JSON reports written to out.
gate_packages() {
	local mode=$1 out=$2 pkgs=()
	read -r -d '' -a pkgs <<<"$INPUT_PACKAGES" || true
	export SYSGATE_MODE=$mode
	# The baselines every spec's run binds read-only and re-hashes: one
	# package's agent must not widen a baseline a later spec checks with.
	# Absolute: each test binary runs in its package's directory.
	local b guarded=()
	read -r -d '' -a guarded <<<"${INPUT_BASELINES:-}" || true
	for b in "${!guarded[@]}"; do guarded[b]=$(realpath -m -- "${guarded[b]}"); done
	SYSGATE_BASELINES="${guarded[*]}"
	export SYSGATE_BASELINES
	if [ "$mode" = record ]; then
		export SYSGATE_OBSERVATIONS="$out/observations"
		SYSGATE_INCREMENTAL=$([ "${INPUT_INCREMENTAL:-false}" = true ] && echo 1 || echo 0)
		export SYSGATE_INCREMENTAL
		as_root mkdir -p "$SYSGATE_OBSERVATIONS"
	fi
	if escalates; then
		SYSGATE_USER="$(id -u):$(id -g)"
		export SYSGATE_USER
	fi
	local bins
	bins=$(mktemp -d)
	local list
	list=$(go list -f '{{if or .TestGoFiles .XTestGoFiles}}{{.ImportPath}}	{{.Dir}}{{end}}' "${pkgs[@]}") ||
		die 2 "packages: go list ${pkgs[*]} failed"
	[ -n "$list" ] || die 2 "packages: no tests in ${pkgs[*]}"
	local n=0 code=0 path dir
	while IFS=$'\t' read -r path dir; do
		[ -n "$path" ] || continue
		n=$((n + 1))
		echo "sysgate: go test -c $path"
		go test -c -o "$bins/$n.test" "$path" || die 2 "packages: $path does not compile"
		local c=0
		(cd "$dir" && as_root "$bins/$n.test" -test.timeout "${INPUT_TIMEOUT:-10m}" -test.v \
			-ginkgo.json-report "$out/ginkgo-$n.json" -ginkgo.no-color -ginkgo.github-output) || c=$?
		echo "sysgate: $path: exit $c"
		[ "$c" -eq 0 ] || code=1
	done <<<"$list"
	rm -rf "$bins"
	return "$code"
}

# record_packages_baselines writes what the packages' runs recorded into
# the baseline directory (the one baselines names), keeping entries no run
# made, and leaves the pull-request body beside the reports.
record_packages_baselines() {
	local reports=$1
	shift
	if [ "$#" -ne 1 ] || [ ! -d "$1" ]; then
		die 2 "baselines: record with packages needs exactly one directory of baseline files to update"
	fi
	sysgate report pr-body --write --keep-unseen --baselines "$1" ${RUN_URL:+--run-url "$RUN_URL"} \
		"$reports"/observations/*.json >"$reports/baseline-update.md" ||
		die 2 "baselines: sysgate report pr-body could not update $1 from the observations (its message above names the agent or file)"
	echo "sysgate: baselines in $1 updated; the change, as a pull-request body: $reports/baseline-update.md"
}

step_verdict() {
	local code=${SYSGATE_CODE:-}
	case "$code" in
	0) echo "sysgate: ${SYSGATE_VERDICT:-clean}" ;;
	"") die 3 "the gate step ended without a verdict: its log says why" ;;
	1) die 1 "violation: the agent made syscalls or ran programs outside its baselines (the summary and annotations name them and the lines to add)" ;;
	2) die 2 "bad input: the gate step's log names the file or input" ;;
	3) die 3 "inconclusive: sysgate could not see everything the agent did; the summary says why (never a pass)" ;;
	4) die 4 "the agent itself failed (non-zero exit or a signal): the log has its output" ;;
	*) die "$code" "the gate failed with exit $code" ;;
	esac
}

case "${1:-}" in
plan) step_plan ;;
install) step_install ;;
doctor) step_doctor ;;
gate) step_gate ;;
verdict) step_verdict ;;
*)
	echo "usage: scripts/action.sh plan|install|doctor|gate|verdict (the steps of action.yml)" >&2
	exit 2
	;;
esac
