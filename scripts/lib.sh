# SPDX-License-Identifier: GPL-2.0
# Common definitions for the HMM series scripts. Source it, don't run it.
#
# Environment knobs (all optional):
#   HMM_BASE      the base the scripts work on (select_base below):
#                   7.3   mainline Linux 7.3.4, the primary series (default)
#                   6.12  Linux 6.12 LTS, its backport (backports/6.12/)
#   HMM_WORKDIR   cache and build area            (default ~/.cache/hmm-series)
#   KERNEL_TREE   your own kernel git tree for the base instead of Debian's
#                 source (e.g. a linux-stable checkout at v7.3.4)
#   BASE_REF      with KERNEL_TREE: the commit the series applies to (default HEAD)
#   JOBS          parallel make jobs               (default: nproc)
#   QEMU_ACCEL    tcg (default) or kvm

set -euo pipefail

TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# What the bases share: the kernel repository (both base commits, their
# branches and worktrees), the downloaded .debs and apt lists, ccache.
CACHE=${HMM_WORKDIR:-$HOME/.cache/hmm-series}
JOBS=${JOBS:-$(nproc)}
export LC_ALL=C

log()  { printf '==> %s\n' "$*" >&2; }
warn() { printf '\n!!! WARNING: %s\n\n' "$*" >&2; }
die()  { printf 'ERROR: %s\n' "$*" >&2; exit 1; }

# The bases, the first the default. The primary series (mainline) is
# patches/ and series at the top of this repository; a backport keeps its
# own under backports/BASE/, with what else differs on that base:
#   patches/, series, base-version   the series and the Debian version of
#                       the base source (instead of the top-level ones)
#   configs/NAME.config added after configs/NAME.config wherever that
#                       fragment is used (configs NAME)
#   selftest-fixes/     applied after tests/selftest-fixes/
#   known-failures      instead of tests/known-failures
#   base-results(.key)  instead of tests/base-results(.key)
#   cover-letter.txt    instead of Documentation/cover-letter.txt
HMM_BASES=(7.3 6.12)

