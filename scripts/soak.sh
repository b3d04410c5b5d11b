#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# soak.sh [options] [BUILD_DIR]
# Boot the series kernel under QEMU and run the HMM soak test
# (tests/programs/hmm-soak.c, guest suite "soak", tests/guest/suites/
# soak.sh): worker processes mirrored by both hmm_dummy devices doing
# random device and CPU accesses, migrations, fork, mremap, mprotect,
# madvise and munmap against a shadow copy of their memory. Results
# (results.txt, parsed from the suite's KTAP) and the console log go to OUT (default
# results/soak-LABEL-DATE/ of this repository).
#   BUILD_DIR       an existing O= build dir of the series kernel (bzImage +
#                   modules); without it the kernel of the base's tree
#                   (HMM_BASE; KERNEL_TREE, default ~/.cache/hmm-series/linux-7.3,
#                   for 6.12 .../linux) is built with scripts/build/build.sh
#                   in $HMM_WORKDIR/BASE/build/soak (guest.config + hmm.config)
#   --src TREE      kernel source for the uapi headers (default: the tree the
#                   build dir was built from, else $KERNEL_TREE)
#   --args "ARGS"   hmm-soak arguments (default "-t 300 -p 4 -m 512"; see
#                   hmm-soak -h: -t seconds, -p workers, -s seed, -r regions,
#                   -M largest region MiB, -m stress-ng MiB, -P pingpong
#                   threshold, -T no threaded phase)
#   --no-stress-ng  do not bundle Debian's stress-ng into the initramfs
#                   (by default it is installed and bundled; -m needs it)
#   --out DIR       where to put the results
#   --timeout S     guest timeout (default: the -t of ARGS + 900)
# Exit status 0 only if every result of the guest is PASS.
. "$(dirname "$0")/lib.sh"

ARGS="-t 300 -p 4 -m 512" OUT='' SRC='' TMO='' BUILD='' STRESS=1

while [ $# -gt 0 ]; do
	case "$1" in
	-h|--help) usage; exit 0 ;;
	--args) need_arg "$@"; ARGS=$2; shift ;;
	--out) need_arg "$@"; OUT=$2; shift ;;
	--src) need_arg "$@"; SRC=$2; shift ;;
	--timeout) need_arg "$@"; TMO=$2; shift ;;
	--no-stress-ng) STRESS=0 ;;
	-*) usage_error "unknown option $1" ;;
	*) [ -z "$BUILD" ] || usage_error "one BUILD_DIR only"; BUILD=$1 ;;
	esac
	shift
done

if [ -z "$TMO" ]; then
	t=60
	# shellcheck disable=SC2086 # ARGS is a word list
	set -- $ARGS
	while [ $# -gt 0 ]; do
		case "$1" in
		-t) t=${2:-$t}; shift ;;
		-t*) t=${1#-t} ;;
		esac
		[ $# -gt 0 ] && shift
	done
	[[ $t =~ ^[0-9]+$ ]] || die "bad -t in --args \"$ARGS\""
	TMO=$((t + 900))
fi

if [ -z "$BUILD" ]; then
	ensure_tree
	BUILD=$BUILD_ROOT/soak
	log "no BUILD_DIR: building the kernel of $KTREE in $BUILD"
	mapfile -t cfg < <(configs guest hmm)
	"$TOP/scripts/build/build.sh" "$KTREE" "$BUILD" "${cfg[@]}"
fi
[ -f "$BUILD/arch/x86/boot/bzImage" ] || die "no $BUILD/arch/x86/boot/bzImage"
[ -n "$SRC" ] || SRC=$(cat "$BUILD/.hmm-src" 2>/dev/null || echo "$KTREE")
label=$(basename "$BUILD")
OUT=${OUT:-$TOP/results/soak-$label-$(date +%Y%m%d-%H%M%S)}
mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)

[ "$STRESS" = 1 ] && need_pkgs stress-ng
# Headers outside the tests dir: everything in it goes into the initramfs.
log "soak: kernel $BUILD, headers from $SRC"
uapi=$(uapi_headers "$SRC" "$OUT/hdr") || die "make headers failed"
tests=$OUT/tests
rm -rf "$tests"
SOAK_STRESS_NG=$STRESS UAPI_INCLUDE=$uapi "$TOP/scripts/build/build-soak.sh" "$SRC" "$tests"
echo "$ARGS" > "$tests/soak/args"
rc=0
# console.log, results.txt, kernel-log.txt, steps.txt (scripts/boot/boot.sh)
"$TOP/scripts/boot/boot.sh" --timeout "$TMO" "$BUILD" "$tests" soak "$OUT" || rc=1
tr -d '\r' < "$OUT/console.log" | sed -n '/^GUEST-BEGIN/,/^==KTAP-BEGIN /p' |
	grep -a '^# hmm-soak: ' | sed 's/^# //' > "$OUT/soak.txt" || true
echo
grep -av '^hmm-soak: [0-9]* s: ' "$OUT/soak.txt" || true
echo
cat "$OUT/results.txt"
[ -s "$OUT/results.txt" ] || { warn "no results (KTAP) in $OUT/console.log"; rc=1; }
grep -q ' FAIL' "$OUT/results.txt" && rc=1
grep -qx 'kernel-log PASS' "$OUT/steps.txt" ||
	{ warn "kernel log has warnings: $OUT/kernel-log.txt"; rc=1; }
log "results in $OUT"
exit $rc
