#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# bench.sh [options] [BUILD_DIR]
# Boot a kernel under QEMU and run hmm-bench (tests/programs/hmm-bench.c) in
# the guest (suite "bench"): the series' mirror (hmm_dummy) and upstream
# HMM (test_hmm) side by side in one boot, plus the no-device workloads.
# The table and the CSV are extracted from the console log into OUT
# (default results/bench-LABEL-DATE/ of this repository): table-NAME.txt,
# bench-NAME.csv, console-NAME.log (NAME: series, and base with --base).
#   BUILD_DIR       an existing O= build dir (bzImage + modules); without it
#                   the series kernel is built with scripts/build/build.sh in
#                   $HMM_WORKDIR/BASE/build/bench from the base's tree
#                   (HMM_BASE; KERNEL_TREE, default ~/.cache/hmm-series/linux-7.3,
#                   for 6.12 .../linux; guest.config + hmm.config)
#   --src TREE      kernel source for the uapi headers (default: the tree the
#                   build dir was built from, else $KERNEL_TREE)
#   --base DIR      also boot this base-kernel build dir and print the
#                   series/base ratios of the no-device rows (sys_*)
#   --args "ARGS"   hmm-bench arguments (default "-s 4,64,256,512 -r 5 -R 2 -H 2 -M 256")
#   --out DIR       where to put the results
#   --timeout S     guest timeout per boot (default 1200)
#   --compare BASE.csv SERIES.csv   only print the series/base table
# Under QEMU TCG only ratios measured in one boot mean anything.
. "$(dirname "$0")/lib.sh"

ARGS="-s 4,64,256,512 -r 5 -R 2 -H 2 -M 256" BASE='' OUT='' SRC='' TMO=1200 BUILD=

# compare BASE.csv SERIES.csv: series/base ratio of every common row
compare() {
	awk -F, 'FNR == 1 { f++; next }
		 { k = $1 "," $2 "," $3 "," $4; v[f, k] = $6; u[k] = $5; hb[k] = $10
		   if (f == 1) order[n++] = k }
		 END {
			printf "%-40s %9s %12s %12s %8s\n", "row,impl,backing,MiB", "unit", "base", "series", "ser/base"
			for (i = 0; i < n; i++) { k = order[i]
				if (!((2, k) in v) || v[1, k] + 0 == 0) continue
				r = v[2, k] / v[1, k]
				# slowdown in % (positive = series slower)
				s = (hb[k] == 1) ? (1 / r - 1) * 100 : (r - 1) * 100
				w = (s > 0) ? "slower" : "faster"
				printf "%-40s %9s %12s %12s %8.3f  (series %+.1f%% %s)\n", k, u[k], v[1, k], v[2, k], r, s, w
			}
		 }' "$1" "$2"
}

while [ $# -gt 0 ]; do
	case "$1" in
	-h|--help) usage; exit 0 ;;
	--base) need_arg "$@"; BASE=$2; shift ;;
	--args) need_arg "$@"; ARGS=$2; shift ;;
	--out) need_arg "$@"; OUT=$2; shift ;;
	--src) need_arg "$@"; SRC=$2; shift ;;
	--timeout) need_arg "$@"; TMO=$2; shift ;;
	--compare) [ $# -eq 3 ] || usage_error "--compare BASE.csv SERIES.csv, and nothing after"
		compare "$2" "$3"; exit 0 ;;
	-*) usage_error "unknown option $1" ;;
	*) [ -z "$BUILD" ] || usage_error "one BUILD_DIR only"; BUILD=$1 ;;
	esac
	shift
done

if [ -z "$BUILD" ]; then
	ensure_tree
	BUILD=$BUILD_ROOT/bench
	log "no BUILD_DIR: building the kernel of $KTREE in $BUILD"
	mapfile -t cfg < <(configs guest hmm)
	"$TOP/scripts/build/build.sh" "$KTREE" "$BUILD" "${cfg[@]}"
fi
[ -f "$BUILD/arch/x86/boot/bzImage" ] || die "no $BUILD/arch/x86/boot/bzImage"
label=$(basename "$BUILD")
OUT=${OUT:-$TOP/results/bench-$label-$(date +%Y%m%d-%H%M%S)}
mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)

# run_one BUILD_DIR NAME: initramfs, boot, extract into $OUT/NAME.*
run_one() {
	local b=$1 name=$2 src=$SRC tests
	[ -n "$src" ] || src=$(cat "$b/.hmm-src" 2>/dev/null || echo "$KTREE")
	tests=$OUT/tests-$name
	log "bench: $name: kernel $b, headers from $src"
	"$TOP/scripts/build/build-bench.sh" "$src" "$tests"
	echo "$ARGS" > "$tests/bench/args"
	local rc=0
	# console-NAME.log, results-NAME.txt, kernel-log-NAME.txt, steps-NAME.txt
	"$TOP/scripts/boot/boot.sh" --name "$name" --timeout "$TMO" "$b" "$tests" bench "$OUT" || true
	grep -qx 'initramfs PASS' "$OUT/steps-$name.txt" || die "no initramfs for the $name boot"
	grep -qx 'boot PASS' "$OUT/steps-$name.txt" || rc=1
	tr -d '\r' < "$OUT/console-$name.log" |
		sed -n '/^==BENCH-TABLE-BEGIN==/,/^==BENCH-TABLE-END==/p' | sed '1d;$d' > "$OUT/table-$name.txt"
	tr -d '\r' < "$OUT/console-$name.log" |
		sed -n '/^==BENCH-CSV-BEGIN==/,/^==BENCH-CSV-END==/p' | sed '1d;$d' > "$OUT/bench-$name.csv"
	[ -s "$OUT/bench-$name.csv" ] || die "no benchmark output in $OUT/console-$name.log"
	grep -qx 'kernel-log PASS' "$OUT/steps-$name.txt" ||
		warn "kernel log of the $name boot has warnings: $OUT/kernel-log-$name.txt"
	return $rc
}

rc=0
run_one "$BUILD" series || rc=$?
cat "$OUT/table-series.txt"
if [ -n "$BASE" ]; then
	run_one "$BASE" base || rc=$?
	{
		echo
		echo "no-device workloads, series kernel ($BUILD) vs base kernel ($BASE),"
		echo "two boots (ratios across boots are noisier than within one):"
		compare "$OUT/bench-base.csv" "$OUT/bench-series.csv" | awk 'NR == 1 || /^sys_|^memcpy|,none,/'
	} | tee "$OUT/compare.txt"
fi
log "results in $OUT"
exit $rc
