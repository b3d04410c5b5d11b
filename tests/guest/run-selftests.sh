#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# run-selftests.sh SUITE...  -- run kernel selftest programs inside the CI
# guest (busybox initramfs; busybox sh/ash only) and print one machine
# readable line per test case:
#
#   RESULT <suite> <testname> PASS|FAIL|SKIP [extra...]
#
# <testname> never contains white space.  For kselftest_harness programs it
# is the harness' full name (e.g. hmm.hmm_device_private.open_close).  A
# suite that crashed / timed out / exited non-zero without any failed test
# case / could not be found / could not be set up also gets
#
#   RESULT <suite> __suite__ FAIL <reason>      (TIMEOUT, SIGNAL=n, EXIT=n,
#                                                NOTFOUND, SETUP=what)
#
# and a suite that skipped as a whole (exit 4 without results) gets
# "RESULT <suite> __suite__ SKIP ...".  A test case that was running when
# its program died is reported as "FAIL INCOMPLETE".  If the kernel log got
# a WARNING/BUG/Oops while a suite ran: "RESULT <suite> __kernel__ FAIL ...".
# After all suites: "SUMMARY pass=N fail=N skip=N".
#
# The raw output of every program is echoed unmodified (between BEGIN/END
# banner lines) so that it appears in the serial log.
#
# SUITE is a program name from the table in suite_def() below, any other
# executable in $BIN_DIR (run without arguments, default timeout), "all"
# (every table suite + every other executable in $BIN_DIR), or
# "NAME=ARGS" to run NAME once with ARGS instead of its default invocations
# (e.g. 'hmm-tests=-r hmm.hmm_device_private.open_close').
#
# Exit status: 0 if no FAIL line was printed, 1 otherwise, 2 on usage error.
#
# Environment (all optional):
#   TESTS_DIR=/tests          BIN_DIR=$TESTS_DIR/bin
#   WORK_DIR=/tmp/run-selftests  (logs: $WORK_DIR/<suite>[.<label>].log)
#   TIMEOUT_SCALE=1           multiply every per-suite timeout
#   SUITE_TIMEOUT=            force this timeout (seconds) for every run
#   DEFAULT_TIMEOUT=1800      timeout for programs not in the table
#   NR_HUGEPAGES=             hugetlb pages for suites that use them
#                             (default: like run_vmtests.sh, 256 MiB worth)
#   HMM_MODULE_ARGS=          extra modprobe args for test_hmm, e.g.
#                             "spm_addr_dev0=0x... spm_addr_dev1=0x..." to
#                             enable the DEVICE_COHERENT fixtures
#   ZRAM_SWAP_SIZE=256M       size of the zram swap the "swap" setup makes
#                             (khugepaged's swap tests FAIL without swap;
#                             needs CONFIG_ZRAM); 0: don't set up swap
#   KERNEL_LOG_CHECK=1        0: don't scan dmesg for WARNING/BUG per suite
#   RESULTS_FILE=             also append RESULT/SUMMARY lines to this file
#   SELFTEST_NO_SETUP=0       1: no system changes at all (no mount,
#                             modprobe, sysctl writes, dmesg -c); for
#                             trying the runner on a development host

TESTS_DIR=${TESTS_DIR:-/tests}
BIN_DIR=${BIN_DIR:-$TESTS_DIR/bin}
WORK_DIR=${WORK_DIR:-/tmp/run-selftests}
TIMEOUT_SCALE=${TIMEOUT_SCALE:-1}
SUITE_TIMEOUT=${SUITE_TIMEOUT:-}
DEFAULT_TIMEOUT=${DEFAULT_TIMEOUT:-1800}
NR_HUGEPAGES=${NR_HUGEPAGES:-}
HMM_MODULE_ARGS=${HMM_MODULE_ARGS:-}
KERNEL_LOG_CHECK=${KERNEL_LOG_CHECK:-1}
ZRAM_SWAP_SIZE=${ZRAM_SWAP_SIZE:-256M}
RESULTS_FILE=${RESULTS_FILE:-}
SELFTEST_NO_SETUP=${SELFTEST_NO_SETUP:-0}
# Testing aid: prefix for the /proc/{meminfo,sys/vm}, /dev/hmm_dmirror*,
# /lib/modules paths used by the suite setup code (no mounts when set).
SYSROOT=${SYSROOT:-}

