#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# get-base.sh [--force]
# Obtain the base kernel tree of the base HMM_BASE (7.3, the default, or
# 6.12): a git repository with the base commit tagged $BASE_TAG
# (hmm/base-7.3; hmm/base for 6.12) and a checkout of it, the base's tree.
#
# Default: Debian's linux-source-BASE at the version pinned in the series'
# base-version (base-version, backports/6.12/base-version), downloaded into
# $HMM_WORKDIR/debs through the base's package source (lib.sh's base_apt:
# 7.3 comes from trixie-backports, read through a private sources file; the
# machine's apt sources are never changed) and imported as one commit into
# the repository $HMM_WORKDIR/linux (made if missing; default
# ~/.cache/hmm-series). The commit has fixed identities and date, so it is
# the same commit on every machine (hmm/base-7.3 = 5ee32ac, hmm/base =
# 070baf9). The base's
# tree is a checkout of the repository: for 7.3 the worktree
# $HMM_WORKDIR/linux-7.3, for 6.12 the repository's own ($HMM_WORKDIR/linux).
# An existing checkout, branch or worktree is never touched: the commit is
# made with a private index. A second run does nothing.
# With KERNEL_TREE=/path/to/your/tree: use that git tree; the base tag is
# put at BASE_REF (default HEAD) unless it exists already.
#   --force   import again even if the tag exists (it moves only if the new
#             commit differs; the same .deb gives the same commit)
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
pinned=$(base_version)
repo=$CACHE/linux
tmp=$CACHE/linux-$HMM_BASE.new

# checkout: make the base's tree, a checkout of the tag, if it is missing:
# the repository's own work tree while it has no commit checked out (a
# repository made by a 7.3 import), else a detached worktree. With an
# unpacked tree in $tmp (indexed in $tmp.index), its files and index are
# moved there instead of being checked out again.
checkout() {
	local gd
	if [ "$KTREE" = "$repo" ]; then
		git -C "$repo" rev-parse -q --verify HEAD >/dev/null && return 0
		gd=$repo/.git
	else
		git -C "$KTREE" rev-parse -q --verify HEAD >/dev/null 2>&1 && return 0
		[ ! -e "$KTREE" ] || die "$KTREE exists and is not a checkout of $repo: move it away"
		git -C "$repo" worktree prune
		if [ ! -d "$tmp" ]; then
			git -C "$repo" worktree add -q --detach "$KTREE" "$BASE_TAG"
			return 0
		fi
		git -C "$repo" worktree add -q --no-checkout --detach "$KTREE" "$BASE_TAG"
		gd=$(git -C "$KTREE" rev-parse --absolute-git-dir)
	fi
	if [ -d "$tmp" ]; then
		find "$tmp" -mindepth 1 -maxdepth 1 -exec mv -t "$KTREE" {} +
		mv "$tmp.index" "$gd/index"
		[ "$KTREE" != "$repo" ] || git -C "$repo" update-ref refs/heads/base "$BASE_TAG^{commit}"
		git -C "$KTREE" update-index -q --refresh || true
	else
		git -C "$KTREE" checkout -q -f -B base "$BASE_TAG"
	fi
	[ -z "$(git -C "$KTREE" status --porcelain --untracked-files=no)" ] ||
		die "the checkout $KTREE differs from $BASE_TAG"
}

if [ $FORCE = 0 ] && git -C "$repo" rev-parse -q --verify "$BASE_TAG^{commit}" >/dev/null 2>&1 &&
   [ "$(git -C "$repo" config --get "$BASE_VERSION_KEY" || true)" = "$pinned" ]; then
	checkout
	log "base: cached $BASE_TAG in $KTREE ($(git -C "$repo" log -1 --format=%s "$BASE_TAG"))"
	exit 0
fi

deb=$(deb_fetch "$DEB_SOURCE" "$pinned")
version=$(dpkg-deb -f "$deb" Version)
log "unpacking $deb"
rm -rf "$tmp" "$tmp.index" && mkdir -p "$tmp"
trap 'rm -rf "$tmp" "$tmp.index"' EXIT
dpkg-deb --fsys-tarfile "$deb" |
	tar -xO "./usr/src/$DEB_SOURCE.tar.xz" |
	tar -xJ -C "$tmp" --strip-components=1
[ -f "$tmp/Makefile" ] || die "unexpected layout in $deb"
# make kernelversion, without make.
kver=$(awk -F' *= *' '$1 ~ /^(VERSION|PATCHLEVEL|SUBLEVEL|EXTRAVERSION)$/ { v[$1] = $2 }
	END { print v["VERSION"] "." v["PATCHLEVEL"] "." v["SUBLEVEL"] v["EXTRAVERSION"] }' "$tmp/Makefile")

if [ ! -d "$repo/.git" ]; then
	git init -q -b base "$repo"
	git -C "$repo" config gc.auto 0
fi
# Debian's top-level .gitignore ignores everything ("/*" then "!/debian/"),
# since its packaging repo holds only debian/. Add with -f so the base commit
# is the pristine tarball; scripts/series/export.sh refuses to export while
# untracked (hence possibly ignored) files exist in the tree. Fixed
# identities and date: the commit id is the same on every machine.
commit=$(set -e; cd "$tmp"
	export GIT_DIR=$repo/.git GIT_WORK_TREE=$tmp GIT_INDEX_FILE=$tmp.index
	git add -A -f
	GIT_AUTHOR_NAME="Debian $DEB_SOURCE" GIT_AUTHOR_EMAIL="debian-kernel@lists.debian.org" \
	GIT_COMMITTER_NAME="hmm-series" GIT_COMMITTER_EMAIL="hmm-series@localhost" \
	GIT_AUTHOR_DATE="2026-01-01T00:00:00Z" GIT_COMMITTER_DATE="2026-01-01T00:00:00Z" \
		git commit-tree "$(git write-tree)" -m "Linux $kver from Debian $DEB_SOURCE $version")
git -C "$repo" tag -f "$BASE_TAG" "$commit" >/dev/null
git -C "$repo" config "$BASE_VERSION_KEY" "$pinned"
checkout
log "base: $BASE_TAG = $commit in $KTREE (Linux $kver from Debian $DEB_SOURCE $version)"
