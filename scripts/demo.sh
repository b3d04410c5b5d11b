#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# demo.sh
# The main job, from a fresh machine: install what is needed, get the base
# tree, apply the series, build the patched kernel, boot it under QEMU, run
# the HMM demo suites and print what happened.
. "$(dirname "$0")/lib.sh"
case "${1:-}" in -h|--help) sed -n '3,6p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;; esac

need_pkgs "${BUILD_PKGS[@]}"
"$TOP/scripts/get-base.sh"
WT=$WORKDIR/demo-tree
"$TOP/scripts/import.sh" --worktree "$WT"
out=$BUILD_ROOT/series
"$TOP/scripts/build.sh" "$WT" "$out" "$TOP/configs/guest.config" "$TOP/configs/hmm.config"
R=$WORKDIR/results/demo
rm -rf "$R" && mkdir -p "$R"
"$TOP/scripts/build-guest-tests.sh" "$WT" "$R/tests" >"$R/guest-tests.log" 2>&1 ||
	{ tail -n 30 "$R/guest-tests.log"; die "building the guest test programs failed"; }
"$TOP/scripts/mkinitramfs.sh" "$out" "$R/tests" "$R/initramfs.cpio.gz"
suites=$(sed -e 's/#.*//' "$TOP/ci/suites/demo" | awk 'NF { print $1 }' | paste -sd, -)
rc=0
"$TOP/scripts/run-qemu.sh" "$out/arch/x86/boot/bzImage" "$R/initramfs.cpio.gz" \
	"$R/console.log" "$suites" 1200 || rc=1
echo
echo "---- what the guest did (full log: $R/console.log)"
sed -n '/^GUEST-BEGIN/,/^==RESULTS-BEGIN==/p' "$R/console.log" | grep -av '^==RESULTS' |
	grep -aE '^(GUEST|RESULT|DEMO|#  (OK|FAIL|SKIP)|ok |not ok )' | tr -d '\r'
"$TOP/scripts/check-log.sh" "$R/console.log" || rc=1
p=$("$TOP/scripts/guest-results.sh" "$R/console.log" | grep -c ' PASS' || true)
f=$("$TOP/scripts/guest-results.sh" "$R/console.log" | grep -c ' FAIL' || true)
echo "demo: $p passed, $f failed (kernel $(git -C "$WT" describe --always --tags), $(git -C "$WT" rev-list --count "$BASE_TAG..HEAD") patches)"
exit $rc
