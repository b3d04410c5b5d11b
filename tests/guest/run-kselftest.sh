#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# run-kselftest.sh CATEGORY
# Run one run_vmtests.sh category of the installed mm kselftests
# (/tests/kselftest/mm, made by "make -C tools/testing/selftests TARGETS=mm
# install" in scripts/build/build-guest-tests.sh) the way kselftest runs it:
# "bash ./run_vmtests.sh -t CATEGORY", which reserves its huge pages and
# loads and unloads the modules its scripts need (test_hmm.sh,
# test_hmm_dummy.sh, test_mmu_notifier.sh).
#
# Timeout: the one kselftest's runner gives run_vmtests.sh, "timeout=" of
# mm/settings (180 s), times hmmtimeoutscale= of the kernel command line
# (a positive integer, the last one if given twice, as the kernel takes
# it; default 5, 900 s, for QEMU TCG: the slowest category measured takes
# 132 s there; scripts/test.sh gives the debug kernel 15). At the timeout
# every process of the run is killed.
#
# The guest only provides what a test machine has: swap (tests/guest/init),
# reserved huge pages, a disk file system at /mnt/wb for the cases that
# need a block-backed file (writeback), and for the categories mremap and
# userfaultfd kernel.randomize_va_space=0 (noaslr): x86-64 randomizes brk
# over 1 GiB, and 6.12's mremap_test maps a 40 MiB "dest preamble" with
# MAP_FIXED_NOREPLACE below an address it checked only above ("Failed to
# map dest preamble region: File exists"), uffd-unit-tests maps its shmem
# and hugetlb areas at a 1 GiB hint and fails when they land elsewhere
# ("mmap of memfd failed at 0x40000000"); base and series alike.
#
# Output: KTAP, echoed to the console and saved in /run/ktap/kselftest:
# CATEGORY.tap (tests/guest/init prints it again as one block at the end,
# for the host's KTAP parser, scripts/boot/ktap.awk): run_vmtests.sh's
# document, then a second one with what only the guest can see:
# "__timeout__" (the run ended before the timeout), "__exit__"
# (run_vmtests.sh's exit status: 0 passes, 4, kselftest's skip, skips,
# anything else fails), "__results__" (run_vmtests.sh printed a KTAP
# document with at least one result: a category that prints none, or no
# KTAP at all, fails as no-KTAP-results), "__kernel_log__" (no line of
# tests/kernel-log.pattern in the kernel log while it ran), or "__suite__"
# when the category cannot start.
KSFT=${KSFT_DIR:-/tests/kselftest}
cat=$1
[ -n "$cat" ] || { echo "usage: $0 CATEGORY" >&2; exit 2; }
suite=kselftest:$cat
mkdir -p /run/ktap
tap=/run/ktap/$suite.tap
: > "$tap"
rm -f "$tap.rc" "$tap.killed"
# shellcheck disable=SC2034 # read by /tests/suite-lib.sh
KTAP_NO_HEADER=1
# shellcheck disable=SC1091
. /tests/suite-lib.sh
echo "==KTAP-RUN $suite=="

# restore: what the run changed (huge pages, ASLR, /mnt/wb) back, whether
# it ran or failed on the way.
hp='' aslr='' wb=''
restore() {
	[ -n "$aslr" ] && echo "$aslr" > /proc/sys/kernel/randomize_va_space
	[ -n "$hp" ] && echo "$hp" > /proc/sys/vm/nr_hugepages
	if [ -n "$wb" ]; then
		cd /
		umount /mnt/wb && losetup -d "$wb"
		rm -f /tmp/ksft-wb.img
	fi
	aslr='' hp='' wb=''
}
fail() {
	{ ktap_begin; emit __suite__ FAIL "$1"; ktap_end; } | tee -a "$tap"
	echo "==KTAP-DONE $suite rc=1=="
	restore
	exit 1
}
[ -x /bin/bash ] || fail "SETUP=no-bash"
[ -f "$KSFT/mm/run_vmtests.sh" ] || fail "NOTFOUND=$KSFT/mm/run_vmtests.sh"

settings=$(sed -n 's/^timeout=//p' "$KSFT/mm/settings" 2>/dev/null)
scale=$(tr ' ' '\n' < /proc/cmdline | sed -n 's/^hmmtimeoutscale=//p' | tail -n 1)
settings=${settings:-45} scale=${scale:-5}
case "$settings$scale" in
*[!0-9]*) fail "SETUP=timeout=$settings,hmmtimeoutscale=$scale" ;;
esac
tmo=$((settings * scale))
[ "$tmo" -gt 0 ] || fail "SETUP=timeout=$settings,hmmtimeoutscale=$scale"

