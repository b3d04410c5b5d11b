#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# build-guest-tests.sh SRC_TREE OUT_DIR
#
# Build statically linked x86_64 kernel selftest programs (mostly from
# tools/testing/selftests/mm/) out of the kernel source tree SRC_TREE, using
# that tree's own uapi headers, into OUT_DIR/bin/.  Also copies the in-guest
# runner (tests/guest/run-selftests.sh) to OUT_DIR/run-selftests.sh, so OUT_DIR
# can be dropped into a busybox initramfs as /tests.
#
# SRC_TREE is never written to: the uapi headers are generated with
# "make O=OUT_DIR/hdr headers", everything else goes to OUT_DIR as well.
#
# tests/selftest-fixes/*.patch (or HMM_SELFTEST_FIXES/*.patch: another base
# needs its own, e.g. port/7.3/selftest-fixes) are fixes to upstream selftests that CI carries
# (each one a git format-patch file against the kernel tree, with its
# reason).  They are applied to a private copy of tools/testing/selftests/mm
# in OUT_DIR/fixsrc, and the mm programs are built from that copy.
#
# Adding a program is one line in the PROGRAMS table below.

. "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"	# set -euo pipefail, TOP, uapi_headers

usage() {
	cat <<'EOF'
Usage: build-guest-tests.sh [--help] SRC_TREE OUT_DIR

Build statically linked kernel selftest programs (hmm-tests, cow, ...) from the
kernel source tree SRC_TREE into OUT_DIR/bin/, and copy the in-guest runner to
OUT_DIR/run-selftests.sh.

  SRC_TREE   kernel source tree (read-only; must be "clean" enough for
             "make O=... headers", i.e. no in-tree .config / build)
  OUT_DIR    output directory; created if missing; rebuilds are incremental

Outputs:
  OUT_DIR/bin/<program>         static x86_64 executables
  OUT_DIR/run-selftests.sh      copy of tests/guest/run-selftests.sh
  OUT_DIR/run-kunit.sh          copy of tests/guest/run-kunit.sh
  OUT_DIR/bench/hmm-bench, OUT_DIR/suites/bench
                                the benchmark and its guest suite hook
                                (scripts/build/build-bench.sh; optional)
  OUT_DIR/soak/hmm-soak, OUT_DIR/suites/soak
                                the soak test and its guest suite hook
                                (scripts/build/build-soak.sh; series tree only,
                                optional)
  OUT_DIR/fixsrc/               tools/testing/selftests/mm with the fixes of
                                tests/selftest-fixes/ applied (when there are any)
  OUT_DIR/build-status.txt      one line per program: "<name> built|skipped [reason]"
  OUT_DIR/logs/<program>.log    compiler output of the last build attempt

Environment:
  CC            compiler (default: gcc)
  EXTRA_CFLAGS  appended to CFLAGS of every program
  UAPI_INCLUDE  use this already-installed uapi include dir instead of
                generating one with "make O=OUT_DIR/hdr headers"
  CI_LINEBUF=0  do not link the tiny constructor that makes stdout
                line-buffered (keeps output ordered / not lost on timeout)
  NO_APT=1      never call apt-get (just report missing packages)

Exit status: 0 if every "required" program (hmm-tests) was built, 1 otherwise.
Optional programs that fail to build are reported and skipped.
EOF
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

# ---------------------------------------------------------------------------
# Program table: one line per program.
#
#   name | dir (relative to SRC_TREE) | sources (relative to dir) | ldlibs | required|optional | extra cflags
#
# All programs get "-lrt -lpthread -lm" (like the mm selftests Makefile) after
# their own ldlibs.  Every mm program links vm_util.c and thp_settings.c, as
# upstream does ($(TEST_GEN_FILES): vm_util.c thp_settings.c).
# Only "required" programs make the script fail when they cannot be built.
# A row whose main source file does not exist in the tree is skipped (and is
# an error only if it is required).
# ---------------------------------------------------------------------------
MM=tools/testing/selftests/mm
MMLIB="vm_util.c thp_settings.c"
PROGRAMS=(
	"hmm-tests            |$MM|hmm-tests.c $MMLIB                  |      |required|"
	"cow                  |$MM|cow.c $MMLIB                        |      |optional|"
	"mremap_test          |$MM|mremap_test.c $MMLIB                |      |optional|"
	"mremap_dontunmap     |$MM|mremap_dontunmap.c $MMLIB           |      |optional|"
	"ksm_functional_tests |$MM|ksm_functional_tests.c $MMLIB       |      |optional|"
	"soft-dirty           |$MM|soft-dirty.c $MMLIB                 |      |optional|"
	"madv_populate        |$MM|madv_populate.c $MMLIB              |      |optional|"
	"migration            |$MM|migration.c $MMLIB                  |-lnuma|optional|"
	"uffd-unit-tests      |$MM|uffd-unit-tests.c uffd-common.c $MMLIB|    |optional|"
	"mlock2-tests         |$MM|mlock2-tests.c $MMLIB               |      |optional|"
	"gup_test             |$MM|gup_test.c $MMLIB                   |      |optional|"
	"gup_longterm         |$MM|gup_longterm.c $MMLIB               |      |optional|"
	"mkdirty              |$MM|mkdirty.c $MMLIB                    |      |optional|"
	"pagemap_ioctl        |$MM|pagemap_ioctl.c $MMLIB              |      |optional|"
	# 6.12.y khugepaged.c uses KSFT_SKIP without including kselftest.h
	# (stable backport bug): tests/selftest-fixes/0002-*.
	"khugepaged           |$MM|khugepaged.c $MMLIB                 |      |optional|"
	"split_huge_page_test |$MM|split_huge_page_test.c $MMLIB       |      |optional|"
	"transhuge-stress     |$MM|transhuge-stress.c $MMLIB           |      |optional|"
	"compaction_test      |$MM|compaction_test.c $MMLIB            |      |optional|"
	# The series' own tests (absent from the base tree, so optional here;
	# tests/plans/series makes a missing one fail on the series kernel).
	"mmu_notifier_events  |$MM|mmu_notifier_events.c $MMLIB        |      |optional|"
	"hmm_dummy_tests      |$MM|hmm_dummy_tests.c $MMLIB            |-lpthread|optional|"
)

# ---------------------------------------------------------------------------

trim() {
	local s=$1
	s=${s#"${s%%[![:space:]]*}"}
	s=${s%"${s##*[![:space:]]}"}
	printf '%s' "$s"
}

log() { echo "build-guest-tests: $*" >&2; }

# up_to_date OUT DEP CMDFILE CMD SRCDIR: 0 if OUT is newer than every file
# listed in the dependency file DEP and CMDFILE holds the same command line.
up_to_date() {
	local out=$1 dep=$2 cmdfile=$3 cmd=$4 srcdir=$5 f
	[ -x "$out" ] && [ -f "$dep" ] && [ -f "$cmdfile" ] || return 1
	[ "$(cat "$cmdfile")" = "$cmd" ] || return 1
	# "gcc -M" output: "x.o: dep dep \" ...; paths relative to the source dir.
	while read -r f; do
		case "$f" in /*) ;; *) f=$srcdir/$f ;; esac
		[ -e "$f" ] || return 1
		[ "$f" -nt "$out" ] && return 1
	done < <(sed -e 's/^[^:]*://' -e 's/\\$//' "$dep" | tr -s '[:blank:]' '\n' | sed '/^$/d')
	return 0
}

# fix_tree SRC OUT FIXES_DIR: print the root to build the mm selftests
# from: OUT/fixsrc, a copy of SRC/$MM with every fix applied, and symlinks
# for the rest of SRC. The selftests build writes into its source directory
# (check_config.sh's local_config.*), and SRC stays read-only.  cp -a keeps the mtimes
# of unpatched files, so the incremental check rebuilds only what a fix
# touches.  A fix the tree already contains is skipped; one that applies
# neither way is an error.
fix_tree() {
	local src=$1 out=$2 fixes=$3 root p e
	local -a patches=()
	[ -d "$fixes" ] && [ -n "$(ls "$fixes"/*.patch 2>/dev/null)" ] && patches=("$fixes"/*.patch)
	root=$out/fixsrc
	rm -rf "$root"
	mkdir -p "$root/tools/testing/selftests"
	cp -a "$src/$MM" "$root/$MM"
	# Everything beside the copied mm/ is a symlink into SRC, at every
	# level from the top, so that both the single-program builds and the
	# kselftest build (build_kselftest) find what they include.
	local d=$MM
	while [ "$d" != . ]; do
		for e in "$src/$(dirname "$d")"/*; do
			[ "${e##*/}" = "${d##*/}" ] || ln -s "$e" "$root/$(dirname "$d")/"
		done
		d=$(dirname "$d")
	done
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
	local root=$1 uapi=$2 out=$3 cfg=$out/gen/ksft f lib
	mkdir -p "$cfg"
	# check_config.sh's output, kept across runs (fix_tree recreates ROOT),
	# so that an unchanged tree rebuilds nothing.
	for f in local_config.mk local_config.h; do
		[ -f "$cfg/$f" ] && cp -p "$cfg/$f" "$root/$MM/$f"
	done
	rm -rf "$out/kselftest"
	if ! make -C "$root/tools/testing/selftests" -j"$(nproc)" O="$out/ksft-obj" \
		KHDR_INCLUDES="-isystem $uapi" TARGETS=mm \
		KSFT_INSTALL_PATH="$out/kselftest" install >"$out/logs/kselftest.log" 2>&1; then
		tail -n 30 "$out/logs/kselftest.log" >&2
		log "ERROR: the kselftest build of $MM failed (see $out/logs/kselftest.log)"
		return 1
	fi
	for f in local_config.mk local_config.h; do
		cp -p "$root/$MM/$f" "$cfg/$f"
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

	local cc=${CC:-gcc}
	local script_dir runner
	script_dir=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd -P)
	runner=$TOP/tests/guest/run-selftests.sh

	mkdir -p "$out/bin" "$out/obj" "$out/gen" "$out/logs"

	# --- uapi headers -----------------------------------------------------
	# Made here once (lib.sh's uapi_headers) and passed on to build-bench.sh
	# and build-soak.sh as UAPI_INCLUDE.
	local uapi
	log "uapi headers: ${UAPI_INCLUDE:-make O=$out/hdr headers}"
	uapi=$(uapi_headers "$src" "$out/hdr") || { log "ERROR: 'make headers' failed"; exit 1; }
	[ -f "$uapi/linux/mman.h" ] || { log "ERROR: no linux/mman.h in $uapi"; exit 1; }

	# --- local_config.h: what check_config.sh would write without liburing.
	# cow.c / gup_longterm.c include it; we deliberately build without liburing.
	local mm_ldlibs_extra=""
	printf '%s\n' "// No liburing support found (build-guest-tests.sh: liburing disabled)" \
		>"$out/gen/local_config.h.tmp"
	if ! cmp -s "$out/gen/local_config.h.tmp" "$out/gen/local_config.h" 2>/dev/null; then
		mv "$out/gen/local_config.h.tmp" "$out/gen/local_config.h"
	else
		rm -f "$out/gen/local_config.h.tmp"
	fi
	# A local_config.h left in the tree by an in-tree selftests build shadows
	# ours ("" includes search the source file's directory first).
	if [ -f "$src/$MM/local_config.h" ]; then
		log "WARNING: $src/$MM/local_config.h exists and takes precedence over ours"
		if grep -q LOCAL_CONFIG_HAVE_LIBURING "$src/$MM/local_config.h"; then
			log "WARNING: it enables liburing: linking cow/gup_longterm with -luring"
			mm_ldlibs_extra="-luring"
		fi
	fi

	# --- stdout line-buffering constructor (see CI_LINEBUF in --help).
	local linebuf_obj=""
	if [ "${CI_LINEBUF:-1}" != 0 ]; then
		cat >"$out/gen/ci-linebuf.c.tmp" <<'EOF'
/* Linked into every guest test program by build-guest-tests.sh: make stdout
 * line buffered even when it is a pipe, so that output is not lost when the
 * program is killed (timeout, crash) and stays ordered w.r.t. stderr. */
#include <stdio.h>
__attribute__((constructor(101))) static void ci_linebuf(void)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
}
EOF
		if ! cmp -s "$out/gen/ci-linebuf.c.tmp" "$out/gen/ci-linebuf.c" 2>/dev/null; then
			mv "$out/gen/ci-linebuf.c.tmp" "$out/gen/ci-linebuf.c"
		else
			rm -f "$out/gen/ci-linebuf.c.tmp"
		fi
		if [ ! -f "$out/obj/ci-linebuf.o" ] || [ "$out/gen/ci-linebuf.c" -nt "$out/obj/ci-linebuf.o" ]; then
			"$cc" -O2 -c "$out/gen/ci-linebuf.c" -o "$out/obj/ci-linebuf.o"
		fi
		linebuf_obj=$out/obj/ci-linebuf.o
	fi

	# CFLAGS as in tools/testing/selftests/mm/Makefile + lib.mk (x86_64):
	#   -Wall -O2 -I $(top_srcdir) $(KHDR_INCLUDES) $(TOOLS_INCLUDES)
	#   -U_FORTIFY_SOURCE -no-pie -D_GNU_SOURCE=
	local base_cflags=(-Wall -O2 -I "$src" -I "$src/tools/testing/selftests" -I "$out/gen"
		-isystem "$uapi" -isystem "$src/tools/include/uapi"
		-U_FORTIFY_SOURCE -no-pie -D_GNU_SOURCE= -static)
	local extra_cflags=()
	if [ -n "${EXTRA_CFLAGS:-}" ]; then
		read -r -a extra_cflags <<<"$EXTRA_CFLAGS"
	fi
	local base_ldlibs=(-lrt -lpthread -lm)

	# Fixes CI carries to upstream selftests (see the top of this file).
	local mmroot
	mmroot=$(fix_tree "$src" "$out" "${HMM_SELFTEST_FIXES:-$TOP/tests/selftest-fixes}") || exit 1

	local status_file=$out/build-status.txt
	: >"$status_file.tmp"
	local failed_required=0 nbuilt=0 nskipped=0 nuptodate=0
	local row name dir srcs libs req xcflags
	local t_start
	t_start=$(date +%s)

	for row in "${PROGRAMS[@]}"; do
		IFS='|' read -r name dir srcs libs req xcflags <<<"$row"
		name=$(trim "$name"); dir=$(trim "$dir"); srcs=$(trim "$srcs")
		libs=$(trim "$libs"); req=$(trim "$req"); xcflags=$(trim "${xcflags:-}")

		local srcarr=() libarr=() xarr=() s
		read -r -a srcarr <<<"$srcs"
		read -r -a libarr <<<"$libs"
		read -r -a xarr <<<"$xcflags"
		if [ "$dir" = "$MM" ] && [ -n "$mm_ldlibs_extra" ]; then
			libarr+=("$mm_ldlibs_extra")
		fi

		local root=$src
		[ "$dir" = "$MM" ] && root=$mmroot
		local nosrc=""
		for s in "${srcarr[@]}"; do
			[ -f "$root/$dir/$s" ] || nosrc="$nosrc $dir/$s"
		done
		if [ -n "$nosrc" ]; then
			log "SKIP $name: source not found:$nosrc"
			rm -f "$out/bin/$name" "$out/obj/$name.d" "$out/obj/$name.cmd"
			echo "$name skipped source-not-found" >>"$status_file.tmp"
			nskipped=$((nskipped + 1))
			[ "$req" = required ] && failed_required=1
			continue
		fi

		local bin=$out/bin/$name
		local dep=$out/obj/$name.d cmdfile=$out/obj/$name.cmd
		# Compile + link in one go, from within the source dir (relative
		# includes like "../kselftest.h" resolve against the source file's
		# directory anyway).
		local cmd=("$cc" "${base_cflags[@]}" "${extra_cflags[@]}" "${xarr[@]}"
			"${srcarr[@]}" ${linebuf_obj:+"$linebuf_obj"}
			"${libarr[@]}" "${base_ldlibs[@]}" -o "$bin.tmp")
		local cmdstr="cd $root/$dir && ${cmd[*]}"

		if up_to_date "$bin" "$dep" "$cmdfile" "$cmdstr" "$root/$dir"; then
			echo "$name built up-to-date" >>"$status_file.tmp"
			nuptodate=$((nuptodate + 1))
			continue
		fi

		local lg=$out/logs/$name.log
		rm -f "$bin" "$bin.tmp"
		if (cd "$root/$dir" && "${cmd[@]}") >"$lg" 2>&1; then
			# Must be static: no PT_INTERP / dynamic section.
			if readelf -l "$bin.tmp" 2>/dev/null | grep -q 'INTERP\|DYNAMIC'; then
				log "SKIP $name: linked, but not statically (see $lg)"
				echo "not statically linked" >>"$lg"
				echo "$name skipped not-static" >>"$status_file.tmp"
				rm -f "$bin.tmp"
				nskipped=$((nskipped + 1))
				[ "$req" = required ] && failed_required=1
				continue
			fi
			mv "$bin.tmp" "$bin"
			# Dependency list for the incremental check (all sources).
			if (cd "$root/$dir" && "$cc" "${base_cflags[@]}" "${extra_cflags[@]}" "${xarr[@]}" \
				-M "${srcarr[@]}") >"$dep" 2>/dev/null; then
				printf '%s\n' "$cmdstr" >"$cmdfile"
			else
				rm -f "$dep" "$cmdfile"
			fi
			log "built $name"
			echo "$name built" >>"$status_file.tmp"
			nbuilt=$((nbuilt + 1))
		else
			rm -f "$bin.tmp" "$cmdfile"
			local why=compile-or-link-error
			if grep -q 'cannot find -l' "$lg"; then
				why="static-library-missing($(grep -o 'cannot find -l[^ :]*' "$lg" | sort -u | tr '\n' ' ' | sed 's/ $//;s/ /,/g'))"
			fi
			log "SKIP $name: $why; last lines of $lg:"
			tail -n 15 "$lg" | sed 's/^/    /' >&2
			echo "$name skipped $why" >>"$status_file.tmp"
			nskipped=$((nskipped + 1))
			[ "$req" = required ] && failed_required=1
		fi
	done
	mv "$status_file.tmp" "$status_file"

	# --- the kselftest install (run_vmtests.sh categories) ----------------
	build_kselftest "$mmroot" "$uapi" "$out" || failed_required=1

	# --- in-guest runner ----------------------------------------------------
	if [ -f "$runner" ]; then
		install -m 0755 "$runner" "$out/run-selftests.sh"
	else
		log "WARNING: runner $runner not found, not copied"
	fi
	install -m 0755 "$TOP/tests/guest/run-kunit.sh" "$out/run-kunit.sh"
	install -m 0644 "$TOP/tests/kernel-log.pattern" "$out/kernel-log.pattern"
	install -m 0755 "$TOP/tests/guest/run-kselftest.sh" "$out/run-kselftest.sh"
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
	if [ -f "$src/include/uapi/linux/hmm_dummy.h" ] &&
	   ! UAPI_INCLUDE=$uapi "$script_dir/build-soak.sh" "$src" "$out" >"$out/logs/hmm-soak.log" 2>&1; then
		log "WARNING: hmm-soak did not build (see $out/logs/hmm-soak.log)"
	fi

	log "done in $(( $(date +%s) - t_start ))s: $nbuilt built, $nuptodate up to date, $nskipped skipped (see $status_file)"
	if [ "$failed_required" -ne 0 ]; then
		log "ERROR: a required program could not be built"
		exit 1
	fi
}

main "$@"
