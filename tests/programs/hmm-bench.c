// SPDX-License-Identifier: GPL-2.0
/*
 * hmm-bench: side-by-side micro benchmarks of the series' HMM mirror
 * (hmm_dummy, /dev/hmm_dummy_device00) and upstream HMM, run in the test
 * guest, in one boot. Implementations (the "impl" column):
 *   ours      the series: hmm_dummy device 0 (pfn entries)
 *   upstream  upstream's DEVICE_PRIVATE/migrate_vma API as a driver would
 *             use it: tests/programs/hmm_upstream_bench/ (out of tree,
 *             /dev/hmm_upstream_bench0; migrate and read groups)
 *   test_hmm  lib/test_hmm.c (/dev/hmm_dmirror0), a labelled reference.
 *             Before issue 19 this column said "upstream" (and
 *             "upstream_lru", "upstream_rel"); scripts/bench.sh --compare
 *             renames those in older CSV files.
 *
 * Rows (see Documentation/benchmarks.md of the series repository):
 *   memcpy_user                  glibc memcpy of N MiB in user space (was
 *                                "memcpy"; under TCG rep movsb, not the
 *                                kernel's copy: see ceiling_copy_page)
 *   dev_read_first  ours|upstream|test_hmm 4k|thp   first device read of N
 *                                MiB of CPU-written anonymous memory (device
 *                                faults)
 *   dev_read_second ours|upstream|test_hmm 4k|thp   the same read again
 *   munmap / mprotect_ro  ours|test_hmm|none  syscall on a range mirrored
 *                                by ours, by test_hmm, or not mirrored
 *   mirror_table    ours|upstream|test_hmm 4k|thp   Slab growth per
 *                                mirrored page
 *   mirror_sparse2m, mirror_sparse64k  ours|upstream|test_hmm 4k   the
 *                                same for one page per 2 MiB / 64 KiB of a
 *                                1 GiB range, read one page at a time
 *   migrate_to_dev  ours|upstream|test_hmm 4k   migration to device memory
 *   migrate_back_seq, migrate_back_rand  ours|upstream|test_hmm 4k   CPU
 *                                touch of every migrated page, in order /
 *                                at random (equal 512-page windows for ours
 *                                and upstream; test_hmm: one page a fault)
 *   sparse_touch    ours|upstream|test_hmm|ours_w1|upstream_w1|ours_ad
 *                                (|upstream_b|upstream_b_w1) 4k, sizes of
 *                                at least 2 MiB   CPU touch of one page per
 *                                2 MiB block of the migrated range,
 *                                touches per second, at each side's window
 *                                (512 for ours and upstream, one page for
 *                                test_hmm) and, IMPL_w1, at a window of one
 *                                page; ours_ad: ours with device 0's window
 *                                "adaptive" (debugfs device0_window), if
 *                                the driver has one
 *   dev_read1, dev_read2 ours|upstream|test_hmm 4k   migrate group: first
 *                                and second device read of the sample's
 *                                CPU-written sub-ranges (the first faults
 *                                every entry in); 16-page accesses and
 *                                512-page faults on ours and upstream
 *   dev_read1_core, dev_read1_coretab  ours_t|upstream_t 4k   -T: MiB per
 *                                second of the first read's device-fault
 *                                core time, without (_core, upstream) and
 *                                with (_coretab) the device table fill
 *   dev_read_migrated ours|upstream|test_hmm 4k   device read of a range
 *                                the device had read, right after
 *                                migrating it to its memory (ours: the
 *                                spared mirror; upstream: its table
 *                                update; no fault on either)
 *   fork_dev, fork_dev_exit, fork_child_touch, fork_parent_write
 *                                ours|upstream|test_hmm 4k   -X fork: fork()
 *                                of a process with the sample on the
 *                                device: the parent's fork(), until
 *                                waitpid(), the child reading every page,
 *                                the parent writing every page; MiB on the
 *                                device per second
 *   mt1_back, mt4_back, mt4_back_il, mt1_read1, mt4_read1
 *                                ours|upstream|test_hmm 4k   -X mt: 1 or 4
 *                                threads, CPU faults after migration (parts
 *                                of whole windows, or interleaved pages) /
 *                                the first device read
 *   pp_bounce, pp_settle, pp_settle_rounds  ours|upstream|test_hmm 4k,
 *                                2 MiB   -X pp: ping-pong rounds (migrate,
 *                                device read, CPU write), ms per round;
 *                                then (migrate, device read) rounds until
 *                                the reads find device memory: ms and
 *                                rounds. ours with its control at the
 *                                loaded tunables
 *   ceiling_copy_page kernel 4k  hmm_upstream_bench's UPB_CEILING mode 0:
 *                                copy_highpage of the same number of pages
 *                                into device pool pages, in the kernel (the
 *                                single-copy ceiling of a migration)
 *   devmem_struct_page ours|test_hmm  struct page bytes per device page
 *                                (by design, not measured)
 *   evict_sweep     ours|test_hmm|test_hmm_lru 4k  oversubscribed
 *                                sequential sweep (migrate + device read of
 *                                each 2 MiB block) over 1.5x and 2x ours'
 *                                pool (-g evict, pool -E MiB)
 *   evict_rate      ours|test_hmm|test_hmm_rel 4k  eviction of 64 MiB of
 *                                device memory, pages per second
 *   rmap_bytes      ours         reverse-map bytes per device page,
 *                                measured (/proc/vmallocinfo)
 *   sys_pagefault, sys_mmap_munmap, sys_fork   no device involved: compare
 *                                a base kernel with the series kernel
 *
 * The migrate group (issue 19) runs one persistent worker process per
 * implementation (ours, upstream, test_hmm; with -A a second upstream
 * worker, upstream_b, as an A/A control), each pinned to CPU 0 with its
 * own mm and device file, commanded through a pipe: only one runs at a
 * time. Every (size, impl) first runs once untimed (warm=1), then -r
 * repetitions, each running every size with the implementations in an
 * order shuffled by a seeded RNG (-S). Sizes are in KiB (-m, 4K..1G);
 * below 4 MiB a sample is K = min(256, 4 MiB / size) operations on
 * disjoint sub-ranges, each in its own 2 MiB block. Every sample is a line
 * of the raw CSV (-w; printed gzip | base64 between ==BENCH-RAW-BEGIN==
 * and ==BENCH-RAW-END== with -p), which scripts/bench-stats.py reads.
 * The other groups run each implementation in its own forked child, so
 * that only one mirror (one mmu notifier) is registered on the measured mm;
 * the memcpy, inval and sys groups' samples are raw lines too, after one
 * warm-up per row (bench-stats.py --base: base kernel against series
 * kernel). The sys group runs right after memcpy, before any device group:
 * on both kernels it finds the same history.
 *
 * Output: a table on stdout between "==BENCH-TABLE-BEGIN==" and
 * "==BENCH-TABLE-END==", and CSV (-o FILE; also printed between
 * "==BENCH-CSV-BEGIN==" and "==BENCH-CSV-END==" with -p).
 *
 * Under QEMU TCG absolute numbers mean little: compare ratios only.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/klog.h>
#include <sys/mman.h>
#include <sys/utsname.h>
#include <sys/wait.h>

#include "lib/test_hmm_uapi.h"	/* upstream test_hmm, from the kernel tree */
#if __has_include("drivers/char/hmm_dummy_uapi.h")
#include "drivers/char/hmm_dummy_uapi.h"	/* the series' dummy driver */
#define HAVE_HMM_DUMMY 1
#else
#define HAVE_HMM_DUMMY 0
#endif
/*
 * The competitor module's private uAPI, tests/programs/hmm_upstream_bench/
 * (found next to this file, or with -I that directory); without it the
 * program builds without the upstream rows.
 */
#if __has_include("hmm_upstream_bench/hmm_upstream_bench_uapi.h")
#include "hmm_upstream_bench/hmm_upstream_bench_uapi.h"
#define HAVE_UPB 1
#elif __has_include("hmm_upstream_bench_uapi.h")
#include "hmm_upstream_bench_uapi.h"
#define HAVE_UPB 1
#else
#define HAVE_UPB 0
#endif

#define MiB (1024UL * 1024UL)
#define PMD_SZ (2 * MiB)
#define PG 4096UL
#define MAXREP 64
#define MAXROWS 512

#define OURS_DEV "/dev/hmm_dummy_device00"
#define TEST_HMM_DEV "/dev/hmm_dmirror0"
/* hmm_upstream_bench: device 0, its statistics, its module parameters */
#define UPB_DEV "/dev/hmm_upstream_bench0"
#define UPB_STATS_PATH "/sys/kernel/debug/hmm_upstream_bench/device0"
#define UPB_PARAM(x) "/sys/module/hmm_upstream_bench/parameters/" x
/* ours' device memory: pool size, statistics of device 0, CPU fault window */
#define OURS_DEVMEM_MB "/sys/module/hmm_dummy/parameters/devmem_mb"
#define OURS_STATS "/sys/kernel/debug/hmm_dummy/device0"
#define OURS_WINDOW "/sys/module/hmm_migrate/parameters/window"
/* hmm_dummy_timed (tests/programs/hmm_dummy_timed), -T: device 0 */
#define OURS_T_DEV "/dev/hmm_dummy_timed_device00"
#define OURS_T_DBG(x) "/sys/kernel/debug/hmm_dummy_timed/" x
#define OURS_T_PARAM(x) "/sys/module/hmm_dummy_timed/parameters/" x

struct row {
	char name[32];
	char impl[24];	/* upstream_t_c_back: 17 */
	char backing[8];
	unsigned long size_kib;
	char unit[12];
	int higher_better;
	int n;
	int nexcl;		/* migrate group: partial samples left out */
	double v[MAXREP];
	char note[160];
};

static struct row *rows;	/* MAP_SHARED: children fill it in */
static int *nrows;
static int *ours_mig_err;	/* shared too: errno of ours' first MIGRATE_TO */
static char evict_skip[160];	/* why the evict group did not run */
static int reps = 5, reps_big = 3, reps_huge = 2;
static int mig_reps = 12;	/* -r too: the migrate group's repetitions */
static unsigned long cap_mib = 256;	/* inval/migrate/thp/pagefault sizes */
static unsigned long sizes[16];
static int nsizes;
static int verbose;
static char *only;		/* comma-separated groups, NULL: all */

static void die(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	fprintf(stderr, "hmm-bench: ");
	vfprintf(stderr, fmt, ap);
	fprintf(stderr, " (errno %d: %s)\n", errno, strerror(errno));
	va_end(ap);
	exit(1);
}

/* ioctl(), restarted when a signal interrupted it. */
static int ioctl_restart(int fd, unsigned long req, void *arg)
{
	int ret;

	do {
		ret = ioctl(fd, req, arg);
	} while (ret && errno == EINTR);
	return ret;
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static int reps_for(unsigned long mib)
{
	return mib >= 512 ? reps_huge : mib >= 256 ? reps_big : reps;
}

static int want(const char *group)
{
	char buf[256], *s, *save;

	if (!only)
		return 1;
	snprintf(buf, sizeof(buf), "%s", only);
	for (s = strtok_r(buf, ",", &save); s; s = strtok_r(NULL, ",", &save))
		if (!strcmp(s, group))
			return 1;
	return 0;
}

static struct row *row_get(const char *name, const char *impl,
			   const char *backing, unsigned long kib,
			   const char *unit, int higher_better)
{
	struct row *r;
	int i;

	for (i = 0; i < *nrows; i++) {
		r = &rows[i];
		if (!strcmp(r->name, name) && !strcmp(r->impl, impl) &&
		    !strcmp(r->backing, backing) && r->size_kib == kib)
			return r;
	}
	if (*nrows >= MAXROWS)
		die("too many rows");
	r = &rows[(*nrows)++];
	memset(r, 0, sizeof(*r));
	snprintf(r->name, sizeof(r->name), "%s", name);
	snprintf(r->impl, sizeof(r->impl), "%s", impl);
	snprintf(r->backing, sizeof(r->backing), "%s", backing);
	snprintf(r->unit, sizeof(r->unit), "%s", unit);
	r->size_kib = kib;
	r->higher_better = higher_better;
	return r;
}

static void add(struct row *r, double v)
{
	if (r->n < MAXREP)
		r->v[r->n++] = v;
	if (verbose)
		fprintf(stderr, "  %s %s %s %luK: %.3f %s\n", r->name, r->impl,
			r->backing, r->size_kib, v, r->unit);
}

/*
 * The raw CSV (-w): one line per sample. The migrate group writes its
 * own (record()); the groups run in a child process (memcpy, inval, sys)
 * append theirs through sample(), with the group's name, the repetition
 * numbered within the row and warm-ups marked (warm=1, rep 0). Those
 * rows have no pairs within a boot: their lines compare kernels, base
 * against series (scripts/bench-stats.py --base).
 */
#define RAW_HEADER "boot,seed,rep,pos,warm,group,row,impl,backing,size_kib,nops,unit,value," \
	"npages,nfaults,core_ns,copy_ns,devmem_ns,table_ns,cb_ns,total_ns,note"
static const char *rawpath = "hmm-bench-raw.csv";	/* -w */
static unsigned long long seed;		/* -S */
static const char *boot_label = "boot";	/* -b */
static const char *raw_group;		/* the child's group, NULL: none */
static FILE *raw_child;			/* the child's stream to rawpath */

/*
 * Sample @v of row @r, repetition @rep (< 0: a warm-up, not in the table)
 * of @nops operations: a raw line if the process runs a group that has
 * them, and the table.
 */
static void sample(struct row *r, int rep, long nops, double v)
{
	if (raw_group) {
		if (!raw_child) {
			raw_child = fopen(rawpath, "a");
			if (!raw_child)
				die("open %s", rawpath);
		}
		fprintf(raw_child, "%s,%llu,%d,0,%d,%s,%s,%s,%s,%lu,%ld,%s,%.6g,,,,,,,,,\"\"\n",
			boot_label, seed, rep < 0 ? 0 : rep, rep < 0, raw_group, r->name,
			r->impl, r->backing, r->size_kib, nops, r->unit, v);
	}
	if (rep >= 0)
		add(r, v);
}

static void note(struct row *r, const char *fmt, ...)
{
	va_list ap;

	if (r->note[0])
		return;		/* first rep's note wins */
	va_start(ap, fmt);
	vsnprintf(r->note, sizeof(r->note), fmt, ap);
	va_end(ap);
}

static int cmpd(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static void stats(const struct row *r, double *med, double *mn, double *mx)
{
	double s[MAXREP];
	int n = r->n;

	memcpy(s, r->v, n * sizeof(double));
	qsort(s, n, sizeof(double), cmpd);
	*mn = s[0];
	*mx = s[n - 1];
	*med = n % 2 ? s[n / 2] : (s[n / 2 - 1] + s[n / 2]) / 2;
}

/* --- memory helpers ------------------------------------------------------ */

/* N bytes of private anonymous memory, 2 MiB aligned, THP or not. */
static char *map_anon(unsigned long size, int thp)
{
	char *p = mmap(NULL, size + PMD_SZ, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	uintptr_t a;

	if (p == MAP_FAILED)
		die("mmap %lu", size);
	a = ((uintptr_t)p + PMD_SZ - 1) & ~(PMD_SZ - 1);
	if (a > (uintptr_t)p)
		munmap(p, a - (uintptr_t)p);
	munmap((char *)a + size, (uintptr_t)p + PMD_SZ - a);
	if (madvise((void *)a, size, thp ? MADV_HUGEPAGE : MADV_NOHUGEPAGE))
		die("madvise");
	return (char *)a;
}

/*
 * Page i of [p, p + size): byte 0 seed + i, bytes 8-15 the page number i
 * itself (a 64-bit marker: byte 0 repeats every 256 pages, so only the
 * marker tells whole 2 MiB folios apart), the rest seed.
 */
#define FILL_MARK	8

static void fill(char *p, unsigned long size, unsigned char seed)
{
	unsigned long i;

	memset(p, seed, size);
	for (i = 0; i < size; i += PG) {
		uint64_t mark = i / PG;

		p[i] = (char)(seed + i / PG);
		memcpy(p + i + FILL_MARK, &mark, sizeof(mark));
	}
}

/*
 * The number after "@key@sep" on a line of @path ("MemFree:" in
 * /proc/meminfo, "in_use " in ours' debugfs statistics); -1 if absent.
 */
static long file_key(const char *path, const char *key, char sep)
{
	char line[256];
	size_t l = strlen(key);
	long v = -1;
	FILE *f = fopen(path, "r");

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, key, l) && line[l] == sep) {
			v = strtol(line + l + 1, NULL, 10);
			break;
		}
	fclose(f);
	return v;
}

/* A /proc/meminfo field, kB (-1 if absent). */
static long meminfo(const char *field)
{
	return file_key("/proc/meminfo", field, ':');
}

/* AnonHugePages of this process, kB. */
static long anon_huge_kb(void)
{
	char line[256];
	long v = 0;
	FILE *f = fopen("/proc/self/smaps_rollup", "r");

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, "AnonHugePages:", 14))
			v = strtol(line + 14, NULL, 10);
	fclose(f);
	return v;
}

/* 2 MiB THP splits so far, system wide (-1 if not counted). */
#define THP_SPLITS "/sys/kernel/mm/transparent_hugepage/hugepages-2048kB/stats/split"

/* A number read from a sysfs parameter file (-1 if absent). */
static long read_long(const char *path)
{
	char line[64];
	long v = -1;
	FILE *f = fopen(path, "r");

	if (!f)
		return -1;
	if (fgets(line, sizeof(line), f))
		v = strtol(line, NULL, 10);
	fclose(f);
	return v;
}

/* A counter of ours' debugfs statistics ("key value" lines; -1 if absent). */
static long ours_stat(const char *key)
{
	return file_key(OURS_STATS, key, ' ');
}

/*
 * The data fill(base, ..., seed) wrote at [base + pgoff pages, + size), found
 * at p (the range itself, or a copy of it), or die. Every byte.
 */
/*
 * Is [p, p + size) not fill()'s data, byte 0 of page i being @b0 + i and
 * its marker @pgoff + i (@p is page @pgoff of what fill() filled)? 0 if
 * it is, else the first wrong page + 1 (no die(): forked children use it
 * too).
 */
static unsigned long fill_bad(const char *p, unsigned long size, unsigned char seed,
			      unsigned char b0, unsigned long pgoff)
{
	for (unsigned long i = 0; i < size; i += PG) {
		uint64_t mark;

		memcpy(&mark, p + i + FILL_MARK, sizeof(mark));
		if (p[i] != (char)(b0 + i / PG) || mark != pgoff + i / PG)
			return i / PG + 1;
		for (unsigned long x = 1; x < PG; x++)
			if ((x < FILL_MARK || x >= FILL_MARK + sizeof(mark)) &&
			    p[i + x] != (char)seed)
				return i / PG + 1;
	}
	return 0;
}

static void check_fill_at(const char *p, unsigned long size, unsigned char seed,
			  unsigned long pgoff, const char *what)
{
	unsigned long bad = fill_bad(p, size, seed, (unsigned char)(seed + pgoff), pgoff);

	if (bad) {
		errno = 0;
		die("%s: wrong data at page %lu", what, pgoff + bad - 1);
	}
}

static void check_fill(const char *p, unsigned long size, unsigned char seed,
		       const char *what)
{
	check_fill_at(p, size, seed, 0, what);
}

/* --- devices --------------------------------------------------------------- */

/*
 * The implementations. TEST_HMM was labelled "upstream" before issue 19;
 * "upstream" is hmm_upstream_bench now (UPB).
 */
enum impl { OURS, TEST_HMM, UPB };
static const char *impl_name[] = { "ours", "test_hmm", "upstream" };
static const char *impl_dev[] = { OURS_DEV, TEST_HMM_DEV, UPB_DEV };

static int have_dev(enum impl i)
{
	if ((i == OURS && !HAVE_HMM_DUMMY) || (i == UPB && !HAVE_UPB))
		return 0;
	return access(impl_dev[i], R_OK | W_OK) == 0;
}

static int dev_open(enum impl i)
{
	int fd = open(impl_dev[i], O_RDWR | O_CLOEXEC);

	if (fd < 0)
		die("open %s", impl_dev[i]);
#if HAVE_HMM_DUMMY
	if (i == OURS && ioctl(fd, HMM_DUMMY_EXPOSE_MM))
		die("HMM_DUMMY_EXPOSE_MM");
#endif
	return fd;
}

/* Ours: pages of the last dev_read() that were read in device memory. */
static __thread unsigned long ours_read_ndev;
#if HAVE_UPB
/* Upstream: the answer of the last dev_read() (times, counters). */
static __thread struct upb_rw upb_last_rw;
#endif

/*
 * Device read of [p, p + size) into dst, one ioctl. Returns the number of
 * entries the device had to fault in (ours: nfaulted_sys_pages, which counts
 * entries of device pages too; hmm_upstream_bench: nfaulted, the same;
 * test_hmm: number of dmirror_fault() calls, each faulting the whole rest).
 */
static unsigned long dev_read(enum impl i, int fd, char *p, unsigned long size,
			      char *dst)
{
	int ret;

	if (i == UPB) {
#if HAVE_UPB
		struct upb_rw rw = {
			.addr = (uintptr_t)p, .size = size, .ptr = (uintptr_t)dst,
		};

		ret = ioctl_restart(fd, UPB_READ, &rw);
		if (ret)
			die("UPB_READ");
		if (rw.nsys + rw.ndev != size / PG)
			die("UPB_READ read %llu+%llu pages of %lu",
			    (unsigned long long)rw.nsys,
			    (unsigned long long)rw.ndev, size / PG);
		upb_last_rw = rw;
		return rw.nfaulted;
#endif
		return 0;
	} else if (i == OURS) {
#if HAVE_HMM_DUMMY
		struct hmm_dummy_read rd = {
			.address = (uintptr_t)p, .size = size,
			.ptr = (uintptr_t)dst,
		};

		ret = ioctl_restart(fd, HMM_DUMMY_READ, &rd);
		if (ret)
			die("HMM_DUMMY_READ");
		/* Pages in device memory are read there (ndev_pages). */
		if (rd.nsys_pages + rd.ndev_pages != size / PG)
			die("HMM_DUMMY_READ read %llu+%llu pages of %lu",
			    (unsigned long long)rd.nsys_pages,
			    (unsigned long long)rd.ndev_pages, size / PG);
		ours_read_ndev = rd.ndev_pages;
		return rd.nfaulted_sys_pages;
#endif
		return 0;
	} else {
		struct hmm_dmirror_cmd cmd = {
			.addr = (uintptr_t)p, .ptr = (uintptr_t)dst,
			.npages = size / PG,
		};

		ret = ioctl_restart(fd, HMM_DMIRROR_READ, &cmd);
		if (ret)
			die("HMM_DMIRROR_READ");
		if (cmd.cpages != size / PG)
			die("HMM_DMIRROR_READ copied %llu pages of %lu",
			    (unsigned long long)cmd.cpages, size / PG);
		return cmd.faults;
	}
}

static void check_copy(const char *a, const char *b, unsigned long size)
{
	unsigned long i;

	for (i = 0; i < size; i += PG)
		if (a[i] != b[i] || a[i + PG - 1] != b[i + PG - 1])
			die("device read returned wrong data at page %lu", i / PG);
}

/* --- benchmarks ---------------------------------------------------------- */

static unsigned long max_mib(void)
{
	unsigned long m = 0;

	for (int s = 0; s < nsizes; s++)
		if (sizes[s] > m)
			m = sizes[s];
	return m;
}

/*
 * Destination buffers are THP-backed and written once: faulting them in
 * 4 KiB at a time is what costs most time under TCG, and they are not
 * what is measured.
 */
static char *dst_buf(unsigned long size)
{
	char *p = map_anon(size, 1);

	memset(p, 0, size);
	return p;
}

