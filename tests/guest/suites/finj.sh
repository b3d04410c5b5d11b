#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Guest suite "finj" (/tests/suites/finj, run by tests/guest/init): fault
# injection through the HMM mirror and migration paths (tests/programs/hmm-finj.c):
# failslab and fail_page_alloc, only for the test process (task-filter,
# make-it-fail / fail-nth), and hmm_dummy's deviceN_fail_copy. Loads
# hmm_dummy if needed, runs /tests/finj/hmm-finj (a KTAP subtest: faults
# injected / survived per path, and the accounting after each path), then
# checks the whole suite: device pools back to 0 pages in use, MemAvailable
# back within the tolerance, no kernel problem report, kmemleak (when the
# kernel has it) without new suspects, and rmmod of hmm_dummy.
# Arguments for hmm-finj: /tests/finj/args if present (e.g. "-x 2 -v").
# shellcheck disable=SC2034 # read by /tests/suite-lib.sh (tests/guest/)
SUITE=finj
# shellcheck disable=SC1091
. /tests/suite-lib.sh
S=/tests/finj
args=""
# A KASAN kernel frees the shadow pages of a vfree()d area (a forked
# child's kernel stack, a kvmalloc() fallback) only at the lazy vmap purge,
# up to 1/8 of lazy_max_pages() later: MiBs that MemFree misses for a while
# after a path. The per-path memory tolerance is 8 MiB there (1 MiB
# otherwise); the check over the whole run below keeps its 2 MiB.
if dmesg | grep -q 'KernelAddressSanitizer initialized'; then
	args="-M 8192"
	echo "# finj: KASAN kernel: per-path MemFree tolerance 8 MiB (lazy vmap purge of KASAN shadow)"
fi
[ -f $S/args ] && args="$args $(cat $S/args)"
DBG=/sys/kernel/debug
grep -q ' /sys/kernel/debug ' /proc/mounts || mount -t debugfs debugfs $DBG
# What the kernel log must not say (tests/kernel-log.pattern), and here also
# that a device memory pool went away with pages in use.
BAD="$(grep -v '^#' /tests/kernel-log.pattern | paste -sd '|')|pages still in use|unregistered with [0-9]+ pages in use"


if [ ! -w $DBG/failslab/probability ] || [ ! -w $DBG/fail_page_alloc/probability ]; then
	emit fault-injection FAIL "kernel without CONFIG_FAILSLAB/FAIL_PAGE_ALLOC/FAULT_INJECTION_DEBUG_FS"
	exit 1
fi
kmemleak_count() {
	[ -r $DBG/kmemleak ] || { echo 0; return; }
	echo scan > $DBG/kmemleak 2>/dev/null
	# grep -c prints 0 itself when nothing matches (and exits 1)
	n=$(grep -c '^unreferenced object' $DBG/kmemleak 2>/dev/null)
	echo "${n:-0}"
}
leak0=$(kmemleak_count)
# MemFree and MemAvailable (kB) plus the pages on the per-CPU free lists
# (several MiB that come and go), after dropping caches and empty slabs:
# what hmm-finj measures after each path.
mem_kb() {
	echo 3 > /proc/sys/vm/drop_caches
	for f in /sys/kernel/slab/*/shrink; do
		echo 1 > "$f"
	done 2>/dev/null
	echo 1 > /proc/sys/vm/stat_refresh 2>/dev/null
	pcp=$(awk '$1 == "count:" { n += $2 } END { print n * 4 }' /proc/zoneinfo)
	awk -v pcp="$pcp" '/^MemFree:/ { f = $2 } /^MemAvailable:/ { a = $2 }
		END { print f + pcp, a + pcp }' /proc/meminfo
}
# Before hmm_dummy allocates its pools.
# shellcheck disable=SC2046 # two numbers
set -- $(mem_kb)
free0=$1 avail0=$2
dmesg_lines0=$(dmesg | wc -l)

loaded=
if [ ! -c /dev/hmm_dummy_device00 ]; then
	# The default pool (64 MiB per device) holds every range of the test.
	if modprobe hmm_dummy; then
		loaded=1
	else
		emit hmm_dummy-load FAIL
		exit 1
	fi
fi
# devtmpfs creates the nodes asynchronously
for _ in 1 2 3 4 5 6 7 8 9 10; do
	[ -c /dev/hmm_dummy_device13 ] && break
	sleep 1
done

# The console is a slow serial line: warn_alloc() and OOM reports of
# injected failures would take most of the run to print. They still go to
# the kernel log, which init dumps and scripts/check/check-log.sh scans, and
# hmm-finj reads it (/dev/kmsg) after each path. Errors still reach the
# console.
printk0=$(awk '{ print $1 }' /proc/sys/kernel/printk)
dmesg -n 4

echo "# finj: hmm-finj $args (devmem_mb=$(cat /sys/module/hmm_dummy/parameters/devmem_mb 2>/dev/null)," \
     "swap: $(awk 'NR > 1 { n++ } END { print n + 0 }' /proc/swaps) device(s))"
cd /tmp || exit 1
# shellcheck disable=SC2086 # args is a word list
run_program hmm-finj $S/hmm-finj $args
rc=$?
dmesg -n "$printk0"

# Both pools empty, then the module unloads.
in_use=
for d in 0 1; do
	n=$(awk '/^in_use / { print $2 }' $DBG/hmm_dummy/device$d 2>/dev/null)
	in_use="$in_use${in_use:+,}${n:-?}"
done
if [ "$in_use" = "0,0" ]; then
	emit pool-in-use PASS "device0,1 in_use $in_use"
else
	emit pool-in-use FAIL "device0,1 in_use $in_use"
	rc=1
fi
if [ -n "$loaded" ]; then
	if rmmod hmm_dummy; then
		emit hmm_dummy-unload PASS
	else
		emit hmm_dummy-unload FAIL
		rc=1
	fi
fi

# Memory back once the pools are freed. Tolerance: hmm-finj's per path
# (1 MiB), plus 1 MiB for loading and unloading the module (its slab
# caches, debugfs and sysfs nodes).
# shellcheck disable=SC2046 # two numbers
set -- $(mem_kb)
free1=$1 avail1=$2
tol=2048
detail="MemFree+pcp ${free0} -> ${free1} kB, MemAvailable+pcp ${avail0} -> ${avail1} kB (tolerance ${tol} kB)"
if [ $((free0 - free1)) -lt $tol ] && [ $((avail0 - avail1)) -lt $tol ]; then
	emit meminfo PASS "$detail"
else
	emit meminfo FAIL "$detail"
	rc=1
fi

# Anything the kernel reported since the suite started.
probs=$(dmesg | tail -n +$((dmesg_lines0 + 1)) | grep -E "$BAD" | head -n 20)
if [ -z "$probs" ]; then
	emit dmesg PASS "$(dmesg | tail -n +$((dmesg_lines0 + 1)) | wc -l) new lines, no problem report"
else
	echo "$probs" | sed 's/^/# /'
	emit dmesg FAIL "$(echo "$probs" | head -n 1)"
	rc=1
fi

if [ -r $DBG/kmemleak ]; then
	# kmemleak reports an object after two scans without a reference.
	sleep 5
	leak1=$(kmemleak_count)
	if [ "$leak1" -le "$leak0" ]; then
		emit kmemleak PASS "$leak1 suspects (before: $leak0)"
	else
		emit kmemleak FAIL "$leak1 suspects (before: $leak0)"
		rc=1
	fi
else
	emit kmemleak SKIP "kernel without CONFIG_DEBUG_KMEMLEAK"
fi
[ "$rc" -eq 0 ]