if ! grep -q " /mnt/wb " /proc/mounts; then
	img=/tmp/ksft-wb.img
	mkdir -p /mnt/wb
	if dd if=/dev/zero of=$img bs=1M count=16 2>/dev/null &&
	   dev=$(losetup -f) && losetup "$dev" $img; then
		wb=$dev
		if ! { mke2fs -q "$wb" >/dev/null 2>&1 && mount -t ext2 "$wb" /mnt/wb; }; then
			losetup -d "$wb"
			wb=''
			rm -f $img
			fail "SETUP=/mnt/wb"
		fi
	else
		rm -f $img
		fail "SETUP=/mnt/wb"
	fi
fi

# A test machine has huge pages reserved (hugepages= at boot): the 256 MiB
# run_vmtests.sh wants, which it also falls back to after its hugetlb and
# userfaultfd categories.
hp=$(cat /proc/sys/vm/nr_hugepages)
[ "$hp" -ge 128 ] || echo 128 > /proc/sys/vm/nr_hugepages
case "$cat" in
mremap|userfaultfd)
	aslr=$(cat /proc/sys/kernel/randomize_va_space)
	echo 0 > /proc/sys/kernel/randomize_va_space ;;
esac

# kill_session SID: every process of session SID (run_vmtests.sh runs in a
# session of its own, so that the test programs it leaves behind go too).
kill_session() {
	for _d in /proc/[0-9]*; do
		_st=$(cat "$_d/stat" 2>/dev/null) || continue
		# fields after "(comm) ": state ppid pgrp session ...
		# shellcheck disable=SC2086
		set -- ${_st##*) }
		[ "${4:-x}" = "$sid" ] && kill -KILL "${_d#/proc/}" 2>/dev/null
	done
	return 0
}

cd "$KSFT/mm" || fail "SETUP=cd"
klog0=$(dmesg | wc -l)
t0=$(date +%s)
{
	setsid bash ./run_vmtests.sh -t "$cat" 2>&1 </dev/null &
	sid=$!
	# The watchdog: killing it at the end kills its sleep too.
	(
		sleep "$tmo" &
		sp=$!
		trap 'kill "$sp" 2>/dev/null; exit 0' TERM
		wait "$sp" || exit 0
		: > "$tap.killed"
		kill_session
	) >/dev/null 2>&1 &
	wd=$!
	wait "$sid"
	echo $? > "$tap.rc"
	kill "$wd" 2>/dev/null
	wait "$wd" 2>/dev/null
	kill_session
} | tee -a "$tap"
t1=$(date +%s)
rc=$(cat "$tap.rc" 2>/dev/null)
# What run_vmtests.sh printed: at least one top-level result of a KTAP
# document (a header alone, "1..0" or an error message is none).
nres=0
grep -Eq '^TAP version [0-9]+$' "$tap" &&
	nres=$(grep -Ec '^(not )?ok [0-9]+' "$tap")

{
	ktap_begin
	if [ -f "$tap.killed" ]; then
		emit __timeout__ FAIL "killed after ${tmo}s (mm/settings timeout=$settings x hmmtimeoutscale=$scale)"
	else
		emit __timeout__ PASS "$((t1 - t0))s of ${tmo}s"
	fi
	case "$rc" in
	0) emit __exit__ PASS "run_vmtests.sh exit 0" ;;
	4) emit __exit__ SKIP "run_vmtests.sh exit 4 (ksft_skip)" ;;
	*) emit __exit__ FAIL "exit=${rc:-none}" ;;
	esac
	if [ "${nres:-0}" -gt 0 ]; then
		emit __results__ PASS "$nres results"
	else
		emit __results__ FAIL no-KTAP-results
	fi
	n=$(klog_new "$klog0" | grep -Ec "$(klog_pattern)")
	if [ "${n:-0}" -gt 0 ]; then
		klog_new "$klog0" | grep -E "$(klog_pattern)" | head -n 20 | sed 's/^/# /'
		emit __kernel_log__ FAIL "KERNEL_LOG=$n"
	else
		emit __kernel_log__ PASS
	fi
	ktap_end
} | tee -a "$tap"
echo "==KTAP-DONE $suite rc=$rc=="
restore
exit 0
