#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# bench.sh [options] [BUILD_DIR]
# Boot a kernel under QEMU --boots times and run hmm-bench
# (tests/programs/hmm-bench.c) in the guest (suite "bench") in each boot:
# the series' mirror (hmm_dummy, "ours"), upstream's DEVICE_PRIVATE API
# through the competitor module hmm_upstream_bench ("upstream") and
# lib/test_hmm.c ("test_hmm", a labelled reference) side by side in one
# boot. Each boot (NAME: series-1..N, and base-1..N with --base) gets its
# own seed (hmm-bench -S SEED -b NAME, after --args). Into OUT (default
# results/bench-LABEL-DATE/ of this repository, git-ignored):
#   console-NAME.log   the serial console
#   table-NAME.txt     hmm-bench's table
#   bench-NAME.csv     its summary CSV (medians)
#   raw-NAME.csv       its raw CSV, one line per sample (gzip | base64 on
#                      the console, decoded here)
#   env-NAME.txt       the environment: host (date, CPUs, CPU model,
#                      kernel, memory, load average and CPU pressure at the
#                      start and the end, QEMU processes running), QEMU
#                      (version, full command line), repository and kernel
#                      source commits, build dir and the sha256 of vmlinux,
#                      .config and the modules, hmm-bench's arguments and
#                      seed, and the guest's "# env:" lines
#   hostload-NAME.txt  the host's /proc/loadavg every 30 s during the boot
#   stats.md           scripts/bench-stats.py over the series' raw CSVs
#                      (stats-base.md: the base's)
#   series-vs-base.md  with --base: scripts/bench-stats.py --base, the
#                      series kernel against the base kernel, every row
#                      both kernels have (sys_*, munmap none, the
#                      controls memcpy_user and ceiling_copy_page,
#                      upstream's rows), with intervals over the boots
#   BUILD_DIR       an existing O= build dir (bzImage + modules); without it
#                   the series kernel is built with scripts/build/build.sh in
#                   $HMM_WORKDIR/BASE/build/bench from the base's tree
#                   (HMM_BASE; KERNEL_TREE, default ~/.cache/hmm-series/linux-7.3,
#                   for 6.12 .../linux; guest.config + hmm.config)
#   --boots N       boots of each kernel (default 3)
#   --src TREE      kernel source for the uapi headers (default: the tree the
#                   build dir was built from, else $KERNEL_TREE)
#   --base DIR      also boot this base-kernel build dir --boots times, the
#                   boots interleaved in pairs of random order (B S | S B ..),
#                   print the series/base ratios of the no-device rows of
#                   each pair (compare.txt, summary medians) and the
#                   statistics over all boots (series-vs-base.md); issue
#                   19's row 10, e.g. --args "-g memcpy,inval,sys,migrate
#                   -s 4,64 -r 12 -i upstream -m 64K,4M,64M"
#   --args "ARGS"   hmm-bench arguments (default "-g migrate -m
#                   64K,256K,1M,4M,16M,64M -A": issue 19's slice 1; hmm-bench
#                   -h); the migrate group needs -r >= 10 (default 12)
#   --smp N         vCPUs of the bench boots (default 2; QEMU_SMP of other
#                   boots is 3, which oversubscribes a 2-core host)
#   --max-load L    before each boot wait, at most 20 min, polling every
#                   30 s, until the host's 1-minute load average is below L;
#                   boot anyway after that; env-NAME.txt records it
#   --keep NAME     copy raw-*.csv (gzipped above 1 MB), env-*.txt,
#                   hostload-*.txt, stats*.md and a README with the command
#                   into results/YYYY-MM-DD-bench-NAME/ (needs --boots >= 3;
#                   results/*/ is git-ignored: "git add -f" it, and add its
#                   row to results/README.md)
#   --out DIR       where to put the results
#   --timeout S     guest timeout per boot (default 1200)
#   --no-load MODS  comma-separated modules the guest must not load, of
#                   hmm_dummy, test_hmm, hmm_upstream_bench,
#                   hmm_dummy_timed (their rows are skipped), in every boot:
#                   e.g. the no-device rows without the series' test
#                   driver and its pool of system pages
#   --meta "SIZES REPS"  instead of hmm-bench, the guest suite "benchmeta"
#                   (tests/guest/suites/benchmeta.sh): the MemFree drop of
#                   registering device memory, ours (hmm_dummy) against
#                   upstream (hmm_upstream_bench, memremap_pages()), SIZES
#                   MiB per device (comma separated), REPS repetitions in
#                   random order per boot; into meta-NAME.csv, and
#                   scripts/bench-meta.py's statistics into meta.md
#                   (issue 19's metadata row, e.g. "128,512,1024 5"; each
#                   size 128 MiB times a power of two; 2 x the largest
#                   size must fit in QEMU_MEM without reclaim: use
#                   QEMU_MEM=8G for 1024)
#   --compare BASE.csv SERIES.csv   only print the series/base table (of
#                   summary CSVs; files from before issue 19, whose test_hmm
#                   rows say "upstream" and whose memcpy row is "memcpy",
#                   are read with today's labels)
# Under QEMU TCG only ratios measured in one boot mean anything; across
# boots only with the intervals of bench-stats.py.
. "$(dirname "$0")/lib.sh"