static void bench_memcpy(void)
{
	unsigned long max = max_mib() * MiB;
	char *a = dst_buf(max), *b = dst_buf(max);

	fill(a, max, 1);
	for (int s = 0; s < nsizes; s++) {
		unsigned long size = sizes[s] * MiB;
		struct row *r = row_get("memcpy_user", "cpu", "thp", sizes[s] * 1024,
					"MiB/s", 1);

		note(r, "glibc memcpy in user space (TCG: rep movsb); kernel ceiling: ceiling_copy_page");
		for (int k = -1; k < reps_for(sizes[s]); k++) {	/* -1: warm-up */
			double t = now();

			memcpy(b, a, size);
			t = now() - t;
			sample(r, k, 1, sizes[s] / t);
		}
	}
	munmap(a, max);
	munmap(b, max);
}

/* Device read rows and the mirror table cost, in a child per impl. */
static void bench_dev_read(enum impl i)
{
	int fd = dev_open(i);
	unsigned long maxmib = 0, top = max_mib();
	char *dst = dst_buf(top * MiB);

	/*
	 * Mirror table cost first, before this mm freed any table memory the
	 * slab caches could hand out again: mirror 64 MiB and the largest size,
	 * 4k and THP, all kept mapped (and mirrored) until the end of the pass;
	 * Slab growth of /proc/meminfo around each first read.
	 */
	for (int s = 0; s < nsizes; s++)
		if (sizes[s] > maxmib && sizes[s] <= cap_mib)
			maxmib = sizes[s];
	{
		unsigned long msz[2] = { 64, maxmib };
		char *keep[6] = { 0 };
		int nk = 0;

		for (int m = 0; m < (maxmib > 64 ? 2 : 1); m++)
			for (int thp = 0; thp <= 1; thp++) {
				unsigned long size = msz[m] * MiB;
				struct row *rm = row_get("mirror_table", impl_name[i],
							 thp ? "thp" : "4k", msz[m] * 1024,
							 "B/page", 0);
				char *p = map_anon(size, thp);
				long slab0, slab1;

				fill(p, size, 3);
				slab0 = meminfo("Slab");
				dev_read(i, fd, p, size, dst);
				slab1 = meminfo("Slab");
				add(rm, (slab1 - slab0) * 1024.0 / (size / PG));
				note(rm, "Slab growth, /proc/meminfo, 1 sample");
				keep[nk++] = p;
			}
		/*
		 * Sparse mirrors, kept too: in a 1 GiB range, one page per
		 * 2 MiB and one per 64 KiB written by the CPU, then read by
		 * the device page by page (one read ioctl each): the table
		 * memory per mirrored page of a sparse mirror.
		 */
		for (int v = 0; v < 2; v++) {
			unsigned long span = 1024 * MiB, st = v ? 64 * 1024 : PMD_SZ;
			unsigned long n = span / st;
			struct row *rs = row_get(v ? "mirror_sparse64k" : "mirror_sparse2m",
						 impl_name[i], "4k", span / 1024, "B/page", 0);
			char *p = map_anon(span, 0);
			long slab0, slab1;

			for (unsigned long j = 0; j < n; j++)
				p[j * st] = (char)(j + 1);
			slab0 = meminfo("Slab");
			for (unsigned long j = 0; j < n; j++)
				dev_read(i, fd, p + j * st, PG, dst);
			slab1 = meminfo("Slab");
			if (dst[0] != (char)n)
				die("sparse mirror: the last read returned wrong data");
			add(rs, (slab1 - slab0) * 1024.0 / n);
			note(rs, "Slab growth over %lu one-page reads, 1 sample", n);
			keep[nk++] = p;
		}
		for (int m = 0, k = 0; m < (maxmib > 64 ? 2 : 1); m++)
			for (int thp = 0; thp <= 1; thp++)
				munmap(keep[k++], msz[m] * MiB);
		munmap(keep[nk - 2], 1024 * MiB);
		munmap(keep[nk - 1], 1024 * MiB);
	}

	for (int thp = 0; thp <= 1; thp++) {
		const char *bk = thp ? "thp" : "4k";

		for (int s = 0; s < nsizes; s++) {
			unsigned long size = sizes[s] * MiB, mib = sizes[s];
			struct row *r1, *r2;

			if (thp && mib > cap_mib)
				continue;
			r1 = row_get("dev_read_first", impl_name[i], bk, mib * 1024, "MiB/s", 1);
			r2 = row_get("dev_read_second", impl_name[i], bk, mib * 1024, "MiB/s", 1);

			for (int k = 0; k < reps_for(mib); k++) {
				long h0 = anon_huge_kb();
				char *p = map_anon(size, thp);
				unsigned long f1, f2;
				double t;

				fill(p, size, (unsigned char)(k + 3));
				h0 = anon_huge_kb() - h0;
				t = now();
				f1 = dev_read(i, fd, p, size, dst);
				t = now() - t;
				add(r1, mib / t);
				if (k == 0)
					check_copy(p, dst, size);
				t = now();
				f2 = dev_read(i, fd, p, size, dst);
				t = now() - t;
				add(r2, mib / t);
				note(r1, "%s=%lu thp=%ld%%", i != TEST_HMM ? "faulted_pages" :
				     "fault_calls", f1, h0 * 100 / (long)(size / 1024));
				note(r2, "%s=%lu", i != TEST_HMM ? "faulted_pages" : "fault_calls", f2);
				munmap(p, size);
			}
		}
	}
	munmap(dst, top * MiB);
	close(fd);
}

/* munmap / mprotect(PROT_READ) of a range mirrored by impl (-1: none). */
static void bench_inval(int i)
{
	const char *in = i < 0 ? "none" : impl_name[i];
	int fd = i < 0 ? -1 : dev_open(i);

	for (int s = 0; s < nsizes; s++) {
		unsigned long size = sizes[s] * MiB, mib = sizes[s];
		char *dst;
		struct row *ru, *rp;

		if (mib > cap_mib)
			continue;
		dst = dst_buf(size);
		ru = row_get("munmap", in, "4k", mib * 1024, "us", 0);
		rp = row_get("mprotect_ro", in, "4k", mib * 1024, "us", 0);
		for (int k = -1; k < reps_for(mib); k++) {	/* -1: warm-up */
			for (int op = 0; op < 2; op++) {
				char *p = map_anon(size, 0);
				double t;

				fill(p, size, 5);
				/* unmirrored: the CPU reads it instead, same page history */
				if (i >= 0)
					dev_read(i, fd, p, size, dst);
				else
					memcpy(dst, p, size);
				t = now();
				if (op == 0 ? munmap(p, size) : mprotect(p, size, PROT_READ))
					die(op == 0 ? "munmap" : "mprotect");
				t = now() - t;
				sample(op == 0 ? ru : rp, k, 1, t * 1e6);
				if (op == 1)
					munmap(p, size);
			}
		}
		munmap(dst, size);
	}
	if (fd >= 0)
		close(fd);
}

/*
 * Ours: ask HMM to apply its ping-pong control to the migrations
 * (HMM_DUMMY_MIGRATE_TO_FLAGS with HMM_DUMMY_MIGRATE_PINGPONG), and the
 * pages it held back so far.
 */
static int ours_pingpong;
static unsigned long ours_held;

/*
 * Migrate [p, p + size) to the device's memory, one ioctl: ours
 * HMM_DUMMY_MIGRATE_TO (HMM_DUMMY_MIGRATE_TO_FLAGS with ours_pingpong),
 * test_hmm HMM_DMIRROR_MIGRATE_TO_DEV (which also copies the data to
 * dst). Returns the pages migrated, or -errno. (The
 * migrate group calls hmm_upstream_bench itself, mig_one().)
 */
static long dev_migrate(enum impl i, int fd, char *p, unsigned long size,
			char *dst)
{
	if (i == OURS) {
#if HAVE_HMM_DUMMY
		struct hmm_dummy_migrate m = {
			.address = (uintptr_t)p, .size = size,
		};

		unsigned long req = HMM_DUMMY_MIGRATE_TO;

		/*
		 * Only HMM_DUMMY_MIGRATE_TO_FLAGS reads the flags: with
		 * HMM_DUMMY_MIGRATE_TO they are reserved, and ignored.
		 */
#ifdef HMM_DUMMY_MIGRATE_TO_FLAGS
		if (ours_pingpong) {
			m.flags = HMM_DUMMY_MIGRATE_PINGPONG;
			req = HMM_DUMMY_MIGRATE_TO_FLAGS;
		}
#endif
		if (ioctl_restart(fd, req, &m))
			return -errno;
#ifdef HMM_DUMMY_MIGRATE_TO_FLAGS
		ours_held += m.nheld_pages;
#endif
		return m.nfaulted_dev_pages;
#endif
		return -ENODEV;
	} else {
		struct hmm_dmirror_cmd cmd = {
			.addr = (uintptr_t)p, .ptr = (uintptr_t)dst,
			.npages = size / PG,
		};

		if (ioctl_restart(fd, HMM_DMIRROR_MIGRATE_TO_DEV, &cmd))
			return -errno;
		return cmd.cpages;
	}
}

/* Ping-pong control parameters of the series (absent on the base kernel). */
#define OURS_PP(x) "/sys/module/hmm_migrate/parameters/pingpong_" x

static int write_long(const char *path, long v)
{
	FILE *f = fopen(path, "w");
	int ok;

	if (!f)
		return 0;
	ok = fprintf(f, "%ld\n", v) > 0;
	return !fclose(f) && ok;
}

/* Workloads with no device: base kernel vs series kernel. */
static void bench_sys(void)
{
	for (int s = 0; s < nsizes; s++) {
		unsigned long size = sizes[s] * MiB, mib = sizes[s];
		struct row *r;

		if (mib > cap_mib)
			continue;
		r = row_get("sys_pagefault", "none", "4k", mib * 1024, "MiB/s", 1);
		for (int k = -1; k < reps_for(mib); k++) {	/* -1: warm-up */
			char *p = map_anon(size, 0);
			double t = now();

			for (unsigned long j = 0; j < size; j += PG)
				p[j] = 1;
			t = now() - t;
			sample(r, k, size / PG, mib / t);
			munmap(p, size);
		}
	}
	{
		struct row *r = row_get("sys_mmap_munmap", "none", "4k", 0, "us/iter", 0);
		const int iters = 2000;

		note(r, "%d x (mmap 64 KiB, touch 1 page, munmap)", iters);
		for (int k = -1; k < reps; k++) {	/* -1: warm-up */
			double t = now();

			for (int j = 0; j < iters; j++) {
				char *p = mmap(NULL, 64 * 1024, PROT_READ | PROT_WRITE,
					       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

				if (p == MAP_FAILED)
					die("mmap");
				p[0] = 1;
				munmap(p, 64 * 1024);
			}
			t = now() - t;
			sample(r, k, iters, t * 1e6 / iters);
		}
	}
	{
		struct row *r = row_get("sys_fork", "none", "4k", 64 * 1024, "us/fork", 0);
		const int iters = 20;
		char *p = map_anon(64 * MiB, 0);

		fill(p, 64 * MiB, 11);
		note(r, "%d x (fork, child _exit, wait) with 64 MiB touched", iters);
		for (int k = -1; k < reps; k++) {	/* -1: warm-up */
			double t = now();

			for (int j = 0; j < iters; j++) {
				pid_t pid = fork();

				if (pid < 0)
					die("fork");
				if (!pid)
					_exit(0);
				waitpid(pid, NULL, 0);
			}
			t = now() - t;
			sample(r, k, iters, t * 1e6 / iters);
		}
		munmap(p, 64 * MiB);
	}
}

static int child_failures;

/*
 * Run fn(arg) in a child (one mirror per mm). A child that fails (a check
 * died) is counted, and the run exits with 1 at the end.
 */
static void in_child(const char *what, void (*fn)(int), int arg)
{
	double t = now();
	int status;
	pid_t pid;

	fflush(NULL);
	pid = fork();
	if (pid < 0)
		die("fork");
	if (!pid) {
		fn(arg);
		if (raw_child && (ferror(raw_child) | fclose(raw_child)))
			die("write %s", rawpath);
		fflush(NULL);
		_exit(0);
	}
	if (waitpid(pid, &status, 0) < 0)
		die("waitpid");
	if (!WIFEXITED(status) || WEXITSTATUS(status)) {
		fprintf(stderr, "hmm-bench: %s failed (status 0x%x)\n", what, status);
		child_failures++;
	}
	fprintf(stderr, "hmm-bench: %s done in %.1fs\n", what, now() - t);
}

static void c_dev_read(int i) { bench_dev_read(i); }
static void c_inval(int i) { raw_group = "inval"; bench_inval(i); }
#define PP_ROUNDS 16

/*
 * Ping-pong: one 2 MiB block bounced PP_ROUNDS times: migrate it to the
 * device, read it with the device, write every page with the CPU. Time per
 * round, for ours with the ping-pong control (threshold 3, and window and
 * hold long enough for TCG; the migrations ask for it with
 * HMM_DUMMY_MIGRATE_PINGPONG where the kernel has the flag), ours without
 * (threshold 0), and test_hmm (no control). @mode: 0 ours on, 1 ours off,
 * 2 test_hmm.
 */
static void bench_pingpong(int mode)
{
	enum impl i = mode == 2 ? TEST_HMM : OURS;
	const char *in = mode == 0 ? "ours" : mode == 1 ? "ours_off" : "test_hmm";
	long thr = -1, win = -1, hold = -1, held0 = -1;
	unsigned long np = PMD_SZ / PG;
	int fd = dev_open(i);
	char *dst = dst_buf(PMD_SZ);
	struct row *r = row_get("pingpong", in, "4k", 2048, "ms/round", 0);

	ours_pingpong = mode == 0;
	ours_held = 0;
	if (i == OURS) {
		thr = read_long(OURS_PP("threshold"));
		win = read_long(OURS_PP("window_ms"));
		hold = read_long(OURS_PP("hold_ms"));
		held0 = read_long(OURS_PP("held"));
		if (thr < 0) {
			note(r, "no ping-pong control in this kernel");
		} else if (!write_long(OURS_PP("threshold"), mode == 0 ? 3 : 0) ||
			   !write_long(OURS_PP("window_ms"), 10000) ||
			   !write_long(OURS_PP("hold_ms"), 60000)) {
			die("cannot set %s", OURS_PP("*"));
		}
	}
	for (int k = 0; k < reps; k++) {
		char *p = map_anon(PMD_SZ, 0);
		unsigned long migrated = 0;
		double t;

		fill(p, PMD_SZ, 5);
		t = now();
		for (int round = 0; round < PP_ROUNDS; round++) {
			long n = dev_migrate(i, fd, p, PMD_SZ, dst);

			if (n < 0)
				die("%s: migrate: %s", in, strerror(-n));
			migrated += n;
			dev_read(i, fd, p, PMD_SZ, dst);
			for (unsigned long j = 0; j < np; j++)
				p[j * PG] = (char)round;
		}
		t = now() - t;
		add(r, t * 1000 / PP_ROUNDS);
		if (!k)
			note(r, "%lu of %lu pages migrated over %d rounds, %lu held back",
			     migrated, np * PP_ROUNDS, PP_ROUNDS, ours_held);
		for (unsigned long j = 0; j < np; j++)
			if (p[j * PG] != (char)(PP_ROUNDS - 1))
				die("%s: pingpong: page %lu lost a write", in, j);
		munmap(p, PMD_SZ);
		if (i == OURS && thr >= 0) {
			/* A zero hold ends the hold of this block for the next rep. */
			write_long(OURS_PP("hold_ms"), 0);
			write_long(OURS_PP("hold_ms"), 60000);
		}
	}
	if (i == OURS && thr >= 0) {
		long holds = read_long(OURS_PP("held")) - held0;

		note(r, "%ld holds", holds);
		write_long(OURS_PP("threshold"), thr);
		write_long(OURS_PP("window_ms"), win);
		write_long(OURS_PP("hold_ms"), hold);
		/* rounds of well under 10 s: it must have fired */
		if (mode == 0 && holds <= 0) {
			errno = 0;
			die("ours: pingpong: the ping-pong control never held the block");
		}
	}
	ours_pingpong = 0;
	munmap(dst, PMD_SZ);
	close(fd);
}

static void c_pingpong(int mode) { bench_pingpong(mode); }
static void c_memcpy(int i) { (void)i; raw_group = "memcpy"; bench_memcpy(); }
static void c_sys(int i) { (void)i; raw_group = "sys"; bench_sys(); }

/* test_hmm's "added new 256 MB chunk (total N chunks, ...)" lines. */
static int test_hmm_chunks(void)
{
	int len = klogctl(10, NULL, 0), n, chunks = 0;
	char *buf, *s;

	if (len <= 0)
		return -1;
	buf = malloc(len + 1);
	if (!buf)
		return -1;
	n = klogctl(3, buf, len);
	if (n < 0) {
		free(buf);
		return -1;
	}
	buf[n] = 0;
	for (s = buf; (s = strstr(s, "added new 256 MB chunk")); s++)
		chunks++;
	free(buf);
	return chunks;
}

/* --- device memory eviction (-g evict) ------------------------------------ */

/*
 * Ours' eviction (issue 16): hmm_dummy evicts the least recently migrated
 * 2 MiB blocks when HMM_DUMMY_MIGRATE_TO finds its pool full (module
 * parameter oversubscribe), and debugfs deviceN_evict evicts a range of
 * device pages on demand. The group reloads hmm_dummy with a small pool
 * (-E MiB) so that an oversubscribed sweep is short under TCG, and loads it
 * back with the pool it had afterwards.
 */
#define OURS_PARAM(x) "/sys/module/hmm_dummy/parameters/" x
#define OURS_DBG(x) "/sys/kernel/debug/hmm_dummy/" x
#define FAIL_PA(x) "/sys/kernel/debug/fail_page_alloc/" x
#define EV_FACTORS 2

static unsigned long evict_pool_mib = 64;	/* -E; 0: the loaded pool */
static unsigned long ev_pool;			/* the group's pool, MiB */
static const int ev_factor10[EV_FACTORS] = { 15, 20 };	/* x pool / 10 */

/* Write a string to a sysfs/debugfs/proc file; 0 or -errno. */
static int write_str(const char *path, const char *s)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC), ret = 0;
	ssize_t n;

	if (fd < 0)
		return -errno;
	n = write(fd, s, strlen(s));
	if (n < 0)
		ret = -errno;
	else if ((size_t)n != strlen(s))
		ret = -EIO;
	close(fd);
	return ret;
}

/* Pages of [p, p + size) present in system memory (/proc/self/pagemap). */
static unsigned long pagemap_present(const char *p, unsigned long size)
{
	int fd = open("/proc/self/pagemap", O_RDONLY | O_CLOEXEC);
	unsigned long np = size / PG, first = (uintptr_t)p / PG, n = 0;
	uint64_t e[512];

	if (fd < 0)
		die("open /proc/self/pagemap");
	for (unsigned long off = 0; off < np; off += 512) {
		unsigned long cnt = np - off < 512 ? np - off : 512;

		if (pread(fd, e, cnt * 8, (first + off) * 8) != (ssize_t)(cnt * 8))
			die("read /proc/self/pagemap");
		for (unsigned long j = 0; j < cnt; j++)
			n += e[j] >> 63;
	}
	close(fd);
	return n;
}

/* Upstream: migrate [p, p + size) back to system memory (test_hmm). */
static void up_migrate_to_sys(int fd, char *p, unsigned long size)
{
	struct hmm_dmirror_cmd cmd = {
		.addr = (uintptr_t)p, .npages = size / PG,
	};

	if (ioctl_restart(fd, HMM_DMIRROR_MIGRATE_TO_SYS, &cmd))
		die("HMM_DMIRROR_MIGRATE_TO_SYS");
	if (cmd.cpages != size / PG)
		die("HMM_DMIRROR_MIGRATE_TO_SYS moved %llu pages of %lu",
		    (unsigned long long)cmd.cpages, size / PG);
}

/*
 * Oversubscribed sequential sweep, in 2 MiB blocks, over a working set of
 * 1.5x and 2x ours' pool: migrate the block to the device, then read it
 * with the device. One untimed pass first (it fills the device; every
 * block's device read is checked against the fill pattern), then timed
 * passes (MiB swept per second), then every byte of the working set is
 * checked by the CPU. @mode: 0 ours (MIGRATE_TO evicts the least recently
 * migrated blocks), 1 test_hmm (no eviction, its device memory grows by
 * 256 MiB chunks), 2 test_hmm_lru (test_hmm, the process keeps at
 * most a pool's worth of blocks in device memory: before each migration
 * it migrates its least recently migrated block back, MIGRATE_TO_SYS).
 * Same copies on both sides: ours HMM_DUMMY_MIGRATE_TO + HMM_DUMMY_READ,
 * test_hmm HMM_DMIRROR_MIGRATE_TO_DEV, whose own device read of the range
 * (test_hmm copies it to the caller) is the read.
 */
static void bench_evict_sweep(int mode)
{
	enum impl i = mode ? TEST_HMM : OURS;
	const char *in = mode == 0 ? "ours" : mode == 1 ? "test_hmm" : "test_hmm_lru";
	unsigned long window = ev_pool / 2;	/* blocks in the pool */
	int fd = dev_open(i);
	char *dst = dst_buf(PMD_SZ);

	for (int f = 0; f < EV_FACTORS; f++) {
		unsigned long mib = ev_pool * ev_factor10[f] / 10 & ~1UL;
		unsigned long size = mib * MiB, nblk = mib / 2, seq = 0;
		unsigned long migrated = 0, ndev = 0, reads = 0;
		long ev0 = 0, evp0 = 0, lost0 = 0, busy0 = 0;
		int ch0 = test_hmm_chunks(), passes = reps_for(mib);
		struct row *r = row_get("evict_sweep", in, "4k", mib * 1024, "MiB/s", 1);
		char *p = map_anon(size, 0);

		fill(p, size, 13);
		for (int pass = 0; pass <= passes; pass++) {
			double t;

			if (pass == 1 && i == OURS) {
				ev0 = ours_stat("evictions");
				evp0 = ours_stat("evicted_pages");
				busy0 = ours_stat("evict_busy");
				lost0 = ours_stat("evict_lost");
			}
			t = now();
			for (unsigned long b = 0; b < nblk; b++, seq++) {
				char *blk = p + b * PMD_SZ;
				long n;

				if (mode == 2 && seq >= window)
					up_migrate_to_sys(fd, p + (seq - window) % nblk * PMD_SZ,
							  PMD_SZ);
				n = dev_migrate(i, fd, blk, PMD_SZ, dst);
				if (n < 0) {
					errno = -n;
					die("%s: evict_sweep: migrate block %lu", in, b);
				}
				if (i == OURS) {
					dev_read(i, fd, blk, PMD_SZ, dst);
					if (pass) {
						migrated += n;
						ndev += ours_read_ndev;
					}
				} else if ((unsigned long)n != PMD_SZ / PG) {
					/* test_hmm's cpages: pages its read copied */
					errno = 0;
					die("%s: evict_sweep: read %ld of 512 pages", in, n);
				}
				if (pass)
					reads += PMD_SZ / PG;
				else
					check_fill_at(dst, PMD_SZ, 13, b * (PMD_SZ / PG),
						      "evict_sweep device read");
			}
			t = now() - t;
			if (pass)
				add(r, mib / t);
		}
		if (i == OURS) {
			long ev = ours_stat("evictions") - ev0;
			long evp = ours_stat("evicted_pages") - evp0;

			note(r, "pool %lu MiB, %.1fx; per pass %lu migrated %ld evicted (%ld calls) %ld busy %ld lost; %lu/%lu read in devmem",
			     ev_pool, ev_factor10[f] / 10.0, migrated / passes, evp / passes,
			     ev / passes, (ours_stat("evict_busy") - busy0) / passes,
			     (ours_stat("evict_lost") - lost0) / passes, ndev, reads);
		} else if (mode == 1) {
			int ch1 = test_hmm_chunks();

			note(r, "no eviction (test_hmm hot-plugs 256 MiB chunks): %d added in the sweep, %d in the log; no block moves after pass 1",
			     ch1 - ch0, ch1);
		} else {
			note(r, "window %lu MiB (ours' pool), %.1fx: MIGRATE_TO_SYS of the oldest block first",
			     ev_pool, ev_factor10[f] / 10.0);
		}
		/* Every byte, by the CPU (brings back what is on the device). */
		check_fill(p, size, 13, "evict_sweep");
		munmap(p, size);
	}
	munmap(dst, PMD_SZ);
	close(fd);
}

