#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# build-bench.sh SRC_TREE OUT_DIR [BUILD_DIR]
# Build the HMM benchmark (tests/programs/hmm-bench.c) statically against
# the uapi headers of the kernel tree SRC_TREE (read-only: "make O=OUT_DIR/hdr
# headers", or UAPI_INCLUDE=DIR to reuse installed ones, e.g. the ones
# scripts/build/build-guest-tests.sh made in its OUT_DIR/hdr/usr/include), into
#   OUT_DIR/bench/hmm-bench   the program
#   OUT_DIR/bench/upb-evict-check
#                             the check of hmm_upstream_bench's unload with
#                             THP on the device (tests/programs/upb-evict-check.c,
#                             run by hand: see its header)
#   OUT_DIR/suites/bench      the guest suite hook (tests/guest/suites/
#                             bench.sh), run by tests/guest/init for the
#                             suite "bench"
#   OUT_DIR/suites/benchmeta  the same for the suite "benchmeta"
#                             (tests/guest/suites/benchmeta.sh, bench.sh --meta)
# and, with BUILD_DIR (the O= build dir of the kernel that will boot),
#   OUT_DIR/bench/hmm_upstream_bench.ko
#                             the upstream competitor module
#                             (tests/programs/hmm_upstream_bench), built with
#                             "make -C BUILD_DIR M=OUT_DIR/upb-src modules"
#                             from a copy of its source (removed after a
#                             successful build); skipped, with a
#                             message, if BUILD_DIR/.config lacks
#                             CONFIG_DEVICE_PRIVATE=y. A failed build fails.
#   OUT_DIR/bench/hmm_dummy_timed.ko
#                             hmm_dummy with clocks around its callbacks
#                             (tests/programs/hmm_dummy_timed: the core-time
#                             split, hmm-bench -T), from SRC_TREE's
#                             drivers/char/hmm_dummy.c, the same way; skipped,
#                             with a message, without that file or without
#                             CONFIG_HMM_DUMMY in BUILD_DIR/.config. A failed
#                             build fails.
# OUT_DIR is a tests directory for scripts/build/mkinitramfs.sh (it may be the one
# of build-guest-tests.sh). lib/test_hmm_uapi.h and hmm_dummy's private ABI
# header, drivers/char/hmm_dummy_uapi.h, come from SRC_TREE itself (-I); on a
# base tree, without the latter, the program builds without the series' rows.
. "$(dirname "$0")/../lib.sh"
case "${1:-}" in
-h|--help) usage; exit 0 ;;
-*) usage_error "unknown option $1" ;;
esac
[ $# -eq 2 ] || [ $# -eq 3 ] || usage_error "SRC_TREE and OUT_DIR (and optionally BUILD_DIR) expected"
src_out "$1" "$2"
build=
if [ $# -eq 3 ]; then
	build=$(cd "$3" 2>/dev/null && pwd -P) || usage_error "BUILD_DIR '$3' not found"
	[ -f "$build/.config" ] || usage_error "BUILD_DIR '$3' has no .config"
fi
[ -f "$src/lib/test_hmm_uapi.h" ] || { echo "build-bench: $src has no lib/test_hmm_uapi.h" >&2; exit 2; }
mkdir -p "$out/bench" "$out/suites" "$out/logs"
uapi=$(uapi_headers "$src" "$out/hdr")
${CC:-gcc} -Wall -Wextra -Wno-unused-parameter -O2 -static -pthread \
	-I "$src" -isystem "$uapi" "$TOP/tests/programs/hmm-bench.c" -o "$out/bench/hmm-bench.tmp"
mv "$out/bench/hmm-bench.tmp" "$out/bench/hmm-bench"
${CC:-gcc} -Wall -Wextra -O2 -static -I "$TOP/tests/programs/hmm_upstream_bench" -isystem "$uapi" \
	"$TOP/tests/programs/upb-evict-check.c" -o "$out/bench/upb-evict-check"
install -m 0755 "$TOP/tests/guest/suites/bench.sh" "$out/suites/bench"
install -m 0755 "$TOP/tests/guest/suites/benchmeta.sh" "$out/suites/benchmeta"
install -m 0644 "$TOP/tests/guest/suite-lib.sh" "$out/suite-lib.sh"
if [ -f "$src/drivers/char/hmm_dummy_uapi.h" ]; then
	echo "build-bench: built $out/bench/hmm-bench (with the series' hmm_dummy rows)" >&2
else
	echo "build-bench: built $out/bench/hmm-bench (no drivers/char/hmm_dummy_uapi.h: upstream rows only)" >&2
fi

# build_module NAME DIR: make the module NAME.ko in DIR (a copy of its
# source under OUT_DIR, made by the caller) against BUILD_DIR, install it as
# OUT_DIR/bench/NAME.ko and remove DIR: OUT_DIR goes into the initramfs, not
# the objects. A failed build fails the script.
build_module() {
	local name=$1 dir=$2 log=$out/logs/$1.log

	if ! make -C "$build" M="$dir" modules >"$log" 2>&1 || [ ! -f "$dir/$name.ko" ]; then
		tail -n 30 "$log" >&2
		echo "build-bench: $name.ko did not build against $build (log: $log)" >&2
		exit 1
	fi
	install -m 0644 "$dir/$name.ko" "$out/bench/$name.ko"
	rm -rf "$dir"
	echo "build-bench: built $out/bench/$name.ko against $build" >&2
}

# The upstream competitor module, against the kernel that will boot. Built
# from a copy, so that the repository stays clean.
[ -n "$build" ] || exit 0
rm -f "$out/bench/hmm_upstream_bench.ko"
if ! grep -qx 'CONFIG_DEVICE_PRIVATE=y' "$build/.config"; then
	echo "build-bench: $build/.config has no CONFIG_DEVICE_PRIVATE=y: hmm_upstream_bench.ko not built" >&2
	exit 0
fi
rm -rf "$out/upb-src"
cp -r "$TOP/tests/programs/hmm_upstream_bench" "$out/upb-src"
build_module hmm_upstream_bench "$out/upb-src"

# The timed copy of hmm_dummy, from the tree's own source (mkbody.py renames
# what it needs and fails if the source no longer matches).
rm -f "$out/bench/hmm_dummy_timed.ko"
if [ ! -f "$src/drivers/char/hmm_dummy.c" ] ||
   ! grep -Eqx 'CONFIG_HMM_DUMMY=(y|m)' "$build/.config"; then
	echo "build-bench: no hmm_dummy in $src or $build/.config: hmm_dummy_timed.ko not built" >&2
	exit 0
fi
rm -rf "$out/hdt-src"
cp -r "$TOP/tests/programs/hmm_dummy_timed" "$out/hdt-src"
cp "$src/drivers/char/hmm_dummy_uapi.h" "$out/hdt-src/"
python3 "$out/hdt-src/mkbody.py" "$src/drivers/char/hmm_dummy.c" >"$out/hdt-src/hmm_dummy_body.c"
build_module hmm_dummy_timed "$out/hdt-src"