CMDLINE=$(printf ' %q' "$@")
ARGS="-g migrate -m 64K,256K,1M,4M,16M,64M -A" BASE='' OUT='' SRC='' TMO=1200 BUILD=''
BOOTS=3 SMP=2 MAXLOAD='' KEEP='' HL_PID='' META='' NOLOAD=''

# compare BASE.csv SERIES.csv: series/base ratio of every common row. A
# file without the "csv_labels" row (hmm-bench before issue 19) called
# test_hmm "upstream" (upstream_lru, upstream_rel; upstream_devmem_* rows)
# and the user-space memcpy row "memcpy": renamed to today's labels.
compare() {
	awk -F, 'FNR == 1 { f++; next }
		 FNR == 2 && $1 == "csv_labels" { labels[f] = 1; next }
		 { row = $1; impl = $2
		   if (!labels[f]) {
			if (impl ~ /^upstream/) impl = "test_hmm" substr(impl, 9)
			if (row ~ /^upstream_/) row = "test_hmm_" substr(row, 10)
			if (row == "memcpy") row = "memcpy_user"
		   }
		   k = row "," impl "," $3 "," $4; v[f, k] = $6; u[k] = $5; hb[k] = $10
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
	--no-load) need_arg "$@"; NOLOAD=$2; shift ;;
	--boots) need_arg "$@"; BOOTS=$2; shift ;;
	--smp) need_arg "$@"; SMP=$2; shift ;;
	--max-load) need_arg "$@"; MAXLOAD=$2; shift ;;
	--keep) need_arg "$@"; KEEP=$2; shift ;;
	--meta) need_arg "$@"; META=$2; shift
		[[ $META =~ ^[0-9]+(,[0-9]+)*\ [1-9][0-9]*$ ]] ||
			usage_error "--meta \"$META\": \"SIZES REPS\", e.g. \"128,512,1024 5\""
		# kvmalloc() rounds up to a power of two (kmalloc) or 2 MiB
		# (vmalloc), memremap_pages() to a 128 MiB section: other sizes
		# would not measure bytes per page
		for m in ${META% *}; do
			m=${m//,/ }
			for x in $m; do
				[ $((x % 128)) -eq 0 ] && [ $(((x / 128) & (x / 128 - 1))) -eq 0 ] ||
					usage_error "--meta: $x MiB is not 128 MiB times a power of two"
			done
		done ;;
	--compare) [ $# -eq 3 ] || usage_error "--compare BASE.csv SERIES.csv, and nothing after"
		compare "$2" "$3"; exit 0 ;;
	-*) usage_error "unknown option $1" ;;
	*) [ -z "$BUILD" ] || usage_error "one BUILD_DIR only"; BUILD=$1 ;;
	esac
	shift
done
[[ $BOOTS =~ ^[1-9][0-9]*$ ]] || usage_error "--boots $BOOTS: a number >= 1"
[[ $SMP =~ ^[1-9][0-9]*$ ]] || usage_error "--smp $SMP: a number >= 1"
[ -z "$MAXLOAD" ] || [[ $MAXLOAD =~ ^[0-9]+([.][0-9]+)?$ ]] ||
	usage_error "--max-load $MAXLOAD: a load average"