/*
 * Eviction throughput: 64 MiB migrated to the device, then evicted, timed:
 * ours writes "0 NPAGES" to debugfs device0_evict (hmm_devmem_evict() of
 * the whole pool: the pages in use are the 64 MiB); test_hmm's
 * own eviction, dmirror_device_evict_chunk() (migrate_device_range() over
 * every chunk of the device), which it runs when the file is closed
 * (mode 1, test_hmm: close()) and, followed by memunmap_pages() of the
 * chunks, for HMM_DMIRROR_RELEASE (mode 2, test_hmm_rel). Checked: the
 * whole range is on the device before (pagemap: 0 present) and in system
 * memory after (pagemap: all present), ours' counts are 64 MiB evicted,
 * 0 busy, 0 lost, and every byte is the fill pattern.
 */
static void bench_evict_rate(int mode)
{
	enum impl i = mode ? TEST_HMM : OURS;
	const char *in = mode == 0 ? "ours" : mode == 1 ? "test_hmm" : "test_hmm_rel";
	const unsigned long mib = 64, size = mib * MiB, np = size / PG;
	struct row *r = row_get("evict_rate", in, "4k", mib * 1024, "pages/s", 1);
	long pool_pages = i == OURS ? ours_stat("pages") : -1;
	char *dst = i == TEST_HMM ? dst_buf(size) : NULL;
	char cmd[64];
	int ch0 = test_hmm_chunks();

	if (i == OURS && pool_pages < (long)np) {
		note(r, "pool of %ld pages < 64 MiB: not run", pool_pages);
		return;
	}
	snprintf(cmd, sizeof(cmd), "0 %ld", pool_pages);
	for (int k = 0; k < reps_for(mib); k++) {
		unsigned char seed = (unsigned char)(17 + k);
		int fd = dev_open(i);
		char *p = map_anon(size, 0);
		long e0[3] = { 0 }, e1[3] = { 0 }, n, before;
		/* test_hmm checks addr/npages of every ioctl; RELEASE reads no more */
		struct hmm_dmirror_cmd rel = { .addr = (uintptr_t)p, .npages = np };
		double t;
		int ret = 0;

		fill(p, size, seed);
		n = dev_migrate(i, fd, p, size, dst);
		if (n != (long)np) {
			errno = n < 0 ? -n : 0;
			die("%s: evict_rate: %ld of %lu pages migrated", in, n, np);
		}
		before = pagemap_present(p, size);
		if (i == OURS) {
			e0[0] = ours_stat("evicted_pages");
			e0[1] = ours_stat("evict_busy");
			e0[2] = ours_stat("evict_lost");
		}
		t = now();
		if (mode == 0)
			ret = write_str(OURS_DBG("device0_evict"), cmd);
		else if (mode == 1)
			ret = close(fd) ? -errno : 0;
		else
			ret = ioctl_restart(fd, HMM_DMIRROR_RELEASE, &rel) ? -errno : 0;
		t = now() - t;
		if (ret) {
			errno = -ret;
			die("%s: evict_rate: eviction", in);
		}
		if (i == OURS) {
			e1[0] = ours_stat("evicted_pages") - e0[0];
			e1[1] = ours_stat("evict_busy") - e0[1];
			e1[2] = ours_stat("evict_lost") - e0[2];
			if (e1[0] != (long)np || e1[1] || e1[2]) {
				errno = 0;
				die("ours: evict_rate: %ld evicted, %ld busy, %ld lost (want %lu/0/0)",
				    e1[0], e1[1], e1[2], np);
			}
		}
		n = pagemap_present(p, size);
		if (n != (long)np) {
			errno = 0;
			die("%s: evict_rate: %ld of %lu pages in system memory after eviction",
			    in, n, np);
		}
		add(r, np / t);
		if (i == OURS)
			note(r, "%ld evicted %ld busy %ld lost; pool %ld pages; present before %ld",
			     e1[0], e1[1], e1[2], pool_pages, before);
		else
			note(r, "%s (migrate_device_range); chunks added so far, both devices: %d; present before %ld",
			     mode == 1 ? "close() evicts every chunk" :
			     "HMM_DMIRROR_RELEASE: evict + unplug every chunk",
			     ch0, before);
		check_fill(p, size, seed, "evict_rate");
		munmap(p, size);
		if (mode != 1)
			close(fd);
	}
	if (dst)
		munmap(dst, size);
}

/* Save a debugfs attribute (one line) into buf; 0 if absent. */
static int save_attr(const char *path, char *buf, size_t len)
{
	FILE *f = fopen(path, "r");
	int ok;

	if (!f)
		return 0;
	ok = fgets(buf, len, f) != NULL;
	fclose(f);
	return ok;
}

/*
 * Sum of the pages= fields of the /proc/vmallocinfo lines whose caller is
 * @caller, and their count.
 */
static unsigned long vmalloc_pages(const char *caller, int *nlines)
{
	char line[512], *s;
	unsigned long pages = 0;
	FILE *f = fopen("/proc/vmallocinfo", "r");

	*nlines = 0;
	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f)) {
		s = strstr(line, caller);
		if (!s || s[strlen(caller)] != '+')
			continue;
		(*nlines)++;
		s = strstr(line, " pages=");
		if (s)
			pages += strtoul(s + 7, NULL, 10);
	}
	fclose(f);
	return pages;
}

/*
 * Reverse map bytes per device page, measured in the running kernel.
 * hmm_devmem_register() allocates the reverse map (16 B per device page),
 * the memcg ids (2 B) and the slot locks (one per 512 pages) with
 * kvcalloc()/kvmalloc_array(). With /proc/allocinfo
 * (CONFIG_MEM_ALLOC_PROFILING) its bytes are read from there. Otherwise:
 * kvmalloc() uses the page allocator for these sizes (below 4 MiB), which
 * shows no caller, so device 1 is unplugged and registered again
 * (debugfs device1_unplug, 1; the bench uses device 0 only) with this
 * process's order >= 1 page allocations failing (fail_page_alloc,
 * task-filter, min-order=1): kvmalloc() then falls back to vmalloc(),
 * whose areas /proc/vmallocinfo lists by caller. Counted: the pages= of
 * the new hmm_devmem_register lines (the backing pages, without the
 * guard page that the size column includes), divided by device 1's pages.
 * Not counted: allocations of a page or less (the slot locks: 4 B per
 * 512 device pages without spinlock debugging), which stay in slab.
 */
static void bench_rmap(int unused)
{
	long npages = file_key(OURS_DBG("device1"), "pages", ' ');
	struct row *r = row_get("rmap_bytes", "ours", "4k", ev_pool * 1024, "B/page", 0);
	static const char *attrs[] = {
		"task-filter", "probability", "interval", "times", "verbose",
		"min-order", "ignore-gfp-wait", "ignore-gfp-highmem", "space",
	};
	static const char *vals[] = { "Y", "100", "1", "-1", "0", "1", "N", "N", "0" };
	char saved[9][64];
	int n0, n1, d0, d1, ret;
	unsigned long p0, p1, q0, q1;
	FILE *ai = fopen("/proc/allocinfo", "r");

	(void)unused;
	if (ai) {
		char line[512];
		unsigned long bytes = 0;
		long dev0 = file_key(OURS_DBG("device0"), "pages", ' ');

		while (fgets(line, sizeof(line), ai))
			if (strstr(line, "func:hmm_devmem_register\n") ||
			    strstr(line, "func:hmm_devmem_register "))
				bytes += strtoul(line, NULL, 10);
		fclose(ai);
		if (npages > 0 && dev0 > 0) {
			add(r, (double)bytes / (npages + dev0));
			note(r, "/proc/allocinfo func:hmm_devmem_register, %lu B for 2 devices",
			     bytes);
			return;
		}
	}
	if (npages <= 0) {
		note(r, "no device 1 pool: not measured");
		return;
	}
	if (access(FAIL_PA("min-order"), W_OK)) {
		note(r, "not measured: needs fail_page_alloc or /proc/allocinfo");
		return;
	}
	for (unsigned a = 0; a < 9; a++) {
		char path[128];

		snprintf(path, sizeof(path), FAIL_PA("%s"), attrs[a]);
		if (!save_attr(path, saved[a], sizeof(saved[a])))
			die("read %s", path);
	}
	p0 = vmalloc_pages("hmm_devmem_register", &n0);
	q0 = vmalloc_pages("hmm_dummy_unplug_set", &d0);
	for (unsigned a = 0; a < 9; a++) {
		char path[128];

		snprintf(path, sizeof(path), FAIL_PA("%s"), attrs[a]);
		if (write_str(path, vals[a]))
			die("write %s", path);
	}
	if (write_str("/proc/self/make-it-fail", "1"))
		die("write /proc/self/make-it-fail");
	ret = write_str(OURS_DBG("device1_unplug"), "1");
	write_str("/proc/self/make-it-fail", "0");
	for (unsigned a = 0; a < 9; a++) {
		char path[128];

		snprintf(path, sizeof(path), FAIL_PA("%s"), attrs[a]);
		saved[a][strcspn(saved[a], "\n")] = 0;
		write_str(path, saved[a]);
	}
	if (ret) {
		note(r, "device1_unplug failed: %s", strerror(-ret));
		return;
	}
	p1 = vmalloc_pages("hmm_devmem_register", &n1);
	q1 = vmalloc_pages("hmm_dummy_unplug_set", &d1);
	if (n1 - n0 < 1) {
		note(r, "no hmm_devmem_register area in /proc/vmallocinfo");
		return;
	}
	add(r, (p1 - p0) * (double)PG / npages);
	note(r, "vmallocinfo: %d areas %lu pages for %ld device pages; driver's own %.2f B",
	     n1 - n0, p1 - p0, npages, (q1 - q0) * (double)PG / npages);
}

static void c_evict_sweep(int mode) { bench_evict_sweep(mode); }
static void c_evict_rate(int mode) { bench_evict_rate(mode); }
static void c_rmap(int unused) { bench_rmap(unused); }

/* rmmod and modprobe hmm_dummy with devmem_mb=@mb; 0 on success. */
static int ours_reload(long mb)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rmmod hmm_dummy && modprobe hmm_dummy devmem_mb=%ld", mb);
	fflush(NULL);
	if (system(cmd))
		return -1;
	/* devtmpfs creates the nodes asynchronously */
	for (int k = 0; k < 50 && !have_dev(OURS); k++)
		usleep(100000);
	return have_dev(OURS) && read_long(OURS_DEVMEM_MB) == mb ? 0 : -1;
}

/*
 * The evict group: skipped, with the reason in the table, where hmm_dummy
 * cannot evict (a kernel without the eviction patches, or no hmm_dummy).
 */
static void run_evict(void)
{
	long orig = read_long(OURS_DEVMEM_MB), pp = -1;
	char over[16] = "";
	int reloaded = 0;

	if (!HAVE_HMM_DUMMY || !have_dev(OURS))
		snprintf(evict_skip, sizeof(evict_skip), "no hmm_dummy device (%s)", OURS_DEV);
	else if (!save_attr(OURS_PARAM("oversubscribe"), over, sizeof(over)) ||
		 access(OURS_DBG("device0_evict"), W_OK))
		snprintf(evict_skip, sizeof(evict_skip),
			 "kernel without device memory eviction (no hmm_dummy parameter oversubscribe or debugfs device0_evict)");
	else if (evict_pool_mib && (long)evict_pool_mib != orig) {
		if (ours_reload(evict_pool_mib)) {
			snprintf(evict_skip, sizeof(evict_skip),
				 "could not reload hmm_dummy with devmem_mb=%lu", evict_pool_mib);
			if (!have_dev(OURS) && orig >= 0)
				ours_reload(orig);
		} else {
			reloaded = 1;
		}
	}
	if (!evict_skip[0] && read_long(OURS_DEVMEM_MB) < 4)
		snprintf(evict_skip, sizeof(evict_skip), "hmm_dummy pool devmem_mb=%ld < 4 MiB",
			 read_long(OURS_DEVMEM_MB));
	if (evict_skip[0]) {
		fprintf(stderr, "hmm-bench: evict group skipped: %s\n", evict_skip);
		return;
	}
	ev_pool = read_long(OURS_DEVMEM_MB);
	/* A reload resets it; set it for the group in any case. */
	save_attr(OURS_PARAM("oversubscribe"), over, sizeof(over));
	if (over[0] != 'Y' && write_str(OURS_PARAM("oversubscribe"), "1"))
		die("cannot set %s", OURS_PARAM("oversubscribe"));
	pp = read_long(OURS_PP("threshold"));
	if (pp > 0)
		write_long(OURS_PP("threshold"), 0);
	in_child("reverse map bytes (ours)", c_rmap, 0);
	in_child("eviction sweep (ours)", c_evict_sweep, 0);
	if (have_dev(TEST_HMM)) {
		in_child("eviction sweep (test_hmm, grows)", c_evict_sweep, 1);
		in_child("eviction sweep (test_hmm, user LRU)", c_evict_sweep, 2);
	}
	in_child("eviction rate (ours)", c_evict_rate, 0);
	if (have_dev(TEST_HMM)) {
		in_child("eviction rate (test_hmm, close)", c_evict_rate, 1);
		in_child("eviction rate (test_hmm, RELEASE)", c_evict_rate, 2);
	}
	if (pp > 0)
		write_long(OURS_PP("threshold"), pp);
	if (over[0] != 'Y')
		write_str(OURS_PARAM("oversubscribe"), "0");
	if (reloaded && ours_reload(orig))
		fprintf(stderr, "hmm-bench: could not load hmm_dummy back with devmem_mb=%ld\n",
			orig);
}

/* --- the migrate group: persistent workers (issue 19) ---------------------- */

/*
 * Migration to device memory, and back by CPU touch, for ours (hmm_dummy
 * device 0), upstream (hmm_upstream_bench, equal 512-page windows) and
 * test_hmm (labelled reference: it copies the data back to the caller in
 * its migration ioctl and brings back one page per CPU fault).
 *
 * One persistent worker process per implementation (and with -A a second
 * one of upstream, "upstream_b", the A/A control), started once: it pins
 * itself to CPU 0, opens its device once (one mirror on its own mm), then
 * runs one measurement per command read from its pipe and answers with the
 * samples. The parent sends one command at a time, so only one worker
 * runs at a time. Order: every (size, impl) once untimed first (rep 0,
 * warm=1), then for each repetition 1..-r, for each size, the workers in
 * an order shuffled by the seeded RNG (-S; "pos" in the raw CSV), then
 * hmm_upstream_bench's in-kernel copy ceiling (UPB_CEILING mode 0) of the
 * same number of pages.
 *
 * A measurement of SIZE KiB: K = min(256, 4 MiB / SIZE) sub-ranges (1 from
 * 4 MiB up), each at the start of its own 2 MiB block(s), so that a
 * 512-page fault window cannot bring back a neighbour; one migration call
 * per sub-range. Two passes, each on a fresh mapping: migrate (timed:
 * migrate_to_dev, first pass only), then touch one byte of every page
 * (timed: migrate_back_seq in order, migrate_back_rand in a permutation
 * that is the same for every implementation and repetition of the size).
 * Then, from 2 MiB up, the sparse touch on a fresh mapping (w_sparse():
 * timed: sparse_touch), and for ours and upstream again at window 1 (the
 * parent saves both windows and puts them back at the end, as it does
 * hmm_dummy's oversubscribe and ping-pong threshold).
 * Then, for ours and test_hmm (hmm_upstream_bench has no device read yet):
 * device read, migrate, device read again (timed: dev_read_migrated).
 *
 * Checks: a migration that moved fewer than every page (or, ours, in which
 * hmm_dummy evicted: debugfs evictions) marks its samples "partial", which
 * scripts/bench-stats.py leaves out; in the warm-up and the first
 * repetition every byte is checked after the touch back (a mismatch kills
 * the worker); debugfs cpu_faults must have grown by K x ceil(pages /
 * window) in each touch (MiB / 2 at window 512) and in_use must be back to
 * 0 after each munmap (ours and upstream; a mismatch is noted "check:..."
 * and makes the run fail). In the sparse touch: one CPU fault per touch,
 * and pages back = touches at window 1, every migrated page at 512.
 */
static unsigned long mig_kib[16];	/* -m, KiB; none: the -s sizes <= -M */
static int nmig;
static int aa_worker;			/* -A */
static const char *mig_only;		/* -i: comma-separated implementations */
/*
 * -B thp: the migrate group's source memory is THP (MADV_HUGEPAGE, every
 * 2 MiB block faulted in as a huge page: checked), its rows' backing
 * "thp"; with -X move and sizes of 2 MiB and up only. Ours splits a THP
 * to migrate it; upstream (hmm_upstream_bench) with compound=0 too, in
 * migrate_vma_setup(); the workers upstream_c and upstream_t_c move it
 * whole (compound=1, 7.3), to the device and back on a CPU fault.
 */
static int mig_thp;
#define MIG_BK	(mig_thp ? "thp" : "4k")
/*
 * RS_MOVE: the main set's migration rows only (migrate_to_dev,
 * migrate_back_seq, migrate_back_rand, their _core rows, the ceiling and
 * the split's check), for the sizes where the other rows would not fit a
 * TCG boot (512 MiB-1 GiB).
 */
enum { RS_MAIN = 1, RS_FORK = 2, RS_MT = 4, RS_PP = 8, RS_MOVE = 16 };
static int rowsets = RS_MAIN;		/* -X */
static int check_failures;		/* samples that failed a check */
static char mig_skip[160];		/* why the migrate group did not run */
static char ceil_skip[160];		/* why it has no ceiling rows */
static char mig_info[320];		/* how it ran, for the table */


/* splitmix64: the group's seeded random numbers. */
static uint64_t sm64(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

/* Operations (sub-ranges) per sample: min(256, 4 MiB / size), at least 1. */
static unsigned long mig_nops(unsigned long kib)
{
	unsigned long k = 4096 / kib;

	return k > 256 ? 256 : k ? k : 1;
}

/* Distance between two sub-ranges: whole 2 MiB blocks. */
static unsigned long mig_stride(unsigned long kib)
{
	return (kib * 1024 + PMD_SZ - 1) & ~(PMD_SZ - 1);
}

enum { W_MEASURE, W_CEILING, W_SPLIT, W_QUIT };

struct wcmd {
	int op, rep, warm;
	unsigned long kib;
};

/* One sample of a worker's answer, or (end) the end of the answer. */
struct wmsg {
	int end;
	int err;		/* end: the errno that stopped the command */
	char row[32];
	char unit[12];
	char isuffix[8];	/* appended to the worker's label ("_w1", "_ad") */
	char note[120];		/* raw CSV: "partial", "check:..."; empty if fine */
	char info[120];		/* the table's note (first sample of a row) */
	int partial, bad;	/* bad: a check failed */
	double value;
	long nops, npages, nfaults;	/* -1: not known */
	int have_t;		/* 1: t[] all from the module, 2: t[5] only */
	unsigned long long t[6];	/* ns: core copy devmem table cb total */
};

struct wctx {
	enum impl impl;
	int fd, first, afd;
	long window;		/* pages per CPU fault, -1: not known */
	const char *stats;	/* debugfs counters, NULL: none */
	int timing;		/* hmm_upstream_bench's timing parameter is on */
	int timed;		/* ours_t or upstream_t: the core-time split (-T) */
	const char *devwin;	/* ours, ours_t: device 0's own window */
	unsigned long long nclocks;	/* upstream_t: UPB_MIGRATE_TO's, summed */
	int compound;		/* upstream_c, upstream_t_c: compound=1 */
	unsigned long long ncompound;	/* UPB_MIGRATE_TO's, summed */
	char *dst;		/* test_hmm: its copy back goes here */
	unsigned long dst_size;
	char *rbuf;		/* the device reads' destination */
	unsigned long rbuf_size;
};

static int read_full(int fd, void *buf, size_t n)
{
	char *b = buf;
	ssize_t r;

	while (n) {
		r = read(fd, b, n);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return 0;
		b += r;
		n -= r;
	}
	return 1;
}

static void wsend(const struct wctx *c, const struct wmsg *m)
{
	if (write(c->afd, m, sizeof(*m)) != (ssize_t)sizeof(*m))
		die("worker: write to the parent");
}

static long wstat(const struct wctx *c, const char *key)
{
	return c->stats ? file_key(c->stats, key, ' ') : -1;
}

static void wmsg_init(struct wmsg *m, const char *row, const char *unit)
{
	memset(m, 0, sizeof(*m));
	snprintf(m->row, sizeof(m->row), "%s", row);
	snprintf(m->unit, sizeof(m->unit), "%s", unit);
	m->nops = m->npages = m->nfaults = -1;
}

/* Append "; "-separated text to a note. */
static void addf(char *buf, size_t len, const char *fmt, ...)
{
	size_t l = strlen(buf);
	va_list ap;

	if (l && l + 2 < len) {
		strcpy(buf + l, "; ");
		l += 2;
	}
	va_start(ap, fmt);
	vsnprintf(buf + l, len - l, fmt, ap);
	va_end(ap);
}

/*
 * Migrate [p, p + size) with one call of the implementation; @t adds up
 * hmm_upstream_bench's own times. Returns the pages migrated, or -errno.
 */
static long mig_one(struct wctx *c, char *p, unsigned long size,
		    unsigned long long *t)
{
	if (c->impl != UPB)
		return dev_migrate(c->impl, c->fd, p, size, c->dst);
#if HAVE_UPB
	{
		struct upb_migrate m = { .addr = (uintptr_t)p, .size = size,
					 .flags = c->compound ? UPB_F_COMPOUND : 0 };

		if (ioctl_restart(c->fd, UPB_MIGRATE_TO, &m))
			return -errno;
		c->ncompound += m.ncompound;
		t[0] += m.t.core;
		t[1] += m.t.copy;
		t[2] += m.t.devmem;
		t[3] += m.t.table;
		t[4] += m.t.callbacks;
		t[5] += m.t.total;
		c->nclocks += m.nclocks;
		return m.npages;
	}
#else
	(void)t;
	return -ENODEV;
#endif
}

/*
 * After a munmap: the device pool must be empty again (within a second,
 * should a driver free its pages later).
 */
static void check_in_use(const struct wctx *c, struct wmsg *m)
{
	long n = wstat(c, "in_use");

	for (int i = 0; i < 100 && n > 0; i++) {
		usleep(10000);
		n = wstat(c, "in_use");
	}
	if (n > 0) {
		m->bad = 1;
		addf(m->note, sizeof(m->note), "check:in_use=%ld after munmap", n);
	}
}

/*
 * The core-time split (-T, issue 19 item 2): the timed workers ours_t
 * (hmm_dummy_timed: clocks around hmm_dummy's callbacks and its call of
 * hmm_migrate_to_device()) and upstream_t (hmm_upstream_bench with its
 * timing parameter on for the worker's commands) add a sample ROW_core to
 * migrate_to_dev, migrate_back_seq, migrate_back_rand and sparse_touch:
 * the same work per second of core time. Core time, the same on both
 * sides: time in the mm core on behalf of the operation, without the
 * driver's callbacks inside it.
 *   migration to the device: ours, the time in hmm_migrate_to_device()
 *     minus the callbacks (alloc, free, copy, update); upstream,
 *     UPB_MIGRATE_TO's core (migrate_vma_*() and the device page init,
 *     minus the invalidate and folio_free callbacks);
 *   CPU faults (the touches): the touch loop's time minus the driver's part
 *     (ours: the callbacks; upstream: migrate_to_ram() minus its core calls
 *     - migrate_vma_*(), alloc_page_vma(), lock_page() - plus the
 *     callbacks), so exception entry and exit and do_swap_page() count as
 *     core on both sides.
 * Each clock pair inside a core interval adds about one ktime_get_ns()
 * call to it (the parent's UPB_CALIBRATE): subtracted, pairs times half a
 * calibrated pair. The driver's own buckets go to the raw CSV's copy_ns,
 * devmem_ns, table_ns and cb_ns, the interval the core time was taken from
 * to total_ns. A core time that is not positive fails the sample's check.
 */
static int timed_workers;		/* -T */
static double ktime_call_ns = -1;	/* half a UPB_CALIBRATE pair; -1 unknown */

enum { TK_OURS_MIG, TK_OURS_ALLOC, TK_OURS_FREE, TK_OURS_COPY_TO,
       TK_OURS_COPY_FROM, TK_OURS_UPDATE, TK_OURS_FAULT, TK_OURS_N };
static const char *ours_tkeys[] = { "migrate", "alloc", "free", "copy_to",
				    "copy_from", "update", "fault" };
enum { TK_UPB_TOTAL, TK_UPB_CORE, TK_UPB_COPY, TK_UPB_TABLE, TK_UPB_CLOCKS,
       TK_UPB_FF, TK_UPB_FF_CALLS, TK_UPB_INV, TK_UPB_INV_CALLS,
       TK_UPB_FAULTS, TK_UPB_N };
static const char *upb_tkeys[] = { "m2r_total_ns", "m2r_core_ns", "m2r_copy_ns",
				   "m2r_table_ns", "m2r_clocks", "folio_free_ns",
				   "folio_free_calls", "invalidate_ns",
				   "invalidate_calls", "cpu_faults" };
#define TK_MAX 16

/*
 * A timed worker's counters, read at once: ours_t KEY_ns at [i] and
 * KEY_calls at [TK_OURS_N + i]; upstream_t the keys of upb_tkeys. Dies if
 * one is missing: the split would be wrong.
 */
static void tsnap(const struct wctx *c, long long *v)
{
	const char *path = c->impl == OURS ? OURS_T_DBG("timing") : UPB_STATS_PATH;
	int n = c->impl == OURS ? 2 * TK_OURS_N : TK_UPB_N;
	char line[256], key[64];
	long long x;
	FILE *f;

	for (int i = 0; i < TK_MAX; i++)
		v[i] = i < n ? -1 : 0;
	f = fopen(path, "r");
	if (!f)
		die("open %s", path);
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%63s %lld", key, &x) != 2)
			continue;
		for (int i = 0; i < n; i++) {
			char want[64];

			if (c->impl == OURS)
				snprintf(want, sizeof(want), "%s_%s",
					 ours_tkeys[i % TK_OURS_N], i < TK_OURS_N ? "ns" : "calls");
			else
				snprintf(want, sizeof(want), "%s", upb_tkeys[i]);
			if (!strcmp(key, want))
				v[i] = x;
		}
	}
	fclose(f);
	for (int i = 0; i < n; i++)
		if (v[i] < 0)
			die("%s: a timing counter is missing", path);
}

