#!/bin/sh
SUITE=thpcheck
. /tests/suite-lib.sh
B=/tests/bench
trap "" PIPE
# evict_check KO NAME: upb-evict-check against module KO (devmem_mb=8)
evict_check() {
	insmod "$1" devmem_mb=8 || { emit "$2-load" FAIL; return; }
	rm -f /tmp/f /tmp/ec.out /tmp/ec.rc; mkfifo /tmp/f
	( $B/upb-evict-check < /tmp/f > /tmp/ec.out 2>&1; echo $? > /tmp/ec.rc ) &
	exec 3>/tmp/f
	i=0
	while ! grep -q 'migrated\|FAIL\|SKIP' /tmp/ec.out 2>/dev/null && [ $i -lt 60 ]; do sleep 1; i=$((i+1)); done
	grep -q migrated /tmp/ec.out && { rmmod hmm_upstream_bench && echo "# rmmod ok" || emit "$2-rmmod" FAIL; }
	echo go >&3
	exec 3>&-
	wait
	sed 's/^/# /' /tmp/ec.out
	[ -d /sys/module/hmm_upstream_bench ] && rmmod hmm_upstream_bench
	if [ "$(cat /tmp/ec.rc)" = 0 ]; then emit "$2" PASS; else emit "$2" FAIL "rc=$(cat /tmp/ec.rc)"; fi
}
evict_check /tests/x/upb_mut.ko evict-check-mutant
evict_check $B/hmm_upstream_bench.ko evict-check
modprobe hmm_dummy devmem_mb=200 || emit load-dummy FAIL
insmod $B/hmm_dummy_timed.ko devmem_mb=200 || emit load-timed FAIL
insmod $B/hmm_upstream_bench.ko devmem_mb=200 || emit load-upb FAIL
run_program hmmbench-thp $B/hmm-bench -g migrate -m 4M -B thp -X move -r 10 -T -i ours,upstream,upstream_c,ours_t,upstream_t,upstream_t_c -o /tmp/b.csv -w /tmp/braw.csv
grep -c ',thp,' /tmp/braw.csv | sed 's/^/# thp raw lines: /'
grep 'migrate_back_seq,upstream_c\|migrate_back_seq,ours,\|migrate_back_seq,upstream,' /tmp/b.csv | head -6 | sed 's/^/# /'
grep 'migrate_to_dev,' /tmp/b.csv | head -8 | sed 's/^/# /'
