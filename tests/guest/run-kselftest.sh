#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# run-kselftest.sh CATEGORY [TIMEOUT_S]
# Run one run_vmtests.sh category of the installed mm kselftests
# (/tests/kselftest/mm, made by "make -C tools/testing/selftests TARGETS=mm
# install" in scripts/build/build-guest-tests.sh) the way kselftest runs it:
# "bash ./run_vmtests.sh -t CATEGORY", which loads and unloads the modules
# its scripts need (test_hmm.sh, test_hmm_dummy.sh, test_mmu_notifier.sh).
#
# The guest only provides what a test machine has: swap (tests/guest/init),
# reserved huge pages, and a disk file system at /mnt/wb for the cases that
# need a block-backed file (writeback). The KTAP output is echoed to the console and saved in
# /run/ktap/kselftest:CATEGORY.tap; tests/guest/init prints it again as one block
# at the end, and the host parses it (scripts/boot/ktap.awk). Nothing here
# interprets results, except that a category that cannot start gets a
# RESULT line saying why.
KSFT=${KSFT_DIR:-/tests/kselftest}
cat=$1 tmo=${2:-2400}
[ -n "$cat" ] || { echo "usage: $0 CATEGORY [TIMEOUT_S]" >&2; exit 2; }
suite=kselftest:$cat
mkdir -p /run/ktap
tap=/run/ktap/$suite.tap

fail() {
	echo "RESULT $suite __suite__ FAIL $1" | tee -a "${RESULTS_FILE:-/dev/null}"
	exit 1
}
[ -x /bin/bash ] || fail "SETUP=no-bash"
[ -f "$KSFT/mm/run_vmtests.sh" ] || fail "NOTFOUND=$KSFT/mm/run_vmtests.sh"

wb=
if ! grep -q " /mnt/wb " /proc/mounts; then
	img=/tmp/ksft-wb.img
	mkdir -p /mnt/wb
	if dd if=/dev/zero of=$img bs=1M count=16 2>/dev/null &&
	   wb=$(losetup -f) && losetup "$wb" $img &&
	   mke2fs -q "$wb" >/dev/null 2>&1 && mount -t ext2 "$wb" /mnt/wb; then
		:
	else
		fail "SETUP=/mnt/wb"
	fi
fi

# A test machine has huge pages reserved (hugepages= at boot): the 256 MiB
# run_vmtests.sh wants, which it also falls back to after its hugetlb and
# userfaultfd categories.
hp=$(cat /proc/sys/vm/nr_hugepages)
[ "$hp" -ge 128 ] || echo 128 > /proc/sys/vm/nr_hugepages
echo "==KTAP-RUN $suite=="
cd "$KSFT/mm" || fail "SETUP=cd"
# The exit code is run_vmtests.sh's summary of what the KTAP says; the host
# reads the KTAP, and a killed run shows there as a missing plan.
{ timeout -s KILL "$tmo" bash ./run_vmtests.sh -t "$cat" 2>&1; echo $? > "$tap.rc"; } | tee "$tap"
rc=$(cat "$tap.rc")
[ "$rc" = 137 ] && echo "# run-kselftest: killed after ${tmo}s" | tee -a "$tap"
echo "==KTAP-DONE $suite rc=$rc=="

echo "$hp" > /proc/sys/vm/nr_hugepages
if [ -n "$wb" ]; then
	cd /
	umount /mnt/wb && losetup -d "$wb"
	rm -f /tmp/ksft-wb.img
fi
exit 0
