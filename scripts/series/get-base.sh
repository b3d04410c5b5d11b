#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# get-base.sh [--force]
# Obtain the base kernel tree the series applies to, as a git repository with
# the base commit tagged hmm/base.
#
# Default: Debian's linux-source-6.12 at the version pinned in ./base-version,
# unpacked into $HMM_WORKDIR/linux (default ~/.cache/hmm-series/linux; cached:
# a second run is a no-op).
# With KERNEL_TREE=/path/to/your/tree: use that git tree; hmm/base is tagged at
# BASE_REF (default HEAD) unless the tag already exists.
#   --force   recreate the Debian-based tree even if it exists
. "$(dirname "$0")/../lib.sh"

FORCE=0
case "${1:-}" in
-h|--help) usage; exit 0 ;;
--force) FORCE=1 ;;
"") ;;
*) usage_error "unknown argument $1" ;;
esac
[ $# -le 1 ] || usage_error "one argument at most"

if [ -n "${KERNEL_TREE:-}" ]; then
	git -C "$KTREE" rev-parse --git-dir >/dev/null 2>&1 ||
		die "KERNEL_TREE=$KTREE is not a git tree"
	ref=${BASE_REF:-HEAD}
	want=$(git -C "$KTREE" rev-parse --verify "$ref^{commit}")
	if have=$(git -C "$KTREE" rev-parse -q --verify "$BASE_TAG^{commit}"); then
		[ "$have" = "$want" ] || [ -z "${BASE_REF:-}" ] ||
			die "$BASE_TAG in $KTREE is $have, not $ref; delete the tag to move it"
	else
		git -C "$KTREE" tag "$BASE_TAG" "$want"
	fi
	log "base: $KTREE at $(git -C "$KTREE" describe --always "$BASE_TAG")"
	exit 0
fi

need_pkgs git xz-utils
pinned=$(tr -d '[:space:]' < "$TOP/base-version")
[ -n "$pinned" ] || die "base-version is empty"

if [ $FORCE = 0 ] && [ -d "$KTREE/.git" ] &&
   [ "$(git -C "$KTREE" config --get hmm.baseversion || true)" = "$pinned" ] &&
   git -C "$KTREE" rev-parse -q --verify "$BASE_TAG^{commit}" >/dev/null; then
	log "base: cached $KTREE (linux-source-6.12 $pinned)"
	exit 0
fi

debs=$WORKDIR/debs
mkdir -p "$debs"
version=$pinned
deb=$(ls "$debs"/linux-source-6.12_"${version//:/%3a}"_all.deb 2>/dev/null || true)
if [ -z "$deb" ]; then
	need_pkgs apt-utils >/dev/null 2>&1 || true
	if [ ! -f "$WORKDIR/.apt-updated" ]; then
		apt-get update -q >&2 && touch "$WORKDIR/.apt-updated"
	fi
	if ! (cd "$debs" && apt-get download -q "linux-source-6.12=$version" >&2); then
		newest=$(apt-cache madison linux-source-6.12 | awk -F'|' 'NR==1 { gsub(/ /, "", $2); print $2 }')
		[ -n "$newest" ] || die "linux-source-6.12 is not in the package archive"
		warn "pinned linux-source-6.12 $pinned is not in the archive any more;
!!! using the newest one, $newest, instead. Update base-version and re-check the series."
		version=$newest
		(cd "$debs" && apt-get download -q "linux-source-6.12=$version" >&2)
	fi
	deb=$(ls "$debs"/linux-source-6.12_*"${version##*:}"*_all.deb | head -n1)
fi
log "unpacking $deb"

tmp=$WORKDIR/linux.new
rm -rf "$tmp" && mkdir -p "$tmp"
dpkg-deb --fsys-tarfile "$deb" |
	tar -xO ./usr/src/linux-source-6.12.tar.xz |
	tar -xJ -C "$tmp" --strip-components=1
[ -f "$tmp/Makefile" ] || die "unexpected layout in $deb"

# Debian's top-level .gitignore ignores everything ("/*" then "!/debian/"),
# since its packaging repo holds only debian/. Add with -f so the base commit
# is the pristine tarball; scripts/series/export.sh refuses to export while
# untracked (hence possibly ignored) files exist in the tree.
git -C "$tmp" init -q -b base
git -C "$tmp" config hmm.baseversion "$pinned"
git -C "$tmp" config gc.auto 0
git -C "$tmp" add -A -f
GIT_AUTHOR_NAME="Debian linux-source-6.12" GIT_AUTHOR_EMAIL="debian-kernel@lists.debian.org" \
GIT_COMMITTER_NAME="hmm-series" GIT_COMMITTER_EMAIL="hmm-series@localhost" \
GIT_AUTHOR_DATE="2026-01-01T00:00:00Z" GIT_COMMITTER_DATE="2026-01-01T00:00:00Z" \
	git -C "$tmp" commit -q -m "Linux $(make -s -C "$tmp" kernelversion) from Debian linux-source-6.12 $version"
git -C "$tmp" tag "$BASE_TAG"
rm -rf "$KTREE"
mv "$tmp" "$KTREE"
log "base: $KTREE tagged $BASE_TAG ($(git -C "$KTREE" log -1 --format=%s "$BASE_TAG"))"
