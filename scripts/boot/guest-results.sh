#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# guest-results.sh CONSOLE_LOG
# Print the guest's results, one "RESULT SUITE TEST STATUS [extra]" line
# per test (the host's own format, which test.sh, demo.sh, soak.sh and
# bench.sh read): every suite of the guest speaks KTAP, and its document
# (==KTAP-BEGIN SUITE== ... ==KTAP-END==, printed by tests/guest/init at the
# end) is parsed by the host's one KTAP parser, scripts/boot/ktap.awk. A
# suite that started (==KTAP-RUN SUITE==) and has no block fails.
. "$(dirname "$0")/../lib.sh"
case "${1:-}" in -h|--help) usage; exit 0 ;; -*) usage_error "unknown option $1" ;; esac
[ $# -eq 1 ] || usage_error "one CONSOLE_LOG expected"
here=$(dirname "$0")
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
tr -d '\r' < "$1" | awk -v dir="$tmp" '
	/^==KTAP-RUN .*==$/ { n = $2; sub(/==$/, "", n); print n > (dir "/.started"); next }
	/^==KTAP-BEGIN .*==$/ { n = $2; sub(/==$/, "", n); f = dir "/" n; printf "" > f; next }
	/^==KTAP-END==$/ { if (f != "") close(f); f = ""; next }
	f != "" { print > f }'
[ -f "$tmp/.started" ] || exit 0
awk '!seen[$0]++' "$tmp/.started" | while read -r s; do
	if [ -f "$tmp/$s" ]; then
		awk -v suite="$s" -f "$here/ktap.awk" "$tmp/$s"
	else
		echo "RESULT $s __suite__ FAIL no-KTAP-block(guest-died?)"
	fi
done