# Order used by "all": our focus first, cheap ones early, slow ones last.
ALL_SUITES="hmm-tests mremap_test mremap_dontunmap madv_populate soft-dirty
mlock2-tests mkdirty gup_test gup_longterm cow pagemap_ioctl uffd-unit-tests
ksm_functional_tests migration khugepaged split_huge_page_test
transhuge-stress compaction_test"

# ---------------------------------------------------------------------------
# Suite table.  suite_def NAME sets:
#   S_BIN      program in $BIN_DIR
#   S_TIMEOUT  seconds per invocation, before TIMEOUT_SCALE (QEMU TCG is
#              10-50x slower than native: these are generous on purpose)
#   S_MODE     output parser: tap (kselftest / kselftest_harness TAP),
#              uffd (uffd-unit-tests), khugepaged
#   S_SETUP    space separated: hmm (load test_hmm), hugetlb (reserve
#              hugetlb pages), thp (drop caches + compact first, like
#              run_vmtests.sh does for the thp/hugetlb categories), swap
#              (if no swap is active, swapon a zram device; stays on),
#              noaslr (kernel.randomize_va_space=0 for the suite)
#   S_RUNS     invocations, one per line: "LABEL ARGS..."; LABEL "-" means
#              no test name prefix; other labels prefix test names
#              ("LABEL.name") so that results of invocations stay distinct
#   S_OPTIONAL 1: missing binary is SKIP instead of FAIL
#   S_NAME_STRIP  ERE deleted from raw test names before use (for names
#              that embed run-dependent numbers)
# Arguments mirror tools/testing/selftests/mm/run_vmtests.sh.
# Returns 1 for names not in the table.
# ---------------------------------------------------------------------------
suite_def() {
	S_BIN=$1 S_TIMEOUT=$DEFAULT_TIMEOUT S_MODE=tap S_SETUP='' S_RUNS=- S_OPTIONAL=0
	S_NAME_STRIP=
	case "$1" in
	hmm-tests)            S_TIMEOUT=1800 S_SETUP="hmm hugetlb" ;;
	cow)                  S_TIMEOUT=3600 S_SETUP="hugetlb thp swap" ;;
	# noaslr: x86-64 randomizes brk over 1 GiB (arch_randomize_brk), so
	# a static test's heap can sit where a test maps at a fixed address.
	# 6.12's mremap_test maps a 40 MiB "dest preamble" with
	# MAP_FIXED_NOREPLACE below an address it checked only above ("Failed
	# to map dest preamble region: File exists"); uffd-unit-tests maps
	# its shmem/hugetlb areas at 1 GiB and fails if they land elsewhere
	# ("mmap of memfd failed at 0x40000000").  Base and series alike.
	mremap_test)          S_TIMEOUT=900 S_SETUP=noaslr ;;
	mremap_dontunmap)     S_TIMEOUT=600 ;;
	ksm_functional_tests) S_TIMEOUT=1800 ;;
	soft-dirty)           S_TIMEOUT=600 ;;
	madv_populate)        S_TIMEOUT=900 ;;
	migration)            S_TIMEOUT=1800 S_SETUP="hugetlb thp" ;;
	uffd-unit-tests)      S_TIMEOUT=2400 S_MODE=uffd S_SETUP="hugetlb noaslr" ;;
	mlock2-tests)         S_TIMEOUT=600 ;;
	gup_test)             S_TIMEOUT=1200 S_SETUP=hugetlb
		S_RUNS="u -u
a -a
dump -ct -F 0x1 0 19 0x1000" ;;
	gup_longterm)         S_TIMEOUT=2400 S_SETUP=hugetlb ;;
	mkdirty)              S_TIMEOUT=900 ;;
	pagemap_ioctl)        S_TIMEOUT=2400 S_SETUP=hugetlb
		S_NAME_STRIP=' (count|Extra pages) .*$' ;;
	khugepaged)           S_TIMEOUT=2400 S_MODE=khugepaged S_SETUP="thp swap"
		S_RUNS="-
s2 -s 2" ;;
	split_huge_page_test) S_TIMEOUT=1800 S_SETUP=thp ;;
	transhuge-stress)     S_TIMEOUT=900 S_SETUP=thp S_OPTIONAL=1 S_RUNS="- -d 20" ;;
	compaction_test)      S_TIMEOUT=3600 S_OPTIONAL=1 ;;
	# The series' own tests.
	mmu_notifier_events)  S_TIMEOUT=1200 S_SETUP="mmn thp swap" ;;
	hmm_dummy_tests)      S_TIMEOUT=1800 S_SETUP="dummy hmm hugetlb thp swap" ;;
	*) return 1 ;;
	esac
	return 0
}

