#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Guest suite "fuzz" (/tests/suites/fuzz, run by tests/guest/init): hostile
# input for hmm_dummy. Loads hmm_dummy if needed, then runs /tests/fuzz/
# hmm-fuzz (tests/programs/hmm-fuzz.c) three times: -T perm (device nodes are
# root-only, a non-root process gets EACCES), -T scm (a mirror's file passed
# with SCM_RIGHTS gives no access to the owner's memory; the last close in
# another process migrates the owner's pages back), then the fuzzer for a
# bounded time. Afterwards no device page may be in use on either device
# and hmm_dummy must unload (no mirror leaked). Output: one KTAP document
# (/tests/suite-lib.sh), each hmm-fuzz run a subtest with its own results.
# Arguments of the fuzzer: /tests/fuzz/args if present, default "-t 60 -p 2"
# (see hmm-fuzz -h; -s SEED replays a run).
# shellcheck disable=SC2034 # read by /tests/suite-lib.sh (tests/guest/)
SUITE=fuzz
# shellcheck disable=SC1091
. /tests/suite-lib.sh
F=/tests/fuzz
args="-t 60 -p 2"
[ -f $F/args ] && args=$(cat $F/args)
rc=0

# hmm_dummy: load it unless it is there; if it was, it is reloaded at the
# end (the unload is part of the test). A small device memory pool (8 MiB
# per device, less than the workers migrate) so that migrations also meet
# a full pool.
preloaded=
if [ -d /sys/module/hmm_dummy ]; then
	preloaded=1
elif ! modprobe hmm_dummy devmem_mb=8; then
	emit hmm_dummy-load FAIL
	exit 1
fi
# devtmpfs creates the nodes asynchronously
for _ in 1 2 3 4 5 6 7 8 9 10; do
	[ -c /dev/hmm_dummy_device13 ] && break
	sleep 1
done
grep -q ' /sys/kernel/debug ' /proc/mounts || mount -t debugfs debugfs /sys/kernel/debug
cd /tmp || exit 1

# One hmm-fuzz run: its KTAP as a subtest of the result hmm-fuzz-NAME (FAIL
# if it exits non-zero).
run() {
	name=$1
	shift
	echo "# fuzz: hmm-fuzz $*"
	run_program "hmm-fuzz-$name" $F/hmm-fuzz "$@" || rc=1
}

# The fuzzer's CPU probes die of SIGSEGV on purpose: do not log each one
# (a worker's own fatal signals are reported by hmm-fuzz itself).
et=$(cat /proc/sys/debug/exception-trace 2>/dev/null)
[ -n "$et" ] && echo 0 > /proc/sys/debug/exception-trace
run perm -T perm
run scm -T scm
# shellcheck disable=SC2086 # args is a word list
run fuzz -T fuzz $args
[ -n "$et" ] && echo "$et" > /proc/sys/debug/exception-trace

# Every device page is back (the workers and their children are gone).
for d in 0 1; do
	f=/sys/kernel/debug/hmm_dummy/device$d
	if [ ! -r "$f" ]; then
		emit "device$d-in_use" SKIP "no $f"
		continue
	fi
	n=
	for _ in 1 2 3 4 5 6 7 8 9 10; do
		n=$(awk '$1 == "in_use" { print $2 }' "$f")
		[ "$n" = 0 ] && break
		sleep 1
	done
	if [ "$n" = 0 ]; then
		emit "device$d-in_use" PASS "in_use=0"
	else
		emit "device$d-in_use" FAIL "in_use=$n"
		rc=1
	fi
done

# No mirror, file or device page left: the module unloads.
if rmmod hmm_dummy; then
	emit hmm_dummy-unload PASS
	if [ -n "$preloaded" ] && ! modprobe hmm_dummy; then
		emit hmm_dummy-reload FAIL
		rc=1
	fi
else
	emit hmm_dummy-unload FAIL
	rc=1
fi
[ "$rc" -eq 0 ]
