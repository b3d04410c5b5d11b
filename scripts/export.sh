#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# export.sh [--tree DIR] [--out DIR] [REV]
# Developer loop, step 2: regenerate patches/ and series from the commits
# hmm/base..REV of the kernel tree (REV defaults to the hmm/series branch).
# The output carries no dates of export, commit ids or tool versions, so
# exporting an unchanged import is byte-identical.
#   --tree DIR  export from that git tree/worktree instead of the base tree
#   --out DIR   write DIR/patches and DIR/series instead of this repository's
. "$(dirname "$0")/lib.sh"

OUT=$TOP
while [ $# -gt 0 ]; do
	case "$1" in
	-h|--help) usage; exit 0 ;;
	--tree) need_arg "$@"; KTREE=$2; shift ;;
	--out) need_arg "$@"; OUT=$2; shift ;;
	-*) usage_error "unknown option $1" ;;
	*) break ;;
	esac
	shift
done
[ $# -le 1 ] || usage_error "one REV at most"
rev=${1:-$SERIES_BRANCH}
ensure_tree
git -C "$KTREE" rev-parse -q --verify "$rev^{commit}" >/dev/null || die "no revision $rev in $KTREE"
git -C "$KTREE" merge-base --is-ancestor "$BASE_TAG" "$rev" || die "$rev does not contain $BASE_TAG"

# Debian's top-level .gitignore hides new files: refuse to export while any
# untracked file (ignored or not) exists, since it may be a forgotten 'git add -f'.
untracked=$(git -C "$KTREE" ls-files --others --directory | head -n 20)
[ -z "$untracked" ] || die "untracked files in $KTREE (add new files with 'git add -f', delete the rest):
$untracked"
if [ "$(git -C "$KTREE" rev-parse HEAD)" = "$(git -C "$KTREE" rev-parse "$rev")" ]; then
	[ -z "$(git -C "$KTREE" status --porcelain --untracked-files=no)" ] ||
		die "uncommitted changes in $KTREE: commit them first"
fi
[ -z "$(git -C "$KTREE" rev-list --merges "$BASE_TAG..$rev")" ] || die "merge commits in $BASE_TAG..$rev"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
git -C "$KTREE" -c diff.noprefix=false -c diff.mnemonicPrefix=false \
	-c diff.algorithm=myers -c format.signature= -c format.headers= \
	-c format.coverLetter=false -c format.numbered=false \
	format-patch -q --no-signature --zero-commit --no-numbered --no-renames \
	--full-index --no-binary --stat=80 -o "$tmp" "$BASE_TAG..$rev" >/dev/null

mkdir -p "$OUT/patches"
rm -f "$OUT"/patches/*.patch
: > "$OUT/series.new"
for f in "$tmp"/*.patch; do
	[ -e "$f" ] || break
	b=$(basename "$f")
	mv "$f" "$OUT/patches/$b"
	echo "$b" >> "$OUT/series.new"
done
mv "$OUT/series.new" "$OUT/series"
log "export: $(wc -l < "$OUT/series") patch(es) from $BASE_TAG..$rev into $OUT/patches and $OUT/series"