m='(hmm_dummy|test_hmm|hmm_upstream_bench|hmm_dummy_timed)'
[ -z "$NOLOAD" ] || [[ $NOLOAD =~ ^$m(,$m)*$ ]] ||
	usage_error "--no-load $NOLOAD: of hmm_dummy, test_hmm, hmm_upstream_bench, hmm_dummy_timed"
[ -z "$NOLOAD" ] || [ -z "$META" ] || usage_error "--no-load: not with --meta (its suite loads its own)"
GSUITE=bench
[ -z "$META" ] || GSUITE=benchmeta
KEEPDIR=''
if [ -n "$KEEP" ]; then
	[[ $KEEP =~ ^[A-Za-z0-9._-]+$ ]] || usage_error "--keep $KEEP: letters, digits, . _ - only"
	[ "$BOOTS" -ge 3 ] || usage_error "--keep needs --boots >= 3 (an interval over 2 boots means little)"
	KEEPDIR=$TOP/results/$(date +%F)-bench-$KEEP
	[ ! -e "$KEEPDIR" ] || die "$KEEPDIR exists already"
fi

if [ -z "$BUILD" ]; then
	ensure_tree
	BUILD=$BUILD_ROOT/bench
	log "no BUILD_DIR: building the kernel of $KTREE in $BUILD"
	mapfile -t cfg < <(configs guest hmm)
	"$TOP/scripts/build/build.sh" "$KTREE" "$BUILD" "${cfg[@]}"
fi
[ -f "$BUILD/arch/x86/boot/bzImage" ] || die "no $BUILD/arch/x86/boot/bzImage"
[ -z "$BASE" ] || [ -f "$BASE/arch/x86/boot/bzImage" ] || die "no $BASE/arch/x86/boot/bzImage"
label=$(basename "$BUILD")
OUT=${OUT:-$TOP/results/bench-$label-$(date +%Y%m%d-%H%M%S)}
mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)

# hostload_start FILE / hostload_stop: the host's load average every 30 s
# into FILE, in the background, while a guest runs.
hostload_start() {
	(
		s=''
		trap '[ -z "$s" ] || kill "$s" 2>/dev/null; exit 0' TERM
		while :; do
			echo "$(date -u +%FT%TZ) $(cat /proc/loadavg)"
			sleep 30 & s=$!
			wait "$s"
		done
	) > "$1" &
	HL_PID=$!
}
# argv_start FILE INITRD / argv_stop: QEMU's full command line into FILE,
# read from /proc of the qemu-system-x86_64 process whose arguments name
# INITRD (this boot's initramfs), polled in the background while it boots.
# (Not from run-qemu.sh itself: its text is part of the key of the
# recorded base results, tests/base-results.key.)
ARGV_PID=''
argv_start() {
	(
		for _ in $(seq 1200); do
			for p in $(pgrep -f qemu-system-x86_64); do
				if tr '\0' '\n' < "/proc/$p/cmdline" 2>/dev/null | grep -qxF -- "$2"; then
					tr '\0' ' ' < "/proc/$p/cmdline" | sed 's/ $//' > "$1"
					exit 0
				fi
			done
			sleep 0.5
		done
	) &
	ARGV_PID=$!
}
argv_stop() {
	[ -n "$ARGV_PID" ] || return 0
	kill "$ARGV_PID" 2>/dev/null || true
	wait "$ARGV_PID" 2>/dev/null || true
	ARGV_PID=''
}
hostload_stop() {
	[ -n "$HL_PID" ] || return 0
	kill "$HL_PID" 2>/dev/null || true
	wait "$HL_PID" 2>/dev/null || true
	HL_PID=''
}
trap hostload_stop EXIT

# wait_load: with --max-load L, wait (at most 20 min, polling every 30 s)
# until the host's 1-minute load average is below L; print the outcome.
wait_load() {
	local waited=0 l
	[ -n "$MAXLOAD" ] || { echo "max_load=none loadavg1=$(cut -d' ' -f1 /proc/loadavg)"; return 0; }
	while :; do
		l=$(cut -d' ' -f1 /proc/loadavg)
		if awk -v l="$l" -v m="$MAXLOAD" 'BEGIN { exit !(l < m) }'; then
			echo "max_load=$MAXLOAD waited_s=$waited loadavg1=$l (below)"
			return 0
		fi
		if [ $waited -ge 1200 ]; then
			echo "max_load=$MAXLOAD waited_s=$waited loadavg1=$l (STILL ABOVE: booted anyway)"
			warn "host load $l still >= $MAXLOAD after 20 min: booting anyway"
			return 0
		fi
		log "bench: host load $l >= $MAXLOAD: waiting (${waited}s so far)"
		sleep 30
		waited=$((waited + 30))
	done
}