/*
 * The split of one timed operation from the counters before (@a) and after
 * (@b) it: @e2e_ns, the touch loop's time for CPU faults, 0 for ours'
 * migration (the time in hmm_migrate_to_device() is the interval then);
 * upstream's migration comes from UPB_MIGRATE_TO itself (@t6 and
 * c->nclocks, summed by mig_one()). @t: core copy devmem table cb total.
 */
static void core_split(const struct wctx *c, const long long *a, const long long *b,
		       double e2e_ns, const unsigned long long *t6, double *core,
		       unsigned long long *t)
{
	double kc = ktime_call_ns > 0 ? ktime_call_ns : 0, total, drv, nclk, iv;
	long long d[TK_MAX];

	for (int i = 0; i < TK_MAX; i++)
		d[i] = b && a ? b[i] - a[i] : 0;
	memset(t, 0, 6 * sizeof(*t));
	if (c->impl == OURS) {
		t[1] = d[TK_OURS_COPY_TO] + d[TK_OURS_COPY_FROM];
		t[2] = d[TK_OURS_ALLOC] + d[TK_OURS_FREE];
		t[4] = d[TK_OURS_UPDATE];
		/* the callbacks' pairs, and for a migration its own */
		nclk = e2e_ns > 0 ? 0 : d[TK_OURS_N + TK_OURS_MIG];
		for (int i = TK_OURS_ALLOC; i <= TK_OURS_UPDATE; i++)
			nclk += d[TK_OURS_N + i];
		total = e2e_ns > 0 ? e2e_ns : d[TK_OURS_MIG];
		drv = t[1] + t[2] + t[4];
		iv = total;
	} else if (e2e_ns > 0) {
		t[1] = d[TK_UPB_COPY];
		t[2] = d[TK_UPB_FF];
		t[3] = d[TK_UPB_TABLE];
		t[4] = d[TK_UPB_INV];
		/* m2r_clocks has each fault's own pair too */
		nclk = d[TK_UPB_CLOCKS] + d[TK_UPB_FF_CALLS] + d[TK_UPB_INV_CALLS];
		total = e2e_ns;
		drv = d[TK_UPB_TOTAL] - d[TK_UPB_CORE] + d[TK_UPB_FF] + d[TK_UPB_INV];
		iv = total;
	} else {
		memcpy(t, t6, 6 * sizeof(*t));
		nclk = c->nclocks;
		total = t6[0];	/* the core, net of the callbacks already */
		drv = 0;
		iv = t6[5];	/* UPB_MIGRATE_TO's whole body */
	}
	*core = total - drv - nclk * kc;
	t[0] = *core > 0 ? (unsigned long long)*core : 0;
	t[5] = (unsigned long long)iv;
}

/*
 * Send a timed worker's ROW_core sample beside the end-to-end one (@e2e),
 * for @work in the row's unit times seconds (MiB or touches).
 */
static void send_core(struct wctx *c, const struct wmsg *e2e, double work,
		      const long long *a, const long long *b, double e2e_ns,
		      const unsigned long long *t6)
{
	struct wmsg m = *e2e;
	double core;

	/* its own check; a partial sample stays partial */
	m.bad = 0;
	m.note[0] = 0;
	if (m.partial)
		addf(m.note, sizeof(m.note), "partial");
	snprintf(m.row, sizeof(m.row), "%.26s_core", e2e->row);
	m.have_t = 1;
	core_split(c, a, b, e2e_ns, t6, &core, m.t);
	m.value = core > 0 ? work / (core * 1e-9) : 0;
	if (!m.partial && !m.bad && core <= 0) {
		m.bad = 1;
		addf(m.note, sizeof(m.note), "check:core_ns=%.0f", core);
	}
	snprintf(m.info, sizeof(m.info), "core time: %s; ktime call %.0f ns subtracted per clock pair",
		 c->impl == OURS ? "hmm_dummy_timed" : "hmm_upstream_bench timing=1",
		 ktime_call_ns > 0 ? ktime_call_ns : 0);
	wsend(c, &m);
}

/*
 * Sparse touch, for sizes of at least 2 MiB: migrate K sub-ranges of the
 * size (2 MiB aligned, K such that there are at least SPARSE_MIN_TOUCHES
 * touches, within SPARSE_CAP of memory unless one sub-range is larger),
 * then touch one page per 2 MiB block of them, at an offset in the block
 * drawn by the seeded RNG, the same for every implementation and
 * repetition of the size. Below 2 MiB a sub-range is less than a block,
 * so a 512-page window moves only the sub-range, and the row would not be
 * the one-page-per-2-MiB case it stands for. Row sparse_touch at the
 * implementation's own window; with @mode SPARSE_W1 (ours and upstream),
 * the window parameter is 1 for the timed touches and put back after them,
 * and the samples are labelled IMPL_w1; with SPARSE_AD (ours), device 0's
 * own window (debugfs device0_window) is "adaptive" for the timed touches,
 * "default" again after them, and the samples are labelled ours_ad. Value:
 * touches per second; npages: pages the touches brought back (debugfs
 * from_device), nfaults: CPU faults. Checks: one CPU fault per touch;
 * pages back = touches at window 1 and adaptive (a lone touch in a block
 * that is all on the device takes one page), every migrated page at a
 * window of 512 (each touch takes its block's run of device pages back, on
 * both sides); with check, every byte afterwards.
 */
enum { SPARSE_OWN, SPARSE_W1, SPARSE_AD };
#define OURS_DEV_WINDOW	"/sys/kernel/debug/hmm_dummy/device0_window"
static int ours_adaptive;	/* hmm_dummy has device0_window */

#define SPARSE_MIN_KIB		2048UL	/* smaller sizes: no sparse row */
#define SPARSE_MIN_TOUCHES	32UL	/* touches per sample, at least... */
#define SPARSE_CAP		(64UL << 20)	/* ...within this much memory */

static void w_sparse(struct wctx *c, const struct wcmd *cmd, int check, int mode)
{
	int w1 = mode == SPARSE_W1;
	unsigned long kib = cmd->kib, size = kib * 1024, np = size / PG;
	unsigned long stride = mig_stride(kib);
	unsigned long bpp = PMD_SZ / PG, nb = (np + bpp - 1) / bpp;
	unsigned long k = (SPARSE_MIN_TOUCHES + nb - 1) / nb;
	unsigned long nt, total = 0, want_pages = 0;
	uint64_t rs = seed ^ (kib * 0xd1b54a32d192ed03ULL);
	const char *param = c->impl == OURS ? OURS_WINDOW : UPB_PARAM("window");
	unsigned long long t6[6] = { 0 };
	long got = 0, old = -1, cf0, cf1, b0, b1, ev0, ev1, win = c->window;
	long long ta[TK_MAX], tb[TK_MAX];
	volatile char sink = 0;
	unsigned long *off;
	char *p, what[64];
	struct wmsg m;
	double t;

	if (k > SPARSE_CAP / stride)
		k = SPARSE_CAP / stride;
	if (!k)
		k = 1;
	nt = k * nb;
	off = malloc(nt * sizeof(*off));
	if (!off)
		die("malloc");
	for (unsigned long j = 0; j < k; j++)
		for (unsigned long b = 0; b < nb; b++) {
			unsigned long first = b * bpp;
			unsigned long n = np - first < bpp ? np - first : bpp;

			off[j * nb + b] = j * stride + (first + sm64(&rs) % n) * PG;
		}
	p = map_anon(k * stride, 0);
	for (unsigned long j = 0; j < k; j++)
		fill(p + j * stride, size, (unsigned char)(11 + j));
	ev0 = c->impl == OURS ? wstat(c, "evictions") : -1;
	for (unsigned long j = 0; j < k && got >= 0; j++) {
		got = mig_one(c, p + j * stride, size, t6);
		if (got > 0)
			total += got;
	}
	if (got < 0) {
		errno = -got;
		die("%s: sparse_touch: migration of %lu KiB", impl_name[c->impl], kib);
	}
	ev1 = ev0 >= 0 ? wstat(c, "evictions") : -1;
	if (w1) {
		old = read_long(param);
		if (old < 1 || !write_long(param, 1))
			die("%s: cannot set %s to 1", impl_name[c->impl], param);
		win = 1;
	}
	if (mode == SPARSE_AD) {
		if (write_str(c->devwin, "adaptive"))
			die("%s: cannot set %s to adaptive", impl_name[c->impl],
			    c->devwin);
		win = 0;	/* below: "adaptive" */
	}
	cf0 = wstat(c, "cpu_faults");
	b0 = wstat(c, "from_device");
	if (c->timed)
		tsnap(c, ta);
	t = now();
	for (unsigned long i = 0; i < nt; i++)
		sink += p[off[i]];
	t = now() - t;
	(void)sink;
	if (c->timed)
		tsnap(c, tb);
	cf1 = cf0 >= 0 ? wstat(c, "cpu_faults") : -1;
	b1 = b0 >= 0 ? wstat(c, "from_device") : -1;
	if (w1 && !write_long(param, old))
		die("%s: cannot put %s back to %ld", impl_name[c->impl], param, old);
	if (mode == SPARSE_AD && write_str(c->devwin, "default"))
		die("%s: cannot put %s back to default", impl_name[c->impl],
		    c->devwin);

	wmsg_init(&m, "sparse_touch", "touch/s");
	if (w1)
		snprintf(m.isuffix, sizeof(m.isuffix), "_w1");
	else if (mode == SPARSE_AD)
		snprintf(m.isuffix, sizeof(m.isuffix), "_ad");
	m.value = nt / t;
	m.nops = nt;
	m.partial = total != k * np || ev1 > ev0;
	if (b0 >= 0 && b1 >= 0)
		m.npages = b1 - b0;
	if (cf0 >= 0 && cf1 >= 0)
		m.nfaults = cf1 - cf0;
	if (win == 1 || mode == SPARSE_AD)
		want_pages = nt;
	else if (win >= 512)
		want_pages = k * np;
	if (m.partial)
		addf(m.note, sizeof(m.note), "partial: %lu of %lu pages%s", total, k * np,
		     ev1 > ev0 ? ", evictions" : "");
	else if (m.nfaults >= 0 && (unsigned long)m.nfaults != nt) {
		m.bad = 1;
		addf(m.note, sizeof(m.note), "check:cpu_faults=%ld want %lu", m.nfaults, nt);
	} else if (want_pages && m.npages >= 0 && (unsigned long)m.npages != want_pages) {
		m.bad = 1;
		addf(m.note, sizeof(m.note), "check:pages_back=%ld want %lu", m.npages,
		     want_pages);
	}
	if (c->impl == TEST_HMM)
		snprintf(m.info, sizeof(m.info), "%lu touches; one page per CPU fault (test_hmm)", nt);
	else if (mode == SPARSE_AD)
		snprintf(m.info, sizeof(m.info), "%lu x %lu KiB, %lu touches; window=adaptive pages_back=%ld",
			 k, kib, nt, m.npages);
	else
		snprintf(m.info, sizeof(m.info), "%lu x %lu KiB, %lu touches; window=%ld pages_back=%ld",
			 k, kib, nt, win, m.npages);
	snprintf(what, sizeof(what), "%s%s sparse_touch %lu KiB", impl_name[c->impl],
		 m.isuffix, kib);
	if (check)	/* the touched pages and the rest, with their data */
		for (unsigned long j = 0; j < k; j++)
			check_fill(p + j * stride, size, (unsigned char)(11 + j), what);
	munmap(p, k * stride);
	check_in_use(c, &m);
	free(off);
	wsend(c, &m);
	if (c->timed)
		send_core(c, &m, nt, ta, tb, t * 1e9, NULL);
}

/*
 * A timed worker's dev_read1_core and dev_read1_coretab samples (see
 * w_read()) beside its dev_read1 sample @e2e, for @mib MiB: ours from the
 * counters before (@a) and after (@b) the reads; upstream from the sums of
 * its UPB_READ answers, @ut (core copy devmem table cb total), @nclk clock
 * pairs inside the core intervals and @tclk table intervals.
 */
static void send_read_core(struct wctx *c, const struct wmsg *e2e, double mib,
			   const long long *a, const long long *b,
			   const unsigned long long *ut, unsigned long long nclk,
			   unsigned long long tclk)
{
	double kc = ktime_call_ns > 0 ? ktime_call_ns : 0, core, table;
	unsigned long long t[6] = { 0 };

	if (c->impl == OURS) {
		long long fault = b[TK_OURS_FAULT] - a[TK_OURS_FAULT];
		long long upd = b[TK_OURS_UPDATE] - a[TK_OURS_UPDATE];
		long long calls = b[TK_OURS_N + TK_OURS_FAULT] - a[TK_OURS_N + TK_OURS_FAULT] +
				  b[TK_OURS_N + TK_OURS_UPDATE] - a[TK_OURS_N + TK_OURS_UPDATE];

		core = fault - upd - calls * kc;
		table = 0;	/* in hmm_mirror_fault() */
		t[4] = upd;
		t[5] = fault;
	} else {
		core = ut[0] - nclk * kc;
		table = ut[3] - tclk * kc;
		t[1] = ut[1];
		t[3] = ut[3];
		t[4] = ut[4];
		t[5] = ut[5];
	}
	for (int r = 0; r < 2; r++) {
		double v = r ? core + table : core;
		struct wmsg m = *e2e;

		/* a failed check of the reads (extra faults) fails these too */
		snprintf(m.row, sizeof(m.row), r ? "dev_read1_coretab" : "dev_read1_core");
		m.have_t = 1;
		memcpy(m.t, t, sizeof(m.t));
		m.t[0] = v > 0 ? (unsigned long long)v : 0;
		m.value = v > 0 ? mib / (v * 1e-9) : 0;
		if (v <= 0 || (r && c->impl == UPB && table <= 0)) {
			m.bad = 1;
			addf(m.note, sizeof(m.note), "check:core_ns=%.0f table_ns=%.0f", core, table);
		}
		snprintf(m.info, sizeof(m.info), "%s; ktime call %.0f ns subtracted per clock pair",
			 c->impl == OURS ? "hmm_mirror_fault() - update (table fill included)" :
			 r ? "hmm_range_fault() + seq + xarray stores" :
			 "hmm_range_fault() + seq, no table", kc);
		wsend(c, &m);
	}
}

/*
 * Device reads (issue 19 row 4; slice 3): K sub-ranges of the size, as in
 * the migration rows, written by the CPU, then read by the device twice,
 * one read ioctl per sub-range into a buffer of the worker: dev_read1, the
 * first read, which faults every entry in, and dev_read2, which finds them
 * all. ours: HMM_DUMMY_READ, 16-page accesses, hmm_mirror_fault() of at
 * most 512 pages at a missing entry; upstream: UPB_READ, the same accesses
 * and fault sizes with hmm_range_fault() and an xarray; test_hmm, a
 * reference: HMM_DMIRROR_READ, faults of 32 (7.3) or 64 (6.12) pages and a
 * bounce of the whole request. Checks (ours and upstream): every page
 * faulted once by the first read and none by the second (nfaults: entries
 * filled; test_hmm's fault calls); the data of both reads in a checked
 * repetition.
 *
 * Timed workers (-T) add the core time of the first read's device faults,
 * in MiB per second of it:
 *   dev_read1_core: ours, the time in hmm_mirror_fault() minus the
 *     ->update() callbacks in it (its table fill included); upstream, the
 *     faults without their table stores (the pfn array, the mm reference,
 *     the notifier sequence protocol, the mmap lock, hmm_range_fault())
 *     minus the invalidate callbacks;
 *   dev_read1_coretab: the same work on both sides, the CPU page table
 *     walk and the device table fill: ours as above, upstream plus its
 *     table stores. The issue's target row.
 * Clock pairs are subtracted as in the migration rows.
 */
static void w_read(struct wctx *c, const struct wcmd *cmd, int check)
{
	unsigned long kib = cmd->kib, size = kib * 1024, np = size / PG;
	unsigned long k = mig_nops(kib), stride = mig_stride(kib);
	double mib = (double)k * kib / 1024;
	char *p = map_anon(k * stride, 0), what[64];
	struct wmsg m;

	/* not kept between commands: 6 workers x 1 GiB would be too much */
	c->rbuf = dst_buf(k * size);
	c->rbuf_size = k * size;
	for (unsigned long j = 0; j < k; j++)
		fill(p + j * stride, size, (unsigned char)(11 + j));
	for (int pass = 0; pass < 2; pass++) {
		unsigned long long ut[6] = { 0 }, nclk = 0, tclk = 0;
		unsigned long f = 0, want = pass ? 0 : k * np;
		long long ta[TK_MAX], tb[TK_MAX];
		double t;

		if (check)
			memset(c->rbuf, 0, k * size);
		if (c->timed)
			tsnap(c, ta);
		t = now();
		for (unsigned long j = 0; j < k; j++) {
			f += dev_read(c->impl, c->fd, p + j * stride, size,
				      c->rbuf + j * size);
#if HAVE_UPB
			if (c->impl == UPB) {
				ut[0] += upb_last_rw.t.core;
				ut[1] += upb_last_rw.t.copy;
				ut[3] += upb_last_rw.t.table;
				ut[4] += upb_last_rw.t.callbacks;
				ut[5] += upb_last_rw.t.total;
				nclk += upb_last_rw.nclocks;
				tclk += upb_last_rw.table_clocks;
			}
#endif
		}
		t = now() - t;
		if (c->timed)
			tsnap(c, tb);
		wmsg_init(&m, pass ? "dev_read2" : "dev_read1", "MiB/s");
		m.value = mib / t;
		m.nops = k;
		m.nfaults = f;
		if (c->impl != TEST_HMM && f != want) {
			m.bad = 1;
			addf(m.note, sizeof(m.note), "check:nfaulted=%lu want %lu", f, want);
		}
		snprintf(m.info, sizeof(m.info), "%lu x %lu KiB per sample; %s=%lu", k, kib,
			 c->impl == TEST_HMM ? "fault_calls" : "faulted_pages", f);
		snprintf(what, sizeof(what), "%s %s %lu KiB", impl_name[c->impl], m.row, kib);
		if (check)
			for (unsigned long j = 0; j < k; j++)
				check_fill(c->rbuf + j * size, size, (unsigned char)(11 + j), what);
		wsend(c, &m);
		if (c->timed && !pass)
			send_read_core(c, &m, mib, ta, tb, ut, nclk, tclk);
	}
	munmap(p, k * stride);
	munmap(c->rbuf, c->rbuf_size);
	c->rbuf = NULL;
	c->rbuf_size = 0;
}

/* test_hmm copies a migration back to the caller: into c->dst. */
static void dst_ensure(struct wctx *c, unsigned long size)
{
	if (c->impl != TEST_HMM || c->dst_size >= size)
		return;
	if (c->dst)
		munmap(c->dst, c->dst_size);
	c->dst = dst_buf(size);
	c->dst_size = size;
	/* kept: the fork rows' children need no copy of it */
	madvise(c->dst, size, MADV_DONTFORK);
}

/*
 * Migrate K sub-ranges of @size at @p (stride apart) with the worker's
 * implementation, untimed. Returns the pages migrated, or -errno for ours'
 * first migration (ours then gets n/a rows); any other failure is fatal.
 */
static long mig_all(struct wctx *c, char *p, unsigned long k, unsigned long stride,
		    unsigned long size)
{
	unsigned long long t6[6] = { 0 };
	unsigned long total = 0;
	long got;

	dst_ensure(c, size);
	for (unsigned long j = 0; j < k; j++) {
		got = mig_one(c, p + j * stride, size, t6);
		if (got < 0 && c->impl == OURS && c->first)
			return got;
		if (got < 0) {
			errno = -got;
			die("%s: migration of %lu KiB", impl_name[c->impl], size / 1024);
		}
		total += got;
	}
	c->first = 0;
	return total;
}

/* Read one byte of every page of the sample. */
static void touch_all(const char *p, unsigned long k, unsigned long stride,
		      unsigned long np)
{
	volatile char sink = 0;

	for (unsigned long j = 0; j < k; j++)
		for (unsigned long i = 0; i < np; i++)
			sink += p[j * stride + i * PG];
	(void)sink;
}

