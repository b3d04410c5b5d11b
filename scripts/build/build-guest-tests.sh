#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# build-guest-tests.sh SRC_TREE OUT_DIR
#
# Build the guest's tests out of the kernel source tree SRC_TREE into
# OUT_DIR, which goes into the busybox initramfs as /tests:
# - the mm selftests, built and installed the way kselftest does it,
#   "make -C tools/testing/selftests TARGETS=mm install", into
#   OUT_DIR/kselftest (tests/guest/run-kselftest.sh runs their
#   run_vmtests.sh categories), with bash and their shared libraries in
#   OUT_DIR/rootfs;
# - the guest runners (tests/guest/run-kselftest.sh, run-kunit.sh,
#   suite-lib.sh) and tests/kernel-log.pattern;
# - the series' programs and suite hooks (scripts/build/build-bench.sh,
#   build-soak.sh).
#
# SRC_TREE is never written to: the uapi headers are generated with
# "make O=OUT_DIR/hdr headers", everything else goes to OUT_DIR as well.
#
# tests/selftest-fixes/*.patch, and on a backport also its own
# (backports/6.12/selftest-fixes/*.patch; lib.sh's SELFTEST_FIXES, by
# HMM_BASE), are fixes to upstream selftests that CI carries
# (each one a git format-patch file against the kernel tree, with its
# reason).  They are applied to a private copy of tools/testing/selftests/mm
# in OUT_DIR/fixsrc, and the mm selftests are built from that copy.
#
# KSFT_TIMEOUT_SCALE=N (N > 1; default 1) makes the kselftest harness's
# per-test timeouts N times longer in that copy (scale_harness below):
# for the debug kernel's boot only (scripts/test.sh --debug).
#
# Adding an upstream selftest: its run_vmtests.sh category in
# tests/plans/upstream (kselftest:CATEGORY); nothing to add here.

. "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"	# set -euo pipefail, TOP, uapi_headers