sha() { if [ -f "$1" ]; then sha256sum "$1" | cut -d' ' -f1; else echo absent; fi; }
# dirty TREE: "clean", or the number of changed tracked files (no index
# refresh: the tree may be another job's).
dirty() {
	local n
	n=$(git -C "$1" --no-optional-locks status --porcelain --untracked-files=no 2>/dev/null | wc -l)
	if [ "$n" -eq 0 ]; then echo clean; else echo "dirty($n files)"; fi
}
qemu_count() { pgrep -c '^qemu-system' || true; }
seed() { od -An -N4 -tu4 /dev/urandom | tr -d ' '; }

# env_start BUILD NAME TESTS LOADNOTE: the host, build and run part of
# env-NAME.txt.
env_start() {
	local b=$1 src ko
	echo "# env-$2.txt: the environment of the bench boot $2 (scripts/bench.sh)"
	echo "date_utc=$(date -u +%FT%TZ)"
	echo "host_nproc=$(nproc)"
	echo "host_cpu=$(awk -F': *' '/^model name/ { print $2; exit }' /proc/cpuinfo)"
	echo "host_kernel=$(uname -r)"
	echo "host_memtotal_kb=$(awk '/^MemTotal:/ { print $2 }' /proc/meminfo)"
	echo "loadavg_start=$(cat /proc/loadavg)"
	[ ! -r /proc/pressure/cpu ] || echo "pressure_cpu_start=$(paste -sd ' ' /proc/pressure/cpu)"
	echo "$4"
	echo "qemu_processes_start=$(qemu_count)"
	echo "qemu_version=$(qemu-system-x86_64 --version 2>/dev/null | awk 'NR == 1')"
	echo "qemu_smp=$SMP qemu_mem=${QEMU_MEM:-4G} qemu_accel=${QEMU_ACCEL:-tcg}"
	echo "repo=$TOP commit=$(git -C "$TOP" rev-parse HEAD) $(dirty "$TOP")"
	src=$(cat "$b/.hmm-src" 2>/dev/null || true)
	if [ -n "$src" ] && git -C "$src" rev-parse HEAD >/dev/null 2>&1; then
		echo "kernel_src=$src commit=$(git -C "$src" rev-parse HEAD)" \
		     "describe=$(git -C "$src" describe --tags --always 2>/dev/null || echo '?') $(dirty "$src")" \
		     "(the tree now: the build may be older, see build_commit)"
	else
		echo "kernel_src=${src:-unknown} (no git tree)"
	fi
	echo "build_commit=$(cat "$b/.hmm-commit" 2>/dev/null || echo 'unknown (no .hmm-commit)')"
	echo "build_dir=$b"
	echo "sha256.vmlinux=$(sha "$b/vmlinux")"
	echo "sha256.config=$(sha "$b/.config")"
	echo "bzImage_mtime=$(date -u -r "$b/arch/x86/boot/bzImage" +%FT%TZ)"
	for ko in "$b/drivers/char/hmm_dummy.ko" "$b/lib/test_hmm.ko" "$3"/bench/*.ko; do
		[ ! -f "$ko" ] || echo "sha256.${ko##*/}=$(sha "$ko") ($ko)"
	done
	echo "hmm_bench_args=$(cat "$3/bench/args")"
	echo "no_load=$(cat "$3/bench/noload")"
}

# block BEGIN END FILE [K]: the lines between the markers of the K-th
# complete block of FILE (default: the last one). The guest prints a
# suite's output twice: as it runs, and again with the console muted.
block() {
	tr -d '\r' < "$3" | awk -v b="$1" -v e="$2" -v want="${4:-0}" '
		$0 == b { on = 1; n = 0; next }
		$0 == e && on {
			on = 0; k++
			if (!want || k == want) { got = n; for (i = 1; i <= n; i++) keep[i] = buf[i] }
			next
		}
		on { buf[++n] = $0 }
		END { for (i = 1; i <= got; i++) print keep[i] }'
}

