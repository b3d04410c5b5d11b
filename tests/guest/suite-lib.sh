# SPDX-License-Identifier: GPL-2.0
# KTAP for the guest: sourced as /tests/suite-lib.sh by the suite hooks
# (tests/guest/suites/NAME.sh, installed as /tests/suites/NAME) and by the
# runners (run-kselftest.sh, run-kunit.sh). busybox sh only.
#
# A suite hook's standard output is one KTAP document (tests/guest/init
# keeps it in /run/ktap/SUITE.tap for the host's KTAP parser,
# scripts/boot/ktap.awk): sourcing this file prints "TAP version 13", and
# the plan ("1..N") is printed when the hook exits. A hook killed before
# its end leaves no plan, which the parser reports as a failure.
# Set KTAP_NO_HEADER=1 before sourcing to print neither (a runner that
# writes a document of its own with ktap_begin / ktap_end).
#
# emit TEST STATUS [DETAIL]: one result, STATUS PASS, FAIL or SKIP; TEST
# has no blanks. DETAIL is the reason after "#" of a failure or a skip,
# and a "# TEST: DETAIL" diagnostic line before a pass.
KTAP_N=0
emit() {
	KTAP_N=$((KTAP_N + 1))
	case "$2" in
	PASS)
		[ -n "$3" ] && echo "# $1: $3"
		echo "ok $KTAP_N $1" ;;
	SKIP)
		echo "ok $KTAP_N $1 # SKIP${3:+ $3}" ;;
	*)
		# A failure's reason must not read as a directive.
		_r=$3
		case "$_r" in [Ss][Kk][Ii][Pp]*|[Tt][Oo][Dd][Oo]*|[Xx][Ff][Aa][Ii][Ll]*) _r="reason: $_r" ;; esac
		echo "not ok $KTAP_N $1${_r:+ # $_r}" ;;
	esac
}
ktap_begin() { KTAP_N=0; echo "TAP version 13"; }
ktap_end() { echo "1..$KTAP_N"; }

# run_program NAME PROGRAM [ARG...]: run PROGRAM with its output (its own
# KTAP, see tests/programs/ktap.h) as a subtest, every line prefixed with
# "# " as kselftest nests a program's output, then the result "NAME" (FAIL
# with EXIT=rc if PROGRAM exits non-zero). Returns PROGRAM's exit status.
run_program() {
	_rp_name=$1
	shift
	{ "$@" 2>&1; echo $? > "/tmp/$_rp_name.rc"; } | awk '{ print "# " $0; fflush() }'
	_rp_rc=$(cat "/tmp/$_rp_name.rc" 2>/dev/null || echo 1)
	if [ "$_rp_rc" -eq 0 ]; then
		emit "$_rp_name" PASS
	else
		emit "$_rp_name" FAIL "EXIT=$_rp_rc"
	fi
	return "$_rp_rc"
}

# klog_pattern: tests/kernel-log.pattern as one ERE (what the host's
# scripts/check/check-log.sh looks for); klog_new BASE: the kernel log
# lines after the first BASE, without call-trace frames (they name
# functions, not problems).
klog_pattern() {
	_p=$(grep -v '^#' /tests/kernel-log.pattern 2>/dev/null | paste -sd '|')
	echo "${_p:-WARNING:|BUG:|Oops}"
}
klog_new() {
	dmesg | tail -n +$(($1 + 1)) |
		grep -vE '^\[ *[0-9]+\.[0-9]+\] +(\? )?[A-Za-z0-9_.]+\+0x[0-9a-f]+/0x[0-9a-f]+'
}

if [ "${KTAP_NO_HEADER:-0}" != 1 ]; then
	ktap_begin
	trap ktap_end EXIT
fi