# select_base BASE: make BASE the base of this script and of the scripts it
# runs (exports HMM_BASE). Sets:
#   SERIES_DIR     the directory of its patches/, series and base-version
#   SERIES_REL     that directory relative to the top, for messages: empty
#                  or "backports/6.12/" ("${SERIES_REL}series")
#   BASE_TAG       the base commit's tag in the kernel repository
#   SERIES_BRANCH  the branch import.sh makes and export.sh reads
#   KTREE          the base's kernel tree: KERNEL_TREE, or the checkout
#                  get-base.sh makes ($CACHE/linux-7.3; $CACHE/linux, the
#                  repository's own, for 6.12)
#   DEB_SOURCE, DEB_CONFIG, APT_SUITE
#                  Debian's packages of its source and configs, and the
#                  suite they come from (empty: the machine's own sources)
#   BASE_VERSION_KEY  the git config key get-base.sh records the version in
#   BACKPORT_DIR   backports/BASE of a backport, empty for the primary
#   KNOWN_FAILURES, SELFTEST_FIXES (an array of directories)
#   BASE_RESULTS   the base kernel's upstream results as the last run that
#                  booted it recorded them ("SUITE TEST STATUS", sorted):
#                  tests/base-results, backports/BASE/base-results
#   WORKDIR, BUILD_ROOT  its trees, builds and results: $CACHE/BASE/
# Returns 1 for an unknown BASE.
select_base() {
	case "$1" in
	7.3)	SERIES_DIR=$TOP BASE_TAG=hmm/base-7.3 SERIES_BRANCH=hmm/series-7.3
		BASE_TREE=$CACHE/linux-7.3 APT_SUITE=trixie-backports
		BASE_VERSION_KEY=hmm.baseversion73 ;;
	6.12)	SERIES_DIR=$TOP/backports/6.12 BASE_TAG=hmm/base SERIES_BRANCH=hmm/series
		BASE_TREE=$CACHE/linux APT_SUITE= BASE_VERSION_KEY=hmm.baseversion ;;
	*)	return 1 ;;
	esac
	HMM_BASE=$1
	export HMM_BASE
	SERIES_REL=${SERIES_DIR#"$TOP"}
	SERIES_REL=${SERIES_REL#/}
	SERIES_REL=${SERIES_REL:+$SERIES_REL/}
	DEB_SOURCE=linux-source-$1 DEB_CONFIG=linux-config-$1
	KTREE=${KERNEL_TREE:-$BASE_TREE}
	KNOWN_FAILURES=$TOP/tests/known-failures
	SELFTEST_FIXES=("$TOP/tests/selftest-fixes")
	BASE_RESULTS=$TOP/tests/base-results
	BACKPORT_DIR=
	if [ "$1" != "${HMM_BASES[0]}" ]; then
		BACKPORT_DIR=$TOP/backports/$1
		BASE_RESULTS=$BACKPORT_DIR/base-results
		[ ! -f "$BACKPORT_DIR/known-failures" ] || KNOWN_FAILURES=$BACKPORT_DIR/known-failures
		[ ! -d "$BACKPORT_DIR/selftest-fixes" ] || SELFTEST_FIXES+=("$BACKPORT_DIR/selftest-fixes")
	fi
	WORKDIR=$CACHE/$1
	BUILD_ROOT=$WORKDIR/build
}

# configs NAME...: the config fragments NAME stands for on this base, one
# per line: configs/NAME.config, then the base's own
# (backports/BASE/configs/NAME.config) if it has one, which wins.
configs() {
	local n
	for n in "$@"; do
		echo "$TOP/configs/$n.config"
		[ -z "$BACKPORT_DIR" ] || [ ! -f "$BACKPORT_DIR/configs/$n.config" ] ||
			echo "$BACKPORT_DIR/configs/$n.config"
	done
}

# Every script's help is its header comment: the "#" lines after the "#!"
# and SPDX lines, up to the first line that is not a comment, without their
# "# ". Its first line is the synopsis ("name.sh [options] ARGS").
# usage [N]: print the header (its first N lines) of the running script.
usage() {
	awk -v n="${1:-0}" 'FNR == 1 && /^#!/ { next }
		/^# SPDX-License-Identifier:/ { next }
		!/^#/ { exit }
		{ sub(/^# ?/, ""); print; if (n && ++c >= n) exit }' "$0"
}
# Exit codes of every script: --help/-h prints usage on stdout and exits 0;
# a usage error (unknown option, missing or extra argument) exits 2 with a
# message on stderr; any other failure (die) exits 1.
# usage_error MSG: MSG and the synopsis on stderr, exit 2.
usage_error() {
	printf 'ERROR: %s\nusage: %s  (see --help)\n' "$*" "$(usage 1)" >&2
	exit 2
}
# need_arg "$@": in an option loop, the option $1 must have an argument.
need_arg() { [ $# -ge 2 ] || usage_error "$1 needs an argument"; }

# HMM_BASE_GIVEN: 1 if the environment chose the base (a front end that
# runs every base by default runs only that one then).
HMM_BASE_GIVEN=${HMM_BASE:+1}
select_base "${HMM_BASE:-${HMM_BASES[0]}}" ||
	usage_error "HMM_BASE=$HMM_BASE: unknown base (one of: ${HMM_BASES[*]})"

# need_pkgs PKG...: install the Debian packages that are missing.
need_pkgs() {
	local missing=() p
	for p in "$@"; do
		dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'ok installed' ||
			missing+=("$p")
	done
	[ ${#missing[@]} -eq 0 ] && return 0
	[ "$(id -u)" -eq 0 ] || die "missing packages: ${missing[*]} (run as root or install them)"
	log "installing ${missing[*]}"
	apt_update "$CACHE/.apt-updated"
	DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends \
		"${missing[@]}" >&2
}

# apt_update STAMP [APT_OPTION...]: apt-get update (with the options)
# unless the file STAMP says it ran in the last 12 hours.
apt_update() {
	local stamp=$1; shift
	[ -f "$stamp" ] && [ -z "$(find "$stamp" -mmin +720 2>/dev/null)" ] && return 0
	mkdir -p "$(dirname "$stamp")"
	apt-get "$@" update -q >&2 && touch "$stamp"
}

# base_apt apt-get|apt-cache ARGS...: apt with the package source of the
# base's Debian packages (DEB_SOURCE, DEB_CONFIG), its lists updated first
# if they are older than 12 hours. That is the machine's own apt sources,
# or for a base from another suite (APT_SUITE: trixie-backports for 7.3)
# that suite alone through a private sources file, lists and cache in
# $CACHE/apt-BASE; the machine's apt configuration is never changed. The
# archive URI is the one the machine's own sources use for Debian (the
# first deb822 "URIs:" or one-line "deb" URI ending in /debian), so no host
# is written in this repository; HMM_DEBIAN_URI overrides it. The suite's
# Release file is checked with /usr/share/keyrings/debian-archive-keyring.gpg,
# which must hold its keys (for trixie: debian-archive-keyring
# 2023.3+deb12u2 or later).
base_apt() {
	local tool=$1; shift
	if [ -z "$APT_SUITE" ]; then
		apt_update "$CACHE/.apt-updated"
		"$tool" "$@"
		return
	fi
	local dir=$CACHE/apt-$HMM_BASE keyring=/usr/share/keyrings/debian-archive-keyring.gpg uri f
	if [ ! -f "$dir/sources.list" ]; then
		uri=${HMM_DEBIAN_URI:-$(
			{ for f in /etc/apt/sources.list.d/*.sources; do
				[ -f "$f" ] || continue
				awk 'tolower($1) == "uris:" { for (i = 2; i <= NF; i++) print $i }' "$f"
			  done
			  for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list; do
				[ -f "$f" ] || continue
				# deb [options] URI suite components
				awk '$1 == "deb" { u = $2; if (u ~ /^\[/) for (i = 2; i <= NF; i++)
					if ($i ~ /\]$/) { u = $(i + 1); break } print u }' "$f"
			  done; } | sed 's|/*$||' | grep -E '/debian$' | head -n 1)}
		[ -n "$uri" ] || die "no Debian archive URI (.../debian) in the machine's apt sources;
set HMM_DEBIAN_URI to the Debian mirror to use"
		need_pkgs gpg debian-archive-keyring
		gpg --no-default-keyring --keyring "$keyring" --list-keys 2>/dev/null |
			grep -q "/${APT_SUITE%%-*})" ||
			die "$keyring has no keys of ${APT_SUITE%%-*}: upgrade debian-archive-keyring"
		mkdir -p "$dir/lists/partial" "$dir/cache/archives/partial"
		printf '%s\n%s\n' "# Written by scripts/lib.sh (base_apt); read only by its apt calls." \
			"deb [signed-by=$keyring] $uri $APT_SUITE main" > "$dir/sources.list"
	fi
	local opts=(-o "Dir::Etc::SourceList=$dir/sources.list"
		    -o "Dir::Etc::SourceParts=/dev/null"
		    -o "Dir::State::Lists=$dir/lists"
		    -o "Dir::Cache=$dir/cache"
		    -o "APT::Get::List-Cleanup=0"
		    -o "APT::Sandbox::User=root")  # the private dirs are root's
	apt_update "$dir/.updated" "${opts[@]}"
	"$tool" "${opts[@]}" "$@"
}

# deb_fetch PKG VERSION: print the path of PKG's .deb at VERSION in
# $CACHE/debs, downloaded with base_apt if it is not there. If the archive
# has no VERSION any more, the newest PKG is taken instead, with a warning
# naming both (dpkg-deb -f DEB Version tells which one it is).
deb_fetch() {
	local pkg=$1 ver=$2 dir=$CACHE/debs newest f
	mkdir -p "$dir"
	f=$(ls "$dir/${pkg}_${ver//:/%3a}"_*.deb 2>/dev/null | head -n 1 || true)
	if [ -z "$f" ]; then
		need_pkgs apt-utils debian-archive-keyring
		if ! (cd "$dir" && base_apt apt-get download -q "$pkg=$ver" >&2); then
			newest=$(base_apt apt-cache madison "$pkg" |
				 awk -F'|' 'NR == 1 { gsub(/ /, "", $2); print $2 }')
			[ -n "$newest" ] || die "$pkg is not in the package archive${APT_SUITE:+ ($APT_SUITE)}"
			warn "$pkg $ver is not in the archive any more;
!!! using the newest one, $newest, instead (update ${SERIES_REL}base-version and re-check the series)."
			ver=$newest
			(cd "$dir" && base_apt apt-get download -q "$pkg=$ver" >&2) ||
				die "cannot download $pkg $ver"
		fi
		f=$(ls "$dir/${pkg}_${ver//:/%3a}"_*.deb | head -n 1)
	fi
	echo "$f"
}

# base_version: the Debian version of the base source the series is pinned to.
base_version() {
	local v
	v=$(tr -d '[:space:]' < "$SERIES_DIR/base-version")
	[ -n "$v" ] || die "${SERIES_REL}base-version is empty"
	echo "$v"
}

# Everything needed to build and boot the test kernel.
BUILD_PKGS=(build-essential bc bison flex libelf-dev libssl-dev dwarves ccache
	    git quilt patchutils sparse cpio xz-utils kmod rsync python3
	    busybox-static qemu-system-x86 libcap-dev libnuma-dev python3-ply python3-git
	    coccinelle)

# kmake BUILD_DIR ARGS...: make in the test tree with ccache if present.
kmake() {
	local out=$1 src=$2; shift 2
	local cc=gcc
	if command -v ccache >/dev/null; then
		cc="ccache gcc"
		use_ccache
	fi
	make -C "$src" O="$out" CC="$cc" HOSTCC="$cc" -j"$JOBS" \
		KBUILD_BUILD_TIMESTAMP='Thu Jan  1 00:00:00 UTC 2026' \
		KBUILD_BUILD_USER=hmm KBUILD_BUILD_HOST=series "$@"
}

# use_ccache: the ccache settings of every kernel build (kmake, kunit.sh),
# one cache for both bases.
use_ccache() {
	export CCACHE_DIR=${CCACHE_DIR:-$CACHE/ccache}
	export CCACHE_BASEDIR=$CACHE CCACHE_NOHASHDIR=1
	export CCACHE_MAXSIZE=${CCACHE_MAXSIZE:-8G}
}

# series_patches [FILE]: the patch files of FILE (default: the base's series) in quilt
# order: comment lines ("# ..."), trailing comments and blanks dropped, and
# quilt options after the name (e.g. -p1) too. Anything that reads series
# goes through this, so section comments are allowed anywhere.
series_patches() {
	sed -e 's/#.*//' -e 's/[[:space:]]*$//' "${1:-$SERIES_DIR/series}" | awk 'NF { print $1 }'
}

ensure_tree() {
	git -C "$KTREE" rev-parse -q --verify "$BASE_TAG^{commit}" >/dev/null ||
		die "no base tree at $KTREE (tag $BASE_TAG); run HMM_BASE=$HMM_BASE scripts/series/get-base.sh first"
}

# touched_files TREE PATHSPEC...: the kernel files the series ($BASE_TAG..HEAD
# of TREE) touches and still has (deleted ones left out) that match
# PATHSPEC (e.g. '*.c'), outside tools/, scripts/, samples/, Documentation/
# and usr/. The one list check-touched, kdoc-check and distro-pkg check.
touched_files() {
	local tree=$1; shift
	git -C "$tree" diff --name-only --diff-filter=d "$BASE_TAG" HEAD -- "$@" |
		grep -vE '^(tools|scripts|samples|Documentation|usr)/' || true
}

# src_out SRC_TREE OUT_DIR: for the builders of guest programs, set $src
# and $out to the physical paths of SRC_TREE and OUT_DIR (made if missing);
# a usage error if SRC_TREE is missing or OUT_DIR lies inside it.
src_out() {
	src=$(cd "$1" 2>/dev/null && pwd -P) || usage_error "SRC_TREE '$1' not found"
	mkdir -p "$2"
	out=$(cd "$2" && pwd -P)
	case "$out/" in "$src"/*) usage_error "OUT_DIR must not be inside SRC_TREE" ;; esac
}

# uapi_headers SRC DIR: "make headers" of the kernel tree SRC (not written
# to: O=DIR, log in DIR.log) and print the include directory,
# DIR/usr/include. With UAPI_INCLUDE set, print that directory instead and
# make nothing (a caller that made the headers passes them on this way).
uapi_headers() {
	if [ -n "${UAPI_INCLUDE:-}" ]; then
		(cd "$UAPI_INCLUDE" && pwd -P)
		return
	fi
	mkdir -p "$2"
	if ! make -s -C "$1" O="$2" ARCH=x86_64 headers > "$2.log" 2>&1; then
		cat "$2.log" >&2
		echo "make headers of $1 failed (log: $2.log); a tree with an in-tree" \
		     "build cannot make O= headers: pass UAPI_INCLUDE=DIR" >&2
		return 1
	fi
	(cd "$2/usr/include" && pwd -P)
}

# seed_build SEED OUT: start the build directory OUT from a copy of the
# objects of SEED, an earlier build of the same source tree path (kbuild
# then rebuilds only what the source or the config changes).
seed_build() {
	[ -f "$1/.config" ] || die "seed $1: not a build directory"
	rm -rf "$2" && mkdir -p "$(dirname "$2")" && cp -a "$1" "$2"
}

# own_worktree TREE DIR REV: DIR, a detached worktree of TREE's repository
# at REV, for a script that must check out other commits without touching
# TREE. Made once and reused (reset and cleaned), so its files keep their
# mtimes and a build directory that belongs to it stays incremental.
own_worktree() {
	local tree=$1 dir rev common
	dir=$(realpath -m -- "$2")
	rev=$(git -C "$tree" rev-parse --verify "$3^{commit}")
	common=$(git -C "$tree" rev-parse --path-format=absolute --git-common-dir)
	if [ -e "$dir/.git" ] &&
	   [ "$(git -C "$dir" rev-parse --path-format=absolute --git-common-dir 2>/dev/null)" = "$common" ] &&
	   [ "$(git -C "$dir" rev-parse --show-toplevel 2>/dev/null)" = "$dir" ]; then
		git -C "$dir" reset -q --hard
		git -C "$dir" clean -q -fdx
		git -C "$dir" checkout -q --detach "$rev"
	else
		git -C "$tree" worktree remove --force "$dir" 2>/dev/null || rm -rf "$dir"
		git -C "$tree" worktree prune
		mkdir -p "$(dirname "$dir")"
		git -C "$tree" worktree add -q --detach "$dir" "$rev"
	fi
}
