#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# check-log.sh LOG
# Fail if the kernel said anything that means a bug: BUG, WARNING, Oops,
# KASAN/UBSAN/KCSAN reports, lockdep splats, kmemleak suspects, bad page or
# pte, bad rss counters, RCU stalls, soft lockups, hung tasks, panics.
# Scans the dmesg the guest dumped at the end and every timestamped kernel
# line of the console (the latter also covers a guest that died early).
. "$(dirname "$0")/../lib.sh"
case "${1:-}" in
-h|--help) usage; exit 0 ;;
-*) usage_error "unknown option $1" ;;
esac
[ $# -eq 1 ] || usage_error "one LOG expected"
logf=$1
[ -f "$logf" ] || die "no log $logf"

# tests/kernel-log.pattern, plus "lockdep" (its informational lines are
# excluded below).
pat="$(grep -v '^#' "$TOP/tests/kernel-log.pattern" | paste -sd '|')|lockdep"

kernel_lines() {
	# dmesg section, plus kernel-timestamped console lines, plus kmemleak
	# reports (printed by the guest from debugfs).
	{
		sed -n '/^==DMESG-BEGIN==$/,/^==DMESG-END==$/p' "$logf"
		grep -aE '^\[ *[0-9]+\.[0-9]+\]' "$logf" || true
		grep -aE '^unreferenced object' "$logf" || true
	} | tr -d '\r'
}
# Call trace frames ("[ t]  ? lockdep_hardirqs_on+0x1/0x2") name functions,
# not problems: an expected OOM-kill report (memcg tests) has them. A real
# report has its own header line, which is still matched.
frame='^\[ *[0-9]+\.[0-9]+\] +(\? )?[A-Za-z0-9_.]+\+0x[0-9a-f]+/0x[0-9a-f]+'
hits=$(kernel_lines | grep -avE "$frame" | grep -aE "$pat" | grep -avE 'lockdep: (Dependency|Lock) |"lockdep_|RCU lockdep checking is enabled' | sort -u || true)
if [ -n "$hits" ]; then
	echo "check-log: kernel reported problems in $logf:" >&2
	echo "$hits" | head -n 40 >&2
	exit 1
fi
log "check-log: $logf clean"
