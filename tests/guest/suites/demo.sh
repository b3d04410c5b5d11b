#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Guest suite "demo" (/tests/suites/demo, run by tests/guest/init; first in
# tests/plans/demo): /tests/demo/hmm-demo (tests/programs/hmm-demo.c) shows what HMM
# does, step by step, with the kernel's own counters: its "DEMO ..." lines
# go to the console (scripts/demo.sh prints them) and, with its KTAP result
# per step, into the subtest of the result hmm-demo (FAIL if it exits
# non-zero), in the suite's KTAP document. It loads
# hmm_dummy if needed and unloads it again; it loads and unloads test_hmm
# to measure DEVICE_PRIVATE's struct pages.
# shellcheck disable=SC2034 # read by /tests/suite-lib.sh (tests/guest/)
SUITE=demo
# shellcheck disable=SC1091
. /tests/suite-lib.sh
D=/tests/demo
grep -q ' /sys/kernel/debug ' /proc/mounts || mount -t debugfs debugfs /sys/kernel/debug
cd /tmp || exit 1
run_program hmm-demo $D/hmm-demo
