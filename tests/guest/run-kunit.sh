#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# run-kunit.sh MODULE...  -- load KUnit test modules inside the CI guest.
# The KTAP each module prints (in the kernel log) is echoed to the console
# and saved in /run/ktap/kunit:MODULE.tap; tests/guest/init prints it again as
# one block at the end and the host parses it with its KTAP parser
# (scripts/boot/ktap.awk), as for the kselftest categories. What only the
# guest can see follows as a second KTAP document (tests/guest/suite-lib.sh):
#
#   __load__         modprobe MODULE worked
#   __results__      the module printed a KTAP document with at least one
#                    result (none, or a "1..0", fails as no-KTAP-results)
#   __kernel_log__   no line of tests/kernel-log.pattern in the kernel log
#                    while the module ran
#   __unload__       the module unloads again (one that cannot leaks
#                    something)
#
# Exit status: 0 if none of these failed, 1 otherwise.
# shellcheck disable=SC2034 # read by /tests/suite-lib.sh
KTAP_NO_HEADER=1
# shellcheck disable=SC1090,SC1091
. "${SUITE_LIB:-/tests/suite-lib.sh}"
rc=0
dir=${KTAP_DIR:-/run/ktap}

mkdir -p "$dir"
for m in "$@"; do
	s="kunit:$m"
	tap=$dir/$s.tap
	base=$(dmesg | wc -l)
	echo "==KTAP-RUN $s=="
	if ! modprobe "$m"; then
		{ ktap_begin; emit __load__ FAIL NOTFOUND; ktap_end; } | tee "$tap"
		echo "==KTAP-DONE $s=="
		rc=1
		continue
	fi
	# The module's lines, without their timestamps; KTAP starts at its
	# "KTAP version" line.
	dmesg | tail -n +$((base + 1)) | sed 's/^\[[^]]*\] //' |
		sed -n '/^K\{0,1\}TAP version/,$p' | tee "$tap"
	nres=0
	grep -Eq '^K?TAP version [0-9]+$' "$tap" &&
		nres=$(grep -Ec '^(not )?ok [0-9]+' "$tap")
	k=$(klog_new "$base" | grep -Ec "$(klog_pattern)")
	u=0
	rmmod "$m" || u=1
	{
		ktap_begin
		emit __load__ PASS
		if [ "${nres:-0}" -gt 0 ]; then
			emit __results__ PASS "$nres results"
		else
			emit __results__ FAIL no-KTAP-results
		fi
		if [ "${k:-0}" -gt 0 ]; then
			emit __kernel_log__ FAIL "KERNEL_LOG=$k"
		else
			emit __kernel_log__ PASS
		fi
		if [ $u = 0 ]; then
			emit __unload__ PASS
		else
			emit __unload__ FAIL UNLOAD
		fi
		ktap_end
	} | tee -a "$tap"
	echo "==KTAP-DONE $s=="
	{ [ "${k:-0}" -gt 0 ] || [ $u = 1 ] || [ "${nres:-0}" = 0 ]; } && rc=1
done
exit $rc
