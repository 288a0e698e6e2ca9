#!/usr/bin/env bash
# The steps of the sysgate GitHub Action (action.yml), one subcommand each:
#   plan     pick how to install: a release binary (a tag, or the release tagged at a pinned SHA;
#            amd64 and arm64) or a source build, and its cache key
#   install  download and verify the release binary (SHA256SUMS, and its attestation where gh is), or build from the action's source (once per key)
#   doctor   sysgate doctor for the chosen backend: stop early, with the fixes, if it cannot run here
#   gate     validate the baselines, run the command or the Go packages, write the reports and outputs,
#            and fail with sysgate's own exit code: no later step reads anything to decide the verdict;
#            in record mode also the changed baseline files and a patch (scripts/action-record.sh)
#   widening on a pull request: what its baselines allow that its base commit's did not
#   widening-verdict  fail the job for a widening (on-widening: fail)
# Inputs arrive as INPUT_* variables (action.yml maps them); GitHub's files
# (GITHUB_OUTPUT, GITHUB_STEP_SUMMARY, GITHUB_PATH) as the runner sets them.
# scripts/action-dry-run.sh runs these steps as the runner would.
set -euo pipefail

action_dir=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=SCRIPTDIR/action-record.sh
. "$action_dir/scripts/action-record.sh"

die() {
	local code=$1
	shift
	if [ "${in_gate:-0}" = 1 ]; then output code "$code"; fi
	echo "::error title=sysgate::$*"
	echo "sysgate action: $*" >&2
	exit "$code"
}

output() { echo "$1=$2" >>"${GITHUB_OUTPUT:?GITHUB_OUTPUT is not set: run inside a GitHub Actions step or scripts/action-dry-run.sh}"; }

# bool_input NAME VALUE: true or false, else bad input naming the input.
bool_input() {
	case "$2" in
	true | false) ;;
	*) die 2 "$1: '$2' is not true or false" ;;
	esac
}

# scratch VAR makes a temporary directory under RUNNER_TEMP (the runner
# empties it after the job) and names it in VAR; it is removed when this
# step exits, however it ends. Not in a $(...): the list is this shell's.
scratch_dirs=()
scratch() {
	local d
	d=$(mktemp -d "${RUNNER_TEMP:-${TMPDIR:-/tmp}}/sysgate.XXXXXX")
	scratch_dirs+=("$d")
	printf -v "$1" '%s' "$d"
}
# shellcheck disable=SC2317 # run by the EXIT trap
cleanup() {
	local d
	for d in "${scratch_dirs[@]}"; do rm -rf -- "$d"; done
	if [ -n "${root_out:-}" ]; then as_root rm -rf -- "$root_out" || true; fi
}
trap cleanup EXIT

# as_root runs a command as root: directly when this is root (a container
# job), through passwordless sudo where it exists (hosted runners: sudo keeps
# SUDO_UID, so sysgate runs the agent as the job's user), else as this user
# (notify backend: no privilege needed).
sudo_env=(CI GITHUB_ACTIONS SYSGATE_BACKEND SYSGATE_BASELINES SYSGATE_MODE SYSGATE_OBSERVATIONS SYSGATE_INCREMENTAL SYSGATE_USER SYSGATE_READ_ONLY NO_COLOR)
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
	case "$SYSGATE_BACKEND" in auto | audit | notify) ;; *) die 2 "backend: '$SYSGATE_BACKEND' is not auto, audit or notify" ;; esac
	local code=0
	as_root sysgate doctor --backend "$SYSGATE_BACKEND" || code=$?
	if [ "$code" -ne 0 ]; then
		# The action's outputs fall back to these when the gate never ran.
		output verdict inconclusive
		output violations 0
		die "$code" "this machine cannot run the $SYSGATE_BACKEND backend: the doctor's FAIL lines above say why and how to fix it"
	fi
}

# words splits the command input as a shell would, without running it
# through one: xargs honours quotes and backslashes and expands nothing
# ($HOME stays $HOME). One NUL-terminated word per argument on stdout.
words() {
	printf '%s' "$1" | xargs -r printf '%s\0'
}