/*
 * fork() with memory on the device (issue 19 item 4, row 6; slice 4),
 * -X fork. For each row a fresh mapping of the sample's K sub-ranges is
 * written by the CPU and migrated to the device (untimed), then:
 *   fork_dev: the parent's fork() latency, the child _exit()ing at once;
 *   fork_dev_exit: the same fork() until waitpid() returns (the child's
 *     exit, which frees what fork() gave it, included);
 *   fork_child_touch: fork(), the child reads one byte of every page,
 *     until the child says it is done (a pipe);
 *   fork_parent_write: after fork(), with the child alive (blocked on a
 *     pipe), the parent writes one byte of every page: the write loop.
 * ours gives the child a system-memory copy of every device page during
 * fork() (the device mirrors one mm) and leaves the parent's entries
 * alone; upstream shares the DEVICE_PRIVATE page with the child,
 * write-protected, and a touch by either side migrates it back for both
 * (then a write copies it). MiB of device memory per second. fork()
 * failing with ENOMEM (ours needs memory for the child's copies) gives a
 * sample noted "partial", not counted. Checks (ours and upstream; test_hmm
 * has no counters): where the pages are (from_device, in_use): fork()
 * brings none back, the child's reads none on ours (it has copies) and
 * all on upstream (shared pages), the parent's writes all; the child's
 * exit status; in a checked repetition the child's data (after its
 * reads; after the parent's writes, which it must not see) and the
 * parent's; the pool empty after munmap.
 */
static int w_fork(struct wctx *c, const struct wcmd *cmd, int check)
{
	unsigned long kib = cmd->kib, size = kib * 1024, np = size / PG;
	unsigned long k = mig_nops(kib), stride = mig_stride(kib);
	double mib = (double)k * kib / 1024;

	for (int r = 0; r < 3; r++) {
		char *p = map_anon(k * stride, 0), what[64], x = 0;
		int pfd[2] = { -1, -1 }, status = 0, enomem = 0;
		double t0, t1, t2 = 0;
		long total, b0, b1, iu;
		struct wmsg m[2];
		pid_t pid;

		for (unsigned long j = 0; j < k; j++)
			fill(p + j * stride, size, (unsigned char)(13 + j));
		total = mig_all(c, p, k, stride, size);
		if (total < 0) {
			munmap(p, k * stride);
			return -total;
		}
		snprintf(what, sizeof(what), "%s fork rows %lu KiB", impl_name[c->impl], kib);
		if (r && pipe(pfd))
			die("pipe");
		b0 = wstat(c, "from_device");
		t0 = now();
		pid = fork();
		t1 = now();
		if (!pid) {
			int bad = 0;

			if (r == 1) {
				touch_all(p, k, stride, np);
				if (write(pfd[1], &x, 1) != 1)
					_exit(4);
			} else if (r == 2) {
				close(pfd[1]);
				while (read(pfd[0], &x, 1) < 0 && errno == EINTR)
					;
			}
			for (unsigned long j = 0; j < k && check && r; j++)
				bad |= !!fill_bad(p + j * stride, size, (unsigned char)(13 + j),
						  (unsigned char)(13 + j), 0);
			_exit(bad ? 3 : 0);
		}
		if (pid < 0 && errno != ENOMEM)
			die("%s: fork", what);
		enomem = pid < 0;
		if (r == 1) {
			/* EOF if the child dies before it is done */
			close(pfd[1]);
			pfd[1] = -1;
		}
		if (r == 1 && !enomem) {
			if (read_full(pfd[0], &x, 1) != 1)
				status = -1;	/* died before it was done */
			t2 = now();
		} else if (r == 2 && !enomem) {
			close(pfd[0]);
			pfd[0] = -1;
			t0 = now();
			for (unsigned long j = 0; j < k; j++)
				for (unsigned long i = 0; i < np; i++)
					p[j * stride + i * PG] = (char)(14 + j + i);
			t1 = now();
			close(pfd[1]);	/* the child may go */
			pfd[1] = -1;
		}
		if (!enomem) {
			int ws;

			if (waitpid(pid, &ws, 0) != pid)
				die("%s: waitpid", what);
			if (!status)
				status = ws;
		}
		if (r == 0)
			t2 = now();
		if (pfd[0] >= 0)
			close(pfd[0]);
		if (pfd[1] >= 0)
			close(pfd[1]);
		b1 = b0 >= 0 ? wstat(c, "from_device") : -1;
		iu = wstat(c, "in_use");

		for (int s = 0; s < (r ? 1 : 2); s++) {
			wmsg_init(&m[s], r == 1 ? "fork_child_touch" : r == 2 ? "fork_parent_write" :
				  s ? "fork_dev_exit" : "fork_dev", "MiB/s");
			m[s].nops = k;
			m[s].npages = total;
			m[s].value = enomem ? 0 : mib / (r == 2 || (!r && !s) ? t1 - t0 : t2 - t0);
			m[s].partial = (unsigned long)total != k * np || enomem;
			snprintf(m[s].info, sizeof(m[s].info), "%lu x %lu KiB on the device; %s", k,
				 kib, r == 1 ? "the child reads every page" :
				 r == 2 ? "the parent writes every page, the child alive" :
				 s ? "until waitpid()" : "fork() in the parent, the child exits");
		}
		if (enomem) {
			addf(m[0].note, sizeof(m[0].note), "partial: fork ENOMEM");
			addf(m[1].note, sizeof(m[1].note), "partial: fork ENOMEM");
		} else if (m[0].partial) {
			addf(m[0].note, sizeof(m[0].note), "partial: %ld of %lu pages", total,
			     k * np);
		}
		if (!enomem && status) {
			m[0].bad = 1;
			addf(m[0].note, sizeof(m[0].note), "check:child status %#x", status);
		}
		/*
		 * Where the pages are: fork() moves none back; the child's
		 * reads bring none back on ours (it has copies) and all on
		 * upstream (shared pages); the parent's writes bring all back.
		 */
		if (!m[0].partial && b0 >= 0 && b1 >= 0 && iu >= 0) {
			long back = r == 2 || (r == 1 && c->impl == UPB) ? total : 0;

			if (b1 - b0 != back || iu != total - back) {
				m[0].bad = 1;
				addf(m[0].note, sizeof(m[0].note),
				     "check:from_device=%ld in_use=%ld want %ld and %ld", b1 - b0,
				     iu, back, total - back);
			}
		}
		/* the parent's data, untimed (after fork_dev it comes back now) */
		if (check && !enomem)
			for (unsigned long j = 0; j < k; j++)
				if (fill_bad(p + j * stride, size, (unsigned char)(13 + j),
					     (unsigned char)(13 + j + (r == 2)), 0)) {
					errno = 0;
					die("%s: the parent's data, row %s", what, m[0].row);
				}
		munmap(p, k * stride);
		check_in_use(c, &m[0]);
		if (!r) {
			m[1].bad = m[0].bad;
			snprintf(m[1].note, sizeof(m[1].note), "%s", m[0].note);
		}
		for (int s = 0; s < (r ? 1 : 2); s++)
			wsend(c, &m[s]);
	}
	return 0;
}

/*
 * The pages of w_mt(): K sub-ranges of np pages, each in its own 2 MiB
 * block (stride apart). A unit is the pages of one CPU-fault window of 512
 * pages, or a whole sub-range below 2 MiB; the threads' parts are whole
 * units, so no two threads fault in one window. w_mt() needs 4 units.
 */
static unsigned long mt_unit(unsigned long np)
{
	return np < 512 ? np : 512;
}

static unsigned long mt_units(unsigned long kib)
{
	unsigned long np = kib * 1024 / PG;

	if (np % mt_unit(np))
		return 0;	/* not whole windows */
	return mig_nops(kib) * np / mt_unit(np);
}

/* One thread of w_mt(). */
struct mt_arg {
	struct wctx *c;
	pthread_barrier_t *bar;
	char *p, *rbuf;
	unsigned long stride, np, first, last;	/* pages [first, last) */
	int read, il, idx, n;	/* il: pages idx, idx + n, ... of all */
	unsigned long nfaulted;
	double t0, t1;		/* this thread's start and end (now()) */
};

static void *mt_thread(void *arg)
{
	struct mt_arg *a = arg;
	cpu_set_t cpus;

	/* the worker is pinned to CPU 0; its threads may use every CPU */
	CPU_ZERO(&cpus);
	for (int i = 0; i < CPU_SETSIZE; i++)
		CPU_SET(i, &cpus);
	sched_setaffinity(0, sizeof(cpus), &cpus);
	pthread_barrier_wait(a->bar);
	a->t0 = now();
	if (a->il) {
		volatile char sink = 0;

		for (unsigned long x = a->idx; x < a->last; x += a->n)
			sink += a->p[x / a->np * a->stride + x % a->np * PG];
		(void)sink;
		a->t1 = now();
		return NULL;
	}
	for (unsigned long x = a->first; x < a->last;) {
		unsigned long j = x / a->np, i = x % a->np;
		unsigned long n = a->np - i < a->last - x ? a->np - i : a->last - x;
		char *q = a->p + j * a->stride + i * PG;

		if (a->read) {
			a->nfaulted += dev_read(a->c->impl, a->c->fd, q, n * PG,
						a->rbuf + x * PG);
		} else {
			volatile char sink = 0;

			for (unsigned long y = 0; y < n; y++)
				sink += q[y * PG];
			(void)sink;
		}
		x += n;
	}
	a->t1 = now();
	return NULL;
}

/*
 * Threads (issue 19 item 4, row 7; slice 4), -X mt, at sizes of at least
 * 4 units of whole windows (mt_units(): below 2 MiB, and multiples of
 * 2 MiB from 8 MiB; _il from 16 KiB). 1 or 4 threads share the sample's
 * pages, started together by a barrier:
 *   mtN_back: CPU reads of one byte of every page after the sample was
 *     migrated to the device (CPU faults, each side at its own window: 512
 *     pages for ours and upstream); each thread a contiguous part of whole
 *     units, so each window is faulted by one thread;
 *   mt4_back_il: the same with the pages interleaved (thread t reads pages
 *     t, t + 4, ...): four threads fault in the same windows;
 *   mtN_read1: the first device read of the CPU-written sample, each
 *     thread a contiguous part of whole units, one read ioctl per part of
 *     a sub-range, on the worker's one file (device faults).
 * MiB per second from the first thread's start to the last one's end, on
 * the threads' own clocks. The threads are not pinned; the worker's own
 * thread, pinned to CPU 0, waits in pthread_join(). The guest has
 * bench.sh's --smp vCPUs (2 by default) on a 2-core host under MTTCG: not
 * a measure of scaling (see benchmarks.md, "Under TCG"), but of
 * completion, correctness and the faults it takes. Checks (ours and
 * upstream): every page back (back; from_device), the CPU faults (the
 * contiguous back rows: one per window; the interleaved row: reported),
 * every page faulted once (read1), the data in a checked repetition, the
 * pool empty after munmap.
 */
static int w_mt(struct wctx *c, const struct wcmd *cmd, int check)
{
	unsigned long kib = cmd->kib, size = kib * 1024, np = size / PG;
	unsigned long k = mig_nops(kib), stride = mig_stride(kib), unit = mt_unit(np);
	unsigned long units = mt_units(kib);
	double mib = (double)k * kib / 1024;
	static const struct { int n, read, il; const char *row; } v[] = {
		{ 1, 0, 0, "mt1_back" }, { 4, 0, 0, "mt4_back" }, { 4, 0, 1, "mt4_back_il" },
		{ 1, 1, 0, "mt1_read1" }, { 4, 1, 0, "mt4_read1" },
	};

	if (units < 4)
		return 0;
	for (unsigned t = 0; t < sizeof(v) / sizeof(v[0]); t++) {
		int n = v[t].n, read = v[t].read;
		char *p, *rbuf = NULL, what[64];
		unsigned long f = 0, want_cf = 0;
		long total = 0, b0, b1, cf0, cf1;
		pthread_barrier_t bar;
		struct mt_arg a[4];
		pthread_t th[4];
		struct wmsg m;
		double t0, t1;

		if (v[t].il && np < 4)
			continue;	/* each window in one thread anyway */
		p = map_anon(k * stride, 0);
		for (unsigned long j = 0; j < k; j++)
			fill(p + j * stride, size, (unsigned char)(15 + j));
		if (read)
			rbuf = dst_buf(k * size);
		else
			total = mig_all(c, p, k, stride, size);
		if (total < 0) {	/* ours' first migration: n/a rows */
			munmap(p, k * stride);
			return -total;
		}
		wmsg_init(&m, v[t].row, "MiB/s");
		m.nops = k;
		if (!read) {
			m.npages = total;
			m.partial = (unsigned long)total != k * np;
			if (c->window > 0 && c->window <= 512 && !v[t].il)
				want_cf = k * ((np + c->window - 1) / c->window);
		}
		if (pthread_barrier_init(&bar, NULL, n + 1))
			die("pthread_barrier_init");
		b0 = wstat(c, "from_device");
		cf0 = wstat(c, "cpu_faults");
		for (int i = 0; i < n; i++) {
			a[i] = (struct mt_arg){ .c = c, .bar = &bar, .p = p, .rbuf = rbuf,
					      .stride = stride, .np = np,
					      .first = units * i / n * unit,
					      .last = units * (i + 1) / n * unit,
					      .read = read, .il = v[t].il, .idx = i, .n = n };
			if (v[t].il) {
				a[i].first = 0;
				a[i].last = k * np;
			}
			if (pthread_create(&th[i], NULL, mt_thread, &a[i]))
				die("pthread_create");
		}
		pthread_barrier_wait(&bar);
		for (int i = 0; i < n; i++) {
			pthread_join(th[i], NULL);
			f += a[i].nfaulted;
		}
		pthread_barrier_destroy(&bar);
		t0 = a[0].t0;
		t1 = a[0].t1;
		for (int i = 1; i < n; i++) {
			t0 = a[i].t0 < t0 ? a[i].t0 : t0;
			t1 = a[i].t1 > t1 ? a[i].t1 : t1;
		}
		b1 = b0 >= 0 ? wstat(c, "from_device") : -1;
		cf1 = cf0 >= 0 ? wstat(c, "cpu_faults") : -1;
		m.value = mib / (t1 - t0);
		if (read) {
			m.nfaults = f;
			if (c->impl != TEST_HMM && f != k * np) {
				m.bad = 1;
				addf(m.note, sizeof(m.note), "check:nfaulted=%lu want %lu", f,
				     k * np);
			}
		} else if (m.partial) {
			addf(m.note, sizeof(m.note), "partial: %ld of %lu pages", total, k * np);
		} else {
			if (cf0 >= 0 && cf1 >= 0)
				m.nfaults = cf1 - cf0;
			if (b0 >= 0 && b1 >= 0 && b1 - b0 != total) {
				m.bad = 1;
				addf(m.note, sizeof(m.note), "check:from_device=%ld want %ld",
				     b1 - b0, total);
			} else if (want_cf && m.nfaults >= 0 &&
				   (unsigned long)m.nfaults != want_cf) {
				m.bad = 1;
				addf(m.note, sizeof(m.note), "check:cpu_faults=%ld want %lu",
				     m.nfaults, want_cf);
			}
		}
		snprintf(m.info, sizeof(m.info), "%d thread%s%s, %lu x %lu KiB, %s; faults %ld", n,
			 n > 1 ? "s" : "", v[t].il ? " interleaved" : "", k, kib,
			 read ? "first device read" : "CPU faults after migration", m.nfaults);
		snprintf(what, sizeof(what), "%s %s %lu KiB", impl_name[c->impl], v[t].row, kib);
		if (check)
			for (unsigned long j = 0; j < k; j++)
				check_fill(read ? rbuf + j * size : p + j * stride, size,
					   (unsigned char)(15 + j), what);
		munmap(p, k * stride);
		if (rbuf)
			munmap(rbuf, k * size);
		check_in_use(c, &m);
		wsend(c, &m);
	}
	return 0;
}

/* The main rows (see above); 0, or the errno of ours' first migration. */
static int w_main(struct wctx *c, const struct wcmd *cmd)
{
	const char *in = impl_name[c->impl];
	unsigned long kib = cmd->kib, size = kib * 1024, np = size / PG;
	unsigned long k = mig_nops(kib), stride = mig_stride(kib), want_cf = 0;
	double mib = (double)k * kib / 1024;
	int check = cmd->warm || cmd->rep == 1;
	uint64_t rs = seed ^ (kib * 0x9e3779b97f4a7c15ULL);
	unsigned long *order = malloc(k * np * sizeof(*order));
	struct wmsg m;

	if (!order)
		die("malloc");
	dst_ensure(c, size);
	/* Same permutation for every implementation and repetition. */
	for (unsigned long j = 0; j < k * np; j++)
		order[j] = j;
	for (unsigned long j = k * np - 1; j > 0; j--) {
		unsigned long x = sm64(&rs) % (j + 1), tmp = order[j];

		order[j] = order[x];
		order[x] = tmp;
	}
	/* Aligned windows of at most 512 pages: one fault per window. */
	if (c->window > 0 && c->window <= 512)
		want_cf = k * ((np + c->window - 1) / c->window);

	for (int rand = 0; rand <= 1; rand++) {
		const char *rname = rand ? "migrate_back_rand" : "migrate_back_seq";
		long h0 = mig_thp ? anon_huge_kb() : 0, thp_kb = 0;
		char *p = map_anon(k * stride, mig_thp), what[64], thpb[32];
		unsigned long long t6[6] = { 0 };
		unsigned long total = 0;
		long got = 0, ev0, ev1, cf0, cf1, b0, b1, sp0, sp1;
		long long ta[TK_MAX], tb[TK_MAX];
		volatile char sink = 0;
		int partial;
		double t;

		for (unsigned long j = 0; j < k; j++)
			fill(p + j * stride, size, (unsigned char)(7 + j));
		if (mig_thp)	/* AnonHugePages: this worker alone runs */
			thp_kb = anon_huge_kb() - h0;
		/* The same for the splits the migration makes. */
		sp0 = mig_thp ? read_long(THP_SPLITS) : -1;
		ev0 = c->impl == OURS ? wstat(c, "evictions") : -1;
		c->nclocks = 0;
		c->ncompound = 0;
		if (c->timed)
			tsnap(c, ta);
		t = now();
		for (unsigned long j = 0; j < k && got >= 0; j++) {
			got = mig_one(c, p + j * stride, size, t6);
			if (got > 0)
				total += got;
		}
		t = now() - t;
		if (c->timed)
			tsnap(c, tb);
		if (got < 0) {
			if (c->impl == OURS && c->first) {
				/* ours gets n/a rows (print_all) */
				munmap(p, k * stride);
				free(order);
				return -got;
			}
			errno = -got;
			die("%s: migration of %lu KiB", in, kib);
		}
		c->first = 0;
		sp1 = sp0 >= 0 ? read_long(THP_SPLITS) : -1;
		ev1 = ev0 >= 0 ? wstat(c, "evictions") : -1;
		partial = total != k * np || ev1 > ev0;
		if (!rand) {
			wmsg_init(&m, "migrate_to_dev", "MiB/s");
			m.value = mib / t;
			m.nops = k;
			m.npages = total;
			m.partial = partial;
			if (c->impl == UPB) {	/* total always, the rest with timing on */
				m.have_t = c->timing ? 1 : 2;
				memcpy(m.t, t6, sizeof(m.t));
			}
			if (partial)
				addf(m.note, sizeof(m.note), "partial: %lu of %lu pages", total, k * np);
			if (ev1 > ev0)
				addf(m.note, sizeof(m.note), "evictions=%ld", ev1 - ev0);
			/*
			 * -B thp: every block a THP, and compound moved each whole;
			 * if not, the sample is left out (partial) and fails the run
			 */
			if (mig_thp && thp_kb < (long)(k * kib)) {
				m.bad = m.partial = 1;
				addf(m.note, sizeof(m.note), "partial: check:thp=%ld of %lu KiB",
				     thp_kb, k * kib);
			} else if (mig_thp && c->compound && !partial &&
				   c->ncompound * (PMD_SZ / PG) != total) {
				m.bad = m.partial = 1;
				addf(m.note, sizeof(m.note), "partial: check:ncompound=%llu want %lu",
				     c->ncompound, total / (PMD_SZ / PG));
			}
			snprintf(m.info, sizeof(m.info), "%lu x %lu KiB per sample; %s%s", k, kib,
				 c->impl == OURS ? "HMM_DUMMY_MIGRATE_TO" : c->impl == UPB ?
				 "UPB_MIGRATE_TO, no copy back" :
				 "includes test_hmm's copy back to the caller",
				 !mig_thp ? "" : c->compound ? "; THP moved whole" : "");
			if (sp0 >= 0 && sp1 >= 0)
				addf(m.info, sizeof(m.info), "2 MiB splits=%ld", sp1 - sp0);
			wsend(c, &m);
			if (c->timed)
				send_core(c, &m, mib, ta, tb, 0, t6);
		}
		cf0 = wstat(c, "cpu_faults");
		b0 = wstat(c, "from_device");
		if (c->timed)
			tsnap(c, ta);
		t = now();
		if (rand)
			for (unsigned long j = 0; j < k * np; j++)
				sink += p[order[j] / np * stride + order[j] % np * PG];
		else
			for (unsigned long j = 0; j < k; j++)
				for (unsigned long i = 0; i < np; i++)
					sink += p[j * stride + i * PG];
		t = now() - t;
		(void)sink;
		if (c->timed)
			tsnap(c, tb);
		cf1 = cf0 >= 0 ? wstat(c, "cpu_faults") : -1;
		b1 = b0 >= 0 ? wstat(c, "from_device") : -1;
		wmsg_init(&m, rname, "MiB/s");
		m.value = mib / t;
		m.nops = k;
		m.partial = partial;
		if (b0 >= 0 && b1 >= 0)
			m.npages = b1 - b0;
		if (cf0 >= 0 && cf1 >= 0)
			m.nfaults = cf1 - cf0;
		if (partial)
			addf(m.note, sizeof(m.note), "partial");
		else if (want_cf && m.nfaults >= 0 && (unsigned long)m.nfaults != want_cf) {
			m.bad = 1;
			addf(m.note, sizeof(m.note), "check:cpu_faults=%ld want %lu",
			     m.nfaults, want_cf);
		}
		/* -B thp: how much came back as THP (info, not a check) */
		thpb[0] = 0;
		if (mig_thp)
			snprintf(thpb, sizeof(thpb), " thp_back=%ld%%",
				 (anon_huge_kb() - h0) * 100 / (long)(k * kib));
		if (c->impl == TEST_HMM)
			snprintf(m.info, sizeof(m.info), "one page per CPU fault (test_hmm)");
		else if (m.nfaults >= 0)
			snprintf(m.info, sizeof(m.info), "window=%ld cpu_faults=%ld pages_back=%ld%s",
				 c->window, m.nfaults, m.npages, thpb);
		else
			snprintf(m.info, sizeof(m.info), "window=%ld (no debugfs counters)", c->window);
		snprintf(what, sizeof(what), "%s %s %lu KiB", in, rname, kib);
		if (check)	/* every page back, with its data */
			for (unsigned long j = 0; j < k; j++)
				check_fill(p + j * stride, size, (unsigned char)(7 + j), what);
		munmap(p, k * stride);
		check_in_use(c, &m);
		wsend(c, &m);
		if (c->timed)
			send_core(c, &m, mib, ta, tb, t * 1e9, NULL);
	}
	if (!(rowsets & RS_MAIN)) {	/* -X move */
		free(order);
		return 0;
	}

	if (kib >= SPARSE_MIN_KIB) {
		w_sparse(c, cmd, check, SPARSE_OWN);
		if (c->impl != TEST_HMM)
			w_sparse(c, cmd, check, SPARSE_W1);
		if (c->impl == OURS && ours_adaptive)
			w_sparse(c, cmd, check, SPARSE_AD);
	}

	w_read(c, cmd, check);

	/* A range the device had read, read again right after migrating it. */
	if (!c->timed) {
		char *p = map_anon(k * stride, 0), *rbuf = dst_buf(k * size);
		unsigned long long t6[6] = { 0 };
		unsigned long total = 0, f = 0, ndev = 0;
		long got;
		double t;

		for (unsigned long j = 0; j < k; j++) {
			fill(p + j * stride, size, (unsigned char)(9 + j));
			dev_read(c->impl, c->fd, p + j * stride, size, rbuf + j * size);
			got = mig_one(c, p + j * stride, size, t6);
			if (got > 0)
				total += got;
		}
		memset(rbuf, 0, k * size);
		t = now();
		for (unsigned long j = 0; j < k; j++) {
			f += dev_read(c->impl, c->fd, p + j * stride, size, rbuf + j * size);
			ndev += c->impl == OURS ? ours_read_ndev :
#if HAVE_UPB
				c->impl == UPB ? upb_last_rw.ndev :
#endif
				0;
		}
		t = now() - t;
		wmsg_init(&m, "dev_read_migrated", "MiB/s");
		m.value = mib / t;
		m.nops = k;
		m.npages = total;
		m.nfaults = f;
		m.partial = total != k * np;
		if (m.partial) {
			addf(m.note, sizeof(m.note), "partial: %lu of %lu pages", total, k * np);
		} else if (c->impl != TEST_HMM && (f || ndev != total)) {
			/* the table entries follow the pages to the device */
			m.bad = 1;
			addf(m.note, sizeof(m.note), "check:nfaulted=%lu want 0, ndev=%lu want %lu",
			     f, ndev, total);
		}
		snprintf(m.info, sizeof(m.info), "%s=%lu", c->impl == TEST_HMM ? "fault_calls" :
			 "faulted_pages", f);
		/* the device's copy, without touching the range: it stays there */
		if (check)
			for (unsigned long j = 0; j < k; j++)
				check_fill(rbuf + j * size, size, (unsigned char)(9 + j),
					   c->impl == OURS ? "ours dev_read_migrated" :
					   c->impl == UPB ? "upstream dev_read_migrated" :
					   "test_hmm dev_read_migrated");
		munmap(p, k * stride);	/* frees the device pages */
		munmap(rbuf, k * size);
		check_in_use(c, &m);
		wsend(c, &m);
	}
	free(order);
	return 0;
}