# raw_csv CONSOLE OUT.csv: hmm-bench's raw CSV ("encoding: gzip+base64" or
# "encoding: plain" after ==BENCH-RAW-BEGIN==) from the last complete block
# that decodes to it, else from the first.
raw_csv() {
	local n k tmp
	tmp=$(mktemp)
	n=$(tr -d '\r' < "$1" | grep -c '^==BENCH-RAW-END==$' || true)
	for k in "$n" 1; do
		[ "$k" -gt 0 ] || continue
		block '==BENCH-RAW-BEGIN==' '==BENCH-RAW-END==' "$1" "$k" > "$tmp"
		case $(head -n 1 "$tmp") in
		"encoding: gzip+base64")
			sed 1d "$tmp" | base64 -d 2>/dev/null | gunzip -c > "$2" 2>/dev/null || continue ;;
		"encoding: plain")
			sed 1d "$tmp" > "$2" ;;
		*)	continue ;;
		esac
		if head -n 1 "$2" | grep '^boot,seed,rep,' > /dev/null; then
			rm -f "$tmp"
			return 0
		fi
	done
	rm -f "$tmp" "$2"
	return 1
}

# prepare KIND BUILD_DIR: hmm-bench, the suite hook and hmm_upstream_bench.ko
# for that kernel, in $OUT/tests-KIND (echoed).
prepare() {
	local b=$2 src=$SRC tests=$OUT/tests-$1
	[ -n "$src" ] || src=$(cat "$b/.hmm-src" 2>/dev/null || echo "$KTREE")
	log "bench: $1: kernel $b, headers from $src"
	"$TOP/scripts/build/build-bench.sh" "$src" "$tests" "$b" >&2
	echo "$tests"
}

# run_one BUILD_DIR NAME TESTS: boot, extract into $OUT/*-NAME.*
run_one() {
	local b=$1 name=$2 tests=$3 s env loadnote rc=0
	env=$OUT/env-$name.txt
	s=$(seed)
	loadnote=$(wait_load)
	echo "$ARGS -S $s -b $name" > "$tests/bench/args"
	echo "$NOLOAD" > "$tests/bench/noload"
	[ -z "$META" ] || echo "$META $s" > "$tests/bench/meta-args"
	env_start "$b" "$name" "$tests" "$loadnote" > "$env"
	echo "seed=$s" >> "$env"
	log "bench: boot $name, seed $s, $SMP vCPUs"
	hostload_start "$OUT/hostload-$name.txt"
	# console-NAME.log, results-NAME.txt, kernel-log-NAME.txt, steps-NAME.txt
	argv_start "$OUT/qemu-argv-$name.txt" "$OUT/initramfs-$name.cpio.gz"
	QEMU_SMP=$SMP \
		"$TOP/scripts/boot/boot.sh" --name "$name" --timeout "$TMO" "$b" "$tests" \
		"$GSUITE" "$OUT" || true
	argv_stop
	hostload_stop
	{
		echo "date_utc_end=$(date -u +%FT%TZ)"
		echo "loadavg_end=$(cat /proc/loadavg)"
		[ ! -r /proc/pressure/cpu ] || echo "pressure_cpu_end=$(paste -sd ' ' /proc/pressure/cpu)"
		echo "qemu_processes_end=$(qemu_count)"
		echo "qemu_argv=$(cat "$OUT/qemu-argv-$name.txt" 2>/dev/null || echo '(not logged)')"
		echo "# the guest's environment (tests/guest/suites/bench.sh)"
		tr -d '\r' < "$OUT/console-$name.log" 2>/dev/null | grep '^# env: ' | awk '!seen[$0]++' || true
	} >> "$env"
	grep -qx 'initramfs PASS' "$OUT/steps-$name.txt" || die "no initramfs for the $name boot"
	grep -qx 'boot PASS' "$OUT/steps-$name.txt" || rc=1
	if [ -n "$META" ]; then
		block '==BENCH-META-BEGIN==' '==BENCH-META-END==' "$OUT/console-$name.log" > "$OUT/meta-$name.csv"
		[ -s "$OUT/meta-$name.csv" ] || { warn "no META block in $OUT/console-$name.log"; return 1; }
		grep -qx 'kernel-log PASS' "$OUT/steps-$name.txt" ||
			warn "kernel log of the $name boot has warnings: $OUT/kernel-log-$name.txt"
		return $rc
	fi
	block '==BENCH-TABLE-BEGIN==' '==BENCH-TABLE-END==' "$OUT/console-$name.log" > "$OUT/table-$name.txt"
	block '==BENCH-CSV-BEGIN==' '==BENCH-CSV-END==' "$OUT/console-$name.log" > "$OUT/bench-$name.csv"
	if [ ! -s "$OUT/bench-$name.csv" ]; then
		# the other boots may still give results
		warn "no benchmark output in $OUT/console-$name.log"
		return 1
	fi
	if raw_csv "$OUT/console-$name.log" "$OUT/raw-$name.csv"; then
		log "bench: $name: $(($(wc -l < "$OUT/raw-$name.csv") - 1)) samples in $OUT/raw-$name.csv"
	else
		warn "no raw CSV in $OUT/console-$name.log (no group with samples in it, or the block did not decode)"
	fi
	grep -qx 'kernel-log PASS' "$OUT/steps-$name.txt" ||
		warn "kernel log of the $name boot has warnings: $OUT/kernel-log-$name.txt"
	return $rc
}

