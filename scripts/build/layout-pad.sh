#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# layout-pad.sh SRC BUILD_DIR OUT_DIR BYTES [FRAGMENT...]
# A layout control for scripts/bench.sh --base: the kernel of BUILD_DIR
# (built from the git tree SRC) again, with BYTES bytes of NOPs at the
# start of the .text of kernel/panic.o, into OUT_DIR. No code changes:
# panic.o's functions and everything linked after them (the rest of
# kernel/, mm/, fs/, ...) move by BYTES, across other 4 KiB page
# boundaries. Under QEMU TCG that alone moves some rows (benchmarks.md,
# "Base vs series"): booting BUILD_DIR against OUT_DIR measures how much,
# the noise floor of a base-vs-series comparison that a boot-to-boot
# interval does not contain.
#   OUT_DIR starts as a copy of BUILD_DIR (only kernel/panic.o and the
#   link are redone); FRAGMENT... as for scripts/build/build.sh (the
#   configuration BUILD_DIR was built with, e.g. configs/guest.config).
#   SRC is left as it was, whatever happens (the NOPs are removed with
#   "git checkout", the file's time put back, so that BUILD_DIR is not
#   rebuilt); it must have no change to kernel/panic.c. On a failure
#   OUT_DIR is removed.
# Not for posting: an experiment on the test kernels only.
. "$(dirname "$0")/../lib.sh"
case "${1:-}" in -h|--help) usage; exit 0 ;; -*) usage_error "unknown option $1" ;; esac
[ $# -ge 4 ] || usage_error "SRC BUILD_DIR OUT_DIR BYTES expected"
src=$1 build=$2 out=$3 bytes=$4
shift 4
[[ $bytes =~ ^[1-9][0-9]*$ ]] && [ "$bytes" -le 65536 ] || usage_error "BYTES $bytes: 1..65536"
[ -f "$build/arch/x86/boot/bzImage" ] || die "no $build/arch/x86/boot/bzImage"
src=$(cd "$src" && pwd)
[ "$(cat "$build/.hmm-src" 2>/dev/null)" = "$src" ] || die "$build was not built from $src"
git -C "$src" diff --quiet -- kernel/panic.c || die "$src has changes to kernel/panic.c"
[ ! -e "$out" ] || die "$out exists already"
stamp=$(mktemp)
touch -r "$src/kernel/panic.c" "$stamp"
done=0
restore() {
	git -C "$src" checkout -q -- kernel/panic.c
	touch -r "$stamp" "$src/kernel/panic.c"
	rm -f "$stamp"
	[ $done = 1 ] || rm -rf "$out"
}
trap restore EXIT
cp -a "$build" "$out"
printf '\n/* layout-pad.sh: %d bytes of NOPs, a layout control (not for posting) */\nasm(".pushsection .text\\n\\t.skip %d, 0x90\\n\\t.popsection");\n' \
	"$bytes" "$bytes" >> "$src/kernel/panic.c"
"$TOP/scripts/build/build.sh" "$src" "$out" "$@"
done=1
echo "layout-pad: $out: $build with $bytes bytes of NOPs at the start of kernel/panic.o's code" >&2