#define PP_SETTLE_MAX 1000	/* settle rounds at most ... */
#define PP_SETTLE_S 10		/* ... and seconds */

static long pp_threshold = -1;	/* ours' threshold as loaded; -1: none */

/* A device read of a block in w_pp(): byte 0 @last (-1: the fill's). */
static void pp_check(const char *b, unsigned long np, unsigned char seed, int last,
		     const char *what)
{
	for (unsigned long i = 0; i < np; i++) {
		char want = last < 0 ? (char)(seed + i) : (char)last;

		uint64_t mark;

		memcpy(&mark, b + i * PG + FILL_MARK, sizeof(mark));
		if (b[i * PG] != want || mark != i) {
			errno = 0;
			die("%s: device read of page %lu: %d (page %llu), want %d", what, i,
			    b[i * PG], (unsigned long long)mark, want);
		}
		for (unsigned long x = 1; x < PG; x++)
			if ((x < FILL_MARK || x >= FILL_MARK + sizeof(mark)) &&
			    b[i * PG + x] != (char)seed) {
				errno = 0;
				die("%s: device read of page %lu: byte %lu", what, i, x);
			}
	}
}

/*
 * Ping-pong at the default tunables, and a phase change (issue 19 item 4,
 * rows 11 and 12; slice 4), -X pp, at a size of 2 MiB only (the sample's
 * K blocks):
 *   pp_bounce: PP_ROUNDS rounds of (migrate every block to the device,
 *     read it with the device, write every page with the CPU), ms per
 *     round;
 *   pp_settle, pp_settle_rounds: then the phase changes: rounds of
 *     (migrate, device read) without CPU writes, until a round's device
 *     reads find every page in device memory (at most PP_SETTLE_MAX
 *     rounds and PP_SETTLE_S s): the ms and the rounds from the phase
 *     change to the end of that round.
 * ours asks for its ping-pong control (HMM_DUMMY_MIGRATE_PINGPONG) at the
 * kernel's tunables as loaded (the defaults unless someone changed them;
 * the note gives them), which the parent turns on only for these rows;
 * upstream has no such control (neither its core nor an in-tree driver),
 * so it migrates every time and settles in one round. Only counts mean
 * much here: the tunables are wall-clock times and TCG slows a round
 * 10-50x, and a "device" reads system memory at the cost of its own
 * (both are CPU copies), so what a hold costs a real device (reads over
 * the link) does not show in the times. Checks: a bounce at well under
 * the window is held (ours, control on), the settle phase ends, every
 * page's last write, the data of every device read in the warm-up, the
 * pool empty after munmap.
 */
static int w_pp(struct wctx *c, const struct wcmd *cmd, int check)
{
	long window_ms = c->impl == OURS ? read_long(OURS_PP("window_ms")) : -1;
	unsigned long kib = cmd->kib, size = kib * 1024, np = size / PG;
	unsigned long k = mig_nops(kib), stride = mig_stride(kib);
	char *p = map_anon(k * stride, 0), *rbuf = dst_buf(k * size), what[64];
	unsigned long migrated[2] = { 0 }, ndev = 0;
	unsigned long long t6[6] = { 0 };
	int rounds[2] = { PP_ROUNDS, 0 }, settled = 0;
	long held, holds0 = -1;
	double t[2];

	/*
	 * The check reads every byte between the device read and the CPU
	 * write, in the interval the control measures: only in the warm-up.
	 */
	check = check && cmd->warm;
	dst_ensure(c, size);
	if (c->impl == OURS && pp_threshold > 0) {
		if (!write_long(OURS_PP("threshold"), pp_threshold))
			die("cannot set %s", OURS_PP("threshold"));
		ours_pingpong = 1;
		ours_held = 0;
		holds0 = read_long(OURS_PP("held"));
	}
	snprintf(what, sizeof(what), "%s pp %lu KiB", impl_name[c->impl], kib);
	for (unsigned long j = 0; j < k; j++)
		fill(p + j * stride, size, (unsigned char)(17 + j));
	for (int phase = 0; phase < 2; phase++) {
		t[phase] = now();
		for (int round = 0; phase ? !settled : round < PP_ROUNDS; round++) {
			if (phase && (round == PP_SETTLE_MAX || now() - t[1] > PP_SETTLE_S))
				break;
			for (unsigned long j = 0; j < k; j++) {
				long n = mig_one(c, p + j * stride, size, t6);

				if (n < 0 && c->impl == OURS && c->first) {
					/* n/a rows */
					ours_pingpong = 0;
					write_long(OURS_PP("threshold"), 0);
					munmap(p, k * stride);
					munmap(rbuf, k * size);
					return -n;
				}
				if (n < 0) {
					errno = -n;
					die("%s: migration", what);
				}
				c->first = 0;
				migrated[phase] += n;
			}
			ndev = 0;
			for (unsigned long j = 0; j < k; j++) {
				dev_read(c->impl, c->fd, p + j * stride, size, rbuf + j * size);
				ndev += c->impl == OURS ? ours_read_ndev :
#if HAVE_UPB
					c->impl == UPB ? upb_last_rw.ndev :
#endif
					np;	/* test_hmm: not known, settles at once */
			}
			/* byte 0 of a page: the fill's, then the last round's write */
			if (check)
				for (unsigned long j = 0; j < k; j++)
					pp_check(rbuf + j * size, np, (unsigned char)(17 + j),
						 phase ? PP_ROUNDS - 1 : round - 1, what);
			if (phase) {
				rounds[1] = round + 1;
				settled = ndev == k * np;
				continue;
			}
			for (unsigned long j = 0; j < k; j++)
				for (unsigned long i = 0; i < np; i++)
					p[j * stride + i * PG] = (char)round;
		}
		t[phase] = now() - t[phase];
	}
	held = ours_held;
	ours_pingpong = 0;
	if (c->impl == OURS && pp_threshold > 0 && !write_long(OURS_PP("threshold"), 0))
		die("cannot put %s back to 0", OURS_PP("threshold"));
	for (unsigned long j = 0; j < k; j++)
		for (unsigned long i = 0; i < np; i++)
			if (p[j * stride + i * PG] != (char)(PP_ROUNDS - 1)) {
				errno = 0;
				die("%s: page %lu of block %lu lost a write", what, i, j);
			}
	munmap(p, k * stride);
	munmap(rbuf, k * size);
	for (int r = 0; r < 3; r++) {
		static const char *rn[] = { "pp_bounce", "pp_settle", "pp_settle_rounds" };
		struct wmsg m;

		wmsg_init(&m, rn[r], r < 2 ? "ms" : "rounds");
		m.nops = k;
		m.value = r == 0 ? t[0] * 1000 / PP_ROUNDS : r == 1 ? t[1] * 1000 : rounds[1];
		m.npages = migrated[r ? 1 : 0];
		if (c->impl == OURS && pp_threshold > 0)
			snprintf(m.info, sizeof(m.info),
				 "%lu+%lu pages migrated, %ld held back, %ld holds; threshold %ld window %ld ms hold %ld ms",
				 migrated[0], migrated[1], held, read_long(OURS_PP("held")) - holds0,
				 pp_threshold, read_long(OURS_PP("window_ms")),
				 read_long(OURS_PP("hold_ms")));
		else
			snprintf(m.info, sizeof(m.info), "%lu+%lu pages migrated; %s", migrated[0],
				 migrated[1], c->impl == OURS ? "control off (threshold as loaded: 0)" :
				 c->impl == UPB ? "no ping-pong control (upstream has none)" :
				 "no ping-pong control");
		if (!settled) {
			m.bad = 1;
			addf(m.note, sizeof(m.note), "check:not settled after %d rounds", rounds[1]);
		}
		/*
		 * Each bouncing round well inside the window is a round trip,
		 * so threshold of them in a row must have held the blocks.
		 */
		if (!r && c->impl == OURS && pp_threshold > 0) {
			if (pp_threshold > PP_ROUNDS || m.value * 2 >= window_ms) {
				addf(m.note, sizeof(m.note), "hold check n/a: %.1f ms per round",
				     m.value);
			} else if (!held) {
				m.bad = 1;
				addf(m.note, sizeof(m.note), "check:no hold at %.1f ms per round",
				     m.value);
			}
		}
		if (!r)
			check_in_use(c, &m);
		wsend(c, &m);
	}
	return 0;
}

/*
 * One measurement: the rows of -X (the main rows, threads, ping-pong,
 * fork); 0, or the errno of ours' first migration. The timed workers (-T)
 * measure only the main rows.
 */
static int w_measure(struct wctx *c, const struct wcmd *cmd)
{
	int check = cmd->warm || cmd->rep == 1, err = 0;

	if (rowsets & (RS_MAIN | RS_MOVE))
		err = w_main(c, cmd);
	if (!err && (rowsets & RS_MT) && !c->timed)
		err = w_mt(c, cmd, check);
	if (!err && (rowsets & RS_PP) && !c->timed && cmd->kib == 2048)
		err = w_pp(c, cmd, check);
	/* last: fork() write-protects the worker's memory */
	if (!err && (rowsets & RS_FORK) && !c->timed)
		err = w_fork(c, cmd, check);
	return err;
}

/* The in-kernel copy ceiling of a sample's pages; 0 or errno. */
static int w_ceiling(struct wctx *c, const struct wcmd *cmd)
{
#if HAVE_UPB
	unsigned long k = mig_nops(cmd->kib);
	struct upb_ceiling u = { .npages = k * cmd->kib / 4, .mode = 0 };
	struct wmsg m;

	if (ioctl_restart(c->fd, UPB_CEILING, &u))
		return errno;
	if (!u.ns)
		return ERANGE;
	wmsg_init(&m, "ceiling_copy_page", "MiB/s");
	m.value = (double)k * cmd->kib / 1024 / (u.ns * 1e-9);
	m.nops = k;
	m.npages = u.npages;
	m.have_t = 2;
	m.t[5] = u.ns;
	snprintf(m.info, sizeof(m.info),
		 "UPB_CEILING mode 0: copy_highpage into pool pages, in-kernel ns");
	wsend(c, &m);
	return 0;
#else
	(void)c;
	(void)cmd;
	return ENOTTY;
#endif
}

/*
 * The split's own check (-T), once per timed worker after the repetitions:
 * the driver made slower, the core time must stay. Two legs, each twice on
 * a fresh 4 MiB mapping (two aligned 2 MiB blocks; THP with -B thp, so
 * that upstream_t_c's check runs its compound path), without and then with
 * a delay of SPLIT_DELAY_MS in the driver's copy: leg "_to" times the
 * migration to the device (hmm_dummy_timed's debugfs
 * device0_copy_delay_ms, hmm_upstream_bench's copy_delay_ms), leg "_back"
 * the CPU faults of one touch per block after it (copy_from_delay_ms of
 * either module). Row split_check (IMPL_to, IMPL_back), value: core time
 * with the delay / without it. Checks: the copy bucket grew by at least
 * one delay (the knob took effect), the end-to-end time by at least 90 % of
 * what the copy bucket grew (the delay shows end to end), the core time by
 * less than a quarter of it either way (driver time neither leaked into
 * the core's nor was taken out of it twice), and both core times are
 * positive. A gross check: it catches a copy bucket counted on the wrong
 * side, not an error of a few milliseconds (the core times are 3-10 ms),
 * and it exercises only the copy buckets.
 */
#define SPLIT_DELAY_MS	50

static int w_split(struct wctx *c, int back)
{
	const char *knob = c->impl == OURS ?
		(back ? OURS_T_PARAM("copy_from_delay_ms") : OURS_T_DBG("device0_copy_delay_ms")) :
		(back ? UPB_PARAM("copy_from_delay_ms") : UPB_PARAM("copy_delay_ms"));
	unsigned long size = 4 * MiB, np = size / PG;
	double core[2], e2e[2], copy[2], inj, t;
	unsigned long long t6[6], tt[6];
	long long ta[TK_MAX], tb[TK_MAX];
	volatile char sink = 0;
	long got[2] = { 0, 0 };
	struct wmsg m;

	for (int d = 0; d < 2; d++) {
		/* -B thp: THP, so that upstream_t_c's check runs its compound path */
		char *p = map_anon(size, mig_thp);

		fill(p, size, 5);
		memset(t6, 0, sizeof(t6));
		c->nclocks = 0;
		if (back)
			got[d] = mig_one(c, p, size, t6);
		if (!write_long(knob, d ? SPLIT_DELAY_MS : 0))
			die("cannot set %s", knob);
		if (back)
			memset(t6, 0, sizeof(t6));
		tsnap(c, ta);
		t = now();
		if (back) {
			sink += p[0];
			sink += p[PMD_SZ];
		} else {
			got[d] = mig_one(c, p, size, t6);
		}
		e2e[d] = (now() - t) * 1e9;
		tsnap(c, tb);
		(void)sink;
		if (!write_long(knob, 0))
			die("cannot put %s back to 0", knob);
		core_split(c, ta, tb, back ? e2e[d] : 0, t6, &core[d], tt);
		copy[d] = tt[1];
		munmap(p, size);
	}
	inj = copy[1] - copy[0];
	wmsg_init(&m, "split_check", "ratio");
	snprintf(m.isuffix, sizeof(m.isuffix), back ? "_back" : "_to");
	m.value = core[0] > 0 ? core[1] / core[0] : 0;
	m.nops = 2;
	m.npages = got[1];
	m.have_t = 1;
	memcpy(m.t, tt, sizeof(m.t));
	if (got[0] != (long)np || got[1] != (long)np)
		addf(m.note, sizeof(m.note), "check:migrated %ld and %ld of %lu pages",
		     got[0], got[1], np);
	else if (inj < 0.9 * SPLIT_DELAY_MS * 1e6)
		addf(m.note, sizeof(m.note), "check:delay not in the copy bucket: %.1f -> %.1f ms",
		     copy[0] / 1e6, copy[1] / 1e6);
	else if (e2e[1] - e2e[0] < 0.9 * inj)
		addf(m.note, sizeof(m.note), "check:delay not seen end to end: %.1f -> %.1f ms",
		     e2e[0] / 1e6, e2e[1] / 1e6);
	else if (core[0] <= 0 || core[1] <= 0 || (core[1] > core[0] ? core[1] - core[0] : core[0] - core[1]) >= 0.25 * inj)
		addf(m.note, sizeof(m.note), "check:core moved with the driver: %.1f -> %.1f ms",
		     core[0] / 1e6, core[1] / 1e6);
	m.bad = m.note[0] != 0;
	snprintf(m.info, sizeof(m.info), "%s: core %.2f -> %.2f ms, copy %.2f -> %.2f ms, end to end %.2f -> %.2f ms",
		 back ? "CPU faults" : "migration", core[0] / 1e6, core[1] / 1e6,
		 copy[0] / 1e6, copy[1] / 1e6, e2e[0] / 1e6, e2e[1] / 1e6);
	wsend(c, &m);
	return 0;
}

/*
 * A worker: commands from @cfd, answers to @afd, until W_QUIT or EOF.
 * @timed: ours_t (hmm_dummy_timed's device 0) or upstream_t (hmm_upstream_bench
 * with timing=1 during each command, 0 again after it).
 */
static void worker(enum impl i, int timed, int compound, int cfd, int afd)
{
	struct wctx c = { .impl = i, .first = 1, .afd = afd, .window = -1,
			  .timed = timed, .devwin = OURS_DEV_WINDOW,
			  .compound = compound };
	struct wcmd cmd;
	struct wmsg end;
	cpu_set_t cpus;

	CPU_ZERO(&cpus);
	CPU_SET(0, &cpus);
	if (sched_setaffinity(0, sizeof(cpus), &cpus))
		fprintf(stderr, "hmm-bench: %s worker: not pinned to CPU 0: %s\n",
			impl_name[i], strerror(errno));
	if (i == OURS && timed) {
		c.fd = open(OURS_T_DEV, O_RDWR | O_CLOEXEC);
		if (c.fd < 0)
			die("open %s", OURS_T_DEV);
#if HAVE_HMM_DUMMY
		if (ioctl(c.fd, HMM_DUMMY_EXPOSE_MM))
			die("HMM_DUMMY_EXPOSE_MM");
#endif
	} else {
		c.fd = dev_open(i);
	}
	if (i == OURS) {
		c.window = read_long(OURS_WINDOW);
		c.stats = timed ? OURS_T_DBG("device0") : OURS_STATS;
		if (timed)
			c.devwin = OURS_T_DBG("device0_window");
	} else if (i == UPB) {
		c.window = read_long(UPB_PARAM("window"));
		/* ours' device faults are 512 pages (HMM_DUMMY_FAULT_PAGES) */
		if (!access(UPB_PARAM("fault_pages"), R_OK) &&
		    read_long(UPB_PARAM("fault_pages")) != 512)
			die("%s is %ld, not 512: the device reads would not be like for like",
			    UPB_PARAM("fault_pages"), read_long(UPB_PARAM("fault_pages")));
		c.stats = UPB_STATS_PATH;
	}
	if (c.stats && access(c.stats, R_OK))
		c.stats = NULL;
	if (timed && c.stats == NULL)
		die("%s_t worker: no debugfs counters", impl_name[i]);
	while (read_full(cfd, &cmd, sizeof(cmd)) && cmd.op != W_QUIT) {
		memset(&end, 0, sizeof(end));
		end.end = 1;
		/* upstream's timing: for this worker's commands only */
		if (timed && i == UPB && !write_long(UPB_PARAM("timing"), 1))
			die("cannot set %s to 1", UPB_PARAM("timing"));
		c.timing = timed && i == UPB;
		end.err = cmd.op == W_CEILING ? w_ceiling(&c, &cmd) :
			  cmd.op == W_SPLIT ? w_split(&c, 0) ?: w_split(&c, 1) :
			  w_measure(&c, &cmd);
		if (timed && i == UPB && !write_long(UPB_PARAM("timing"), 0))
			die("cannot put %s back to 0", UPB_PARAM("timing"));
		wsend(&c, &end);
	}
	close(c.fd);
}

struct worker {
	const char *label;	/* the impl column */
	enum impl impl;
	int timed;		/* ours_t, upstream_t */
	int compound;		/* upstream_c, upstream_t_c */
	pid_t pid;
	int cfd, afd;		/* the parent's ends of the pipes */
	int dead;
};

static struct worker workers[6];
static int nworkers;

static void worker_start(struct worker *w)
{
	int c[2], a[2];

	if (pipe(c) || pipe(a))
		die("pipe");
	fflush(NULL);
	w->pid = fork();
	if (w->pid < 0)
		die("fork");
	if (!w->pid) {
		close(c[1]);
		close(a[0]);
		for (int i = 0; i < nworkers; i++)
			if (&workers[i] != w && workers[i].pid > 0) {
				close(workers[i].cfd);
				close(workers[i].afd);
			}
		worker(w->impl, w->timed, w->compound, c[0], a[1]);
		fflush(NULL);
		_exit(0);
	}
	close(c[0]);
	close(a[1]);
	w->cfd = c[1];
	w->afd = a[0];
}

/* Stop a worker; a worker that died or failed counts as a failure. */
static void worker_stop(struct worker *w, int died)
{
	struct wcmd q = { .op = W_QUIT };
	int status = 0;

	if (w->pid <= 0)
		return;
	if (!died && write(w->cfd, &q, sizeof(q)) != sizeof(q))
		died = 1;
	close(w->cfd);
	close(w->afd);
	if (waitpid(w->pid, &status, 0) < 0)
		die("waitpid");
	if (died || !WIFEXITED(status) || WEXITSTATUS(status)) {
		fprintf(stderr, "hmm-bench: migrate: %s worker failed (status 0x%x)\n",
			w->label, status);
		child_failures++;
	}
	w->pid = 0;
	w->dead = 1;
}

/*
 * -T: upstream's timing and the copy delays of the split check off, where
 * those knobs exist (after the group, and when a timed worker died).
 */
static void timed_knobs_off(void)
{
	static const char *knob[] = {
		UPB_PARAM("timing"), UPB_PARAM("copy_delay_ms"),
		UPB_PARAM("copy_from_delay_ms"), OURS_T_DBG("device0_copy_delay_ms"),
		OURS_T_PARAM("copy_from_delay_ms"),
	};

	for (unsigned int i = 0; i < sizeof(knob) / sizeof(knob[0]); i++)
		if (!access(knob[i], W_OK) && !write_long(knob[i], 0))
			die("cannot put %s back to 0", knob[i]);
}

/* A sample: a line of the raw CSV and, unless warm-up or partial, the table. */
static void record(FILE *raw, const struct worker *w, const struct wcmd *cmd,
		   int pos, const struct wmsg *m)
{
	const char *bk;
	char impl[40];
	struct row *r;

	snprintf(impl, sizeof(impl), "%s%s", cmd->op == W_CEILING ? "kernel" : w->label,
		 m->isuffix);
	bk = MIG_BK;

	fprintf(raw, "%s,%llu,%d,%d,%d,migrate,%s,%s,%s,%lu,%ld,%s,%.6g,", boot_label,
		seed, cmd->rep, pos, cmd->warm, m->row, impl, bk, cmd->kib, m->nops,
		m->unit, m->value);
	if (m->npages >= 0)
		fprintf(raw, "%ld", m->npages);
	fputc(',', raw);
	if (m->nfaults >= 0)
		fprintf(raw, "%ld", m->nfaults);
	for (int i = 0; i < 6; i++) {
		fputc(',', raw);
		if (m->have_t == 1 || (m->have_t == 2 && i == 5))
			fprintf(raw, "%llu", m->t[i]);
	}
	fprintf(raw, ",\"%s\"\n", m->note);
	if (m->bad) {
		check_failures++;
		fprintf(stderr, "hmm-bench: migrate: %s %s %lu KiB rep %d: %s\n", m->row,
			impl, cmd->kib, cmd->rep, m->note);
	}
	if (cmd->warm)
		return;
	r = row_get(m->row, impl, bk, cmd->kib, m->unit, 1);
	if (m->partial) {
		r->nexcl++;
		return;
	}
	add(r, m->value);
	note(r, "%s", m->info);
}

