#!/usr/bin/env bash
# The two halves of the reusable baseline-update workflow
# (.github/workflows/sysgate-baseline-update.yml), kept here so shellcheck
# reads them and ci/baselinepr_test.go runs them against a real git remote:
#
#   collect REPORTS SHARD   a record job: put its observations, its arch and
#                           (command mode) the baseline file it recorded into
#                           SHARD, the artifact the update job downloads
#   open SHARDS             the update job, in the caller's checkout (the
#                           working directory): merge every shard's
#                           observations into the baselines on the bot
#                           branch, list what a reviewer must fix, push, and
#                           open or update the pull request
#
# Inputs come as environment variables, as the workflow passes them:
#   SYSGATE_BASELINES   the action's baselines input (files, or with packages one directory)
#   SYSGATE_PACKAGES    the action's packages input (empty: command mode)
#   BASE_BRANCH         the branch the pull request targets
#   BOT_BRANCH          the branch the update is pushed to (default sysgate/baseline-update/<base>)
#   KEEP_UNSEEN         true: keep entries no run made (default: propose removing them)
#   RUN_URL             the workflow run, linked from the body and the commit
#   GH_TOKEN            for gh (the pull request)
#   GIT_TOKEN           for git's ls-remote, fetch and push over https (the checkout keeps no
#                       credential: persist-credentials: false); unset: the remote's own access
#
# It never force-pushes: an existing bot branch is checked out and the new
# commit goes on top of it (so a reviewer's reasons and comments, which the
# writer keeps, survive); if the branch moved while this ran, the push is
# refused and so is the update, with nothing overwritten.
set -euo pipefail

die() {
	echo "::error title=sysgate baseline update::$*"
	echo "baseline-pr: $*" >&2
	exit "${code:-1}"
}

output() { if [ -n "${GITHUB_OUTPUT:-}" ]; then echo "$1=$2" >>"$GITHUB_OUTPUT"; fi; }

# remote_git runs one git command that talks to origin, with GIT_TOKEN as
# that command's credential and no other's: nothing is written to
# .git/config, and the token stays out of the command line (the helper
# reads it from the environment), so a later step finds it nowhere.
remote_git() {
	if [ -z "${GIT_TOKEN:-}" ]; then
		git "$@"
		return
	fi
	# shellcheck disable=SC2016 # expanded by the helper, not here
	git -c credential.helper= \
		-c 'credential.helper=!f() { test "$1" = get && printf "username=x-access-token\npassword=%s\n" "$GIT_TOKEN"; }; f' "$@"
}

baseline_words() { read -r -d '' -a baselines <<<"${SYSGATE_BASELINES:-}" || true; }

cmd_collect() {
	local reports=${1:?usage: baseline-pr.sh collect REPORTS SHARD} shard=${2:?usage: baseline-pr.sh collect REPORTS SHARD}
	mkdir -p "$shard"
	# The arch names the list these observations update: the update job
	# passes every shard's arch as --arch, so a new arch is added on purpose.
	local arch
	arch=$(uname -m)
	case "$arch" in arm64) arch=aarch64 ;; esac
	echo "$arch" >"$shard/arch"
	if [ -d "$reports/observations" ]; then
		mkdir -p "$shard/observations"
		find "$reports/observations" -maxdepth 1 -name '*.json' -exec cp {} "$shard/observations/" \;
	fi
	# The reports themselves (summary, JUnit, SARIF) help whoever reads a
	# failed record run; they are small.
	find "$reports" -maxdepth 1 -type f -exec cp {} "$shard/" \;
	local baselines=()
	baseline_words
	if [ -z "${SYSGATE_PACKAGES:-}" ] && [ "${#baselines[@]}" -gt 0 ] && [ -f "${baselines[-1]}" ]; then
		# Command mode recorded the agent's file itself: the update job
		# starts from it when the repository has none yet (a first baseline).
		cp "${baselines[-1]}" "$shard/seed.yaml"
	fi
	echo "baseline-pr: shard $shard ($arch): $(find "$shard/observations" -name '*.json' 2>/dev/null | wc -l) observation(s)"
}

# baseline_files lists the baseline files to validate, one a line.
baseline_files() {
	local b
	for b in "${baselines[@]}"; do
		if [ -d "$b" ]; then
			find "$b" -name '*.yaml' -type f | LC_ALL=C sort
		elif [ -f "$b" ]; then
			echo "$b"
		fi
	done
}