# ---------------------------------------------------------------------------

NPASS=0 NFAIL=0 NSKIP=0

say() { echo "run-selftests: $*"; }

# emit SUITE NAME STATUS [EXTRA]   (EXTRA: one string, may hold spaces)
emit() {
	_l="RESULT $1 $2 $3${4:+ $4}"
	echo "$_l"
	[ -n "$RESULTS_FILE" ] && echo "$_l" >>"$RESULTS_FILE"
	case "$3" in
	PASS) NPASS=$((NPASS + 1)) ;;
	FAIL) NFAIL=$((NFAIL + 1)) ;;
	SKIP) NSKIP=$((NSKIP + 1)) ;;
	esac
}

setup_allowed() { [ "$SELFTEST_NO_SETUP" != 1 ]; }

# Write VALUE to a sysctl/sysfs FILE, quietly; 1 if not possible.
wr() { [ -w "$2" ] && echo "$1" >"$2" 2>/dev/null; }

is_mounted() { awk -v d="$1" '$2 == d { f = 1 } END { exit !f }' /proc/mounts 2>/dev/null; }

ensure_mount() { # TYPE DIR
	setup_allowed || return 0
	is_mounted "$2" && return 0
	mkdir -p "$2" 2>/dev/null
	mount -t "$1" "$1" "$2" 2>/dev/null || say "warning: could not mount $1 on $2"
}

global_setup() {
	if setup_allowed && [ -z "$SYSROOT" ]; then
		ensure_mount proc /proc
		ensure_mount sysfs /sys
		ensure_mount devtmpfs /dev
		ensure_mount tmpfs /tmp                  # tmpfile(), WORK_DIR
		ensure_mount debugfs /sys/kernel/debug   # gup_test, split_huge_pages
		ensure_mount hugetlbfs /dev/hugepages
	fi
	mkdir -p "$WORK_DIR" || { say "cannot create WORK_DIR=$WORK_DIR"; exit 2; }
}

# --- hugetlb ---------------------------------------------------------------
HP_SAVED=

# Like run_vmtests.sh: 256 MiB, or 2 * nr_cpus huge pages if that is more.
default_nr_hugepages() {
	_hpkb=$(awk '/^Hugepagesize:/ { print $2 }' "$SYSROOT/proc/meminfo" 2>/dev/null)
	if [ -z "$_hpkb" ] || [ "$_hpkb" -le 0 ]; then
		echo 0
		return
	fi
	_ncpu=$(grep -c '^processor' "$SYSROOT/proc/cpuinfo" 2>/dev/null)
	[ -n "$_ncpu" ] && [ "$_ncpu" -gt 0 ] || _ncpu=1
	_need=$((256 * 1024))
	[ $((_hpkb * _ncpu * 2)) -gt $_need ] && _need=$((_hpkb * _ncpu * 2))
	echo $((_need / _hpkb))
}

setup_hugetlb() {
	_f="$SYSROOT/proc/sys/vm/nr_hugepages"
	[ -w "$_f" ] || { say "hugetlb: $_f not writable, not reserving pages"; return 0; }
	_want=${NR_HUGEPAGES:-$(default_nr_hugepages)}
	HP_SAVED=$(cat "$_f")
	_tries=2
	while [ "$_tries" -gt 0 ]; do
		_free=$(awk '/^HugePages_Free:/ { print $2 }' "$SYSROOT/proc/meminfo")
		[ "$_free" -ge "$_want" ] && break
		wr 3 "$SYSROOT/proc/sys/vm/drop_caches"
		wr $(( $(cat "$_f") + _want - _free )) "$_f"
		_tries=$((_tries - 1))
	done
	_free=$(awk '/^HugePages_Free:/ { print $2 }' "$SYSROOT/proc/meminfo")
	say "hugetlb: nr_hugepages=$(cat "$_f") free=$_free (wanted $_want free)"
}

teardown_hugetlb() {
	[ -n "$HP_SAVED" ] && wr "$HP_SAVED" "$SYSROOT/proc/sys/vm/nr_hugepages"
	HP_SAVED=
}

# --- noaslr ----------------------------------------------------------------
ASLR_SAVED=
setup_noaslr() {
	_f=$SYSROOT/proc/sys/kernel/randomize_va_space
	ASLR_SAVED=$(cat "$_f" 2>/dev/null)
	wr 0 "$_f" || say "noaslr: cannot write $_f"
}