/*
 * Run one command on a worker. Returns 0, the errno the worker answered,
 * or -1 if it died (counted as a failure; it gets no more commands).
 */
static int run_cmd(FILE *raw, struct worker *w, const struct wcmd *cmd, int pos)
{
	struct wmsg m;

	if (w->dead)
		return -1;
	if (write(w->cfd, cmd, sizeof(*cmd)) != (ssize_t)sizeof(*cmd))
		goto died;
	for (;;) {
		if (!read_full(w->afd, &m, sizeof(m)))
			goto died;
		if (m.end)
			return m.err;
		record(raw, w, cmd, pos, &m);
	}
died:
	fprintf(stderr, "hmm-bench: migrate: %s worker died at %lu KiB, rep %d\n",
		w->label, cmd->kib, cmd->rep);
	worker_stop(w, 1);
	/* ... or in its pp rows, with ours' ping-pong threshold on */
	if (w->impl == OURS && !w->timed && pp_threshold > 0)
		write_long(OURS_PP("threshold"), 0);
	/* it may have died with upstream's timing or a copy delay on */
	if (w->timed)
		timed_knobs_off();
	return -1;
}

/* Is implementation @name in -i (all if no -i)? */
static int impl_wanted(const char *name)
{
	char buf[128], *s, *save;

	if (!mig_only)
		return 1;
	snprintf(buf, sizeof(buf), "%s", mig_only);
	for (s = strtok_r(buf, ",", &save); s; s = strtok_r(NULL, ",", &save))
		if (!strcmp(s, name))
			return 1;
	return 0;
}

static void run_migrate(void)
{
	static const struct {
		const char *label;
		enum impl impl;
		int timed, compound;
	} cand[] = {
		{ "ours", OURS, 0, 0 }, { "upstream", UPB, 0, 0 }, { "upstream_b", UPB, 0, 0 },
		{ "test_hmm", TEST_HMM, 0, 0 }, { "ours_t", OURS, 1, 0 },
		{ "upstream_t", UPB, 1, 0 }, { "upstream_c", UPB, 0, 1 },
		{ "upstream_t_c", UPB, 1, 1 },
	};
	char over[16] = "", tover[16] = "", names[96] = "", dwin[16] = "";
	long pp = -1, ow, uw;
	int cw = -1;
	uint64_t rng = seed;
	double t0 = now();
	FILE *raw;

	/* ours' own window of device 0: "default" but in the ours_ad pass */
	if (save_attr(OURS_DEV_WINDOW, dwin, sizeof(dwin)) &&
	    !access(OURS_DEV_WINDOW, W_OK)) {
		dwin[strcspn(dwin, "\n")] = 0;
		ours_adaptive = 1;
	}
	if (!nmig)
		for (int s = 0; s < nsizes && nmig < 16; s++)
			if (sizes[s] <= cap_mib)
				mig_kib[nmig++] = sizes[s] * 1024;
	for (unsigned c = 0; c < sizeof(cand) / sizeof(cand[0]); c++) {
		struct worker *w = &workers[nworkers];

		if ((c == 2 && !aa_worker) || (cand[c].timed && !timed_workers) ||
		    !impl_wanted(c == 2 ? "upstream" : cand[c].label) ||
		    !have_dev(cand[c].impl))
			continue;
		if (c == 2 && (!nworkers || workers[nworkers - 1].impl != UPB))
			continue;	/* upstream_b only beside upstream */
		if (cand[c].timed && cand[c].impl == OURS && access(OURS_T_DEV, R_OK | W_OK)) {
			fprintf(stderr, "hmm-bench: -T: no %s (hmm_dummy_timed.ko): no ours_t worker\n",
				OURS_T_DEV);
			continue;
		}
		/*
		 * compound (UPB_F_COMPOUND): only when -i names it, and where the
		 * module takes it (probed with the parameter, which stays 0)
		 */
		if (cand[c].compound && (!mig_only ||
		    !write_long(UPB_PARAM("compound"), 1) ||
		    !write_long(UPB_PARAM("compound"), 0))) {
			if (mig_only)
				fprintf(stderr, "hmm-bench: %s takes no compound=1 (6.12?): no %s worker\n",
					UPB_PARAM("compound"), cand[c].label);
			continue;
		}
		/* test_hmm moves THP whole on 7.3 and splits it on 6.12 */
		if (mig_thp && cand[c].impl == TEST_HMM) {
			if (mig_only)
				fprintf(stderr, "hmm-bench: -B thp: no test_hmm worker\n");
			continue;
		}
		memset(w, 0, sizeof(*w));
		w->label = cand[c].label;
		w->impl = cand[c].impl;
		w->timed = cand[c].timed;
		w->compound = cand[c].compound;
		if (cand[c].impl == UPB && !cand[c].timed && cw < 0)
			cw = nworkers;
		addf(names, sizeof(names), "%s", w->label);
		nworkers++;
	}
	if (!nworkers || !nmig) {
		snprintf(mig_skip, sizeof(mig_skip), "%s", !nmig ? "no size (-m, or -s <= -M)" :
			 "no device (hmm_dummy, hmm_upstream_bench, test_hmm) or none of -i");
		fprintf(stderr, "hmm-bench: migrate group skipped: %s\n", mig_skip);
		return;
	}
	if (rowsets & RS_PP) {
		int s;

		for (s = 0; s < nmig && mig_kib[s] != 2048; s++)
			;
		if (s == nmig)
			fprintf(stderr, "hmm-bench: -X pp: no 2 MiB size in -m: no pp rows\n");
	}
	if (cw < 0)
		snprintf(ceil_skip, sizeof(ceil_skip), "no hmm_upstream_bench device (%s)", UPB_DEV);
	else if (!(rowsets & (RS_MAIN | RS_MOVE)))
		snprintf(ceil_skip, sizeof(ceil_skip), "not with -X without main or move");
	/* The table's rows in a fixed order: size, implementation, row. */
	for (int s = 0; s < nmig; s++) {
		static const char *rn[] = { "migrate_to_dev", "migrate_back_seq",
					    "migrate_back_rand", "dev_read1", "dev_read2",
					    "dev_read_migrated", "dev_read1_core",
					    "dev_read1_coretab" };

		static const char *xn[] = { "fork_dev", "fork_dev_exit", "fork_child_touch",
					    "fork_parent_write", "mt1_back", "mt4_back",
					    "mt4_back_il", "mt1_read1", "mt4_read1" };

		for (int i = 0; i < nworkers && (rowsets & (RS_MAIN | RS_MOVE)); i++)
			for (int r = 0; r < ((rowsets & RS_MAIN) ? 8 : 3); r++)
				if (r < 5 || (r == 5 && !workers[i].timed) ||
				    (r > 5 && workers[i].timed))
					row_get(rn[r], workers[i].label, MIG_BK, mig_kib[s],
						"MiB/s", 1);
		for (int i = 0; i < nworkers; i++)
			for (int r = 0; r < 9 && !workers[i].timed; r++)
				if (r < 4 ? (rowsets & RS_FORK) :
				    (rowsets & RS_MT) && mt_units(mig_kib[s]) >= 4 &&
				    (r != 6 || mig_kib[s] >= 16))
					row_get(xn[r], workers[i].label, "4k", mig_kib[s], "MiB/s", 1);
		for (int i = 0; i < nworkers && (rowsets & RS_PP) && mig_kib[s] == 2048; i++)
			for (int r = 0; r < 3 && !workers[i].timed; r++)
				row_get(r == 0 ? "pp_bounce" : r == 1 ? "pp_settle" : "pp_settle_rounds",
					workers[i].label, "4k", 2048, r < 2 ? "ms" : "rounds", 0);
		for (int i = 0; i < nworkers && mig_kib[s] >= SPARSE_MIN_KIB &&
				(rowsets & RS_MAIN); i++) {
			char w1[40];

			row_get("sparse_touch", workers[i].label, "4k", mig_kib[s], "touch/s", 1);
			if (workers[i].impl == TEST_HMM)
				continue;
			snprintf(w1, sizeof(w1), "%s_w1", workers[i].label);
			row_get("sparse_touch", w1, "4k", mig_kib[s], "touch/s", 1);
			if (workers[i].impl != OURS || !ours_adaptive)
				continue;
			snprintf(w1, sizeof(w1), "%s_ad", workers[i].label);
			row_get("sparse_touch", w1, "4k", mig_kib[s], "touch/s", 1);
		}
		if (cw >= 0 && (rowsets & (RS_MAIN | RS_MOVE)))
			row_get("ceiling_copy_page", "kernel", MIG_BK, mig_kib[s], "MiB/s", 1);
	}
	raw = fopen(rawpath, "a");	/* main() wrote the header */
	if (!raw)
		die("open %s", rawpath);
	/* upstream: THP split to the device but with UPB_F_COMPOUND (upstream_c) */
	if (!access(UPB_PARAM("compound"), W_OK) && !write_long(UPB_PARAM("compound"), 0))
		die("cannot set %s to 0", UPB_PARAM("compound"));
	/* ours: no eviction and no ping-pong control in these rows */
	if (workers[0].impl == OURS) {
		save_attr(OURS_PARAM("oversubscribe"), over, sizeof(over));
		if (over[0] == 'Y' && write_str(OURS_PARAM("oversubscribe"), "0"))
			die("cannot clear %s", OURS_PARAM("oversubscribe"));
		pp = read_long(OURS_PP("threshold"));
		if (pp > 0)
			write_long(OURS_PP("threshold"), 0);
		if (rowsets & RS_PP)
			pp_threshold = pp;	/* the pp rows turn it on for ours */
		if (ours_adaptive && write_str(OURS_DEV_WINDOW, "default"))
			die("cannot set %s to default", OURS_DEV_WINDOW);
	}
	/*
	 * hmm_dummy_timed: as hmm_dummy, no eviction (its own parameter) and
	 * its own window of device 0 "default"; timing and delays off.
	 */
	for (int i = 0; i < nworkers; i++) {
		if (!workers[i].timed || workers[i].impl != OURS)
			continue;
		if (!save_attr(OURS_T_PARAM("oversubscribe"), tover, sizeof(tover)))
			die("cannot read %s", OURS_T_PARAM("oversubscribe"));
		if (tover[0] == 'Y' && write_str(OURS_T_PARAM("oversubscribe"), "0"))
			die("cannot clear %s", OURS_T_PARAM("oversubscribe"));
		if (ours_adaptive && write_str(OURS_T_DBG("device0_window"), "default"))
			die("cannot set %s to default", OURS_T_DBG("device0_window"));
	}
	if (timed_workers)
		timed_knobs_off();
#if HAVE_UPB
	/* the cost of the clocks inside core intervals (the split, -T) */
	if (timed_workers && have_dev(UPB)) {
		struct upb_calibrate cal = { .iters = 200000 };
		int fd = dev_open(UPB);

		if (ioctl(fd, UPB_CALIBRATE, &cal))
			die("UPB_CALIBRATE");
		close(fd);
		ktime_call_ns = cal.ktime_pair_ps / 2000.0;
		fprintf(stderr, "hmm-bench: UPB_CALIBRATE: ktime_get_ns() pair %.1f ns, pool alloc+free %.1f ns\n",
			cal.ktime_pair_ps / 1000.0, cal.alloc_free_pair_ps / 1000.0);
		/* for bench.sh's env-NAME.txt */
		printf("# env: hmm-bench.ktime_pair_ns=%.1f hmm-bench.alloc_free_pair_ns=%.1f\n",
		       cal.ktime_pair_ps / 1000.0, cal.alloc_free_pair_ps / 1000.0);
		fflush(stdout);
	}
#endif
	if (timed_workers && ktime_call_ns < 0)
		fprintf(stderr, "hmm-bench: -T without hmm_upstream_bench: the clock cost is not subtracted\n");
	/* the sparse touch sets them to 1 for a pass: put back below */
	ow = read_long(OURS_WINDOW);
	uw = read_long(UPB_PARAM("window"));
	snprintf(mig_info, sizeof(mig_info),
		 "migrate group: workers %s pinned to CPU 0; seed %llu; %d reps + 1 warm-up, "
		 "order shuffled per rep and size; windows ours %ld upstream %ld; rows%s%s%s%s%s; "
		 "backing %s",
		 names, seed, mig_reps, ow, uw, rowsets & RS_MAIN ? " main" : "",
		 (rowsets & (RS_MAIN | RS_MOVE)) == RS_MOVE ? " move" : "",
		 rowsets & RS_FORK ? " fork" : "", rowsets & RS_MT ? " mt" : "",
		 rowsets & RS_PP ? " pp" : "", MIG_BK);
	fprintf(stderr, "hmm-bench: %s\n", mig_info);
	for (int i = 0; i < nworkers; i++)
		worker_start(&workers[i]);

	for (int rep = 0; rep <= mig_reps; rep++) {
		for (int s = 0; s < nmig; s++) {
			struct wcmd cmd = { .op = W_MEASURE, .rep = rep, .warm = rep == 0,
					    .kib = mig_kib[s] };
			int order[6], err;

			for (int i = 0; i < nworkers; i++)
				order[i] = i;
			for (int i = nworkers - 1; i > 0; i--) {
				int x = sm64(&rng) % (i + 1), tmp = order[i];

				order[i] = order[x];
				order[x] = tmp;
			}
			for (int pos = 0; pos < nworkers; pos++) {
				struct worker *w = &workers[order[pos]];

				err = run_cmd(raw, w, &cmd, pos);
				if (err > 0 && w->impl == OURS) {
					*ours_mig_err = err;
					fprintf(stderr, "hmm-bench: HMM_DUMMY_MIGRATE_TO: %s: no migration rows for ours\n",
						strerror(err));
					worker_stop(w, 0);
				} else if (err > 0) {
					fprintf(stderr, "hmm-bench: migrate: %s: %s\n", w->label,
						strerror(err));
					worker_stop(w, 1);
				}
			}
			if (cw >= 0 && !ceil_skip[0]) {
				cmd.op = W_CEILING;
				err = run_cmd(raw, &workers[cw], &cmd, nworkers);
				if (err)
					snprintf(ceil_skip, sizeof(ceil_skip), "UPB_CEILING failed: %s",
						 err > 0 ? strerror(err) : "worker died");
			}
		}
		fflush(raw);
		fprintf(stderr, "hmm-bench: migrate %s %d/%d done (%.0fs)\n",
			rep ? "rep" : "warm-up", rep, mig_reps, now() - t0);
	}
	/* the split's own check, last: it sets the devices' copy delay */
	for (int i = 0; i < nworkers; i++) {
		struct wcmd cmd = { .op = W_SPLIT, .rep = mig_reps + 1, .kib = 4096 };
		int err;

		if (!workers[i].timed || !(rowsets & (RS_MAIN | RS_MOVE)))
			continue;
		err = run_cmd(raw, &workers[i], &cmd, 0);
		if (err > 0) {
			fprintf(stderr, "hmm-bench: migrate: %s split check: %s\n",
				workers[i].label, strerror(err));
			worker_stop(&workers[i], 1);
		}
	}
	for (int i = 0; i < nworkers; i++)
		worker_stop(&workers[i], 0);
	if (fclose(raw))
		die("write %s", rawpath);
	if (ow > 0 && read_long(OURS_WINDOW) != ow && !write_long(OURS_WINDOW, ow))
		die("cannot put %s back to %ld", OURS_WINDOW, ow);
	if (uw > 0 && read_long(UPB_PARAM("window")) != uw &&
	    !write_long(UPB_PARAM("window"), uw))
		die("cannot put %s back to %ld", UPB_PARAM("window"), uw);
	if (pp > 0)
		write_long(OURS_PP("threshold"), pp);
	if (over[0] == 'Y')
		write_str(OURS_PARAM("oversubscribe"), "1");
	if (tover[0] == 'Y')
		write_str(OURS_T_PARAM("oversubscribe"), "1");
	if (timed_workers)
		timed_knobs_off();
	/* Also after a worker died between its two writes. */
	if (ours_adaptive && write_str(OURS_DEV_WINDOW, dwin))
		die("cannot put %s back to %s", OURS_DEV_WINDOW, dwin);
}

/*
 * The raw CSV between ==BENCH-RAW-BEGIN== and ==BENCH-RAW-END==: first a
 * line "encoding: gzip+base64" (gzip | base64, busybox's applets in the
 * guest) or "encoding: plain" (no gzip or base64: the CSV as it is).
 */
static void print_raw(void)
{
	char cmd[600], line[512];
	int packed;
	FILE *f;

	f = fopen(rawpath, "r");
	packed = f && fgets(line, sizeof(line), f) && fgets(line, sizeof(line), f);
	if (f)
		fclose(f);
	if (!packed)
		return;		/* the header only: no sample */
	snprintf(cmd, sizeof(cmd), "gzip -c '%s' > '%s.gz' 2>/dev/null && command -v base64 >/dev/null",
		 rawpath, rawpath);
	fflush(NULL);
	packed = system(cmd) == 0;
	printf("==BENCH-RAW-BEGIN==\nencoding: %s\n", packed ? "gzip+base64" : "plain");
	fflush(stdout);
	if (packed) {
		snprintf(cmd, sizeof(cmd), "base64 '%s.gz'", rawpath);
		if (system(cmd))
			fprintf(stderr, "hmm-bench: base64 of %s.gz failed\n", rawpath);
	} else {
		f = fopen(rawpath, "r");
		while (f && fgets(line, sizeof(line), f))
			fputs(line, stdout);
		if (f)
			fclose(f);
	}
	printf("==BENCH-RAW-END==\n");
	fflush(stdout);
}

/* --- output ---------------------------------------------------------------- */

static const char *fmt_num(char *b, size_t n, double v)
{
	if (v >= 100 || v <= -100)
		snprintf(b, n, "%.0f", v);
	else if (v >= 10 || v <= -10)
		snprintf(b, n, "%.1f", v);
	else
		snprintf(b, n, "%.2f", v);
	return b;
}

/* A size for the table's MiB column: whole MiB ("64"), else KiB ("256K"). */
static const char *fmt_size(char *b, size_t n, unsigned long kib)
{
	if (kib % 1024)
		snprintf(b, n, "%luK", kib);
	else
		snprintf(b, n, "%lu", kib / 1024);
	return b;
}

/* The same for the CSV's size_mib column: fractional below 1 MiB. */
static const char *csv_mib(char *b, size_t n, unsigned long kib)
{
	if (kib % 1024)
		snprintf(b, n, "%.10g", kib / 1024.0);
	else
		snprintf(b, n, "%lu", kib / 1024);
	return b;
}

static struct row *find(const char *name, const char *impl, const char *bk,
			unsigned long kib)
{
	for (int i = 0; i < *nrows; i++)
		if (!strcmp(rows[i].name, name) && !strcmp(rows[i].impl, impl) &&
		    !strcmp(rows[i].backing, bk) && rows[i].size_kib == kib &&
		    rows[i].n)
			return &rows[i];
	return NULL;
}

/*
 * The evict group's lines: ours/test_hmm ratios of the medians, with the
 * interval the repetitions allow (worst: ours' min / test_hmm's max; best:
 * ours' max / test_hmm's min), and the reverse map against struct page.
 */
static void print_evict(void)
{
	static const char *other[] = { "test_hmm", "test_hmm_lru", "test_hmm_rel" };
	static const char *name[] = { "evict_sweep", "evict_rate" };
	struct row *rm = find("rmap_bytes", "ours", "4k", ev_pool * 1024);
	char a[32], b[32];
	int hdr = 0;

	if (evict_skip[0]) {
		printf("\nevict group skipped: %s\n", evict_skip);
		return;
	}
	for (int n = 0; n < 2; n++)
		for (int i = 0; i < *nrows; i++) {
			struct row *o = &rows[i];

			if (strcmp(o->name, name[n]) || strcmp(o->impl, "ours") || !o->n)
				continue;
			for (int u = 0; u < 3; u++) {
				struct row *x = find(name[n], other[u], "4k", o->size_kib);
				double mo, lo, ho, mu, lu, hu;

				if (!x)
					continue;
				if (!hdr++)
					printf("\ndevice memory eviction, pool %lu MiB: ours/other of the medians "
					       "[ours min/other max .. ours max/other min] (>1 ours faster)\n", ev_pool);
				stats(o, &mo, &lo, &ho);
				stats(x, &mu, &lu, &hu);
				printf("%-18s %-4s %6lu vs %-12s %10s %10s %8.2f [%.2f..%.2f]\n",
				       name[n], "4k", o->size_kib / 1024, other[u], fmt_num(a, 16, mo),
				       fmt_num(b, 16, mu), mo / mu, lo / hu, ho / lu);
			}
		}
	if (rm) {
		double m, x, y;

		stats(rm, &m, &x, &y);
		printf("reverse map, measured: %.2f B per device page (ours, %s) vs 64 B of struct page per "
		       "device page (DEVICE_PRIVATE ZONE_DEVICE): %.3f\n", m, rm->note, m / 64);
	}
}