usage() {
	cat <<'EOF2'
Usage: build-guest-tests.sh [--help] SRC_TREE OUT_DIR

Build and install the mm kselftests of the kernel source tree SRC_TREE
(make -C tools/testing/selftests TARGETS=mm install) and the series' guest
programs into OUT_DIR, with the in-guest runners.

  SRC_TREE   kernel source tree (read-only; must be "clean" enough for
             "make O=... headers", i.e. no in-tree .config / build)
  OUT_DIR    output directory; created if missing; rebuilds are incremental

Outputs:
  OUT_DIR/kselftest/            the kselftest install (mm/run_vmtests.sh, ...)
  OUT_DIR/rootfs/               bash and the shared libraries they need
  OUT_DIR/run-kselftest.sh, run-kunit.sh, suite-lib.sh, kernel-log.pattern
                                the guest runners (tests/guest/)
  OUT_DIR/bench/hmm-bench, OUT_DIR/suites/bench
                                the benchmark and its guest suite hook
                                (scripts/build/build-bench.sh; optional)
  OUT_DIR/{soak,fuzz,finj,demo}/hmm-*, OUT_DIR/suites/*
                                the series' test programs and their suite
                                hooks (scripts/build/build-soak.sh; series
                                tree only, optional)
  OUT_DIR/fixsrc/               tools/testing/selftests/mm with the fixes of
                                tests/selftest-fixes/ (and of the backport,
                                HMM_BASE) applied
  OUT_DIR/logs/kselftest.log    the output of the kselftest build

Environment:
  UAPI_INCLUDE  use this already-installed uapi include dir instead of
                generating one with "make O=OUT_DIR/hdr headers"
  NO_APT=1      never call apt-get (just report missing packages)
  KSFT_TIMEOUT_SCALE=N
                the kselftest harness's per-test timeouts N times longer
                (a copy of kselftest_harness.h in OUT_DIR/fixsrc); for the
                debug kernel's boot only

Exit status: 0 if the kselftest install was built (with hmm-tests in it),
1 otherwise. The series' programs that fail to build are reported and
skipped (their suites then fail in the guest).
EOF2
}

# ---------------------------------------------------------------------------
# Build dependencies (Debian).  Installed only if missing.
# ---------------------------------------------------------------------------
DEB_PACKAGES=(gcc make libc6-dev libnuma-dev libcap-dev binutils patch rsync)

ensure_packages() {
	local missing=() p
	for p in "$@"; do
		if ! dpkg -s "$p" >/dev/null 2>&1; then
			missing+=("$p")
		fi
	done
	[ "${#missing[@]}" -eq 0 ] && return 0
	if [ "${NO_APT:-0}" = 1 ] || ! command -v apt-get >/dev/null 2>&1; then
		echo "build-guest-tests: missing packages: ${missing[*]} (NO_APT set or no apt-get)" >&2
		return 1
	fi
	echo "build-guest-tests: installing ${missing[*]}" >&2
	local sudo=()
	[ "$(id -u)" -eq 0 ] || sudo=(sudo)
	if ! DEBIAN_FRONTEND=noninteractive "${sudo[@]}" apt-get install -y --no-install-recommends "${missing[@]}"; then
		DEBIAN_FRONTEND=noninteractive "${sudo[@]}" apt-get update
		DEBIAN_FRONTEND=noninteractive "${sudo[@]}" apt-get install -y --no-install-recommends "${missing[@]}"
	fi
}

MM=tools/testing/selftests/mm

log() { echo "build-guest-tests: $*" >&2; }

# scale_harness SRC ROOT: with KSFT_TIMEOUT_SCALE=N (N > 1), ROOT's
# kselftest_harness.h becomes a copy of SRC's in which every test's timeout
# (30 s, or its TEST_F_TIMEOUT) is N times longer. Only for the debug
# kernel's boot (scripts/test.sh --debug): KASAN, lockdep and
# DEBUG_PAGEALLOC under TCG run the tests several times slower, and a
# harness timeout then says nothing about the kernel. The normal boots keep
# upstream's timeouts. Both substitutions must take, or it fails.
scale_harness() {
	local src=$1 root=$2 n=${KSFT_TIMEOUT_SCALE:-1} h=tools/testing/selftests/kselftest_harness.h
	case "$n" in
	[1-9]|[1-9]*[0-9]) case "$n" in *[!0-9]*) n=bad ;; esac ;;
	*) n=bad ;;
	esac
	[ "$n" != bad ] || { log "ERROR: KSFT_TIMEOUT_SCALE='${KSFT_TIMEOUT_SCALE:-}' is not a number from 1"; return 1; }
	[ "$n" -gt 1 ] || return 0
	rm -f "$root/$h"
	sed -e 's/object->timeout = tmout; \\$/object->timeout = (tmout) * @N@; \\/' \
	    -e 's/\.timeout = TEST_TIMEOUT_DEFAULT, }; \\$/.timeout = TEST_TIMEOUT_DEFAULT * @N@, }; \\/' \
	    -e "s/@N@/$n/g" "$src/$h" > "$root/$h"
	if [ "$(grep -c "object->timeout = (tmout) \* $n;" "$root/$h")" != 1 ] ||
	   [ "$(grep -c "\.timeout = TEST_TIMEOUT_DEFAULT \* $n," "$root/$h")" != 1 ]; then
		log "ERROR: KSFT_TIMEOUT_SCALE: $h of $src has not the expected timeout lines"
		return 1
	fi
	log "kselftest harness timeouts x $n (KSFT_TIMEOUT_SCALE)"
}

# fix_tree SRC OUT FIXES_DIR...: print the root to build the mm selftests
# from: OUT/fixsrc, a copy of SRC/$MM with every fix applied (the
# directories in order, each in file name order), and symlinks
# for the rest of SRC. The selftests build writes into its source directory
# (check_config.sh's local_config.*), and SRC stays read-only.  A fix the tree already contains is skipped; one that applies
# neither way is an error.
fix_tree() {
	local src=$1 out=$2 fixes root p e
	local -a patches=()
	shift 2
	for fixes in "$@"; do
		[ -d "$fixes" ] && [ -n "$(ls "$fixes"/*.patch 2>/dev/null)" ] && patches+=("$fixes"/*.patch)
	done
	root=$out/fixsrc
	rm -rf "$root"
	mkdir -p "$root/tools/testing/selftests"
	cp -a "$src/$MM" "$root/$MM"
	# Everything beside the copied mm/ is a symlink into SRC, at every
	# level from the top, so that the kselftest build (build_kselftest)
	# finds what it includes.
	local d=$MM
	while [ "$d" != . ]; do
		for e in "$src/$(dirname "$d")"/*; do
			[ "${e##*/}" = "${d##*/}" ] || ln -s "$e" "$root/$(dirname "$d")/"
		done
		d=$(dirname "$d")
	done
	scale_harness "$src" "$root" || return 1
	for p in "${patches[@]}"; do
		if patch -p1 -s -N -f --dry-run -d "$root" <"$p" >/dev/null 2>&1; then
			if ! patch -p1 -s -N -f --no-backup-if-mismatch -d "$root" <"$p" >&2; then
				log "ERROR: selftest fix $p failed to apply"
				return 1
			fi
			log "applied selftest fix $(basename "$p")"
		elif patch -p1 -s -R -f --dry-run -d "$root" <"$p" >/dev/null 2>&1; then
			log "selftest fix $(basename "$p") is already in the tree, skipped"
		else
			log "ERROR: selftest fix $p does not apply to $src"
			return 1
		fi
	done
	printf '%s\n' "$root"
}