# review_list renders what `baseline validate --strict` and `baseline fmt
# -l` find in the files as a markdown checklist, each with a link to the
# line at commit sha. It prints nothing when both are clean.
review_list() {
	local sha=$1
	shift
	local prefix blob findings unformatted line file rest lineno
	prefix=$(git rev-parse --show-prefix)
	blob="${GITHUB_SERVER_URL:-https://github.com}/${GITHUB_REPOSITORY:-OWNER/REPO}/blob/$sha"
	findings=$(sysgate baseline validate --strict "$@" 2>&1) || true
	unformatted=$(sysgate baseline fmt -l "$@" 2>&1) || true
	while IFS= read -r line; do
		[ -n "$line" ] || continue
		# Entries without a sha256 still work, and the next record pins
		# them: nothing for a reviewer to do.
		[[ "$line" == *" [unpinned]" ]] && continue
		# file:line: message [kind], or file: message when no line applies.
		if [[ "$line" =~ ^([^:]+):([0-9]+):\ (.*)$ ]]; then
			file=${BASH_REMATCH[1]} lineno=${BASH_REMATCH[2]} rest=${BASH_REMATCH[3]}
			echo "- [ ] [\`$file:$lineno\`]($blob/$prefix$file#L$lineno): ${rest#warning: }"
		elif [[ "$line" =~ ^([^:]+\.yaml):\ (.*)$ ]]; then
			file=${BASH_REMATCH[1]} rest=${BASH_REMATCH[2]}
			echo "- [ ] [\`$file\`]($blob/$prefix$file): $rest"
		else
			echo "- [ ] $line"
		fi
	done <<<"$findings"
	while IFS= read -r file; do
		[ -n "$file" ] || continue
		echo "- [ ] [\`$file\`]($blob/$prefix$file): not in the canonical layout: run \`sysgate baseline fmt -w $file\`"
	done <<<"$unformatted"
}

