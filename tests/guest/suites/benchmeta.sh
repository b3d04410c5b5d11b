#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Guest suite "benchmeta" (/tests/suites/benchmeta, run by tests/guest/init;
# run it with scripts/bench.sh --meta): the memory each side's device
# memory costs, measured as the MemFree drop of registering it. Ours:
# modprobe hmm_dummy devmem_mb=M (2 devices, struct hmm_devmem each: the
# core's reverse map and memcg ids, no struct page). Upstream: insmod
# hmm_upstream_bench devmem_mb=M ndevices=2 (memremap_pages() of
# MEMORY_DEVICE_PRIVATE: a struct page per device page). Both drivers back
# their fake device memory with the same pool of system pages and the same
# pool arrays (hmm_upstream_bench copies hmm_dummy's allocator), so what
# differs between the sides is the core's metadata.
# First each module is loaded and unloaded once, unmeasured (the first
# load of a boot also allocates one-off kernel structures). Then for each
# repetition, the sizes and the two sides in a random order (awk
# srand(SEED * 1000 + rep)): drop caches, the counters before, load, wait 2 s,
# the counters after, unload, MemFree again. One line per measurement:
#   META,rep,side,devmem_mb,ndevices,pool_kb,drop_kb,back_kb,memmap_kb,
#   vmalloc_kb,slab_kb,percpu_kb,fpcp_drop_kb
# (pool_kb: the pool's pages; drop_kb: MemFree before - after the load;
# back_kb: MemFree after the unload - after the load; the others: what the
# load added to /proc/vmstat's nr_memmap_pages (struct pages, vmemmap
# included) and to /proc/meminfo's VmallocUsed, SUnreclaim and Percpu,
# which hold every allocation of either side's registration, in KiB;
# fpcp_drop_kb: as drop_kb, with the free pages of the per-CPU lists
# (/proc/zoneinfo's "count:") added to MemFree on both sides, since the
# pool's pages pass through those lists by the MiB. MemFree moves with
# everything else the guest does; the four counters do not) between
# ==BENCH-META-BEGIN== and ==BENCH-META-END==, read by scripts/bench.sh
# --meta. KTAP results: every load and unload.
# Arguments: /tests/bench/meta-args if present: "SIZES REPS SEED", sizes in
# MiB per device, comma separated (default "128,512,1024 5 1").
# shellcheck disable=SC2034 # read by /tests/suite-lib.sh (tests/guest/)
SUITE=benchmeta
# shellcheck disable=SC1091
. /tests/suite-lib.sh
B=/tests/bench
sizes=128,512,1024 reps=5 seed=1
# shellcheck disable=SC2046 # three words
[ -f $B/meta-args ] && set -- $(cat $B/meta-args) && sizes=$1 reps=$2 seed=$3
upb=$B/hmm_upstream_bench.ko
rc=0
dmesg -n 1
memfree() { awk '/^MemFree:/ { print $2 }' /proc/meminfo; }
# counters: "MemFree memmap_kb VmallocUsed SUnreclaim Percpu MemFree+pcp",
# in KiB
counters() {
	# fold the per-CPU vmstat deltas into the global counters first
	echo 1 > /proc/sys/vm/stat_refresh 2>/dev/null
	{
		cat /proc/meminfo
		awk '$1 == "nr_memmap_pages" { print "memmap:", $2 * 4 }' /proc/vmstat
		awk '$1 == "count:" { n += $2 } END { print "pcp:", n * 4 }' /proc/zoneinfo
	} 2>/dev/null | awk '/^MemFree:/ { f = $2 } /^memmap:/ { m = $2 } /^VmallocUsed:/ { v = $2 }
		/^SUnreclaim:/ { s = $2 } /^Percpu:/ { p = $2 } /^pcp:/ { c = $2 }
		END { print f + 0, m + 0, v + 0, s + 0, p + 0, f + c }'
}
settle() {
	sync
	echo 3 > /proc/sys/vm/drop_caches
	sleep 1
}
for m in hmm_dummy hmm_upstream_bench test_hmm; do
	lsmod | grep -q "^$m " && rmmod $m
