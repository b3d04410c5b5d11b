#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# guest-results.sh CONSOLE_LOG
# Print the guest's RESULT lines ("RESULT SUITE TEST STATUS [extra]"): from
# the block ci/guest/init prints at the end with the console muted, or, if
# the guest died before it, the RESULT lines seen on the console.
set -euo pipefail
[ $# -eq 1 ] && [ "$1" != --help ] || { echo "usage: $0 CONSOLE_LOG" >&2; exit 2; }
if grep -aq '^==RESULTS-END==' "$1"; then
	sed -n '/^==RESULTS-BEGIN==/,/^==RESULTS-END==/p' "$1" | tr -d '\r' | grep -a '^RESULT ' || true
else
	tr -d '\r' < "$1" | grep -a '^RESULT ' || true
fi