teardown_noaslr() {
	[ -n "$ASLR_SAVED" ] && wr "$ASLR_SAVED" "$SYSROOT/proc/sys/kernel/randomize_va_space"
	ASLR_SAVED=
}

# --- thp -------------------------------------------------------------------
setup_thp() {
	# run_vmtests.sh does this before thp/hugetlb tests to get free
	# contiguous memory on small machines.
	wr 3 "$SYSROOT/proc/sys/vm/drop_caches"
	wr 1 "$SYSROOT/proc/sys/vm/compact_memory"
	sleep 1
}

# --- swap ------------------------------------------------------------------
setup_swap() {
	[ "$ZRAM_SWAP_SIZE" = 0 ] && return 0
	if [ "$(awk 'NR > 1' "$SYSROOT/proc/swaps" 2>/dev/null | wc -l)" -gt 0 ]; then
		return 0
	fi
	[ -e "$SYSROOT/sys/block/zram0" ] || modprobe zram num_devices=1 2>/dev/null
	if [ ! -e "$SYSROOT/sys/block/zram0" ]; then
		say "swap: no swap and no zram device (CONFIG_ZRAM): swap tests will fail/skip"
		return 0
	fi
	if wr "$ZRAM_SWAP_SIZE" "$SYSROOT/sys/block/zram0/disksize" &&
		mkswap "$SYSROOT/dev/zram0" >/dev/null 2>&1 &&
		swapon "$SYSROOT/dev/zram0"; then
		say "swap: enabled $ZRAM_SWAP_SIZE zram swap on /dev/zram0"
	else
		say "swap: could not set up zram swap: swap tests will fail/skip"
	fi
	return 0
}

# --- hmm -------------------------------------------------------------------
HMM_LOADED=0

setup_hmm() {
	# Device private fixtures need /dev/hmm_dmirror0,1 (always created by
	# test_hmm).  Device coherent fixtures need /dev/hmm_dmirror2,3 which
	# only exist with spm_addr_dev0/1 module parameters (reserved "special
	# purpose memory", see lib/test_hmm.c); without them hmm-tests SKIPs
	# the hmm*_device_coherent variants itself.
	if [ -c "$SYSROOT/dev/hmm_dmirror0" ]; then
		say "hmm: $SYSROOT/dev/hmm_dmirror0 already present (built-in or loaded)"
		return 0
	fi
	# shellcheck disable=SC2086 # HMM_MODULE_ARGS is a word list
	if ! modprobe test_hmm $HMM_MODULE_ARGS; then
		_ko=$(find "$SYSROOT/lib/modules/$(uname -r)" -name 'test_hmm.ko*' 2>/dev/null | head -n 1)
		# shellcheck disable=SC2086
		if [ -z "$_ko" ] || ! insmod "$_ko" $HMM_MODULE_ARGS; then
			say "hmm: cannot load test_hmm (modprobe/insmod failed; CONFIG_TEST_HMM=m?)"
			return 1
		fi
	fi
	HMM_LOADED=1
	_i=0
	while [ ! -c "$SYSROOT/dev/hmm_dmirror0" ] && [ "$_i" -lt 10 ]; do
		sleep 1
		_i=$((_i + 1))
	done
	if [ ! -c "$SYSROOT/dev/hmm_dmirror0" ]; then
		say "hmm: test_hmm loaded but $SYSROOT/dev/hmm_dmirror0 missing (devtmpfs on /dev?)"
		teardown_hmm
		return 1
	fi
	say "hmm: test_hmm loaded:" "$SYSROOT"/dev/hmm_dmirror*
}

teardown_hmm() {
	[ "$HMM_LOADED" = 1 ] || return 0
	modprobe -r test_hmm 2>/dev/null || rmmod test_hmm 2>/dev/null ||
		say "hmm: warning: could not unload test_hmm"
	HMM_LOADED=0
}

# --- mmu_notifier event test module -------------------------------------------
# lib/test_mmu_notifier.ko, and an ext2 file system on a loop device at
# /mnt/wb so that the writeback test has a block-backed file to msync().
MMN_LOADED=0 MMN_WB=

# wb_mount NAME: a 16 MiB ext2 file system on a loop device at /mnt/wb, for
# tests that need a disk file (writeback). Prints the loop device; fails if
# any step fails. wb_umount NAME LOOP undoes it.
wb_mount() {
	_img=/tmp/$1-wb.img
	mkdir -p /mnt/wb
	dd if=/dev/zero of="$_img" bs=1M count=16 2>/dev/null &&
	_loop=$(losetup -f) && losetup "$_loop" "$_img" &&
	mke2fs -q "$_loop" >/dev/null 2>&1 && mount -t ext2 "$_loop" /mnt/wb &&
	echo "$_loop"
}