cmd_open() {
	local shards=${1:?usage: baseline-pr.sh open SHARDS}
	local base=${BASE_BRANCH:?BASE_BRANCH: the branch the pull request targets}
	local branch=${BOT_BRANCH:-sysgate/baseline-update/$base}
	local baselines=()
	baseline_words
	[ "${#baselines[@]}" -gt 0 ] || code=2 die "baselines: empty: name the baseline files (command) or their directory (packages)"
	local dir target=""
	if [ -n "${SYSGATE_PACKAGES:-}" ]; then
		[ "${#baselines[@]}" -eq 1 ] || code=2 die "baselines: with packages, name the one directory of baseline files to update (got: ${baselines[*]})"
		dir=${baselines[0]}
	else
		target=${baselines[-1]}
		dir=$(dirname "$target")
	fi

	local obs=() arches=() f a
	while IFS= read -r -d '' f; do obs+=("$f"); done < <(find "$shards" -path '*/observations/*.json' -type f -print0 | LC_ALL=C sort -z)
	[ "${#obs[@]}" -gt 0 ] || code=2 die "no observations in $shards: did the record jobs run (their logs say why not)?"
	while IFS= read -r a; do arches+=(--arch "$a"); done < <(find "$shards" -name arch -type f -exec cat {} + | LC_ALL=C sort -u)
	[ "${#arches[@]}" -gt 0 ] || code=2 die "no shard in $shards says its arch (baseline-pr.sh collect writes it)"

	# The bot branch: on top of the remote one if it exists (a reviewer may
	# have edited it), from the base branch if it does not or was merged.
	local exists=0 rc=0
	remote_git ls-remote --exit-code --heads origin "refs/heads/$branch" >/dev/null || rc=$?
	case "$rc" in
	0) exists=1 ;;
	2) ;;
	*) die "git ls-remote origin $branch failed (exit $rc): cannot tell whether the bot branch exists" ;;
	esac
	local on_top=0
	if [ "$exists" = 1 ]; then
		remote_git fetch --quiet --no-tags origin "+refs/heads/$branch:refs/remotes/origin/$branch"
		if git merge-base --is-ancestor "origin/$branch" HEAD; then
			# Everything on it is in the base already: starting from the base
			# is a fast-forward of the remote branch, so nothing is lost.
			echo "baseline-pr: $branch is merged into $base: starting again from $base"
			git checkout --quiet -B "$branch"
		else
			echo "baseline-pr: $branch exists: committing on top of it (its edits are kept)"
			git checkout --quiet -B "$branch" "origin/$branch"
			on_top=1
		fi
	else
		git checkout --quiet -B "$branch"
	fi

	if [ -n "$target" ] && [ ! -e "$target" ]; then
		local seed
		seed=$(find "$shards" -name seed.yaml -type f | LC_ALL=C sort | head -1)
		[ -n "$seed" ] || code=2 die "baselines: $target does not exist and no record job wrote one"
		mkdir -p "$(dirname "$target")"
		cp "$seed" "$target"
		echo "baseline-pr: $target is new: starting from the file a record job wrote"
	fi

	local keep=()
	[ "${KEEP_UNSEEN:-false}" = true ] && keep=(--keep-unseen)
	local body
	body=$(mktemp)
	sysgate report pr-body --write "${keep[@]}" --baselines "$dir" "${arches[@]}" ${RUN_URL:+--run-url "$RUN_URL"} \
		"${obs[@]}" >"$body" || code=2 die "sysgate report pr-body refused the observations (its message above names the agent or arch): nothing was written"

	local paths=("${baselines[@]}")
	if [ -z "$(git status --porcelain -- "${paths[@]}")" ]; then
		echo "baseline-pr: the baselines on $branch already match what the runs did: nothing to propose"
		output changed false
		return 0
	fi
	git add -- "${paths[@]}"
	git -c user.name="${GIT_AUTHOR_NAME:-github-actions[bot]}" \
		-c user.email="${GIT_AUTHOR_EMAIL:-41898282+github-actions[bot]@users.noreply.github.com}" \
		commit --quiet -m "sysgate: update baselines${RUN_URL:+ from $RUN_URL}"

	local files=() sha review
	while IFS= read -r f; do files+=("$f"); done < <(baseline_files)
	sha=$(git rev-parse HEAD)
	review=$(review_list "$sha" "${files[@]}")
	{
		if [ "$on_top" = 1 ]; then
			echo "> This run committed on top of \`$branch\`, which already had changes: the tables below are what this run changed; the Files tab shows the whole update."
			echo
		fi
		cat "$body"
		echo
		echo "### Review before merging"
		echo
		if [ -n "$review" ]; then
			cat <<'EOF'
`sysgate baseline validate --strict` and `sysgate baseline fmt -l` report these. The gate (the sysgate action with `strict: true`, its default) fails until each one is fixed: replace every placeholder reason with the real one, or drop the line and fix the agent.

EOF
			echo "$review"
		else
			echo "Nothing: \`sysgate baseline validate --strict\` and \`sysgate baseline fmt -l\` are clean."
		fi
	} >"$body.full"
	if [ -n "${GITHUB_STEP_SUMMARY:-}" ]; then cat "$body.full" >>"$GITHUB_STEP_SUMMARY"; fi

	# A plain push: if someone pushed to the branch since it was fetched,
	# git refuses and nothing of theirs is overwritten.
	remote_git push --quiet origin "HEAD:refs/heads/$branch" ||
		die "git push to $branch was refused: the branch changed while this run updated it (someone pushed to it), or the token may not push. Nothing was overwritten; run the update again, it starts from the branch's new tip."
	output changed true
	output branch "$branch"

	local number url
	number=$(gh pr list --head "$branch" --base "$base" --state open --json number --jq '.[0].number // empty') ||
		die "gh pr list --head $branch failed: the token needs pull-requests: read"
	if [ -n "$number" ]; then
		gh pr edit "$number" --body-file "$body.full" >/dev/null ||
			die "gh pr edit $number failed: the token needs pull-requests: write"
		url=$(gh pr view "$number" --json url --jq .url)
		echo "baseline-pr: updated $url"
	else
		url=$(gh pr create --base "$base" --head "$branch" --title "sysgate: update baselines for $base" --body-file "$body.full") ||
			die "gh pr create failed: allow GitHub Actions to create pull requests (Settings → Actions → General), or pass a token that may"
		echo "baseline-pr: opened $url"
	fi
	output pull-request "$url"
	rm -f "$body" "$body.full"
}

case "${1:-}" in
collect) shift && cmd_collect "$@" ;;
open) shift && cmd_open "$@" ;;
*)
	echo "usage: scripts/baseline-pr.sh collect REPORTS SHARD | open SHARDS (the reusable baseline-update workflow's steps)" >&2
	exit 2
	;;
esac
