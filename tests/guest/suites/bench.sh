#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Guest suite "bench" (/tests/suites/bench, run by tests/guest/init): loads
# test_hmm, hmm_dummy (devmem_mb sized for the migration rows) and, when
# /tests/bench/hmm_upstream_bench.ko is there, the competitor module
# hmm_upstream_bench (tests/programs/hmm_upstream_bench/, same devmem_mb);
# with -T in the arguments (the core-time split), also
# /tests/bench/hmm_dummy_timed.ko (tests/programs/hmm_dummy_timed/, same
# devmem_mb);
# prints the environment as "# env: KEY=VALUE" lines (the MemFree drop of
# each module load as load_kb.MODULE, kernel, command line, CPUs, memory,
# THP, every parameter of hmm_migrate, hmm_dummy and hmm_upstream_bench);
# runs /tests/bench/hmm-bench and prints its table, CSV and raw CSV between
# markers for scripts/bench.sh, and its KTAP results (hmm-bench, the module
# loads and unloads that fail).
# hmm-bench's evict group reloads hmm_dummy with its own small pool (-E)
# and loads it back with devmem_mb as set here afterwards.
# Not part of tests/plans/*: run it with scripts/bench.sh.
# Arguments: /tests/bench/args if present (scripts/bench.sh writes it);
# /tests/bench/noload, comma-separated modules not to load (bench.sh
# --no-load).
# shellcheck disable=SC2034 # read by /tests/suite-lib.sh (tests/guest/)
SUITE=bench
# shellcheck disable=SC1091
. /tests/suite-lib.sh
B=/tests/bench
# Every group; the migrate group at issue 19's slice-1 sizes, with the
# A/A worker (it needs -r >= 10: its default is 12, the others' 5).
args="-s 4,64,256,512 -R 2 -H 2 -M 256 -m 64K,256K,1M,4M,16M,64M -A"
[ -f $B/args ] && args=$(cat $B/args)
# bench.sh --no-load: modules this boot must not load (their rows skipped)
noload=$(cat $B/noload 2>/dev/null)
skip() {
	case ",$noload," in
	*",$1,"*) echo "# bench: not loading $1 (bench.sh --no-load $noload)"; return 0 ;;
	esac
	return 1
}
# Keep kernel messages off the console while the table is printed.
dmesg -n 1
memfree() { awk '/^MemFree:/ { print $2 }' /proc/meminfo; }
# loaded MODULE BEFORE_KB: the MemFree drop of a module load (into $lkb),
# as an env line.
loaded() {
	sleep 1
	lkb=$(($2 - $(memfree)))
	echo "# env: load_kb.$1=$lkb"
}
load_kb='' rc=0
if skip test_hmm; then
	:
elif [ ! -c /dev/hmm_dmirror0 ]; then
	f0=$(memfree)
	if modprobe test_hmm 2>/dev/null; then
		loaded test_hmm "$f0"
		load_kb=$lkb
	else
		echo "# bench: no test_hmm module: test_hmm rows skipped"
	fi
fi
# hmm_dummy's fake device memory (devmem_mb MiB of system pages per device,
# 2 devices, allocated at load) must hold the largest migration size: the
# largest -m size (at least 4 MiB: a sample of a smaller size migrates
# 4 MiB), or without -m the largest -s size that is <= -M, plus 64 MiB of
# slack (defaults: 128 MiB; with -s 4,64,256,512 alone 320 MiB, i.e.
# 640 MiB of the guest's 4 GiB). hmm_upstream_bench gets the same pool
# (one device).
devmem_mb() {
	sz=4,64,256,512 cap=256 msz=
	# shellcheck disable=SC2086 # args is a word list
	set -- $args
	while [ $# -gt 0 ]; do
		case "$1" in
		-s) sz=${2:-$sz}; shift ;;
		-s*) sz=${1#-s} ;;
		-M) cap=${2:-$cap}; shift ;;
		-M*) cap=${1#-M} ;;
		-m) msz=${2:-}; shift ;;
		-m*) msz=${1#-m} ;;
		esac
		[ $# -gt 0 ] && shift
	done
	m=0
	if [ -n "$msz" ]; then
		m=4
		for s in $(echo "$msz" | tr , ' '); do
			case "$s" in
			*[Gg]) s=$((${s%?} * 1024)) ;;
			*[Mm]) s=${s%?} ;;
			*[Kk]) s=$(((${s%?} + 1023) / 1024)) ;;
			*) s=$(((s + 1023) / 1024)) ;;
			esac
			[ "$s" -gt "$m" ] 2>/dev/null && m=$s
		done
	else
		for s in $(echo "$sz" | tr , ' '); do
			[ "$s" -le "$cap" ] 2>/dev/null && [ "$s" -gt "$m" ] && m=$s
		done
	fi
	echo $((m + 64))
}
mb=$(devmem_mb)
if skip hmm_dummy; then
	:
elif [ ! -c /dev/hmm_dummy_device00 ]; then
	f0=$(memfree)
	if modprobe hmm_dummy devmem_mb="$mb" 2>/dev/null; then
		loaded hmm_dummy "$f0"
	else
		echo "# bench: no hmm_dummy module (or no $mb MiB of device memory): series rows skipped"
	fi
fi
have=$(cat /sys/module/hmm_dummy/parameters/devmem_mb 2>/dev/null)
[ -z "$have" ] || [ "$have" -ge "$mb" ] ||
	echo "# bench: hmm_dummy already loaded with devmem_mb=$have < $mb: ours' large migrations are partial"
# load_ko NAME NODE WHAT: insmod /tests/bench/NAME.ko (built by
# scripts/build/build-bench.sh) with hmm_dummy's devmem_mb, unless its
# device node NODE is there already; without the file, say that WHAT.
load_ko() {
	ko=$B/$1.ko
	skip "$1" && return 0
	if [ -f "$ko" ] && [ ! -c "$2" ]; then
		f0=$(memfree)
		if insmod "$ko" devmem_mb="$mb"; then
			loaded "$1" "$f0"
		else
			emit "$1-load" FAIL "insmod $ko devmem_mb=$mb"
			rc=1
		fi
	elif [ ! -f "$ko" ]; then
		echo "# bench: no $ko: $3"
	fi
}
# The competitor: out of tree.
load_ko hmm_upstream_bench /dev/hmm_upstream_bench0 "upstream rows skipped"
# The timed copy of hmm_dummy, for the core-time split only.
case " $args " in
*" -T "*) load_ko hmm_dummy_timed /dev/hmm_dummy_timed_device00 "no ours_t rows" ;;
esac
# devtmpfs creates the nodes asynchronously
for _ in 1 2 3 4 5; do
	{ lsmod | grep -q '^hmm_dummy_timed' && [ ! -c /dev/hmm_dummy_timed_device00 ]; } ||
	{ lsmod | grep -q '^test_hmm' && [ ! -c /dev/hmm_dmirror0 ]; } ||
	{ lsmod | grep -q '^hmm_dummy ' && [ ! -c /dev/hmm_dummy_device00 ]; } ||
	{ lsmod | grep -q '^hmm_upstream_bench' && [ ! -c /dev/hmm_upstream_bench0 ]; } || break
	sleep 1
done
# The environment, for scripts/bench.sh's env-NAME.txt.
echo "# env: uname=$(uname -a)"
echo "# env: cmdline=$(cat /proc/cmdline)"
echo "# env: cpus=$(grep -c '^processor' /proc/cpuinfo) online=$(cat /sys/devices/system/cpu/online 2>/dev/null)"
echo "# env: memtotal_kb=$(awk '/^MemTotal:/ { print $2 }' /proc/meminfo) memfree_kb=$(memfree)"
for f in enabled defrag; do
	echo "# env: thp.$f=$(cat /sys/kernel/mm/transparent_hugepage/$f 2>/dev/null)"
done
for m in hmm_migrate hmm_dummy hmm_upstream_bench hmm_dummy_timed; do
	for p in /sys/module/"$m"/parameters/*; do
		[ -f "$p" ] || continue
		echo "# env: param.$m.${p##*/}=$(cat "$p" 2>/dev/null)"
	done
done
echo "# bench: hmm-bench $args (THP enabled: $(cat /sys/kernel/mm/transparent_hugepage/enabled 2>/dev/null))"
cd /tmp || exit 1
# shellcheck disable=SC2086 # args is a word list
if HMM_BENCH_TESTHMM_LOAD_KB=$load_kb $B/hmm-bench $args -o /tmp/hmm-bench.csv \
	-w /tmp/hmm-bench-raw.csv -p; then
	emit hmm-bench PASS
else
	emit hmm-bench FAIL "EXIT=$?"
	rc=1
fi
lsmod | grep -q '^hmm_upstream_bench' &&
	{ rmmod hmm_upstream_bench || { emit hmm_upstream_bench-unload FAIL; rc=1; }; }
lsmod | grep -q '^hmm_dummy_timed' &&
	{ rmmod hmm_dummy_timed || { emit hmm_dummy_timed-unload FAIL; rc=1; }; }
lsmod | grep -q '^hmm_dummy ' && { rmmod hmm_dummy || emit hmm_dummy-unload FAIL; }
lsmod | grep -q '^test_hmm' && rmmod test_hmm
exit $rc