# command_words splits the command input into argv_words (dies on bad
# input). One place, so the widening check, validate and the gate judge
# and run the same words.
argv_words=()
command_words() {
	local split w
	scratch split
	split=$split/words
	words "$INPUT_COMMAND" >"$split" 2>/dev/null ||
		die 2 "command: cannot split into words (an unclosed quote?): $INPUT_COMMAND"
	argv_words=()
	while IFS= read -r -d '' w; do argv_words+=("$w"); done <"$split"
	[ "${#argv_words[@]}" -gt 0 ] || die 2 "command: empty"
}

# selection_flags: what baseline diff --base and validate need to pick
# the runtime layers as the gate's run will (issue 43, item 7): the
# environment sysgate gets through as_root (sudo resets it: PYENV_VERSION
# and the like differ from this step's), the env-file and --dir inputs,
# and the command after "--". Empty without a command input.
selection_flags=()
selection_command_flags() {
	selection_flags=()
	[ -n "${INPUT_COMMAND:-}" ] || return 0
	command_words
	# Not "d": scratch's own local would take the name.
	local envdir a
	scratch envdir
	as_root env -0 >"$envdir/env" || die 3 "cannot read the environment the gate's run starts with (env -0 through sudo)"
	selection_flags=(--command-env "$envdir/env")
	[ -n "${INPUT_ENV_FILE:-}" ] && selection_flags+=(--env-file "$(realpath -- "$INPUT_ENV_FILE")")
	for a in "${extra_args[@]}"; do
		case "$a" in --dir=*) selection_flags+=("$a") ;; esac
	done
	return 0
}

# reports_dir makes the reports directory ready and sets reports to its
# absolute path: a new one, or one an earlier gate made (its marker file), emptied.
# A directory that exists without the marker is the user's: refused, never
# removed.
reports_marker=.sysgate-reports
reports_dir() {
	local dir=$1
	if [ -L "$dir" ]; then die 2 "reports: $dir is a symbolic link: name a directory of its own for sysgate's reports"; fi
	if [ -e "$dir" ]; then
		[ -d "$dir" ] || die 2 "reports: $dir exists and is not a directory"
		if [ ! -f "$dir/$reports_marker" ] && [ -n "$(find "$dir" -mindepth 1 -print -quit)" ]; then
			die 2 "reports: $dir exists and is not sysgate's (no $reports_marker in it): name another directory, or remove it first"
		fi
		find "$dir" -mindepth 1 -delete
	fi
	mkdir -p "$dir"
	echo "the reports of sysgate's action: the gate empties this directory in every run" >"$dir/$reports_marker"
	reports=$(cd "$dir" && pwd)
}

