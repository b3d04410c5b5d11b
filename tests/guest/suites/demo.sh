#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Guest suite "demo" (/tests/suites/demo, run by tests/guest/init; first in
# tests/plans/demo): /tests/demo/hmm-demo (tests/programs/hmm-demo.c) shows what HMM
# does, step by step, with the kernel's own counters: its "DEMO ..." lines
# go to the console (scripts/demo.sh prints them), its RESULT lines (one per
# step) to the results file, plus one for its exit status. It loads
# hmm_dummy if needed and unloads it again; it loads and unloads test_hmm
# to measure DEVICE_PRIVATE's struct pages.
D=/tests/demo
emit() { echo "RESULT demo $1 $2${3:+ $3}" | tee -a "${RESULTS_FILE:-/dev/null}"; }
grep -q ' /sys/kernel/debug ' /proc/mounts || mount -t debugfs debugfs /sys/kernel/debug
cd /tmp || exit 1
{ $D/hmm-demo 2>&1; echo $? > /tmp/hmm-demo.rc; } | tee /tmp/hmm-demo.log
rc=$(cat /tmp/hmm-demo.rc 2>/dev/null || echo 1)
grep '^RESULT demo ' /tmp/hmm-demo.log >> "${RESULTS_FILE:-/dev/null}"
if [ "$rc" -eq 0 ]; then
	emit hmm-demo PASS
else
	emit hmm-demo FAIL "EXIT=$rc"
fi
[ "$rc" -eq 0 ]
