#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# guest-results.sh CONSOLE_LOG
# Print the guest's results, one "RESULT SUITE TEST STATUS [extra]" line
# per test:
# - the RESULT lines of the block tests/guest/init prints at the end with the
#   console muted, or, if the guest died before it, the RESULT lines seen
#   on the console;
# - the KTAP blocks (==KTAP-BEGIN SUITE== ... ==KTAP-END==, from
#   tests/guest/run-kselftest.sh), parsed by scripts/boot/ktap.awk; a suite that
#   started (==KTAP-RUN SUITE==) and has no block fails.
. "$(dirname "$0")/../lib.sh"
case "${1:-}" in -h|--help) usage; exit 0 ;; -*) usage_error "unknown option $1" ;; esac
[ $# -eq 1 ] || usage_error "one CONSOLE_LOG expected"
here=$(dirname "$0")
if grep -aq '^==RESULTS-END==' "$1"; then
	sed -n '/^==RESULTS-BEGIN==/,/^==RESULTS-END==/p' "$1" | tr -d '\r' | grep -a '^RESULT ' || true
else
	tr -d '\r' < "$1" | grep -a '^RESULT ' || true
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
tr -d '\r' < "$1" | awk -v dir="$tmp" '
	/^==KTAP-RUN .*==$/ { n = $2; sub(/==$/, "", n); print n > (dir "/.started"); next }
	/^==KTAP-BEGIN .*==$/ { n = $2; sub(/==$/, "", n); f = dir "/" n; printf "" > f; next }
	/^==KTAP-END==$/ { if (f != "") close(f); f = ""; next }
	f != "" { print > f }'
[ -f "$tmp/.started" ] || exit 0
sort -u "$tmp/.started" | while read -r s; do
	if [ -f "$tmp/$s" ]; then
		awk -v suite="$s" -f "$here/ktap.awk" "$tmp/$s"
	else
		echo "RESULT $s __suite__ FAIL no-KTAP-block(guest-died?)"
	fi
done