# sysgate_args turns the args input into extra flags of sysgate's run verbs:
# only flags that change how the agent runs, never where outputs go
# (--result, --junit, --force, -b are the action's), each as --name or
# --name=value.
allowed_args=(grace keep-cap tty no-programs no-files no-network no-arg-classes allow-unisolated user dir keep-fd)
extra_args=()
parse_args_input() {
	[ -n "${INPUT_ARGS:-}" ] || return 0
	local split w name
	scratch split
	split=$split/args
	words "$INPUT_ARGS" >"$split" 2>/dev/null || die 2 "args: cannot split into words (an unclosed quote?): $INPUT_ARGS"
	while IFS= read -r -d '' w; do
		[[ "$w" == --?* ]] || die 2 "args: '$w' is not a flag (--name or --name=value)"
		name=${w#--}
		name=${name%%=*}
		local ok=0 a
		for a in "${allowed_args[@]}"; do [ "$a" = "$name" ] && ok=1; done
		[ "$ok" = 1 ] || die 2 "args: --$name is not one the action passes on (it takes ${allowed_args[*]/#/--}; outputs, baselines and mode are inputs of their own)"
		extra_args+=("$w")
	done <"$split"
}

# pass_env_input: the pass-env names and globs (spaces, commas or newlines
# between them). Each one that matches a variable of this step is kept
# through sudo (its env_reset drops them all) and passed to sysgate as
# --pass-env, so a named runner credential reaches the agent; nothing else
# does.
pass_patterns=()
parse_pass_env_input() {
	local p name pats=()
	# read, not a word split: a glob here must not match files.
	IFS=$' \t\n,' read -r -d '' -a pats <<<"${INPUT_PASS_ENV:-}" || true
	for p in "${pats[@]}"; do
		[[ "$p" =~ ^[A-Za-z0-9_*?]+$ ]] || die 2 "pass-env: '$p' is not a variable name or glob (letters, digits, _, * and ?)"
		pass_patterns+=("$p")
		while IFS= read -r name; do
			# shellcheck disable=SC2053 # the pattern is a glob on purpose
			[[ "$name" == $p ]] && sudo_env+=("$name")
		done < <(compgen -e)
	done
	return 0
}

# read_only_paths: what the agent must not write, bound read-only in its
# mount namespace (sysgate --read-only): the action's own directory, the
# sysgate binary and the tool cache, the runner's _actions (every later
# action's code), the runner's file-command directory (this step's
# GITHUB_ENV, GITHUB_PATH, GITHUB_OUTPUT: predictable names) and the
# reports directory. The workspace, $HOME and $RUNNER_TEMP stay writable.
read_only_paths() {
	local p bin
	bin=$(command -v sysgate || true)
	for p in "$action_dir" ${bin:+"$(dirname "$bin")"} "${RUNNER_TOOL_CACHE:-}" "$(actions_dir)" \
		${RUNNER_TEMP:+"$RUNNER_TEMP/_runner_file_commands"} "$1"; do
		[ -n "$p" ] && [ -e "$p" ] && realpath -- "$p"
	done | LC_ALL=C sort -u
}

# actions_dir is the runner's _actions directory: the action's own
# checkout lies at _actions/OWNER/REPO/REF; else beside RUNNER_TEMP.
actions_dir() {
	local up
	up=$(dirname "$(dirname "$(dirname "$action_dir")")")
	if [ "$(basename "$up")" = _actions ]; then
		echo "$up"
	elif [ -n "${RUNNER_TEMP:-}" ] && [ -d "$(dirname "$RUNNER_TEMP")/_actions" ]; then
		echo "$(dirname "$RUNNER_TEMP")/_actions"
	fi
}

# artifact_name is unique per matrix leg: the job, the runner and a hash
# of the inputs that make the legs differ.
artifact_name() {
	local h
	h=$(printf '%s\0' "${INPUT_COMMAND:-}" "${INPUT_PACKAGES:-}" "${INPUT_BASELINES:-}" "${INPUT_AGENT:-}" \
		"${INPUT_MODE:-}" "${INPUT_BACKEND:-}" "${INPUT_ARGS:-}" "$PWD" | sha256sum | cut -c1-8)
	echo "sysgate-${GITHUB_JOB:-job}-${RUNNER_OS:-Linux}-${RUNNER_ARCH:-X64}-$h"
}

step_gate() {
	in_gate=1
	output artifact-name "$(artifact_name)"
	local mode=${INPUT_MODE:-check} reports=${INPUT_REPORTS:-sysgate-reports}
	case "$mode" in check | record | enforce) ;; *) die 2 "mode: '$mode' is not check, record or enforce" ;; esac
	case "${INPUT_BACKEND:-auto}" in auto | audit | notify) ;; *) die 2 "backend: '${INPUT_BACKEND}' is not auto, audit or notify" ;; esac
	local incremental=${INPUT_INCREMENTAL:-false} strict=${INPUT_STRICT:-true} allow_failure=${INPUT_ALLOW_AGENT_FAILURE:-false}
	bool_input incremental "$incremental"
	bool_input strict "$strict"
	bool_input allow-agent-failure "$allow_failure"
	bool_input upload "${INPUT_UPLOAD:-true}"
	if [ -n "${INPUT_ENV_FILE:-}" ] && [ ! -f "$INPUT_ENV_FILE" ]; then die 2 "env-file: $INPUT_ENV_FILE is not a file"; fi
	[[ "${INPUT_RECORD_RUNS:-}" =~ ^([1-9][0-9]*)?$ ]] || die 2 "record-runs: '$INPUT_RECORD_RUNS' is not a number of runs (empty: until stable)"
	parse_args_input
	parse_pass_env_input
	if [ -n "${INPUT_COMMAND:-}" ] && [ -n "${INPUT_PACKAGES:-}" ]; then die 2 "give command or packages, not both"; fi
	if [ -z "${INPUT_COMMAND:-}" ] && [ -z "${INPUT_PACKAGES:-}" ]; then die 2 "give command (the agent's command line) or packages (Go packages with gate specs)"; fi
	export SYSGATE_BACKEND=${INPUT_BACKEND:-auto} NO_COLOR=1 INPUT_INCREMENTAL=$incremental
	local baselines=()
	read -r -d '' -a baselines <<<"${INPUT_BASELINES:-}" || true
	if [ -n "${INPUT_COMMAND:-}" ] && [ "$mode" != record ] && [ "${#baselines[@]}" -eq 0 ]; then
		die 2 "baselines: $mode needs the agent's baseline files (record one first: mode: record)"
	fi

	reports_dir "$reports"
	# Run outputs go to a directory only root can write, in sticky /tmp,
	# when the agent runs as another user: it cannot plant or swap them.
	local out
	out=$(as_root mktemp -d /tmp/sysgate-action.XXXXXX)
	root_out=$out
	read_only=()
	reports_abs=$reports
	while IFS= read -r p; do read_only+=(--read-only "$p"); done < <(read_only_paths "$reports")
	run_flags=("${read_only[@]}" "${extra_args[@]}")
	local p
	for p in "${pass_patterns[@]}"; do run_flags+=(--pass-env "$p"); done
	[ -n "${INPUT_ENV_FILE:-}" ] && run_flags+=(--env-file "$(realpath -- "$INPUT_ENV_FILE")")
	[ "$allow_failure" = true ] && run_flags+=(--allow-agent-failure)

	selection_command_flags
	validate_baselines "$mode" "$strict" "${baselines[@]}"

	# Before the agent runs: the patch record leaves is against these.
	if [ "$mode" = record ]; then snapshot_baselines "${baselines[@]}"; fi
	local code=0
	if [ -n "${INPUT_COMMAND:-}" ]; then
		gate_command "$mode" "$out" || code=$?
	else
		gate_packages "$mode" "$out" || code=$?
	fi
	as_root chown -R "$(id -u):$(id -g)" "$out"

	# Reports over what ran, read from the directory root wrote (the agent
	# could write neither it nor the reports directory): the step summary,
	# annotations, SARIF, JUnit, and the outputs verdict, violations and
	# drift. Then copied to the reports directory for the upload.
	local inputs=()
	[ -f "$out/result.json" ] && inputs+=(--result "$out/result.json")
	for f in "$out"/ginkgo-*.json; do [ -f "$f" ] && inputs+=(--ginkgo-json "$f"); done
	if [ "${#inputs[@]}" -eq 0 ]; then
		cp -R "$out"/. "$reports"/
		if [ -n "$(find "$reports" -type f ! -name "$reports_marker" -print -quit)" ]; then output reports "$reports"; fi
		code=$([ "$code" -eq 0 ] && echo 3 || echo "$code")
		output verdict inconclusive
		output violations 0
		output drift false
		die "$code" "no result was written (exit $code): the log above says why"
	fi
	sysgate report summary "${inputs[@]}" --junit "$out/junit.xml" --github-output >"$out/summary.md"
	if [ -n "${GITHUB_STEP_SUMMARY:-}" ]; then cat "$out/summary.md" >>"$GITHUB_STEP_SUMMARY"; fi
	sysgate report annotations "${inputs[@]}"
	sysgate report sarif "${inputs[@]}" >"$out/sysgate.sarif"
	local rcode=0
	sysgate report summary "${inputs[@]}" --exit-code >/dev/null || rcode=$?
	# The worse of the run's code and the reports' verdict: a spec that
	# failed for another reason still fails the step.
	if [ "$rcode" -ne 0 ]; then code=$rcode; fi
	cp -R "$out"/. "$reports"/
	output reports "$reports"
	output sarif "$reports/sysgate.sarif"

	# Only runs that learned something leave an observation: a spec that
	# failed before its agent ran leaves the directory empty.
	if [ "$mode" = record ] && [ -n "${INPUT_PACKAGES:-}" ] &&
		[ -n "$(find "$reports/observations" -name '*.json' -type f -print -quit 2>/dev/null)" ]; then
		record_packages_baselines "$reports" "${baselines[@]}"
	fi
	if [ "$mode" = record ]; then write_baseline_update "$reports" "$code" "${baselines[@]}"; fi
	output code "$code"
	echo "sysgate: exit $code"
	verdict_message "$code"
}

