#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Guest suite "soak" (/tests/suites/soak, run by tests/guest/init): loads
# hmm_dummy with a device memory pool sized for the soak, makes sure swap on
# zram is there, runs /tests/soak/hmm-soak (its KTAP results a subtest of
# the result hmm-soak) and checks that hmm_dummy unloads.
# Not part of tests/plans/*: run it with scripts/soak.sh.
# Arguments: /tests/soak/args if present (scripts/soak.sh writes it).
# /tests/soak/bin/stress-ng, when bundled, gives the -m background pressure.
# shellcheck disable=SC2034 # read by /tests/suite-lib.sh (tests/guest/)
SUITE=soak
# shellcheck disable=SC1091
. /tests/suite-lib.sh
S=/tests/soak
args="-t 60 -p 4"
[ -f $S/args ] && args=$(cat $S/args)
[ -d $S/bin ] && PATH=$S/bin:$PATH && export PATH
# hmm_dummy's pool (devmem_mb MiB per device, 2 devices, allocated at load):
# room for every region of every worker on one device (-p x -r x -M MiB,
# defaults 4 x 4 x 8), plus 32 MiB, at most 1024. Smaller pools are fine
# (migration is then partial), this one lets most migrations succeed.
devmem_mb() {
	p=4 r=4 m=8
	# shellcheck disable=SC2086 # args is a word list
	set -- $args
	while [ $# -gt 0 ]; do
		case "$1" in
		-p) p=${2:-$p}; shift ;;
		-p*) p=${1#-p} ;;
		-r) r=${2:-$r}; shift ;;
		-r*) r=${1#-r} ;;
		-M) m=${2:-$m}; shift ;;
		-M*) m=${1#-M} ;;
		esac
		[ $# -gt 0 ] && shift
	done
	mb=$((p * r * m + 32))
	[ "$mb" -gt 1024 ] && mb=1024
	echo "$mb"
}
mb=$(devmem_mb)
loaded=
if [ ! -c /dev/hmm_dummy_device00 ]; then
	if modprobe hmm_dummy devmem_mb="$mb"; then
		loaded=1
	else
		emit hmm_dummy-load FAIL "devmem_mb=$mb"
		exit 1
	fi
fi
# devtmpfs creates the nodes asynchronously
for _ in 1 2 3 4 5 6 7 8 9 10; do
	[ -c /dev/hmm_dummy_device13 ] && break
	sleep 1
done
grep -q ' /sys/kernel/debug ' /proc/mounts || mount -t debugfs debugfs /sys/kernel/debug
# Swap (init sets it up on zram when the kernel has zram).
if ! awk 'NR > 1 { found = 1 } END { exit !found }' /proc/swaps; then
	if [ -e /sys/block/zram0/disksize ] &&
	   echo 1G > /sys/block/zram0/disksize 2>/dev/null &&
	   mkswap /dev/zram0 >/dev/null && swapon /dev/zram0; then
		echo "# soak: swap on zram0"
	else
		echo "# soak: no swap (no zram): nothing is pushed out"
	fi
fi
echo "# soak: hmm-soak $args (devmem_mb=$(cat /sys/module/hmm_dummy/parameters/devmem_mb 2>/dev/null)," \
     "THP: $(cat /sys/kernel/mm/transparent_hugepage/enabled 2>/dev/null)," \
     "stress-ng: $(command -v stress-ng || echo none))"
cd /tmp || exit 1
# shellcheck disable=SC2086 # args is a word list
run_program hmm-soak $S/hmm-soak $args
rc=$?
# Every mirror and device page must be gone: the module unloads.
if [ -n "$loaded" ]; then
	rmmod hmm_dummy || { emit hmm_dummy-unload FAIL; rc=1; }
fi
[ "$rc" -eq 0 ]
