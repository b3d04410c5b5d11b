#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# apply-check.sh [GIT_TREE]
# Apply the series of the base HMM_BASE two ways and require identical results:
#   1. quilt push -a --fuzz=0 on a plain copy of its base tag (the distro way);
#   2. git am onto it (scripts/series/import.sh --worktree; the reviewer way).
# GIT_TREE: an existing import to compare against (default: a fresh one in
# $HMM_WORKDIR/BASE/apply-check). Any patch that needs fuzz or fails fails the run.
. "$(dirname "$0")/../lib.sh"
case "${1:-}" in
-h|--help) usage; exit 0 ;;
-*) usage_error "unknown option $1" ;;
esac
[ $# -le 1 ] || usage_error "one GIT_TREE at most"
ensure_tree
need_pkgs quilt

gtree=${1:-}
if [ -z "$gtree" ]; then
	gtree=$WORKDIR/apply-check
	"$TOP/scripts/series/import.sh" --worktree "$gtree"
fi

qtree=$WORKDIR/quilt-tree
rm -rf "$qtree" && mkdir -p "$qtree"
git -C "$KTREE" archive "$BASE_TAG" | tar -x -C "$qtree"
n=$(series_patches | wc -l)
if [ "$n" -gt 0 ]; then
	(cd "$qtree" && QUILT_PATCHES="$SERIES_DIR/patches" QUILT_SERIES="$SERIES_DIR/series" \
		QUILT_PC=.pc quilt push -a -q --fuzz=0) ||
		die "quilt push -a --fuzz=0 failed (a patch needs fuzz or does not apply)"
fi
if ! diff -r -q -x .pc -x .git "$qtree" "$gtree" > "$WORKDIR/apply-check.diff"; then
	cat "$WORKDIR/apply-check.diff" >&2
	die "quilt and git am give different trees (list above)"
fi
rm -rf "$qtree"
log "apply-check: quilt (fuzz 0) and git am give identical trees ($n patches)"
