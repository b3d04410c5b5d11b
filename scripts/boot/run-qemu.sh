#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# run-qemu.sh BZIMAGE INITRAMFS LOG SUITES [TIMEOUT_S]
# Boot the test kernel under QEMU (TCG by default; QEMU_ACCEL=kvm to
# override), run SUITES (comma separated, see tests/guest/init) and write the
# serial console to LOG. Exits 0 only if the guest reached its end marker
# with rc=0; the log is then checked by scripts/check/check-log.sh.
. "$(dirname "$0")/../lib.sh"
case "${1:-}" in -h|--help) usage; exit 0 ;; -*) usage_error "unknown option $1" ;; esac
[ $# -ge 4 ] && [ $# -le 5 ] || usage_error "BZIMAGE INITRAMFS LOG SUITES [TIMEOUT_S] expected"
kernel=$1 initrd=$2 logf=$3 suites=$4 tmo=${5:-1800}
need_pkgs qemu-system-x86
accel=${QEMU_ACCEL:-tcg}
cpu=max
[ "$accel" = kvm ] && cpu=host
mem=${QEMU_MEM:-4G}
append="console=ttyS0,115200 earlyprintk=serial,ttyS0,115200 panic=-1"
append+=" log_buf_len=16M numa=fake=2 transparent_hugepage=madvise"
append+=" hmmsuites=$suites ${QEMU_APPEND:-}"
log "qemu: $accel, $cpu, $mem, suites $suites, timeout ${tmo}s, log $logf"
start=$(date +%s)
set +e
qemu=(qemu-system-x86_64 -machine pc,accel="$accel" -cpu "$cpu"
	-smp "${QEMU_SMP:-3}" -m "$mem" -nographic -no-reboot -monitor none -serial stdio
	-kernel "$kernel" -initrd "$initrd" -append "$append")
if [ -n "${QEMU_INTERACTIVE:-}" ]; then
	# e.g. QEMU_INTERACTIVE=1 run-qemu.sh ... shell: console on this terminal
	"${qemu[@]}" 2>&1 | tee "$logf"
	qrc=${PIPESTATUS[0]}
else
	timeout -k 10 "$tmo" "${qemu[@]}" </dev/null >"$logf" 2>&1
	qrc=$?
fi
set -e
log "qemu: exited $qrc after $(( $(date +%s) - start ))s"
[ $qrc -eq 124 ] && { echo "run-qemu: TIMEOUT after ${tmo}s" >> "$logf"; die "guest timed out after ${tmo}s (log: $logf)"; }
grep -q '^GUEST-END rc=' "$logf" || die "guest did not reach its end marker (crash or panic?): see $logf"
grep -q '^GUEST-END rc=0' "$logf" || { log "guest reported failures (see the KTAP blocks in $logf)"; exit 1; }
