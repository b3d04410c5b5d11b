# SPDX-License-Identifier: GPL-2.0
# Common definitions for the HMM series scripts. Source it, don't run it.
#
# Environment knobs (all optional):
#   HMM_WORKDIR   cache and build area            (default ~/.cache/hmm-series)
#   KERNEL_TREE   your own kernel git tree to use instead of Debian's
#                 linux-source-6.12 (e.g. a linux-stable checkout at v6.12.y)
#   BASE_REF      with KERNEL_TREE: the commit the series applies to (default HEAD)
#   HMM_BASE_TAG  the base tag in the kernel tree (default hmm/base; the 7.3
#                 port uses hmm/base-7.3, see port/7.3/README)
#   JOBS          parallel make jobs               (default: nproc)
#   QEMU_ACCEL    tcg (default) or kvm

set -euo pipefail

TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
WORKDIR=${HMM_WORKDIR:-$HOME/.cache/hmm-series}
KTREE=${KERNEL_TREE:-$WORKDIR/linux}
BASE_TAG=${HMM_BASE_TAG:-hmm/base}
SERIES_BRANCH=${SERIES_BRANCH:-hmm/series}
JOBS=${JOBS:-$(nproc)}
BUILD_ROOT=$WORKDIR/build
export LC_ALL=C

log()  { printf '==> %s\n' "$*" >&2; }
warn() { printf '\n!!! WARNING: %s\n\n' "$*" >&2; }
die()  { printf 'ERROR: %s\n' "$*" >&2; exit 1; }

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
	if [ ! -f "$WORKDIR/.apt-updated" ] ||
	   [ -n "$(find "$WORKDIR/.apt-updated" -mmin +720 2>/dev/null)" ]; then
		mkdir -p "$WORKDIR"
		apt-get update -q >&2 && touch "$WORKDIR/.apt-updated"
	fi
	DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends \
		"${missing[@]}" >&2
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
		export CCACHE_DIR=${CCACHE_DIR:-$WORKDIR/ccache}
		export CCACHE_BASEDIR=$WORKDIR CCACHE_NOHASHDIR=1
		export CCACHE_MAXSIZE=${CCACHE_MAXSIZE:-8G}
	fi
	make -C "$src" O="$out" CC="$cc" HOSTCC="$cc" -j"$JOBS" \
		KBUILD_BUILD_TIMESTAMP='Thu Jan  1 00:00:00 UTC 2026' \
		KBUILD_BUILD_USER=hmm KBUILD_BUILD_HOST=series "$@"
}

# series_patches [FILE]: the patch files of FILE (default ./series) in quilt
# order: comment lines ("# ..."), trailing comments and blanks dropped, and
# quilt options after the name (e.g. -p1) too. Anything that reads series
# goes through this, so section comments are allowed anywhere.
series_patches() {
	sed -e 's/#.*//' -e 's/[[:space:]]*$//' "${1:-$TOP/series}" | awk 'NF { print $1 }'
}

ensure_tree() {
	git -C "$KTREE" rev-parse -q --verify "$BASE_TAG^{commit}" >/dev/null ||
		die "no base tree at $KTREE (tag $BASE_TAG); run scripts/series/get-base.sh first"
}

# touched_files TREE PATHSPEC...: the kernel files the series (hmm/base..HEAD
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
