# shellcheck shell=bash
# What the action's record mode leaves (sourced by scripts/action.sh for its
# gate step): the baseline files as they were before the agent ran, kept in
# this step's memory (the agent's user can write the checkout and
# RUNNER_TEMP, not this shell), and after the record the updated files, a
# patch of them and a step-summary section with that patch, in the
# reports directory the action uploads. A runner's checkout goes away with
# the job: without these the recorded baseline would too.

# baseline_files PATH...: the YAML files of the baselines input (a
# directory's *.yaml, or the file), NUL-terminated. Symbolic links are left
# out: record writes through none, and the artifact must not carry what
# one points at.
baseline_files() {
	local p
	for p in "$@"; do
		if [ -d "$p" ]; then
			find "$p" -name '*.yaml' -type f -print0
		elif [ -f "$p" ] && [ ! -L "$p" ]; then
			printf '%s\0' "$p"
		fi
	done
}

# repo_path FILE is FILE relative to the top of its git repository (else to
# the working directory): the name the patch and the artifact give it.
repo_path() {
	local top
	top=$(git rev-parse --show-toplevel 2>/dev/null) || top=$PWD
	realpath -m --relative-to="$top" -- "$1"
}

# snapshot_baselines PATH... keeps each baseline file's content, by its
# repo_path, before the agent runs. The x keeps trailing newlines that
# $(...) would strip.
declare -A baseline_before=()
snapshot_baselines() {
	local f
	while IFS= read -r -d '' f; do
		baseline_before[$(repo_path "$f")]=$(
			cat -- "$f"
			printf x
		)
	done < <(baseline_files "$@")
}

# baseline_update_fence is a markdown code fence longer than any run of
# backticks in file $1: a baseline may quote a path the agent chose.
baseline_update_fence() {
	local n
	n=$(awk '{ while (match($0, /`+/)) { if (RLENGTH > m) m = RLENGTH; $0 = substr($0, RSTART + RLENGTH) } } END { print m + 0 }' "$1")
	[ "$n" -ge 3 ] || n=2
	printf '`%.0s' $(seq 0 "$n")
}

# write_baseline_update DIR CODE PATH... writes into DIR (the reports) the
# baseline files record changed, under baseline-update/ by their path in
# the repository, and baseline-update.patch (apply it at the repository's
# top with git apply), and appends a section with the patch to DIR's
# summary.md and the step summary. CODE is the gate's exit code: a failed
# record that changed nothing says nothing.
write_baseline_update() {
	local dir=$1 code=$2 f rel old tmp changed=()
	shift 2
	local patch=$dir/baseline-update.patch
	declare -A after=()
	while IFS= read -r -d '' f; do after[$(repo_path "$f")]=$f; done < <(baseline_files "$@")
	scratch tmp
	: >"$patch"
	local rels=()
	mapfile -t rels < <(printf '%s\n' "${!after[@]}" | LC_ALL=C sort)
	for rel in "${rels[@]}"; do
		[ -n "$rel" ] || continue
		f=${after[$rel]}
		local from=/dev/null label=/dev/null
		if [ -n "${baseline_before[$rel]+set}" ]; then
			old=${baseline_before[$rel]}
			printf '%s' "${old%x}" >"$tmp/before"
			from=$tmp/before label=a/$rel
		fi
		local rc=0
		diff -u --label "$label" --label "b/$rel" "$from" "$f" >>"$patch" || rc=$?
		case "$rc" in
		0) continue ;;
		1) changed+=("$rel") ;;
		*) die 3 "baselines: diff of $rel failed (exit $rc)" ;;
		esac
		# A file outside the repository keeps only its name in the artifact.
		local dest=$rel
		[[ "$dest" == ../* ]] && dest=$(basename -- "$rel")
		mkdir -p "$dir/baseline-update/$(dirname -- "$dest")"
		cp -- "$f" "$dir/baseline-update/$dest"
	done
	if [ "${#changed[@]}" -eq 0 ]; then
		rm -f -- "$patch"
		[ "$code" -eq 0 ] || return 0
		echo "sysgate: record changed no baseline file"
	else
		echo "sysgate: record changed ${changed[*]}: the files are in $dir/baseline-update/, the patch is $patch"
		# A record run whose last pass learnt nothing new reports clean,
		# but the job recorded: the outputs say so (the last value wins).
		if [ "$code" -eq 0 ]; then output verdict recorded; fi
	fi
	baseline_update_summary "$dir" "${changed[*]}" >"$tmp/section"
	cat "$tmp/section" >>"$dir/summary.md"
	if [ -n "${GITHUB_STEP_SUMMARY:-}" ]; then cat "$tmp/section" >>"$GITHUB_STEP_SUMMARY"; fi
}

# baseline_update_summary DIR CHANGED prints the step summary's section:
# where the new files and the patch are, what to do with them, and the
# patch itself (its first 300 lines).
baseline_update_summary() {
	local dir=$1 names=$2 where
	echo "### Recorded baseline"
	echo
	if [ -z "$names" ]; then
		echo "Record changed no baseline file: what the agent did is in them already."
		echo
		return 0
	fi
	if [ "${INPUT_UPLOAD:-true}" = true ]; then
		where="The artifact \`${INPUT_ARTIFACT_NAME:-$(artifact_name)}\`"
	else
		where="The reports directory (\`$dir\`)"
	fi
	local patch=$dir/baseline-update.patch added removed lines fence
	added=$(awk '/^\+\+\+ / { next } /^\+/ { n++ } END { print n + 0 }' "$patch")
	removed=$(awk '/^--- / { next } /^-/ { n++ } END { print n + 0 }' "$patch")
	lines=$(wc -l <"$patch")
	echo "Record changed \`${names// /\`, \`}\` (+$added −$removed lines). $where holds the new files under" \
		"\`baseline-update/\` and \`baseline-update.patch\`: at the top of your checkout run" \
		"\`git apply baseline-update.patch\`, replace each \`unreviewed: seen in record mode\` reason" \
		"with why the agent needs the entry (\`sysgate baseline validate --strict\` lists them), and commit."
	echo
	fence=$(baseline_update_fence "$patch")
	echo "<details><summary>baseline-update.patch ($lines lines)</summary>"
	echo
	echo "${fence}diff"
	head -n 300 "$patch"
	echo "$fence"
	[ "$lines" -le 300 ] || echo "(the first 300 of $lines lines: the whole patch is in \`baseline-update.patch\`)"
	echo
	echo "</details>"
	echo
}