wb_umount() {
	umount /mnt/wb; losetup -d "$2"; rm -f "/tmp/$1-wb.img"
}

setup_mmn() {
	if [ ! -c "$SYSROOT/dev/test_mmu_notifier" ]; then
		modprobe test_mmu_notifier || { say "mmn: cannot load test_mmu_notifier"; return 1; }
		MMN_LOADED=1
	fi
	MMN_WB=$(wb_mount mmn) || {
		say "mmn: cannot mount ext2 on a loop device at /mnt/wb"
		return 1
	}
}

# hmm_dummy: the series' dummy device, plus the same ext2 file system at
# /mnt/wb for the disk-file cases. Unloading the module at teardown proves
# that every mirror was released (a leaked mirror keeps it busy).
setup_dummy() {
	if [ ! -c "$SYSROOT/dev/hmm_dummy_device00" ]; then
		modprobe hmm_dummy || { say "dummy: cannot load hmm_dummy"; return 1; }
		DUMMY_LOADED=1
	fi
	if ! grep -q " /mnt/wb " /proc/mounts; then
		DUMMY_WB=$(wb_mount dummy) ||
			say "dummy: cannot mount ext2 on a loop device at /mnt/wb (disk file cases will skip)"
	fi
	return 0
}

teardown_dummy() {
	if [ -n "$DUMMY_WB" ]; then
		wb_umount dummy "$DUMMY_WB"
		DUMMY_WB=
	fi
	if [ "$DUMMY_LOADED" = 1 ] && ! rmmod hmm_dummy; then
		emit "${_suite:-hmm_dummy}" __teardown__ FAIL "UNLOAD(hmm_dummy busy: a mirror leaked)"
	fi
	DUMMY_LOADED=0
}

teardown_mmn() {
	if [ -n "$MMN_WB" ]; then
		wb_umount mmn "$MMN_WB"
		MMN_WB=
	fi
	[ "$MMN_LOADED" = 1 ] && { rmmod test_mmu_notifier || say "mmn: warning: could not unload"; }
	MMN_LOADED=0
}

# suite_setup: runs each S_SETUP item; on a fatal failure sets SETUP_FAIL
# to the item's name and returns 1.  SETUP_DONE lists what to undo.
SETUP_DONE=
SETUP_FAIL=
suite_setup() {
	SETUP_DONE='' SETUP_FAIL=''
	setup_allowed || return 0
	for _s in $S_SETUP; do
		case "$_s" in
		hmm) setup_hmm || { SETUP_FAIL=hmm; return 1; } ;;
		mmn) setup_mmn || { SETUP_DONE="$SETUP_DONE mmn"; SETUP_FAIL=mmn; return 1; } ;;
		dummy) setup_dummy || { SETUP_DONE="$SETUP_DONE dummy"; SETUP_FAIL=dummy; return 1; } ;;
		hugetlb) setup_hugetlb ;;
		noaslr) setup_noaslr ;;
		thp) setup_thp ;;
		swap) setup_swap ;;
		esac
		SETUP_DONE="$SETUP_DONE $_s"
	done
	return 0
}

suite_teardown() {
	for _s in $SETUP_DONE; do
		case "$_s" in
		hmm) teardown_hmm ;;
		mmn) teardown_mmn ;;
		dummy) teardown_dummy ;;
		hugetlb) teardown_hugetlb ;;
		noaslr) teardown_noaslr ;;
		esac
	done
	SETUP_DONE=
}

# --- kernel log --------------------------------------------------------------
# tests/kernel-log.pattern, installed by scripts/build/build-guest-tests.sh.
KLOG_PATTERN=$(grep -v '^#' "$TESTS_DIR/kernel-log.pattern" 2>/dev/null | paste -sd '|')
KLOG_PATTERN=${KLOG_PATTERN:-WARNING:|BUG:|Oops}

klog_start() {
	[ "$KERNEL_LOG_CHECK" = 1 ] && setup_allowed || return 0
	# Remember where the kernel log stands; what comes after belongs to
	# this suite. The ring buffer is not cleared: /init dumps all of it at
	# the end for the host-side scan (scripts/check/check-log.sh).
	KLOG_BASE=$(dmesg 2>/dev/null | wc -l)
}

