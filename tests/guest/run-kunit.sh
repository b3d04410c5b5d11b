#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# run-kunit.sh MODULE...  -- load KUnit test modules inside the CI guest.
# The KTAP each module prints (in the kernel log) is echoed to the console
# and saved in /run/ktap/kunit:MODULE.tap; tests/guest/init prints it again as
# one block at the end and the host parses it with its KTAP parser
# (scripts/boot/ktap.awk), as for the kselftest categories. What only the guest
# can see gets a result line here:
#
#   RESULT kunit:<module> __suite__ FAIL <reason>   (NOTFOUND, UNLOAD,
#                                                    KERNEL_LOG=n)
#
# The module is unloaded again afterwards; a module that cannot be unloaded
# fails (it leaks something).
# Exit status: 0 if no FAIL line was printed, 1 otherwise.
RESULTS_FILE=${RESULTS_FILE:-}
TESTS_DIR=${TESTS_DIR:-/tests}
# tests/kernel-log.pattern, installed by scripts/build/build-guest-tests.sh.
KLOG_PATTERN=$(grep -v '^#' "$TESTS_DIR/kernel-log.pattern" 2>/dev/null | paste -sd '|')
KLOG_PATTERN=${KLOG_PATTERN:-WARNING:|BUG:|Oops}
rc=0

emit() {
	_l="RESULT $1 $2 $3${4:+ $4}"
	echo "$_l"
	[ -n "$RESULTS_FILE" ] && echo "$_l" >>"$RESULTS_FILE"
	[ "$3" = FAIL ] && rc=1
	return 0
}

mkdir -p /run/ktap
for m in "$@"; do
	s="kunit:$m"
	base=$(dmesg | wc -l)
	echo "==KTAP-RUN $s=="
	if ! modprobe "$m"; then
		emit "$s" __suite__ FAIL NOTFOUND
		continue
	fi
	# The module's lines, without their timestamps; KTAP starts at its
	# "KTAP version" line.
	dmesg | tail -n +$((base + 1)) | sed 's/^\[[^]]*\] //' |
		sed -n '/^K\{0,1\}TAP version/,$p' | tee "/run/ktap/$s.tap"
	echo "==KTAP-DONE $s=="
	k=$(dmesg | tail -n +$((base + 1)) |
		grep -vE '^\[ *[0-9]+\.[0-9]+\] +(\? )?[A-Za-z0-9_.]+\+0x[0-9a-f]+/0x[0-9a-f]+' |
		grep -Ec "$KLOG_PATTERN")
	[ "${k:-0}" -gt 0 ] && emit "$s" __kernel__ FAIL "KERNEL_LOG=$k"
	rmmod "$m" || emit "$s" __suite__ FAIL UNLOAD
done
exit $rc
