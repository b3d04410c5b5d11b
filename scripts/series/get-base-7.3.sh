#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# get-base-7.3.sh [--force]
# Obtain the mainline base of the port (issue 18): Debian's linux-source-7.3
# at the version pinned in port/7.3/base-version (trixie-backports), imported
# as one commit tagged hmm/base-7.3 in the base tree's repository
# ($HMM_WORKDIR/linux, made by get-base.sh). Neither the checkout of that
# tree nor any branch is touched: the commit is built with a private index
# from a temporary directory. A second run does nothing.
#
# The machine's apt sources are never changed. trixie-backports is read
# through a private sources file, lists directory and cache under
# $HMM_WORKDIR/apt-7.3 (apt -o Dir::Etc::SourceList=... SourceParts=/dev/null
# Dir::State::Lists=... Dir::Cache=...). The archive URI is the one the
# machine's own apt sources use for Debian (the first deb822 "URIs:" or
# one-line "deb" URI ending in /debian), so no host is written in this
# repository; HMM_DEBIAN_URI overrides it. The Release file is checked with
# /usr/share/keyrings/debian-archive-keyring.gpg, which must hold the trixie
# keys (debian-archive-keyring 2023.3+deb12u2 or later).
#   --force   re-import even if hmm/base-7.3 exists (the tag is moved only if
#             the new commit differs; it is the same commit for the same deb)
. "$(dirname "$0")/../lib.sh"

FORCE=0
case "${1:-}" in
-h|--help) usage; exit 0 ;;
--force) FORCE=1 ;;
"") ;;
*) usage_error "unknown argument $1" ;;
esac
[ $# -le 1 ] || usage_error "one argument at most"

PKG=linux-source-7.3
SUITE=trixie-backports
TAG=hmm/base-7.3
KEYRING=/usr/share/keyrings/debian-archive-keyring.gpg
pinned=$(tr -d '[:space:]' < "$TOP/port/7.3/base-version")
[ -n "$pinned" ] || die "port/7.3/base-version is empty"

git -C "$KTREE" rev-parse --git-dir >/dev/null 2>&1 ||
	die "no git tree at $KTREE: run scripts/series/get-base.sh first"
gitdir=$(git -C "$KTREE" rev-parse --path-format=absolute --git-common-dir)
if [ $FORCE = 0 ] && git --git-dir="$gitdir" rev-parse -q --verify "$TAG^{commit}" >/dev/null &&
   [ "$(git --git-dir="$gitdir" config --get hmm.baseversion73 || true)" = "$pinned" ]; then
	log "base: cached $TAG ($(git --git-dir="$gitdir" log -1 --format=%s "$TAG"))"
	exit 0
fi

need_pkgs git xz-utils apt-utils debian-archive-keyring

# The Debian archive URI of the machine's own sources.
debian_uri() {
	local f
	for f in /etc/apt/sources.list.d/*.sources; do
		[ -f "$f" ] || continue
		awk 'tolower($1) == "uris:" { for (i = 2; i <= NF; i++) print $i }' "$f"
	done
	for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list; do
		[ -f "$f" ] || continue
		# deb [options] URI suite components
		awk '$1 == "deb" { u = $2; if (u ~ /^\[/) for (i = 2; i <= NF; i++)
			if ($i ~ /\]$/) { u = $(i + 1); break } print u }' "$f"
	done
}
uri=${HMM_DEBIAN_URI:-$(debian_uri | sed 's|/*$||' | grep -E '/debian$' | head -n 1)}
[ -n "$uri" ] || die "no Debian archive URI (.../debian) in the machine's apt sources;
set HMM_DEBIAN_URI to the Debian mirror to use"

gpg --no-default-keyring --keyring "$KEYRING" --list-keys 2>/dev/null |
	grep -q '(13/trixie)' ||
	die "$KEYRING has no trixie (13) keys: upgrade debian-archive-keyring"

apt_dir=$WORKDIR/apt-7.3
mkdir -p "$apt_dir/lists/partial" "$apt_dir/cache/archives/partial" "$WORKDIR/debs"
cat > "$apt_dir/sources.list" <<EOS
# Written by scripts/series/get-base-7.3.sh; read only by its apt calls.
deb [signed-by=$KEYRING] $uri $SUITE main
EOS
APT_OPTS=(-o "Dir::Etc::SourceList=$apt_dir/sources.list"
	  -o "Dir::Etc::SourceParts=/dev/null"
	  -o "Dir::State::Lists=$apt_dir/lists"
	  -o "Dir::Cache=$apt_dir/cache"
	  -o "APT::Get::List-Cleanup=0"
	  -o "APT::Sandbox::User=root")  # the private dirs are root's

deb=$(ls "$WORKDIR/debs/${PKG}_${pinned//:/%3a}_all.deb" 2>/dev/null || true)
version=$pinned
if [ -z "$deb" ]; then
	log "apt-get update ($SUITE from $uri, private lists in $apt_dir)"
	apt-get "${APT_OPTS[@]}" update -q >&2
	if ! (cd "$WORKDIR/debs" && apt-get "${APT_OPTS[@]}" download -q "$PKG=$version" >&2); then
		newest=$(apt-cache "${APT_OPTS[@]}" madison "$PKG" |
			 awk -F'|' 'NR == 1 { gsub(/ /, "", $2); print $2 }')
		[ -n "$newest" ] || die "$PKG is not in $SUITE"
		warn "pinned $PKG $pinned is not in the archive any more;
!!! using the newest one, $newest, instead. Update port/7.3/base-version and re-check the port."
		version=$newest
		(cd "$WORKDIR/debs" && apt-get "${APT_OPTS[@]}" download -q "$PKG=$version" >&2)
	fi
	deb=$(ls "$WORKDIR/debs/${PKG}_${version//:/%3a}_all.deb")
fi
log "unpacking $deb"

tmp=$WORKDIR/linux-7.3.new
rm -rf "$tmp" "$tmp.index" && mkdir -p "$tmp"
trap 'rm -rf "$tmp" "$tmp.index"' EXIT
dpkg-deb --fsys-tarfile "$deb" |
	tar -xO "./usr/src/$PKG.tar.xz" |
	tar -xJ -C "$tmp" --strip-components=1
[ -f "$tmp/Makefile" ] || die "unexpected layout in $deb"
kver=$(awk -F' *= *' '$1 ~ /^(VERSION|PATCHLEVEL|SUBLEVEL)$/ { v[$1] = $2 }
	END { print v["VERSION"] "." v["PATCHLEVEL"] "." v["SUBLEVEL"] }' "$tmp/Makefile")

# As get-base.sh: add with -f (Debian's .gitignore ignores the top level),
# fixed identities and date so the commit id is the same on every machine.
export GIT_DIR=$gitdir GIT_WORK_TREE=$tmp GIT_INDEX_FILE=$tmp.index
git add -A -f
treeid=$(git write-tree)
commit=$(GIT_AUTHOR_NAME="Debian $PKG" GIT_AUTHOR_EMAIL="debian-kernel@lists.debian.org" \
	GIT_COMMITTER_NAME="hmm-series" GIT_COMMITTER_EMAIL="hmm-series@localhost" \
	GIT_AUTHOR_DATE="2026-01-01T00:00:00Z" GIT_COMMITTER_DATE="2026-01-01T00:00:00Z" \
	git commit-tree "$treeid" -m "Linux $kver from Debian $PKG $version")
unset GIT_WORK_TREE GIT_INDEX_FILE
git tag -f "$TAG" "$commit" >/dev/null
git config hmm.baseversion73 "$pinned"
log "base: $TAG = $commit (Linux $kver from Debian $PKG $version)"