klog_check() { # SUITE
	[ "$KERNEL_LOG_CHECK" = 1 ] && setup_allowed || return 0
	# Call-trace frames name functions, not problems (as in check-log.sh).
	_new=$(dmesg 2>/dev/null | tail -n +$((${KLOG_BASE:-0} + 1)) |
		grep -vE '^\[ *[0-9]+\.[0-9]+\] +(\? )?[A-Za-z0-9_.]+\+0x[0-9a-f]+/0x[0-9a-f]+')
	_n=$(printf '%s\n' "$_new" | grep -Ec "$KLOG_PATTERN")
	if [ "${_n:-0}" -gt 0 ]; then
		say "kernel log of suite $1 has $_n WARNING/BUG lines:"
		printf '%s\n' "$_new" | grep -E "$KLOG_PATTERN" | head -n 20
		emit "$1" __kernel__ FAIL "KERNEL_LOG=$_n"
	fi
}

# --- running -----------------------------------------------------------------

# Kill every process in session SID (our tests run under setsid, so that
# test children left behind by a timed out / crashed program go too).
kill_session() {
	for _d in /proc/[0-9]*; do
		_p=${_d#/proc/}
		[ "$_p" = "$$" ] && continue
		_st=$(cat "$_d/stat" 2>/dev/null) || continue
		_rest=${_st##*) }
		# fields after "(comm) ": state ppid pgrp session ...
		# shellcheck disable=SC2086
		set -- $_rest
		[ "${4:-x}" = "$KS_SID" ] && kill -KILL "$_p" 2>/dev/null
	done
	return 0
}

# run_one LOG TIMEOUT ARGS...: run "$BIN_DIR/$S_BIN" ARGS in $BIN_DIR with
# stdout+stderr echoed to the console and saved in LOG; writes rc and
# elapsed seconds to LOG.rc.
run_one() {
	_log=$1 _to=$2
	shift 2
	_t0=$(date +%s)
	(
		cd "$BIN_DIR" || exit 1
		timeout -k 30 "$_to" setsid "./$S_BIN" "$@" </dev/null 2>&1 &
		_pid=$!
		wait "$_pid"
		_rc=$?
		KS_SID=$_pid kill_session
		echo "$_rc" >"$_log.rc"
	) | tee "$_log"
	_t1=$(date +%s)
	_rc=$(cat "$_log.rc" 2>/dev/null)
	echo "${_rc:-255} $((_t1 - _t0))" >"$_log.rc"
}

# parse MODE LOG SUITE PREFIX ABNORMAL RC: print "RESULT ..." lines for the
# test cases found in LOG; the last line printed is "COUNTS <nres> <nfail>".
parse() {
	awk -v mode="$1" -v suite="$3" -v prefix="$4" -v abnormal="$5" -v rc="$6" \
		-v strip="$S_NAME_STRIP" '
	function clean(s) {
		if (strip != "") sub(strip, "", s)
		gsub(/[^A-Za-z0-9._:,+=\/()@%#-]+/, "_", s)
		gsub(/_+/, "_", s)
		sub(/^_/, "", s); sub(/_$/, "", s)
		if (length(s) > 200) s = substr(s, 1, 200)
		return s
	}
	function out(name, st, extra,    n) {
		name = clean(name)
		if (name == "") name = "unnamed"
		if (prefix != "") name = prefix "." name
		n = ++seen[name]
		if (n > 1) name = name "~" n
		print "RESULT " suite " " name " " st (extra != "" ? " " extra : "")
		nres++
		if (st == "FAIL") nfail++
	}
	BEGIN { ESC = sprintf("%c", 27); nres = 0; nfail = 0; kfails = 0 }
	{ sub(/\r$/, "") }

	# ---- kselftest / kselftest_harness TAP ----
	mode == "tap" && /^#  ?RUN  / {
		# harness: "#  RUN           fixture.variant.test ..."
		h = $0; sub(/^#  ?RUN +/, "", h); sub(/ \.\.\.$/, "", h)
		hrun = h; next
	}
	mode == "tap" && /^# \[RUN\] / {
		# cow, gup_longterm, madv_populate...: "# [RUN] description" heads
		# the result(s) that follow; it names them (the ok/not ok text is
		# often a pass/fail dependent message).  2nd, 3rd.. results of
		# one [RUN] become NAME~2, NAME~3.
		r = $0; sub(/^# \[RUN\] /, "", r); krun = r; kres = 0; next
	}
	mode == "tap" && /^(not )?ok [0-9]+( |$)/ {
		notok = ($0 ~ /^not ok/)
		rest = $0; sub(/^(not )?ok [0-9]+ ?/, "", rest)
		num = $0; sub(/^(not )?ok /, "", num); sub(/ .*/, "", num)
		desc = rest; dir = ""
		i = index(rest, "#")
		if (i > 0) { desc = substr(rest, 1, i - 1); dir = substr(rest, i + 1) }
		sub(/ +$/, "", desc); sub(/^ +/, "", dir)
		d = toupper(dir)
		if (notok) st = (d ~ /^TODO/) ? "SKIP" : "FAIL"
		else if (d ~ /^SKIP/) st = "SKIP"
		else if (d ~ /^XPASS/) st = "FAIL"
		else st = "PASS"
		extra = ""
		if (d ~ /^XFAIL/) extra = "XFAIL"
		if (d ~ /^XPASS/) extra = "XPASS"
		msg = dir; sub(/^[A-Za-z]+ ?/, "", msg)
		if (krun != "") name = krun
		else if (desc != "") name = desc
		else if (msg != "") name = msg
		else name = "test_" num
		out(name, st, extra)
		hrun = ""; kres++
		next
	}

	# ---- uffd-unit-tests: "Testing NAME... done|failed [reason: ..]|skipped [reason: ..]"
	mode == "uffd" {
		line = $0
		if (line ~ /^Testing .*\.\.\. ?/) {
			if (ucur != "") out(ucur, "FAIL", "INCOMPLETE")
			ucur = line; sub(/^Testing /, "", ucur)
			i = index(ucur, "... ")
			if (i == 0) { i = index(ucur, "..."); line = "" } else line = substr(ucur, i + 4)
			ucur = substr(ucur, 1, i - 1)
			sub(/ on /, ".", ucur)
		}
		if (ucur == "") next
		if (line ~ /failed \[reason:/) { out(ucur, "FAIL"); ucur = "" }
		else if (line ~ /skipped \[reason:/) { out(ucur, "SKIP"); ucur = "" }
		else if (line ~ /(^|[ .])done$/) { out(ucur, "PASS"); ucur = "" }
		next
	}

	# ---- khugepaged: "Run test: NAME (CTX:OPS)" blocks of "step... OK|Fail|Skip|Timeout"
	mode == "khugepaged" {
		gsub(ESC "\\[[0-9;]*m", "")
		if ($0 ~ /^Run test: /) {
			if (kcur != "") out(kcur, kst)
			kcur = $0; sub(/^Run test: /, "", kcur)
			gsub(/[():]/, " ", kcur); gsub(/ +/, ".", kcur); sub(/\.$/, "", kcur)
			kst = "PASS"
			next
		}
		st = ""
		if ($0 ~ /(^|[ .])(Fail|Timeout)$/ || $0 ~ /(^|[ .])Fail: /) st = "FAIL"
		else if ($0 ~ /(^|[ .])Skip$/) st = "SKIP"
		if (st == "") next
		if (st == "FAIL") kfails++
		if (kcur == "") { if (st == "FAIL") out("__setup__", "FAIL"); next }
		if (st == "FAIL") kst = "FAIL"
		else if (st == "SKIP" && kst == "PASS") kst = "SKIP"
		next
	}

	END {
		if (mode == "tap" && abnormal) {
			if (hrun != "") out(hrun, "FAIL", "INCOMPLETE")
			else if (krun != "" && kres == 0) out(krun, "FAIL", "INCOMPLETE")
		}
		if (mode == "uffd" && ucur != "") out(ucur, "FAIL", "INCOMPLETE")
		if (mode == "khugepaged" && kcur != "") {
			# khugepaged exits with the number of failed steps; anything
			# else means it died in (or bailed out of) the last test.
			if (rc + 0 >= 128 || rc + 0 != kfails % 256) out(kcur, "FAIL", "INCOMPLETE")
			else out(kcur, kst)
		}
		print "COUNTS " nres " " nfail
	}' "$2"
}

# run_suite SUITE [ARGS]: ARGS (a single string) overrides S_RUNS.
run_suite() {
	_suite=$1
	if ! suite_def "$_suite"; then
		: # not in the table: defaults set by suite_def (S_BIN=$_suite)
	fi
	[ "$#" -ge 2 ] && S_RUNS="- $2"

	if [ ! -x "$BIN_DIR/$S_BIN" ]; then
		say "suite $_suite: $BIN_DIR/$S_BIN not found"
		if [ "$S_OPTIONAL" = 1 ]; then
			emit "$_suite" __suite__ SKIP NOTFOUND
		else
			emit "$_suite" __suite__ FAIL NOTFOUND
		fi
		return
	fi

	_to=${SUITE_TIMEOUT:-$((S_TIMEOUT * TIMEOUT_SCALE))}

	klog_start
	if ! suite_setup; then
		emit "$_suite" __suite__ FAIL "SETUP=$SETUP_FAIL"
		suite_teardown
		klog_check "$_suite"
		return
	fi

	echo "$S_RUNS" | while IFS= read -r _run; do
		[ -n "$_run" ] && echo "$_run"
	done >"$WORK_DIR/.runs"

	while IFS= read -r _run <&3; do
		_label=${_run%% *}
		_args=
		case "$_run" in *" "*) _args=${_run#* } ;; esac
		[ "$_label" = "-" ] && _label=
		_log=$WORK_DIR/$_suite${_label:+.$_label}.log
		echo "======== BEGIN $_suite${_label:+ ($_label)}: $S_BIN $_args (timeout ${_to}s) ========"
		# shellcheck disable=SC2086 # _args is a word list
		run_one "$_log" "$_to" $_args
		read -r _rc _el <"$_log.rc"
		# keep the banner on its own line after unterminated output
		[ -n "$(tail -c 1 "$_log" 2>/dev/null)" ] && echo
		_why=
		# (a program may catch SIGTERM and exit normally, e.g. khugepaged
		# restores its THP settings and exits 1)
		if [ "$_rc" != 0 ] && [ "$_el" -ge $((_to - 1)) ]; then
			_why=TIMEOUT
		elif [ "$_rc" -gt 128 ]; then
			_why=SIGNAL=$((_rc - 128))
		fi
		echo "======== END $_suite${_label:+ ($_label)}: exit=$_rc time=${_el}s${_why:+ $_why} ========"
		_abn=0
		[ "$_rc" != 0 ] && [ "$_rc" != 4 ] && _abn=1
		parse "$S_MODE" "$_log" "$_suite" "$_label" "$_abn" "$_rc" >"$_log.res"
		_nres=0 _nfail=0
		while read -r _a _b _c _d _e; do
			if [ "$_a" = COUNTS ]; then
				_nres=$_b _nfail=$_c
			else
				emit "$_b" "$_c" "$_d" "$_e"
			fi
		done <"$_log.res"
		_extra=${_label:+run=$_label}
		if [ -n "$_why" ]; then
			emit "$_suite" __suite__ FAIL "$_why${_extra:+ $_extra}"
		elif [ "$_rc" = 4 ] && [ "$_nres" = 0 ]; then
			emit "$_suite" __suite__ SKIP "EXIT=4${_extra:+ $_extra}"
		elif [ "$_rc" != 0 ] && [ "$_rc" != 4 ] && [ "$_nfail" = 0 ]; then
			emit "$_suite" __suite__ FAIL "EXIT=$_rc${_extra:+ $_extra}"
		elif [ "$_rc" = 0 ] && [ "$_nres" = 0 ]; then
			say "suite $_suite${_label:+ ($_label)}: exit 0 but no test results found"
		fi
	done 3<"$WORK_DIR/.runs"

	suite_teardown
	klog_check "$_suite"
}

# ALL_SUITES, then any other executable in $BIN_DIR.
all_suites() {
	for _n in $ALL_SUITES; do
		echo "$_n"
	done
	for _f in "$BIN_DIR"/*; do
		if [ -f "$_f" ] && [ -x "$_f" ] && ! suite_def "${_f##*/}"; then
			echo "${_f##*/}"
		fi
	done
}

usage() {
	sed -n '4,/^$/p' "$0" 2>/dev/null | sed 's/^# \{0,1\}//'
	echo "Known suites: $ALL_SUITES"
}

main() {
	if [ "$#" -eq 0 ]; then
		usage >&2
		exit 2
	fi
	case "$1" in -h|--help) usage; exit 0 ;; esac

	global_setup

	for _arg in "$@"; do
		if [ "$_arg" = all ]; then
			for _sn in $(all_suites); do
				run_suite "$_sn"
			done
		else
			case "$_arg" in
			*=*) run_suite "${_arg%%=*}" "${_arg#*=}" ;;
			*) run_suite "$_arg" ;;
			esac
		fi
	done

	_sum="SUMMARY pass=$NPASS fail=$NFAIL skip=$NSKIP"
	echo "$_sum"
	[ -n "$RESULTS_FILE" ] && echo "$_sum" >>"$RESULTS_FILE"
	[ "$NFAIL" -eq 0 ]
}

main "$@"