done
if [ ! -f $upb ]; then
	emit hmm_upstream_bench-present FAIL "no $upb"
	exit 1
fi
echo "# env: memtotal_kb=$(awk '/^MemTotal:/ { print $2 }' /proc/meminfo) memfree_kb=$(memfree)"
# the memcg id array (2 B per device page) exists only with memcg enabled
# (newer /proc/cgroups lists v1 controllers only: memcg is on unless the
# command line disables it)
memcg=1
grep -qw 'cgroup_disable=memory' /proc/cmdline && memcg=0
echo "# env: memcg_enabled=$memcg meta_args=$sizes,$reps,$seed"
echo "# env: cmdline=$(cat /proc/cmdline)"

# one SIDE MB REP: load, measure, unload.
one() {
	settle
	# shellcheck disable=SC2046 # six numbers
	set -- "$1" "$2" "$3" $(counters)
	f0=$4 m0=$5 v0=$6 s0=$7 p0=$8 c0=$9
	case $1 in
	ours) modprobe hmm_dummy devmem_mb="$2" ;;
	upstream) insmod $upb devmem_mb="$2" ndevices=2 ;;
	esac || { emit "load-$1-$2-$3" FAIL; rc=1; return; }
	# a module left loaded would have kept its old size: check it
	case $1 in
	ours) p=/sys/module/hmm_dummy/parameters ;;
	upstream) p=/sys/module/hmm_upstream_bench/parameters ;;
	esac
	if [ "$(cat "$p/devmem_mb")" != "$2" ] ||
	   { [ "$1" = upstream ] && [ "$(cat "$p/ndevices")" != 2 ]; }; then
		emit "params-$1-$2-$3" FAIL "devmem_mb=$(cat "$p/devmem_mb")"
		rc=1
	fi
	sleep 2
	# shellcheck disable=SC2046 # six numbers
	set -- "$1" "$2" "$3" $(counters)
	f1=$4 m1=$5 v1=$6 s1=$7 p1=$8 c1=$9
	case $1 in
	ours) rmmod hmm_dummy ;;
	upstream) rmmod hmm_upstream_bench ;;
	esac || { emit "unload-$1-$2-$3" FAIL; rc=1; return; }
	sleep 1
	f2=$(memfree)
	echo "META,$3,$1,$2,2,$(($2 * 1024 * 2)),$((f0 - f1)),$((f2 - f1)),$((m1 - m0)),$((v1 - v0)),$((s1 - s0)),$((p1 - p0)),$((c0 - c1))" >> /tmp/meta.csv
}

rm -f /tmp/meta.csv
# warm-up, not recorded
for side in ours upstream; do
	one "$side" "${sizes%%,*}" 0
done
rm -f /tmp/meta.csv
r=1
while [ "$r" -le "$reps" ]; do
	echo "$sizes" | tr , '\n' | while read -r s; do
		echo "$s ours"
		echo "$s upstream"
	done | awk -v s=$((seed * 1000 + r)) 'BEGIN { srand(s) } { print rand(), $0 }' |
		sort -n | cut -d' ' -f2- > /tmp/meta-order
	# not a pipe: one() must run in this shell (rc, the KTAP count)
	while read -r mb side; do
		one "$side" "$mb" "$r"
	done < /tmp/meta-order
	r=$((r + 1))
done
echo "==BENCH-META-BEGIN=="
echo "META,rep,side,devmem_mb,ndevices,pool_kb,drop_kb,back_kb,memmap_kb,vmalloc_kb,slab_kb,percpu_kb,fpcp_drop_kb"
cat /tmp/meta.csv
echo "==BENCH-META-END=="
n=$(grep -c . /tmp/meta.csv)
want=$(($(echo "$sizes" | tr , '\n' | grep -c .) * 2 * reps))
if [ "$n" -eq "$want" ]; then
	emit measurements PASS "$n"
else
	emit measurements FAIL "$n of $want"
	rc=1
fi
exit $rc
