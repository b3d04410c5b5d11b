#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# demo.sh [--lts]
# The main job, from a fresh machine: install what is needed, get the base
# tree, apply the series, build the patched kernel, boot it under QEMU, run
# the HMM demo suites (tests/plans/demo) and print what happened: what HMM did,
# step by step, from the kernel's counters, then the tests per suite.
# The series on mainline Linux 7.3.4 (patches/, series) unless HMM_BASE
# says otherwise.
#   --lts   the 6.12 LTS backport instead (backports/6.12/, on Debian 12's
#           linux-source-6.12; the same as HMM_BASE=6.12)
. "$(dirname "$0")/lib.sh"
case "${1:-}" in
-h|--help) usage; exit 0 ;;
--lts) select_base 6.12; shift ;;
esac
[ $# -eq 0 ] || usage_error "unknown argument $1"

need_pkgs "${BUILD_PKGS[@]}"
"$TOP/scripts/series/get-base.sh"
WT=$WORKDIR/demo-tree
"$TOP/scripts/series/import.sh" --worktree "$WT"
out=$BUILD_ROOT/series
mapfile -t cfg < <(configs guest hmm)
"$TOP/scripts/build/build.sh" "$WT" "$out" "${cfg[@]}"
R=$WORKDIR/results/demo
rm -rf "$R" && mkdir -p "$R"
env -u KSFT_TIMEOUT_SCALE "$TOP/scripts/build/build-guest-tests.sh" "$WT" "$R/tests" >"$R/guest-tests.log" 2>&1 ||
	{ tail -n 30 "$R/guest-tests.log"; die "building the guest test programs failed"; }
suites=$(sed -e 's/#.*//' "$TOP/tests/plans/demo" | awk 'NF { print $1 }' | paste -sd, -)
rc=0
# Into $R: console.log, results.txt, kernel-log.txt (scripts/boot/boot.sh).
"$TOP/scripts/boot/boot.sh" --timeout 1200 "$out" "$R/tests" "$suites" "$R" || rc=1
echo
echo "---- the guest: $(tr -d '\r' < "$R/console.log" | grep -a -m1 '^GUEST-BEGIN' | cut -d' ' -f2-)"
# The demo suite's own lines (tests/programs/hmm-demo.c, nested in the
# suite's KTAP with "# "), without their "# DEMO N " prefix: what HMM did,
# step by step, from the kernel's own counters. Once: the console up to the
# KTAP blocks tests/guest/init prints again at the end.
echo "---- what HMM did"
tr -d '\r' < "$R/console.log" | sed -n '/^GUEST-BEGIN/,/^==KTAP-BEGIN /p' |
	grep -a '^# DEMO' | sed -E 's/^# DEMO( [0-9]+)? ?/  /'
echo
echo "---- the tests (every result: $R/results.txt, full log: $R/console.log)"
awk '{ s = $2; if (!(s in seen)) { seen[s] = 1; order[n++] = s } c[s, $4]++ }
     END { for (i = 0; i < n; i++) { s = order[i]
		printf "  %-24s %4d passed, %d failed, %d skipped\n", s,
			c[s, "PASS"], c[s, "FAIL"], c[s, "SKIP"] } }' "$R/results.txt"
grep ' FAIL' "$R/results.txt" | sed 's/^RESULT /  FAIL: /' || true
grep -qx 'kernel-log FAIL' "$R/steps.txt" && sed 's/^/  /' "$R/kernel-log.txt"
p=$(grep -c ' PASS' "$R/results.txt" || true)
f=$(grep -c ' FAIL' "$R/results.txt" || true)
echo "demo: $p passed, $f failed (base $HMM_BASE, kernel $(git -C "$WT" describe --always --tags), $(git -C "$WT" rev-list --count "$BASE_TAG..HEAD") patches)"
exit $rc
