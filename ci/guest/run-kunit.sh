#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# run-kunit.sh MODULE...  -- load KUnit test modules inside the CI guest and
# turn their KTAP output (in the kernel log) into the runner's result lines:
#
#   RESULT kunit:<module> <suite>.<case> PASS|FAIL|SKIP
#   RESULT kunit:<module> __suite__ FAIL <reason>   (NOTFOUND, NORESULT,
#                                                    UNLOAD, KERNEL_LOG=n)
#
# Every KTAP line is echoed to the console. The module is unloaded again
# afterwards; a module that cannot be unloaded fails (it leaks something).
# Exit status: 0 if no FAIL line was printed, 1 otherwise.
RESULTS_FILE=${RESULTS_FILE:-}
KLOG_PATTERN='WARNING:|BUG:|Oops|general protection fault|kernel BUG at|UBSAN:|KASAN:|KFENCE:|list_(add|del) corruption|refcount_t:|Kernel panic|possible circular locking|lockdep'
rc=0

emit() {
	_l="RESULT $1 $2 $3${4:+ $4}"
	echo "$_l"
	[ -n "$RESULTS_FILE" ] && echo "$_l" >>"$RESULTS_FILE"
	[ "$3" = FAIL ] && rc=1
	return 0
}

for m in "$@"; do
	s="kunit:$m"
	base=$(dmesg | wc -l)
	echo "==== BEGIN kunit $m ===="
	if ! modprobe "$m"; then
		emit "$s" __suite__ FAIL NOTFOUND
		continue
	fi
	log=$(dmesg | tail -n +$((base + 1)) | sed 's/^\[[^]]*\] //')
	printf '%s\n' "$log"
	echo "==== END kunit $m ===="
	# KTAP: "# Subtest: suite" then indented "ok N case [# SKIP ...]".
	printf '%s\n' "$log" | awk '
		/^[ \t]*# Subtest: / { sub(/^.*# Subtest: /, ""); suite = $0; next }
		/^[ \t]+(not )?ok [0-9]+ / {
			line = $0; sub(/^[ \t]+/, "", line)
			st = "PASS"
			if (line ~ /^not ok/) { st = "FAIL"; sub(/^not ok [0-9]+ /, "", line) }
			else sub(/^ok [0-9]+ /, "", line)
			if (line ~ /# SKIP/) st = "SKIP"
			sub(/ *#.*$/, "", line); gsub(/[ \t]+/, "_", line)
			print suite "." line, st
		}' > /tmp/kunit-$m.res
	n=0
	while read -r name st; do
		emit "$s" "$name" "$st"
		n=$((n + 1))
	done < /tmp/kunit-$m.res
	[ "${n:-0}" -gt 0 ] || emit "$s" __suite__ FAIL NORESULT
	k=$(printf '%s\n' "$log" | grep -Ec "$KLOG_PATTERN")
	[ "${k:-0}" -gt 0 ] && emit "$s" __kernel__ FAIL "KERNEL_LOG=$k"
	rmmod "$m" || emit "$s" __suite__ FAIL UNLOAD
done
exit $rc