# validate_baselines MODE STRICT PATH... validates what can be validated
# before anything runs: syntax, unknown syscalls, the canonical layout, and
# with strict the unreviewed reasons a record left. Record validates
# nothing: it writes the files.
validate_baselines() {
	local mode=$1 strict=$2 f
	shift 2
	local baselines=("$@")
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
		local strict_flag=()
		[ "$strict" = true ] && strict_flag=(--strict)
		# The run's command picks the layers validate reads, as the run does.
		local run_command=()
		[ "${#selection_flags[@]}" -gt 0 ] && run_command=(-- "${argv_words[@]}")
		sysgate baseline validate "${strict_flag[@]}" "${selection_flags[@]}" --format github "${files[@]}" "${run_command[@]}" ||
			die 2 "baselines: validate${strict_flag:+ --strict} failed (the annotations name the file and line; record leaves 'unreviewed' reasons a reviewer must replace)"
		local unformatted
		unformatted=$(sysgate baseline fmt -l "${files[@]}" 2>&1) ||
			die 2 "baselines: not in the canonical layout: $(echo "$unformatted" | tr '\n' ' ')(sysgate baseline fmt -w FILE rewrites them)"
	fi
}

# gate_command runs the command input once under sysgate record, check or
# enforce, with the result, JUnit and observation written to out.
gate_command() {
	local mode=$1 out=$2 agent=${INPUT_AGENT:-}
	command_words
	local argv=("${argv_words[@]}")
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
		# How often the agent runs: until stable unless record-runs says.
		[ -n "${INPUT_RECORD_RUNS:-}" ] && flags+=(--runs "$INPUT_RECORD_RUNS")
		as_root mkdir -p "$out/observations"
		# Record writes the baseline into the job's checkout, which the
		# agent's user can write: --force says that is meant.
		as_root sysgate record "${flags[@]}" "${run_flags[@]}" --force -o "$target" --observation "$out/observations/$agent.json" -- "${argv[@]}" || return $?
		as_root chown "$(id -u):$(id -g)" "$target"
		echo "sysgate: recorded $target"
		return 0
	fi
	local b
	for b in "${baselines[@]}"; do flags+=(-b "$b"); done
	as_root sysgate "$mode" "${flags[@]}" "${run_flags[@]}" -- "${argv[@]}"
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
	# What --read-only is for a command: one path a line.
	SYSGATE_READ_ONLY=$(read_only_paths "$reports_abs")
	export SYSGATE_READ_ONLY
	if [ "$mode" = record ]; then
		export SYSGATE_OBSERVATIONS="$out/observations"
		SYSGATE_INCREMENTAL=$([ "${INPUT_INCREMENTAL:-false}" = true ] && echo 1 || echo 0)
		export SYSGATE_INCREMENTAL
		# gatetest.Run records until stable unless this says how often.
		export SYSGATE_RECORD_RUNS=${INPUT_RECORD_RUNS:-}
		as_root mkdir -p "$SYSGATE_OBSERVATIONS"
	fi
	if escalates; then
		SYSGATE_USER="$(id -u):$(id -g)"
		export SYSGATE_USER
	fi
	local bins
	scratch bins
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

# verdict_message fails the gate step with sysgate's exit code and a
# one-line reason (0: says the verdict and returns).
verdict_message() {
	case "$1" in
	0) echo "sysgate: clean" ;;
	1) die 1 "violation: the agent made syscalls or ran programs outside its baselines (the summary and annotations name them and the lines to add)" ;;
	2) die 2 "bad input: the log above names the file or input" ;;
	3) die 3 "inconclusive: sysgate could not see everything the agent did; the summary says why (never a pass)" ;;
	4) die 4 "the agent itself failed (non-zero exit or a signal): the log has its output (allow-agent-failure: true passes a clean run anyway)" ;;
	*) die "$1" "the gate failed with exit $1" ;;
	esac
}

