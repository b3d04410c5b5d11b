#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# guest-results.sh [--suites LIST] CONSOLE_LOG
# Print the guest's results, one "RESULT SUITE TEST STATUS [extra]" line
# per test (the host's own format, which test.sh, demo.sh, soak.sh and
# bench.sh read): every suite of the guest speaks KTAP, and its document
# (==KTAP-BEGIN SUITE== ... ==KTAP-END==, printed by tests/guest/init right
# after the suite ends) is parsed by the host's one KTAP parser,
# scripts/boot/ktap.awk. Every suite that started (==KTAP-RUN SUITE==) or
# has a block is parsed, in the order the boot asked for them: a suite
# that started and has no block fails ("no-KTAP-block(guest-died?)": the
# guest died or timed out in it), and a suite the boot asked for that has
# neither fails too ("not-run": the guest died before it, or its
# ==KTAP-RUN line was garbled). The suites asked for are LIST (comma
# separated, as hmmsuites=) or else the hmmsuites= of the kernel command
# line in CONSOLE_LOG.
. "$(dirname "$0")/../lib.sh"
want=''
while [ $# -gt 0 ]; do
	case "$1" in
	-h|--help) usage; exit 0 ;;
	--suites) need_arg "$@"; want=$2; shift ;;
	-*) usage_error "unknown option $1" ;;
	*) break ;;
	esac
	shift
done
[ $# -eq 1 ] || usage_error "one CONSOLE_LOG expected"
here=$(dirname "$0")
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
if [ -z "$want" ]; then
	# awk reads the whole console: a reader that stops at the first match
	# (grep -m1) would fail the pipeline (pipefail) with SIGPIPE.
	want=$(tr -d '\r' < "$1" | awk '
		!found && /Command line:/ {
			for (i = 1; i <= NF; i++)
				if ($i ~ /^hmmsuites=/) {
					sub(/^hmmsuites=/, "", $i); print $i; found = 1; break
				}
		}')
fi
# "shell" is an interactive shell, not a suite with results.
tr ',' '\n' <<<"$want" | awk 'NF && $0 != "shell"' > "$tmp/.wanted"
: > "$tmp/.started"
: > "$tmp/.blocks"
tr -d '\r' < "$1" | awk -v dir="$tmp" '
	/^==KTAP-RUN .*==$/ { n = $2; sub(/==$/, "", n); print n > (dir "/.started"); next }
	/^==KTAP-BEGIN .*==$/ { n = $2; sub(/==$/, "", n); f = dir "/" n; printf "" > f
				print n > (dir "/.blocks"); next }
	/^==KTAP-END==$/ { if (f != "") close(f); f = ""; next }
	f != "" { print > f }'
# The suites asked for first, in their order, then any other that started
# or printed a block.
cat "$tmp/.wanted" "$tmp/.started" "$tmp/.blocks" | awk 'NF && !seen[$0]++' |
while read -r s; do
	if grep -qxF -- "$s" "$tmp/.blocks"; then
		awk -v suite="$s" -f "$here/ktap.awk" "$tmp/$s"
	elif grep -qxF -- "$s" "$tmp/.started"; then
		echo "RESULT $s __suite__ FAIL no-KTAP-block(guest-died?)"
	else
		echo "RESULT $s __suite__ FAIL not-run"
	fi
done
