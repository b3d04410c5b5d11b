#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# import.sh [--force] [--worktree DIR]
# Developer loop, step 1: make a kernel git tree with the series of the base
# HMM_BASE applied as commits (git am of the files of its series, in order,
# onto its base tag: hmm/base-7.3, or hmm/base for 6.12).
#   default       branch hmm/series-7.3 (6.12: hmm/series) in the base's tree
#                 (lib.sh's KTREE), checked out
#   --worktree D  a detached git worktree at D instead (used by the pipeline;
#                 your own checkout is left alone). D must not exist, be
#                 empty, or be a worktree import.sh made: that one is reset
#                 (reset --hard, clean -fdx) and reused. Anything else is
#                 refused, so a wrong path cannot lose files.
#   --force       overwrite an existing series branch
# Committer identity and dates are fixed, so the same series gives the same
# commit ids every time.
. "$(dirname "$0")/../lib.sh"

FORCE=0 WT=
while [ $# -gt 0 ]; do
	case "$1" in
	--force) FORCE=1 ;;
	--worktree) need_arg "$@"; WT=$2; shift ;;
	-h|--help) usage; exit 0 ;;
	*) usage_error "unknown argument $1" ;;
	esac
	shift
done
ensure_tree

export GIT_COMMITTER_NAME="hmm-series import" GIT_COMMITTER_EMAIL="hmm-series@localhost"
export GIT_COMMITTER_DATE="2026-01-01T00:00:00Z"

# A worktree made here carries this file in its git directory
# ($KTREE/.git/worktrees/NAME/), where no checkout, clean or export sees it.
MARK=hmm-import-worktree
# ours DIR: did import.sh make the worktree DIR? It must be a linked worktree
# of $KTREE (not $KTREE itself, not another repository) with our mark. One
# made before the mark existed passes if it is detached at a commit that
# import.sh committed (its fixed committer name) and has nothing to lose: no
# change to a tracked file, no untracked file.
ours() {
	local d=$1 common gd
	[ -e "$d/.git" ] || return 1
	[ "$(git -C "$d" rev-parse --show-toplevel 2>/dev/null)" = "$d" ] || return 1
	common=$(git -C "$KTREE" rev-parse --path-format=absolute --git-common-dir)
	[ "$(git -C "$d" rev-parse --path-format=absolute --git-common-dir)" = "$common" ] || return 1
	gd=$(git -C "$d" rev-parse --absolute-git-dir)
	[ "$gd" != "$common" ] || return 1
	[ -f "$gd/$MARK" ] && return 0
	! git -C "$d" symbolic-ref -q HEAD >/dev/null &&
		[ "$(git -C "$d" log -1 --format=%cn HEAD)" = "$GIT_COMMITTER_NAME" ] &&
		[ -z "$(git -C "$d" status --porcelain --untracked-files=no)" ] &&
		[ -z "$(git -C "$d" ls-files --others --directory | head -n 1)" ]
}

if [ -n "$WT" ]; then
	# Absolute: git -C "$KTREE" worktree add would read a relative path
	# from $KTREE.
	WT=$(realpath -m -- "$WT")
	if [ -e "$WT" ] && { [ ! -d "$WT" ] || [ -n "$(ls -A -- "$WT")" ]; }; then
		ours "$WT" || die "--worktree $WT exists, is not empty and is not a worktree that
import.sh made: refusing to reset or delete it. Give a new or empty
directory (or remove this one yourself)."
		git -C "$WT" reset -q --hard
		git -C "$WT" clean -q -fdx
		git -C "$WT" am --abort >/dev/null 2>&1 || true
		git -C "$WT" checkout -q --detach "$BASE_TAG"
	else
		git -C "$KTREE" worktree prune
		git -C "$KTREE" worktree add -q --detach "$WT" "$BASE_TAG"
	fi
	touch "$(git -C "$WT" rev-parse --absolute-git-dir)/$MARK"
	tree=$WT
else
	tree=$KTREE
	[ -z "$(git -C "$tree" status --porcelain --untracked-files=no)" ] ||
		die "$tree has uncommitted changes; commit or stash them first"
	if git -C "$tree" rev-parse -q --verify "refs/heads/$SERIES_BRANCH" >/dev/null &&
	   [ $FORCE = 0 ]; then
		die "branch $SERIES_BRANCH exists in $tree; run scripts/series/export.sh to keep its
commits, then re-run with --force to recreate it from ${SERIES_REL}series"
	fi
	git -C "$tree" checkout -q -B "$SERIES_BRANCH" "$BASE_TAG"
fi

n=0
while read -r p; do
	[ -f "$SERIES_DIR/patches/$p" ] || die "series names $p, which is not in ${SERIES_REL}patches/"
	git -C "$tree" am -q --whitespace=error-all "$SERIES_DIR/patches/$p" ||
		die "git am of $p failed in $tree (see 'git -C $tree am --show-current-patch=diff')"
	n=$((n + 1))
done < <(series_patches)
log "import: $n patch(es) applied in $tree at $(git -C "$tree" rev-parse --short HEAD)"
