#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# boot.sh [--name NAME] [--timeout S] [--keep-initramfs] BUILD_DIR TESTS_DIR SUITES OUT_DIR
# Boot and collect, the sequence behind every front end (test, demo, bench,
# soak): the initramfs of BUILD_DIR's modules and TESTS_DIR
# (scripts/build/mkinitramfs.sh), the kernel under QEMU running SUITES
# (comma separated, see tests/guest/init; scripts/boot/run-qemu.sh), the
# scan of the kernel log (scripts/check/check-log.sh) and the guest's
# results (scripts/boot/guest-results.sh). Into OUT_DIR:
#   console.log     the serial console
#   results.txt     "RESULT SUITE TEST STATUS [extra]", one line per test,
#                   from the suites' KTAP (scripts/boot/guest-results.sh)
#   kernel-log.txt  what check-log.sh found (also on stderr)
#   steps.txt       "STEP PASS|FAIL" for the steps initramfs, boot (the
#                   guest reached its end marker with rc=0) and kernel-log
# With --name NAME every file name gets -NAME (console-NAME.log, ...), so
# several boots can share OUT_DIR.
#   --timeout S        guest timeout in seconds (default 1800)
#   --keep-initramfs   keep OUT_DIR/initramfs[-NAME].cpio.gz
# Exits 0 if every step passed, 1 otherwise; results.txt is written either
# way, from whatever the console holds.
. "$(dirname "$0")/../lib.sh"

name='' tmo=1800 keep=0
while [ $# -gt 0 ]; do
	case "$1" in
	-h|--help) usage; exit 0 ;;
	--name) need_arg "$@"; name=$2; shift ;;
	--timeout) need_arg "$@"; tmo=$2; shift ;;
	--keep-initramfs) keep=1 ;;
	-*) usage_error "unknown option $1" ;;
	*) break ;;
	esac
	shift
done
[ $# -eq 4 ] || usage_error "BUILD_DIR TESTS_DIR SUITES OUT_DIR expected"
build=$1 tests=$2 suites=$3 out=$4
sfx=${name:+-$name}
mkdir -p "$out"
img=$out/initramfs$sfx.cpio.gz con=$out/console$sfx.log res=$out/results$sfx.txt
klog=$out/kernel-log$sfx.txt steps=$out/steps$sfx.txt
: > "$steps"
: > "$res"
step() { echo "$1 $2" >> "$steps"; [ "$2" = PASS ]; }

if "$TOP/scripts/build/mkinitramfs.sh" "$build" "$tests" "$img"; then
	step initramfs PASS
else
	step initramfs FAIL || die "boot: the initramfs for $build failed"
fi
ok=1
if "$TOP/scripts/boot/run-qemu.sh" "$build/arch/x86/boot/bzImage" "$img" "$con" "$suites" "$tmo"; then
	step boot PASS
else
	step boot FAIL || ok=0
fi
[ $keep = 1 ] || rm -f "$img"
[ -f "$con" ] || : > "$con"
if "$TOP/scripts/check/check-log.sh" "$con" 2> "$klog"; then
	step kernel-log PASS
else
	step kernel-log FAIL || ok=0
fi
cat "$klog" >&2
"$TOP/scripts/boot/guest-results.sh" --suites "$suites" "$con" > "$res"
log "boot: $(grep -c ' PASS' "$res" || true) passed, $(grep -c ' FAIL' "$res" || true) failed; $(paste -sd ' ' "$steps") ($out)"
[ $ok = 1 ]