static void print_all(FILE *csv, int ours_mig_errno, int chunks_load,
		      int chunks_end, long load_kb, const char *kernel)
{
	static const char *paired[] = {
		"dev_read_first", "dev_read_second", "mirror_table",
		"mirror_sparse2m", "mirror_sparse64k",
		"munmap", "mprotect_ro", "migrate_to_dev", "migrate_back_seq",
		"migrate_back_rand", "dev_read_migrated", "pingpong", "fork_dev",
		"fork_dev_exit", "fork_child_touch", "fork_parent_write", "mt1_back",
		"mt4_back", "mt4_back_il", "mt1_read1", "mt4_read1", "pp_bounce",
		"pp_settle", "pp_settle_rounds",
	};
	/* A/B ratios of the medians: the pairs, in this order */
	static const char *pairs[][2] = {
		{ "ours", "upstream" }, { "ours", "test_hmm" }, { "upstream_b", "upstream" },
	};
	static const char *mig[] = { "migrate_to_dev", "migrate_back_seq",
				     "migrate_back_rand" };
	static const char *mig_impls[] = { "ours", "upstream", "upstream_b", "upstream_c",
					   "test_hmm" };
	char a[32], b[32], c[32], d[32], z[32];
	int hdr;

	printf("==BENCH-TABLE-BEGIN==\n");
	printf("hmm-bench on %s: reps %d (%d for >= 256 MiB, %d for >= 512 MiB); median [min..max]\n",
	       kernel, reps, reps_big, reps_huge);
	if (mig_info[0])
		printf("%s\n", mig_info);
	printf("NOTE: under QEMU TCG absolute numbers mean little; only ratios in one boot do.\n");
	printf("impl: ours = hmm_dummy; upstream = hmm_upstream_bench; test_hmm = lib/test_hmm.c "
	       "(labelled \"upstream\" before issue 19)\n");
	printf("%-18s %-12s %-4s %6s %9s %12s %21s  %s\n", "row", "impl", "bk",
	       "MiB", "unit", "median", "[min..max]", "note");
	for (int i = 0; i < *nrows; i++) {
		struct row *r = &rows[i];
		double med, mn, mx;

		char ex[48] = "";

		if (r->nexcl)
			snprintf(ex, sizeof(ex), " [%d partial left out]", r->nexcl);
		if (!r->n) {
			if (r->nexcl)	/* only partial samples */
				printf("%-18s %-12s %-4s %6s %9s %12s %21s  %s%s\n", r->name, r->impl,
				       r->backing, fmt_size(z, sizeof(z), r->size_kib), r->unit,
				       "n/a", "", r->note, ex);
			continue;
		}
		stats(r, &med, &mn, &mx);
		snprintf(d, sizeof(d), "[%s..%s]", fmt_num(a, 16, mn), fmt_num(b, 16, mx));
		printf("%-18s %-12s %-4s %6s %9s %12s %21s  %s%s\n", r->name, r->impl,
		       r->backing, fmt_size(z, sizeof(z), r->size_kib), r->unit,
		       fmt_num(c, sizeof(c), med), d, r->note, ex);
	}
	/* migration: ours n/a when its first HMM_DUMMY_MIGRATE_TO failed */
	for (int s = 0; s < nmig && ours_mig_errno > 0; s++)
		for (int m = 0; m < 3; m++)
			printf("%-18s %-12s %-4s %6s %9s %12s %21s  MIGRATE_TO failed: %s%s\n",
			       mig[m], "ours", MIG_BK, fmt_size(z, sizeof(z), mig_kib[s]), "MiB/s",
			       "n/a", "", strerror(ours_mig_errno), ours_mig_errno == EOPNOTSUPP ?
			       " (devmem_mb=0?)" : "");
	if (mig_skip[0])
		printf("\nmigrate group skipped: %s\n", mig_skip);

	printf("\nratios A/B of the medians of one boot (throughput: >1 A faster; "
	       "time and B/page: <1 A cheaper;\n"
	       "intervals over boots: scripts/bench-stats.py on the raw CSV)\n");
	printf("%-18s %-4s %6s %-10s %-10s %10s %10s %8s\n", "row", "bk", "MiB", "A", "B",
	       "A", "B", "A/B");
	for (unsigned q = 0; q < sizeof(pairs) / sizeof(pairs[0]); q++)
		for (unsigned p = 0; p < sizeof(paired) / sizeof(paired[0]); p++)
			for (int i = 0; i < *nrows; i++) {
				struct row *o = &rows[i], *u, *n;
				double mo, mu, mz, x, y;

				if (strcmp(o->name, paired[p]) || strcmp(o->impl, pairs[q][0]) || !o->n)
					continue;
				u = find(paired[p], pairs[q][1], o->backing, o->size_kib);
				if (!u)
					continue;
				n = find(paired[p], "none", "4k", o->size_kib);
				stats(o, &mo, &x, &y);
				stats(u, &mu, &x, &y);
				printf("%-18s %-4s %6s %-10s %-10s %10s %10s %8.2f", paired[p],
				       o->backing, fmt_size(z, sizeof(z), o->size_kib), pairs[q][0],
				       pairs[q][1], fmt_num(a, 16, mo), fmt_num(b, 16, mu),
				       mu ? mo / mu : 0);
				if (n) {
					stats(n, &mz, &x, &y);
					printf("   (unmirrored %s; A/unmirrored %.2f, B/unmirrored %.2f)",
					       fmt_num(c, 16, mz), mz ? mo / mz : 0, mz ? mu / mz : 0);
				}
				printf("\n");
			}
	{
		struct row *on = find("pingpong", "ours", "4k", 2048);
		struct row *off = find("pingpong", "ours_off", "4k", 2048);
		double mon, moff, x, y;

		if (on && off && on->n && off->n) {
			stats(on, &mon, &x, &y);
			stats(off, &moff, &x, &y);
			printf("pingpong control on/off (ours, ms/round; <1: the control helps) %8.2f\n",
			       moff ? mon / moff : 0);
		}
	}
	/* migration as a fraction of the in-kernel copy of the same pages */
	hdr = 0;
	for (int i = 0; i < *nrows; i++) {
		struct row *k = &rows[i];
		double mk, mm, x, y;

		if (strcmp(k->name, "ceiling_copy_page") || !k->n)
			continue;
		if (!hdr++)
			printf("\nmigrate_to_dev as a fraction of ceiling_copy_page (in-kernel copy_highpage "
			       "of as many pages; must stay below 1)\n");
		stats(k, &mk, &x, &y);
		printf("%6s: ceiling %s MiB/s", fmt_size(z, sizeof(z), k->size_kib),
		       fmt_num(a, 16, mk));
		for (unsigned m = 0; m < sizeof(mig_impls) / sizeof(mig_impls[0]); m++) {
			struct row *r = find("migrate_to_dev", mig_impls[m], k->backing,
					     k->size_kib);

			if (!r)
				continue;
			stats(r, &mm, &x, &y);
			printf("  %s %.3f%s", mig_impls[m], mm / mk, mm > mk ? " (ABOVE the ceiling)" : "");
		}
		printf("\n");
	}
	if (ceil_skip[0] && !mig_skip[0] && want("migrate"))
		printf("\nno ceiling_copy_page rows: %s\n", ceil_skip);
	/* the fault part: first read minus second read, per MiB */
	printf("\ndevice fault part = time(first read) - time(second read), ms per MiB (<1 ours cheaper)\n");
	for (int bk = 0; bk < 2; bk++)
		for (int s = 0; s < nsizes; s++) {
			const char *bs = bk ? "thp" : "4k";
			unsigned long kib = sizes[s] * 1024;
			struct row *o1 = find("dev_read_first", "ours", bs, kib);
			struct row *o2 = find("dev_read_second", "ours", bs, kib);
			struct row *u1 = find("dev_read_first", "test_hmm", bs, kib);
			struct row *u2 = find("dev_read_second", "test_hmm", bs, kib);
			double a1, a2, b1, b2, x, y, fo, fu;

			if (!o1 || !o2 || !u1 || !u2)
				continue;
			stats(o1, &a1, &x, &y);
			stats(o2, &a2, &x, &y);
			stats(u1, &b1, &x, &y);
			stats(u2, &b2, &x, &y);
			fo = 1e3 * (1 / a1 - 1 / a2);
			fu = 1e3 * (1 / b1 - 1 / b2);
			printf("%-18s %-4s %6lu %10.3f %10.3f %8.2f\n", "dev_fault_part", bs,
			       sizes[s], fo, fu, fu > 0 ? fo / fu : 0);
		}
	/* device read vs the user-space memcpy */
	printf("\ndevice first read as a fraction of memcpy_user (4k)\n");
	for (int s = 0; s < nsizes; s++) {
		unsigned long kib = sizes[s] * 1024;
		struct row *m = find("memcpy_user", "cpu", "thp", kib);
		struct row *o = find("dev_read_first", "ours", "4k", kib);
		struct row *u = find("dev_read_first", "test_hmm", "4k", kib);
		double mm, mo, mu, x, y;

		if (!m)
			continue;
		stats(m, &mm, &x, &y);
		printf("%6lu MiB: memcpy_user %s MiB/s", sizes[s], fmt_num(a, 16, mm));
		if (o) {
			stats(o, &mo, &x, &y);
			printf("  ours %.3f", mo / mm);
		}
		if (u) {
			stats(u, &mu, &x, &y);
			printf("  test_hmm %.3f", mu / mm);
		}
		printf("\n");
	}
	print_evict();
	printf("\nstruct page bytes per device page: ours 0 (pool registered without memremap_pages), "
	       "test_hmm and upstream 64 (memremap_pages)\n");
	{
		long pool = read_long(OURS_DEVMEM_MB);

		if (pool >= 0)
			printf("ours device memory: a pool of devmem_mb=%ld MiB of system pages per device, "
			       "allocated at load; 8 B (page pointer) + 1 bit per device page of "
			       "driver bookkeeping, no struct page\n", pool);
	}
	printf("test_hmm device memory (ZONE_DEVICE chunks of 256 MiB; struct page = 64 B per 4 KiB):\n");
	if (chunks_load >= 0)
		printf("  chunks after load: %d (%lu KiB of struct pages), after the run (before -g evict): %d (%lu KiB)\n",
		       chunks_load, chunks_load * (256 * MiB / PG) * 64 / 1024,
		       chunks_end, chunks_end * (256 * MiB / PG) * 64 / 1024);
	else
		printf("  chunk count unknown (no kernel log access)\n");
	if (load_kb >= 0)
		printf("  MemFree drop measured around 'modprobe test_hmm': %ld KiB\n", load_kb);
	printf("  (plus one system page per device page in use: test_hmm backs device pages with RAM)\n");
	if (check_failures)
		printf("\n%d migrate sample(s) FAILED a check (cpu_faults or in_use): see the raw CSV's note\n",
		       check_failures);
	printf("==BENCH-TABLE-END==\n");

	fprintf(csv, "row,impl,backing,size_mib,unit,median,min,max,reps,higher_is_better,note\n");
	/*
	 * First row: this file's labels (scripts/bench.sh --compare renames
	 * the old ones of a file without it).
	 */
	fprintf(csv, "csv_labels,test_hmm,-,0,-,2,2,2,1,0,\"test_hmm = lib/test_hmm.c (before: upstream); "
		"upstream = hmm_upstream_bench; memcpy_user (before: memcpy)\"\n");
	for (int i = 0; i < *nrows; i++) {
		struct row *r = &rows[i];
		double med, mn, mx;

		if (!r->n)
			continue;
		stats(r, &med, &mn, &mx);
		fprintf(csv, "%s,%s,%s,%s,%s,%.6g,%.6g,%.6g,%d,%d,\"%s\"\n", r->name,
			r->impl, r->backing, csv_mib(z, sizeof(z), r->size_kib), r->unit, med,
			mn, mx, r->n, r->higher_better, r->note);
	}
	for (int s = 0; s < nmig && ours_mig_errno > 0; s++)
		for (int m = 0; m < 3; m++)
			fprintf(csv, "%s,ours,4k,%s,MiB/s,n/a,n/a,n/a,0,1,\"MIGRATE_TO failed: %s\"\n",
				mig[m], csv_mib(z, sizeof(z), mig_kib[s]), strerror(ours_mig_errno));
	if (evict_skip[0])
		fprintf(csv, "evict_sweep,ours,4k,0,MiB/s,n/a,n/a,n/a,0,1,\"evict group skipped: %s\"\n",
			evict_skip);
	fprintf(csv, "test_hmm_devmem_chunks,test_hmm,-,256,chunks,%d,%d,%d,1,0,\"after load/after run\"\n",
		chunks_end, chunks_load, chunks_end);
	fprintf(csv, "test_hmm_devmem_memmap,test_hmm,-,256,KiB,%lu,%lu,%lu,1,0,\"computed 64 B per 4 KiB\"\n",
		chunks_end * (256 * MiB / PG) * 64 / 1024,
		chunks_load * (256 * MiB / PG) * 64 / 1024,
		chunks_end * (256 * MiB / PG) * 64 / 1024);
	if (load_kb >= 0)
		fprintf(csv, "test_hmm_modprobe_memfree_drop,test_hmm,-,0,KiB,%ld,%ld,%ld,1,0,\"measured\"\n",
			load_kb, load_kb, load_kb);
}

static void usage(void)
{
	printf("usage: hmm-bench [-s MiB,..] [-m SIZE,..] [-r N] [-R N] [-H N] [-M MiB] [-g GROUPS]\n"
	       "                 [-i IMPLS] [-A] [-T] [-X SETS] [-S SEED] [-b BOOT] [-E MiB]\n"
	       "                 [-o CSV] [-w RAW] [-p] [-v]\n"
	       "  -s  sizes in MiB (default 4,64,256,512)\n"
	       "  -m  sizes of the migrate group, KiB or with K, M, G (4K..1G; default:\n"
	       "      the -s sizes up to -M); below 4 MiB a sample is min(256, 4 MiB /\n"
	       "      size) operations on disjoint sub-ranges, each in its own 2 MiB block\n"
	       "  -r  repetitions (default 5; the migrate group: default 12, at least 10),\n"
	       "      -R for sizes >= 256 MiB (default 3), -H for sizes >= 512 MiB\n"
	       "      (default 2); -R and -H do not apply to the migrate group\n"
	       "  -M  largest size for the THP read, invalidation, migration and\n"
	       "      page-fault rows (default 256; keeps a TCG run under ~5 min);\n"
	       "      ours' migration needs hmm_dummy devmem_mb >= the largest such size\n"
	       "  -g  only these groups: memcpy,read,inval,migrate,pingpong,evict,sys\n"
	       "      (default all)\n"
	       "  -i  migrate group: only these implementations, of ours,upstream,test_hmm\n"
	       "      (and with -T ours_t,upstream_t; with -B thp upstream_c, upstream_t_c)\n"
	       "      (default: every one whose device is there)\n"
	       "  -A  migrate group: a second upstream worker, upstream_b (A/A control)\n"
	       "  -T  migrate group: the core-time split, workers ours_t (hmm_dummy_timed)\n"
	       "      and upstream_t (hmm_upstream_bench timing=1) with ROW_core samples\n"
	       "  -X  migrate group: the row sets, of main (default), fork (fork_dev,\n"
	       "      fork_dev_exit, fork_child_touch, fork_parent_write), mt (mt1_back,\n"
	       "      mt4_back, mt4_back_il, mt1_read1, mt4_read1; below 2 MiB and from\n"
	       "      8 MiB, in whole 2 MiB windows)\n"
	       "      and pp (pp_bounce, pp_settle, pp_settle_rounds; at -m 2M only), or\n"
	       "      move (main's migrate_to_dev and migrate_back_* rows only, for\n"
	       "      512 MiB-1 GiB); the timed workers only measure main and move\n"
	       "  -B  migrate group: the source memory, 4k (default) or thp (THP, with\n"
	       "      -X move and sizes of 2 MiB and up); -i upstream_c (and with -T\n"
	       "      upstream_t_c) adds upstream moving THP whole (compound=1, 7.3)\n"
	       "  -S  migrate group: seed of the order and of the random touch (default:\n"
	       "      from the clock; printed)\n"
	       "  -b  the raw CSV's boot column (default \"boot\")\n"
	       "  -E  evict group: reload hmm_dummy with devmem_mb=MiB for it, and with\n"
	       "      its old pool after it (default 64; 0: use the loaded pool); the\n"
	       "      sweep covers 1.5x and 2x that pool, the eviction rate needs 64 MiB\n"
	       "  -o  CSV output file (default hmm-bench.csv), -p also print it, and the\n"
	       "      raw CSV (gzip | base64 between ==BENCH-RAW-BEGIN/END==)\n"
	       "  -w  raw CSV of the migrate group, one line per sample (default\n"
	       "      hmm-bench-raw.csv)\n"
	       "  env HMM_BENCH_TESTHMM_LOAD_KB: MemFree drop of loading test_hmm\n"
	       "Device rows are skipped when %s / %s / %s are absent.\n",
	       OURS_DEV, UPB_DEV, TEST_HMM_DEV);
}

/* -m: a size in KiB, or with a K, M or G suffix; 0 if malformed. */
static unsigned long parse_kib(const char *s, char **end)
{
	unsigned long v = strtoul(s, end, 10);

	switch (**end) {
	case 'k': case 'K': (*end)++; break;
	case 'm': case 'M': v *= 1024; (*end)++; break;
	case 'g': case 'G': v *= 1024 * 1024; (*end)++; break;
	}
	if (**end && **end != ',')
		return 0;
	return v;
}

int main(int argc, char **argv)
{
	const char *csvpath = "hmm-bench.csv", *e;
	int opt, print_csv = 0, chunks_load, chunks_end, seed_given = 0;
	long load_kb = -1;
	struct utsname u;
	struct timespec ts;
	char kernel[160];
	double t0 = now();
	FILE *csv;

	sizes[0] = 4, sizes[1] = 64, sizes[2] = 256, sizes[3] = 512;
	nsizes = 4;
	while ((opt = getopt(argc, argv, "s:m:r:R:H:M:g:i:ATX:B:S:b:E:o:w:pvh")) != -1) {
		switch (opt) {
		case 's': {
			char *s = optarg, *end;

			nsizes = 0;
			while (*s && nsizes < 16) {
				sizes[nsizes++] = strtoul(s, &end, 10);
				s = *end ? end + 1 : end;
			}
			break;
		}
		case 'm': {
			char *s = optarg, *end;

			nmig = 0;
			while (*s && nmig < 16) {
				unsigned long k = parse_kib(s, &end);

				if (k < 4 || k % 4 || k > 1024 * 1024) {
					fprintf(stderr, "hmm-bench: -m %s: sizes are 4K..1G, whole pages\n",
						optarg);
					return 2;
				}
				mig_kib[nmig++] = k;
				s = *end ? end + 1 : end;
			}
			break;
		}
		case 'r': reps = mig_reps = atoi(optarg); break;
		case 'R': reps_big = atoi(optarg); break;
		case 'H': reps_huge = atoi(optarg); break;
		case 'M': cap_mib = strtoul(optarg, NULL, 10); break;
		case 'g': only = optarg; break;
		case 'i': mig_only = optarg; break;
		case 'A': aa_worker = 1; break;
		case 'T': timed_workers = 1; break;
		case 'X': {
			char buf[64], *t, *save;

			snprintf(buf, sizeof(buf), "%s", optarg);
			rowsets = 0;
			for (t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
				if (!strcmp(t, "main"))
					rowsets |= RS_MAIN;
				else if (!strcmp(t, "fork"))
					rowsets |= RS_FORK;
				else if (!strcmp(t, "mt"))
					rowsets |= RS_MT;
				else if (!strcmp(t, "pp"))
					rowsets |= RS_PP;
				else if (!strcmp(t, "move"))
					rowsets |= RS_MOVE;
				else
					break;
			}
			if (t || !rowsets) {
				fprintf(stderr, "hmm-bench: -X %s: main, fork, mt, pp, move\n", optarg);
				return 2;
			}
			break;
		}
		case 'B':
			if (strcmp(optarg, "4k") && strcmp(optarg, "thp")) {
				fprintf(stderr, "hmm-bench: -B %s: 4k or thp\n", optarg);
				return 2;
			}
			mig_thp = !strcmp(optarg, "thp");
			break;
		case 'S': seed = strtoull(optarg, NULL, 0); seed_given = 1; break;
		case 'b': boot_label = optarg; break;
		case 'E': evict_pool_mib = strtoul(optarg, NULL, 10); break;
		case 'o': csvpath = optarg; break;
		case 'w': rawpath = optarg; break;
		case 'p': print_csv = 1; break;
		case 'v': verbose = 1; break;
		default: usage(); return opt == 'h' ? 0 : 2;
		}
	}
	if (reps < 1 || reps > MAXREP || reps_big < 1 || reps_big > MAXREP ||
	    reps_huge < 1 || reps_huge > MAXREP)
		die("reps must be 1..%d", MAXREP);
	if (mig_thp && (rowsets != RS_MOVE || !nmig)) {
		fprintf(stderr, "hmm-bench: -B thp: with -X move and -m only\n");
		return 2;
	}
	for (int s = 0; mig_thp && s < nmig; s++)
		if (mig_kib[s] < 2048 || mig_kib[s] % 2048) {
			fprintf(stderr, "hmm-bench: -B thp: -m sizes of whole 2 MiB blocks only\n");
			return 2;
		}
	if (want("migrate") && mig_reps < 10) {
		fprintf(stderr, "hmm-bench: -r %d: the migrate group needs at least 10 repetitions "
			"(leave it out with -g)\n", mig_reps);
		return 2;
	}
	if (mig_only) {
		char buf[128], *t, *save;

		snprintf(buf, sizeof(buf), "%s", mig_only);
		for (t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save))
			if (strcmp(t, "ours") && strcmp(t, "upstream") && strcmp(t, "test_hmm") &&
			    strcmp(t, "ours_t") && strcmp(t, "upstream_t") &&
			    strcmp(t, "upstream_c") && strcmp(t, "upstream_t_c")) {
				fprintf(stderr, "hmm-bench: -i %s: ours, upstream, test_hmm, ours_t, upstream_t,\n"
					" upstream_c or upstream_t_c\n", t);
				return 2;
			}
	}
	if (strchr(boot_label, ',') || strchr(boot_label, '"')) {
		fprintf(stderr, "hmm-bench: -b %s: no commas or quotes\n", boot_label);
		return 2;
	}
	if (!seed_given) {
		clock_gettime(CLOCK_REALTIME, &ts);
		seed = ((unsigned long long)ts.tv_sec * 1000000000ULL + ts.tv_nsec) ^
		       ((unsigned long long)getpid() << 32);
	}
	e = getenv("HMM_BENCH_TESTHMM_LOAD_KB");
	if (e && *e)
		load_kb = atol(e);
	uname(&u);
	snprintf(kernel, sizeof(kernel), "%s %s", u.release, u.version);
	/* a worker that died must not kill the parent writing to it */
	signal(SIGPIPE, SIG_IGN);

	rows = mmap(NULL, MAXROWS * sizeof(*rows) + 4096, PROT_READ | PROT_WRITE,
		    MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (rows == MAP_FAILED)
		die("mmap rows");
	nrows = (int *)(rows + MAXROWS);
	ours_mig_err = nrows + 1;

	fprintf(stderr, "hmm-bench: kernel %s; ours %s, upstream %s, test_hmm %s; seed %llu\n",
		kernel, have_dev(OURS) ? "present" : "absent",
		have_dev(UPB) ? "present" : "absent",
		have_dev(TEST_HMM) ? "present" : "absent", seed);
	chunks_load = test_hmm_chunks();
	/* the raw CSV's header, if a group that writes samples runs */
	if (want("migrate") || want("memcpy") || want("inval") || want("sys")) {
		FILE *raw = fopen(rawpath, "w");

		if (!raw || fprintf(raw, "%s\n", RAW_HEADER) < 0 || fclose(raw))
			die("write %s", rawpath);
	}

	if (want("memcpy"))
		in_child("memcpy", c_memcpy, 0);
	/* before any device group: the same history on base and series */
	if (want("sys"))
		in_child("no-device workloads", c_sys, 0);
	if (want("read")) {
		if (have_dev(OURS))
			in_child("device read (ours)", c_dev_read, OURS);
		if (have_dev(UPB))
			in_child("device read (upstream)", c_dev_read, UPB);
		if (have_dev(TEST_HMM))
			in_child("device read (test_hmm)", c_dev_read, TEST_HMM);
	}
	if (want("inval")) {
		in_child("invalidation (unmirrored)", c_inval, -1);
		if (have_dev(OURS))
			in_child("invalidation (ours)", c_inval, OURS);
		if (have_dev(TEST_HMM))
			in_child("invalidation (test_hmm)", c_inval, TEST_HMM);
	}
	if (want("migrate"))
		run_migrate();
	if (want("pingpong")) {
		if (have_dev(OURS)) {
			in_child("ping-pong (ours, control on)", c_pingpong, 0);
			in_child("ping-pong (ours, control off)", c_pingpong, 1);
		}
		if (have_dev(TEST_HMM))
			in_child("ping-pong (test_hmm)", c_pingpong, 2);
	}
	/* Memory cost of device memory: by design of each driver, not measured. */
	if (have_dev(OURS)) {
		struct row *r = row_get("devmem_struct_page", "ours", "4k", 0, "B/page", 0);

		add(r, 0);
		note(r, "pool of system pages, no memremap_pages(): no struct page");
	}
	if (have_dev(TEST_HMM)) {
		struct row *r = row_get("devmem_struct_page", "test_hmm", "4k", 0, "B/page", 0);

		add(r, 64);
		note(r, "memremap_pages() ZONE_DEVICE memmap: 64 B per 4 KiB");
	}
	/* before the evict group, which grows and unplugs test_hmm's chunks */
	chunks_end = test_hmm_chunks();
	if (want("evict"))
		run_evict();

	csv = fopen(csvpath, "w");
	if (!csv)
		die("open %s", csvpath);
	print_all(csv, *ours_mig_err, chunks_load, chunks_end, load_kb, kernel);
	fclose(csv);
	if (print_csv) {
		char line[512];

		csv = fopen(csvpath, "r");
		printf("==BENCH-CSV-BEGIN==\n");
		while (csv && fgets(line, sizeof(line), csv))
			fputs(line, stdout);
		printf("==BENCH-CSV-END==\n");
		if (csv)
			fclose(csv);
		print_raw();
	}
	fprintf(stderr, "hmm-bench: done in %.0fs\n", now() - t0);
	if (child_failures)
		fprintf(stderr, "hmm-bench: %d part(s) failed, see above\n", child_failures);
	if (check_failures)
		fprintf(stderr, "hmm-bench: %d migrate sample(s) failed a check, see above\n",
			check_failures);
	return child_failures || check_failures ? 1 : 0;
}
