# SPDX-License-Identifier: GPL-2.0
# Shared by the guest suite hooks (tests/guest/suites/NAME.sh, installed as
# /tests/suites/NAME): sourced as /tests/suite-lib.sh after setting SUITE.
# busybox sh only.
#
# emit TEST STATUS [EXTRA]: one "RESULT $SUITE TEST STATUS [EXTRA]" line, on
# the console and in the results file that tests/guest/init prints again at
# the end.
emit() { echo "RESULT $SUITE $1 $2${3:+ $3}" | tee -a "${RESULTS_FILE:-/dev/null}"; }

# run_program NAME PROGRAM [ARG...]: run PROGRAM with its output on the
# console and in /tmp/NAME.log, keep its own "RESULT $SUITE ..." lines in
# the results file, then emit "NAME PASS" or "NAME FAIL EXIT=rc". Returns
# PROGRAM's exit status.
run_program() {
	_rp_name=$1
	shift
	{ "$@" 2>&1; echo $? > "/tmp/$_rp_name.rc"; } | tee "/tmp/$_rp_name.log"
	_rp_rc=$(cat "/tmp/$_rp_name.rc" 2>/dev/null || echo 1)
	grep "^RESULT $SUITE " "/tmp/$_rp_name.log" >> "${RESULTS_FILE:-/dev/null}"
	if [ "$_rp_rc" -eq 0 ]; then
		emit "$_rp_name" PASS
	else
		emit "$_rp_name" FAIL "EXIT=$_rp_rc"
	fi
	return "$_rp_rc"
}