# stats KIND: bench-stats.py over the raw CSVs of KIND's boots (with
# --meta: bench-meta.py over the meta CSVs, into meta.md).
stats() {
	if [ -n "$META" ]; then
		local m=()
		mapfile -t m < <(ls "$OUT/meta-$1-"*.csv 2>/dev/null || true)
		[ ${#m[@]} -gt 0 ] || return 0
		python3 "$TOP/scripts/bench-meta.py" "${m[@]}" > "$OUT/meta.md" ||
			warn "bench-meta.py failed on ${m[*]}"
		cat "$OUT/meta.md"
		return 0
	fi
	local f=$OUT/stats.md raws=()
	[ "$1" = series ] || f=$OUT/stats-$1.md
	mapfile -t raws < <(ls "$OUT/raw-$1-"*.csv 2>/dev/null || true)
	[ ${#raws[@]} -gt 0 ] || return 0
	if python3 "$TOP/scripts/bench-stats.py" "${raws[@]}" > "$f"; then
		log "bench: statistics of the $1 boots in $f"
	else
		warn "bench-stats.py failed on ${raws[*]}"
	fi
}

rc=0
tests_series=$(prepare series "$BUILD")
tests_base=''
[ -z "$BASE" ] || tests_base=$(prepare base "$BASE")
# hmm-bench keeps the last -g (none: every group, sys included)
lastg() {
	local g=''
	# shellcheck disable=SC2086 # ARGS is a word list
	set -- $ARGS
	while [ $# -gt 0 ]; do
		case $1 in
		-g) g=${2:-}; [ $# -lt 2 ] || shift ;;
		-g*) g=${1#-g} ;;
		esac
		shift
	done
	echo "$g"
}
g=$(lastg)
[ -z "$BASE" ] || [ -n "$META" ] || [ -z "$g" ] || [[ ,$g, == *,sys,* ]] ||
	warn "--base without hmm-bench's sys group (-g ...,sys): no no-device rows to compare"
: > "$OUT/boots.txt"
for i in $(seq 1 "$BOOTS"); do
	order=(series)
	# --base: a pair of boots in random order (B S | S B ...)
	if [ -n "$BASE" ]; then
		if [ $(($(seed) % 2)) -eq 0 ]; then order=(base series); else order=(series base); fi
	fi
	for k in "${order[@]}"; do
		echo "$k-$i" >> "$OUT/boots.txt"
		if [ "$k" = base ]; then
			run_one "$BASE" "base-$i" "$tests_base" || rc=1
		else
			run_one "$BUILD" "series-$i" "$tests_series" || rc=1
		fi
	done
	[ -n "$META" ] || cat "$OUT/table-series-$i.txt" 2>/dev/null || true
done
stats series
[ -z "$BASE" ] || stats base
# cross: the series kernel against the base kernel over all boots.
cross() {
	local b=() sr=() a=()
	# names relative to $OUT: the kept copy can be recomputed where it is
	mapfile -t b < <(cd "$OUT" && ls -v raw-base-*.csv 2>/dev/null || true)
	mapfile -t sr < <(cd "$OUT" && ls -v raw-series-*.csv 2>/dev/null || true)
	if [ ${#b[@]} -eq 0 ] || [ ${#sr[@]} -eq 0 ]; then
		warn "no raw CSV of the base or of the series boots: no series-vs-base.md"
		return 0
	fi
	for f in "${b[@]}"; do a+=(--base "$f"); done
	if (cd "$OUT" && python3 "$TOP/scripts/bench-stats.py" "${a[@]}" "${sr[@]}") > "$OUT/series-vs-base.md"; then
		log "bench: series kernel against base kernel in $OUT/series-vs-base.md"
		cat "$OUT/series-vs-base.md"
	else
		rm -f "$OUT/series-vs-base.md"
		warn "bench-stats.py --base failed"
	fi
}
[ -z "$BASE" ] || [ -n "$META" ] || cross
if [ -n "$BASE" ]; then
	{
		echo
		echo "no-device workloads, series kernel ($BUILD) vs base kernel ($BASE),"
		echo "pairs of boots (ratios across boots are noisier than within one):"
		for i in $(seq 1 "$BOOTS"); do
			echo "pair $i:"
			compare "$OUT/bench-base-$i.csv" "$OUT/bench-series-$i.csv" |
				awk 'NR == 1 || /^sys_|^memcpy|,none,/'
		done
	} | tee "$OUT/compare.txt"
fi
[ ! -f "$OUT/stats.md" ] || cat "$OUT/stats.md"

if [ -n "$KEEPDIR" ]; then
	mkdir -p "$KEEPDIR"
	for f in "$OUT"/raw-*.csv "$OUT"/meta-*.csv; do
		[ -f "$f" ] || continue
		if [ "$(stat -c %s "$f")" -gt 1048576 ]; then
			gzip -9n < "$f" > "$KEEPDIR/${f##*/}.gz"
		else
			cp "$f" "$KEEPDIR/"
		fi
	done
	for f in "$OUT"/env-*.txt "$OUT"/hostload-*.txt "$OUT"/stats*.md "$OUT"/meta.md \
		 "$OUT"/series-vs-base.md "$OUT"/compare.txt; do
		[ ! -f "$f" ] || cp "$f" "$KEEPDIR/"
	done
	{
		echo "# Benchmark run $KEEP ($(date -u +%F))"
		echo
		echo "Command, from the top of the repository at $(git -C "$TOP" rev-parse --short HEAD) ($(dirty "$TOP")):"
		echo
		echo "    scripts/bench.sh$CMDLINE"
		echo
		echo "hmm-bench arguments: \`$ARGS\`, plus \`-S SEED -b BOOT\` per boot (env-BOOT.txt)."
		echo "Kernel: \`$BUILD\`${BASE:+; base kernel: \`$BASE\`}; $SMP vCPUs; boots in this order:"
		echo "$(paste -sd ' ' "$OUT/boots.txt")."
		echo
		echo "- \`raw-BOOT.csv\`: hmm-bench's raw CSV, one line per sample (\`.gz\` above 1 MB)"
		echo "- \`env-BOOT.txt\`: host, QEMU, commits, checksums, seed and the guest's environment"
		echo "- \`hostload-BOOT.txt\`: the host's /proc/loadavg every 30 s during the boot"
		echo "- \`stats.md\`: \`python3 scripts/bench-stats.py raw-series-*.csv\`"
		[ -z "$BASE" ] || echo "- \`stats-base.md\`: the same over raw-base-*.csv"
		[ -z "$BASE" ] || [ -n "$META" ] || echo "- \`series-vs-base.md\`: \`python3 scripts/bench-stats.py --base raw-base-1.csv ... raw-series-*.csv\`, the series kernel against the base kernel; \`compare.txt\`: each pair's ratios of the summary medians"
		[ -z "$META" ] || echo "- \`meta-BOOT.csv\`: the guest suite benchmeta's measurements (--meta \"$META\"), \`meta.md\`: \`python3 scripts/bench-meta.py meta-series-*.csv\`"
		echo
		echo "The console logs and per-boot tables stay in \`$OUT\`."
	} > "$KEEPDIR/README.md"
	log "kept in $KEEPDIR; results/*/ is git-ignored: git add -f ${KEEPDIR#"$TOP"/} (and add its row to results/README.md)"
fi
log "results in $OUT"
exit $rc