# step_widening compares the baselines with the pull request's base
# commit's, read with git (never checked out), before the agent runs: a
# pull request is otherwise judged by the baseline it brings.
step_widening() {
	local on=${INPUT_ON_WIDENING:-warn} event=${GITHUB_EVENT_NAME:-}
	case "$on" in fail | warn) ;; *) die 2 "on-widening: $on is not fail or warn" ;; esac
	case "$event" in pull_request | pull_request_target) ;; *)
		echo "sysgate: a ${event:-job without an event}, not a pull request: no base to compare the baselines with"
		return 0
		;;
	esac
	local base=${SYSGATE_BASE_SHA:-}
	[[ "$base" =~ ^[0-9a-f]{40}([0-9a-f]{24})?$ ]] || die 2 "on-widening: the $event event has no pull_request.base.sha (got '$base')"
	local baselines=() files=() b
	read -r -d '' -a baselines <<<"${INPUT_BASELINES:-}" || true
	for b in "${baselines[@]}"; do [ -e "$b" ] && files+=("$b"); done
	if [ "${#files[@]}" -eq 0 ]; then
		echo "sysgate: no baseline files to compare"
		output widened false
		return 0
	fi
	# actions/checkout fetches one commit by default: fetch the base too.
	if ! git cat-file -e "$base^{commit}" 2>/dev/null && ! git fetch -q --no-tags --depth=1 origin "$base"; then
		[ "$on" = fail ] && die 3 "on-widening: cannot fetch the base commit $base to compare the baselines with"
		echo "::warning title=sysgate::cannot fetch the base commit $base: the baselines were not compared with it"
		return 0
	fi
	# The layers the gate's run loads are picked by its command: the diff
	# judges those, and says it cannot (exit 3) rather than judge others.
	parse_args_input
	parse_pass_env_input
	selection_command_flags
	local diff=(sysgate baseline diff --base "$base" "${selection_flags[@]}") run_command=()
	[ "${#selection_flags[@]}" -gt 0 ] && run_command=(-- "${argv_words[@]}")
	local level=warning code=0 text
	[ "$on" = fail ] && level=error
	text=$("${diff[@]}" "${files[@]}" "${run_command[@]}") || code=$?
	printf '%s\n' "$text"
	case "$code" in
	0) output widened false ;;
	1)
		"${diff[@]}" --format github --level "$level" "${files[@]}" "${run_command[@]}" || true
		if [ -n "${GITHUB_STEP_SUMMARY:-}" ]; then
			"${diff[@]}" --format markdown "${files[@]}" "${run_command[@]}" >>"$GITHUB_STEP_SUMMARY" || true
		fi
		output widened true
		# One line for the widening verdict step: "agent.yaml:12: x86_64 socket(AF_INET), ...".
		output entries "$(printf '%s\n' "$text" | sed -n 's/^  \(.*\)$/\1/p' | sed 's/ \[risky: .*//; s/; reason: .*//; s/; review: .*//' | paste -sd ';' | sed 's/;/, /g')"
		;;
	3)
		# Which layers the run loads cannot be told (a packages job's
		# layer picked by {python}, {node}, {go} or {libc}): never "no
		# widening".
		[ "$on" = fail ] && die 3 "on-widening: the widening cannot be judged: the message above names the layer and the fix"
		echo "::warning title=sysgate::the widening of the baselines was not judged: the message above names the layer and the fix"
		;;
	*) die "$code" "on-widening: sysgate baseline diff --base $base failed (exit $code): its message above names the file" ;;
	esac
}

step_widening_verdict() {
	die 1 "on-widening: fail: this pull request widens the baseline: ${SYSGATE_WIDENED:-see the annotations}. The pull request is judged by the baseline it brings: someone who owns the baseline files must review each entry (docs/action.md: who reviews a baseline)"
}

# Linux only: say so before anything is installed.
case "${RUNNER_OS:-Linux}" in
Linux) ;;
*)
	echo "::error title=sysgate::sysgate runs on Linux runners only (this is $RUNNER_OS): seccomp and the kernel's audit log are Linux's"
	exit 2
	;;
esac

# Every step exits inside this case: bash reads a script as it runs it,
# and nothing after this command may run.
case "${1:-}" in
plan) step_plan; exit 0 ;;
install) step_install; exit 0 ;;
doctor) step_doctor; exit 0 ;;
gate) step_gate; exit 0 ;;
widening) step_widening; exit 0 ;;
widening-verdict) step_widening_verdict ;; # dies: the job fails
*)
	echo "usage: scripts/action.sh plan|install|doctor|gate|widening|widening-verdict (the steps of action.yml)" >&2
	exit 2
	;;
esac
