#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Guest suite "bench" (/tests/suites/bench, run by ci/guest/init): loads
# test_hmm and hmm_dummy when present, runs /tests/bench/hmm-bench and
# prints its table and CSV between markers for scripts/bench.sh.
# Not part of ci/suites/*: run it with scripts/bench.sh.
# Arguments: /tests/bench/args if present (scripts/bench.sh writes it).
B=/tests/bench
emit() { echo "RESULT bench $1 $2${3:+ $3}" | tee -a "${RESULTS_FILE:-/dev/null}"; }
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
		echo "bench: no test_hmm module: upstream rows skipped"
	fi
fi
if [ ! -c /dev/hmm_dummy_device00 ]; then
	modprobe hmm_dummy 2>/dev/null || echo "bench: no hmm_dummy module: series rows skipped"
fi
# devtmpfs creates the nodes asynchronously
for _ in 1 2 3 4 5; do
	{ lsmod | grep -q '^test_hmm' && [ ! -c /dev/hmm_dmirror0 ]; } ||
	{ lsmod | grep -q '^hmm_dummy' && [ ! -c /dev/hmm_dummy_device00 ]; } || break
	sleep 1
done
echo "bench: hmm-bench $args (THP enabled: $(cat /sys/kernel/mm/transparent_hugepage/enabled 2>/dev/null))"
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