# build_kselftest ROOT UAPI OUT: the mm selftests built and installed the way
# kselftest does it ("make -C tools/testing/selftests TARGETS=mm install"),
# from ROOT (fix_tree's copy, so the carried fixes apply), into
# OUT/kselftest, for tests/guest/run-kselftest.sh (run_vmtests.sh -t CATEGORY).
# They are dynamically linked, as upstream builds them: bash and the shared
# libraries they use go to OUT/rootfs, which mkinitramfs.sh lays over the
# root of the initramfs.
build_kselftest() {
	local root=$1 uapi=$2 out=$3 cfg=$out/gen/ksft f lib hdr
	mkdir -p "$cfg"
	# check_config.sh's output, kept across runs (fix_tree recreates ROOT),
	# so that an unchanged tree rebuilds nothing. Only as a whole: 7.3
	# names the header local_config.h_gen (6.12 local_config.h), and a
	# local_config.mk without its header stops make from building any
	# program that lists the header among its LOCAL_HDRS, so a changed
	# test stayed stale. A cache without the header is dropped, and
	# check_config.sh runs again.
	hdr=$(sed -n 's/^OUTPUT_H_FILE=//p' "$root/$MM/check_config.sh")
	if [ -n "$hdr" ] && [ -f "$cfg/local_config.mk" ] && [ -f "$cfg/$hdr" ]; then
		cp -p "$cfg/local_config.mk" "$cfg/$hdr" "$root/$MM/"
	else
		rm -f "$cfg"/local_config.*
	fi
	rm -rf "$out/kselftest"
	# Objects built with other harness timeouts (KSFT_TIMEOUT_SCALE) would
	# look up to date: the header is a symlink with the tree's mtime again.
	if [ "$(cat "$out/gen/ksft-timeout-scale" 2>/dev/null)" != "${KSFT_TIMEOUT_SCALE:-1}" ]; then
		rm -rf "$out/ksft-obj"
		echo "${KSFT_TIMEOUT_SCALE:-1}" > "$out/gen/ksft-timeout-scale"
	fi
	if ! make -C "$root/tools/testing/selftests" -j"$(nproc)" O="$out/ksft-obj" \
		KHDR_INCLUDES="-isystem $uapi" TARGETS=mm \
		KSFT_INSTALL_PATH="$out/kselftest" install >"$out/logs/kselftest.log" 2>&1; then
		tail -n 30 "$out/logs/kselftest.log" >&2
		log "ERROR: the kselftest build of $MM failed (see $out/logs/kselftest.log)"
		return 1
	fi
	for f in local_config.mk "$hdr"; do
		[ -n "$f" ] && [ -f "$root/$MM/$f" ] && cp -p "$root/$MM/$f" "$cfg/$f"
	done
	rm -rf "$out/rootfs"
	mkdir -p "$out/rootfs/bin"
	cp -L "$(command -v bash)" "$out/rootfs/bin/bash"
	# glibc's pthread_cancel() loads libgcc_s.so.1 at run time (ldd does
	# not list it): without it the harness's timeout path aborts the test
	# ("libgcc_s.so.1 must be installed for pthread_cancel to work").
	{
		{
			echo "$out/rootfs/bin/bash"
			find "$out/kselftest" -type f -perm -u+x -exec sh -c \
				'for f; do [ "$(head -c 4 "$f" | od -An -c | tr -d " ")" = 177ELF ] && echo "$f"; done' sh {} +
		} | while read -r f; do
			ldd "$f" 2>/dev/null | awk '$2 == "=>" && $3 ~ /^\// { print $3 } $1 ~ /^\// { print $1 }'
		done
		/sbin/ldconfig -p | awk '$1 == "libgcc_s.so.1" && /x86-64/ { print $NF; exit }'
	} | sort -u | while read -r lib; do
		mkdir -p "$out/rootfs$(dirname "$lib")"
		cp -L "$lib" "$out/rootfs$lib"
	done
	log "kselftest: $(find "$out/kselftest" -type f | wc -l) files installed in $out/kselftest," \
		"$(find "$out/rootfs" -type f | wc -l) in $out/rootfs"
}

