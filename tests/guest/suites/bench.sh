#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Guest suite "bench" (/tests/suites/bench, run by tests/guest/init): loads
# test_hmm and hmm_dummy (devmem_mb sized for the migration rows) when
# present, runs /tests/bench/hmm-bench and prints its table and CSV between
# markers for scripts/bench.sh, and its KTAP results (hmm-bench, the
# module unload).
# hmm-bench's evict group reloads hmm_dummy with its own small pool (-E)
# and loads it back with devmem_mb as set here afterwards.
# Not part of tests/plans/*: run it with scripts/bench.sh.
# Arguments: /tests/bench/args if present (scripts/bench.sh writes it).
# shellcheck disable=SC2034 # read by /tests/suite-lib.sh (tests/guest/)
SUITE=bench
# shellcheck disable=SC1091
. /tests/suite-lib.sh
B=/tests/bench
args="-s 4,64,256,512 -r 5 -R 2 -H 2 -M 256"
[ -f $B/args ] && args=$(cat $B/args)
# Keep kernel messages off the console while the table is printed.
dmesg -n 1
load_kb=
if [ ! -c /dev/hmm_dmirror0 ]; then
	f0=$(awk '/^MemFree:/ { print $2 }' /proc/meminfo)
	if modprobe test_hmm 2>/dev/null; then
		sleep 1
		f1=$(awk '/^MemFree:/ { print $2 }' /proc/meminfo)
		load_kb=$((f0 - f1))
	else
		echo "# bench: no test_hmm module: upstream rows skipped"
	fi
fi
# hmm_dummy's fake device memory (devmem_mb MiB of system pages per device,
# 2 devices, allocated at load) must hold the largest migration size: the
# largest -s size that is <= -M, plus 64 MiB of slack (defaults: 320 MiB,
# 640 MiB of the guest's 4 GiB).
devmem_mb() {
	sz=4,64,256,512 cap=256
	# shellcheck disable=SC2086 # args is a word list
	set -- $args
	while [ $# -gt 0 ]; do
		case "$1" in
		-s) sz=${2:-$sz}; shift ;;
		-s*) sz=${1#-s} ;;
		-M) cap=${2:-$cap}; shift ;;
		-M*) cap=${1#-M} ;;
		esac
		[ $# -gt 0 ] && shift
	done
	m=0
	for s in $(echo "$sz" | tr , ' '); do
		[ "$s" -le "$cap" ] 2>/dev/null && [ "$s" -gt "$m" ] && m=$s
	done
	echo $((m + 64))
}
mb=$(devmem_mb)
if [ ! -c /dev/hmm_dummy_device00 ]; then
	modprobe hmm_dummy devmem_mb="$mb" 2>/dev/null ||
		echo "# bench: no hmm_dummy module (or no $mb MiB of device memory): series rows skipped"
fi
have=$(cat /sys/module/hmm_dummy/parameters/devmem_mb 2>/dev/null)
[ -z "$have" ] || [ "$have" -ge "$mb" ] ||
	echo "# bench: hmm_dummy already loaded with devmem_mb=$have < $mb: ours' large migrations are partial"
# devtmpfs creates the nodes asynchronously
for _ in 1 2 3 4 5; do
	{ lsmod | grep -q '^test_hmm' && [ ! -c /dev/hmm_dmirror0 ]; } ||
	{ lsmod | grep -q '^hmm_dummy' && [ ! -c /dev/hmm_dummy_device00 ]; } || break
	sleep 1
done
echo "# bench: hmm-bench $args (THP enabled: $(cat /sys/kernel/mm/transparent_hugepage/enabled 2>/dev/null))"
cd /tmp || exit 1
# shellcheck disable=SC2086 # args is a word list
if HMM_BENCH_TESTHMM_LOAD_KB=$load_kb $B/hmm-bench $args -o /tmp/hmm-bench.csv -p; then
	emit hmm-bench PASS
	rc=0
else
	emit hmm-bench FAIL "EXIT=$?"
	rc=1
fi
lsmod | grep -q '^hmm_dummy' && { rmmod hmm_dummy || emit hmm_dummy-unload FAIL; }
lsmod | grep -q '^test_hmm' && rmmod test_hmm
exit $rc
