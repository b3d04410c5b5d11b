#!/bin/sh
SUITE=chk
. /tests/suite-lib.sh
B=/tests/bench
trap "" PIPE
modprobe hmm_dummy devmem_mb=200 || emit load-dummy FAIL
[ -f $B/hmm_dummy_timed.ko ] && { insmod $B/hmm_dummy_timed.ko devmem_mb=200 || emit load-timed FAIL; }
insmod $B/hmm_upstream_bench.ko devmem_mb=200 || emit load-upb FAIL
if true; then
run_program thp-split $B/hmm-bench -g migrate -m 2M,64M -B thp -X move -r 10 -T -i ours,upstream,upstream_c,ours_t,upstream_t,upstream_t_c -o /tmp/b1.csv -w /tmp/r1.csv -p
fi
run_program rowsets $B/hmm-bench -g migrate -m 64K,2M -r 10 -X main,fork,mt,pp -i ours,upstream -o /tmp/b2.csv -w /tmp/r2.csv