main() {
	case "${1:-}" in
	-h|--help) usage; exit 0 ;;
	esac
	if [ "$#" -ne 2 ]; then
		usage >&2
		exit 2
	fi

	local src out
	src_out "$1" "$2"
	if [ ! -f "$src/Makefile" ] || [ ! -d "$src/$MM" ]; then
		log "'$src' does not look like a kernel source tree (no $MM)"
		exit 2
	fi

	ensure_packages "${DEB_PACKAGES[@]}"

	local script_dir t_start failed=0
	script_dir=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd -P)
	t_start=$(date +%s)
	mkdir -p "$out/logs"
	# The static programs of the runner this replaced (run-selftests.sh).
	rm -rf "$out/bin" "$out/obj" "$out/gen/ci-linebuf.c" "$out/gen/local_config.h" \
		"$out/build-status.txt" "$out/run-selftests.sh"

	# --- uapi headers -----------------------------------------------------
	# Made here once (lib.sh's uapi_headers) and passed on to build-bench.sh
	# and build-soak.sh as UAPI_INCLUDE.
	local uapi
	log "uapi headers: ${UAPI_INCLUDE:-make O=$out/hdr headers}"
	uapi=$(uapi_headers "$src" "$out/hdr") || { log "ERROR: 'make headers' failed"; exit 1; }
	[ -f "$uapi/linux/mman.h" ] || { log "ERROR: no linux/mman.h in $uapi"; exit 1; }

	# Fixes CI carries to upstream selftests (see the top of this file).
	local mmroot
	mmroot=$(fix_tree "$src" "$out" "${SELFTEST_FIXES[@]}") || exit 1

	# --- the kselftest install (run_vmtests.sh categories) ----------------
	build_kselftest "$mmroot" "$uapi" "$out" || failed=1
	if [ $failed = 0 ] && [ ! -x "$out/kselftest/mm/hmm-tests" ]; then
		log "ERROR: no hmm-tests in the kselftest install"
		failed=1
	fi

	# --- in-guest runners -------------------------------------------------
	install -m 0755 "$TOP/tests/guest/run-kselftest.sh" "$out/run-kselftest.sh"
	install -m 0755 "$TOP/tests/guest/run-kunit.sh" "$out/run-kunit.sh"
	install -m 0644 "$TOP/tests/guest/suite-lib.sh" "$out/suite-lib.sh"
	install -m 0644 "$TOP/tests/kernel-log.pattern" "$out/kernel-log.pattern"
	# The benchmark (suite "bench", run by scripts/bench.sh; in no CI suite
	# list). Optional: a failure here does not fail the test build.
	if ! UAPI_INCLUDE=$uapi "$script_dir/build-bench.sh" "$src" "$out" >"$out/logs/hmm-bench.log" 2>&1; then
		log "WARNING: hmm-bench did not build (see $out/logs/hmm-bench.log)"
	fi
	# The soak test (suite "soak", run by scripts/soak.sh; in no CI suite
	# list), the fuzzer and the fault-injection suite (suites "fuzz" and
	# "finj", in tests/plans/series) and the demo (suite "demo", in
	# tests/plans/demo), on a series tree only, without stress-ng. Not fatal
	# here: a suite whose program is missing fails in the guest
	# ("not-found").
	if [ -f "$src/drivers/char/hmm_dummy_uapi.h" ] &&
	   ! UAPI_INCLUDE=$uapi "$script_dir/build-soak.sh" "$src" "$out" >"$out/logs/hmm-soak.log" 2>&1; then
		log "WARNING: hmm-soak did not build (see $out/logs/hmm-soak.log)"
	fi

	log "done in $(( $(date +%s) - t_start ))s"
	if [ "$failed" -ne 0 ]; then
		log "ERROR: the kselftest install could not be built"
		exit 1
	fi
}

main "$@"
