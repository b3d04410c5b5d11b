#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# rename-config.sh [--tree DIR] BASE BRANCH
# Rename the series' option CONFIG_HMM (a name upstream removed in 2019)
# in every commit of BASE..BRANCH of a kernel tree, in place (BRANCH is
# rewritten with git filter-branch, like a rebase):
#   - the mirror and hmm_pt become CONFIG_HMM_DEVICE_MIRROR, a hidden bool
#     that drivers select (it selects MMU_NOTIFIER, HMM_MIRROR, HMM_PT);
#   - device memory without struct page and the HMM swap entry become
#     CONFIG_HMM_DEVMEM (prompt, depends on MMU && 64BIT, selects
#     HMM_DEVICE_MIRROR), from the commit that adds the entry type on;
#   - hmm_dummy and the mirror's KUnit test select HMM_DEVICE_MIRROR;
#     hmm_dummy depends on HMM_DEVMEM from the commit that gives it
#     device memory; the mirror's KUnit test skips its HMM_PFN_DEVMEM case
#     without HMM_DEVMEM;
#   - config fragments and messages follow (rename-config.pl has the rules).
# Which name a site gets depends only on the commit's own tree (does
# include/linux/swap.h define the HMM entry? does hmm_dummy.c register
# device memory?) and on the file, so every commit is renamed as its
# neighbours are (each commit still builds on its own) and the script can
# be run again after the series changed: already renamed text is left
# alone, and a commit with nothing to rename keeps its id. It stops on a
# CONFIG_HMM site or Kconfig help text it does not know.
#   --tree DIR  the kernel git tree or worktree to run in (default
#               ~/.cache/hmm-series/linux); it must be clean, and BRANCH
#               must not be checked out in another worktree.
# It prints the old and the new head (git range-diff BASE OLD NEW).
# Example: scripts/series/rename-config.sh --tree ~/.cache/hmm-series/wt-rename \
#              hmm/base-7.3 wip73/rename
# One-off: remove once the series is renamed for good.
set -euo pipefail
SELF=$(readlink -f "$0")
PL=$(dirname "$SELF")/rename-config.pl
die() { printf 'ERROR: %s\n' "$*" >&2; exit 1; }

# Our own modes, run by git filter-branch for each commit ($GIT_COMMIT).
devmem_state() {
	dm=0 dd=0
	git grep -qE 'CONFIG_HMM(_DEVMEM)?\b' "$GIT_COMMIT" -- include/linux/swap.h && dm=1
	git grep -q 'hmm_devmem_register' "$GIT_COMMIT" -- drivers/char/hmm_dummy.c && dd=1
	return 0
}
case "${1:-}" in
--index-filter)
	devmem_state
	mapfile -t paths < "$RENAME_PATHS"
	files=$(git grep -lP -e '\bCONFIG_HMM\b' -e '^\s*(depends on|select)\b.*\bHMM\b(?!_)' \
		-e '^config HMM$' -e '^static void hmm_dma_test_devmem\(' \
		-e '^void hmm_pingpong_forget\(' \
		"$GIT_COMMIT" -- "${paths[@]}" | sed "s|^$GIT_COMMIT:||") || true
	for f in $files; do
		old=$(git rev-parse "$GIT_COMMIT:$f")
		mode=$(git ls-tree "$GIT_COMMIT" -- "$f" | cut -d' ' -f1)
		new=$(git cat-file blob "$old" |
			perl "$PL" --file "$f" --devmem $dm --dummy-devmem $dd |
			git hash-object -w --stdin)
		[ "$new" = "$old" ] || git update-index --cacheinfo "$mode,$new,$f"
	done
	exit ;;
--msg-filter)
	devmem_state
	exec perl "$PL" --msg --devmem $dm ;;
esac

KTREE=$HOME/.cache/hmm-series/linux
[ "${1:-}" = --tree ] && { KTREE=${2:?--tree DIR}; shift 2; }
[ $# = 2 ] || die "usage: $0 [--tree DIR] BASE BRANCH"
base=$1 branch=${2#refs/heads/}
cd "$KTREE"
git rev-parse -q --verify "refs/heads/$branch" >/dev/null || die "no branch $branch in $KTREE"
git merge-base --is-ancestor "$base" "$branch" || die "$branch does not contain $base"
top=$(git rev-parse --show-toplevel)
git worktree list --porcelain | awk -v b="refs/heads/$branch" -v t="$top" \
	'/^worktree /{w=substr($0,10)} $0=="branch " b && w!=t {print w; exit 1}' >/dev/null ||
	die "$branch is checked out in another worktree"
[ -z "$(git status --porcelain --untracked-files=no)" ] || die "$KTREE is not clean"
[ -n "$(git rev-list --merges "$base..$branch")" ] && die "merges in $base..$branch"

tmp=$(mktemp -d /tmp/rename-config.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
# Only files that the series touches can hold its option.
git log --format= --name-only "$base..$branch" | sort -u | grep . > "$tmp/paths" || true
export RENAME_PATHS=$tmp/paths
old=$(git rev-parse "$branch")
n=$(git rev-list --count "$base..$branch")
echo "rename-config: $branch ($n commits on $base), $old"
FILTER_BRANCH_SQUELCH_WARNING=1 nice -n 19 git filter-branch -f -d "$tmp/rewrite" \
	--index-filter "'$SELF' --index-filter" --msg-filter "'$SELF' --msg-filter" \
	-- "$base..refs/heads/$branch" >&2
new=$(git rev-parse "$branch")
echo "rename-config: $branch now $new (was $old; git range-diff $base $old $new)"
left=$(git grep -lP -e '\bCONFIG_HMM\b' -e '^config HMM$' "$branch" -- . \
	':!drivers/gpu/drm/amd/amdgpu/Kconfig' || true)
[ -z "$left" ] || die "still named CONFIG_HMM at the head: $left"
