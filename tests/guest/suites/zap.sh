#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Guest suite "zap" (/tests/suites/zap, run by tests/guest/init): the
# regression test of the series' upstream fix "mm/huge_memory: zap a
# device-private PMD by its entry, not its folio". Runs /tests/zap/hmm-zap
# (tests/programs/hmm-zap.c) against upstream's lib/test_hmm, in its three
# modes: evict (MADV_DONTNEED of THPs whose device-private PMDs the device's
# eviction turned into PMD migration entries), exit (the same zapped by
# exit_mmap()) and tosys (one process: a thread zaps while another migrates
# the THP back). Without the fix 7.3.4 oopses in evict and exit and soft-
# locks or oopses in tosys. A test_hmm without device-private THPs (6.12;
# hmm-zap decides from the header it was built against) gets SKIP: there
# is no such entry to zap. Each mode: hmm-zap's result, then klog-MODE (no
# new line of /tests/kernel-log.pattern). Loads test_hmm if needed and
# unloads it after (no device page may be left; not tried after an oops).
# Output: one KTAP document (/tests/suite-lib.sh). The modes: /tests/zap/
# modes if present (default "evict exit tosys"). Arguments for hmm-zap:
# /tests/zap/args-MODE if present (default: none; tosys "-n 300", the
# count that failed every unfixed boot). /tests/zap/skip-MODE: the mode is
# a SKIP with the file's text as its reason (scripts/test.sh --debug: exit).
# shellcheck disable=SC2034 # read by /tests/suite-lib.sh (tests/guest/)
SUITE=zap
# shellcheck disable=SC1091
. /tests/suite-lib.sh
Z=/tests/zap
rc=0

preloaded=
if [ -d /sys/module/test_hmm ]; then
	preloaded=1
elif ! modprobe test_hmm; then
	emit test_hmm-load FAIL
	exit 1
fi
# devtmpfs creates the nodes asynchronously
for _ in 1 2 3 4 5 6 7 8 9 10; do
	[ -c /dev/hmm_dmirror0 ] && break
	sleep 1
done
cd /tmp || exit 1

pattern=$(klog_pattern)
# died: has a task died in the kernel (taint D, 1 << 7)? After that a lock
# may be held forever (the unfixed kernel's tosys then soft-locks until the
# guest times out), so the modes left are not run.
died() { [ $(($(cat /proc/sys/kernel/tainted 2>/dev/null || echo 0) & 128)) -ne 0 ]; }
modes="evict exit tosys"
[ -f $Z/modes ] && modes=$(cat $Z/modes)
for mode in $modes; do
	if died; then
		emit "hmm-zap-$mode" FAIL "not run: a task died in the kernel before (taint D)"
		rc=1
		continue
	fi
	if [ -f "$Z/skip-$mode" ]; then
		emit "hmm-zap-$mode" SKIP "$(head -n 1 "$Z/skip-$mode")"
		continue
	fi
	args=
	[ "$mode" = tosys ] && args="-n 300"
	[ -f "$Z/args-$mode" ] && args=$(cat "$Z/args-$mode")
	# a fragmented guest may lack order-9 pages for test_hmm's THPs
	echo 1 > /proc/sys/vm/compact_memory 2>/dev/null
	base=$(dmesg | wc -l)
	echo "# zap: hmm-zap -m $mode $args"
	{
		# shellcheck disable=SC2086 # args is a word list
		$Z/hmm-zap -m $mode $args 2>&1
		echo $? > "/tmp/zap-$mode.rc"
	} | awk '{ print "# " $0; fflush() }'
	r=$(cat "/tmp/zap-$mode.rc" 2>/dev/null || echo 1)
	case $r in
	0) emit "hmm-zap-$mode" PASS ;;
	4) emit "hmm-zap-$mode" SKIP "test_hmm without device-private THPs" ;;
	# 2: setup failed or the race window was not hit often enough; the
	# test could not have failed, so it does not pass either.
	*) emit "hmm-zap-$mode" FAIL "EXIT=$r"; rc=1 ;;
	esac
	bad=$(klog_new "$base" | grep -E "$pattern" | head -n 3)
	if [ -n "$bad" ]; then
		echo "$bad" | sed 's/^/# kernel: /'
		emit "klog-$mode" FAIL
		rc=1
	else
		emit "klog-$mode" PASS
	fi
done

# Every device page came back or was freed: test_hmm unloads.
# After an oops a device folio may never come back and rmmod would wait
# for it forever: do not try.
if died; then
	emit test_hmm-unload FAIL "kernel died in a task (taint D): not tried"
	rc=1
elif [ -z "$preloaded" ]; then
	if timeout 60 rmmod test_hmm; then
		emit test_hmm-unload PASS
	else
		emit test_hmm-unload FAIL
		rc=1
	fi
fi
[ "$rc" -eq 0 ]
