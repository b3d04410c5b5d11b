// SPDX-License-Identifier: GPL-2.0
/*
 * hmm-finj: fault injection through the series' mirror and migration paths,
 * with the kernel's own framework (failslab, fail_page_alloc; see
 * Documentation/fault-injection/fault-injection.rst) and hmm_dummy's
 * copy-failure knob (debugfs hmm_dummy/deviceN_fail_copy). Run in the test
 * guest by the suite "finj" (tests/guest/suites/finj.sh).
 *
 * Every iteration runs in a forked child (a crash or an OOM kill ends only
 * it), under alarm(): a CPU access stuck on a LOCKED entry, or an ioctl that
 * never returns, is reported as a hang instead of hanging the suite. Only
 * the child is hit: task-filter=Y and /proc/thread-self/make-it-fail set
 * around the operation under test (probability mode), or
 * /proc/thread-self/fail-nth (fail exactly the n-th allocation of the
 * operation: the deterministic sweeps, n = 1, 2, ... until the operation
 * runs out of allocations). verbose=0 keeps the kernel log quiet.
 * failslab and fail_page_alloc are armed one at a time (the other is
 * filtered out before it counts: cache-filter=Y with no cache selected,
 * min-order above any order), or both at once in the random iterations.
 *
 * Paths (one KTAP result each, "ok N PATH" or "not ok N PATH # ..."; ktap.h):
 *  mirror       HMM_DUMMY_EXPOSE_MM, READ and WRITE: the mirror's directory
 *               allocations, hmm_range_fault() faulting pages in (pte_none,
 *               present, in the other device's memory: migrated back, in
 *               the device's own memory). Accepted: success, -ENOMEM (an
 *               allocation of the driver or of HMM failed) and -EFAULT
 *               (hmm_range_fault() turns the VM_FAULT_OOM of the CPU fault
 *               into -EFAULT, as upstream does). Anything else fails. READ
 *               data must match memory; a failed WRITE must leave a prefix
 *               of new pages and old pages after it (the device copies in
 *               order); memory is never changed by a failed READ; the same
 *               operation after disarming must succeed.
 *  migrate      HMM_DUMMY_MIGRATE_TO: success (full or partial, counted) or
 *               -ENOMEM; debugfs in_use grows by exactly the count, a device
 *               READ finds exactly that many pages in device memory, every
 *               byte reads back from the CPU, and a second migration after
 *               disarming moves every page (a page left behind would have
 *               kept an extra reference: a leak).
 *  back         migration back by CPU touch (read, or write of one word per
 *               page) under fail_page_alloc/failslab, windows 1 to 512: the
 *               fault returns VM_FAULT_OOM and the kernel retries it (no OOM
 *               kill outside a memcg); every access must complete, with the
 *               right data, and every device page must be freed.
 *  back-memcg   the same in a memory cgroup with memory.max a little above
 *               the usage and memory.swap.max=0: completing, or an OOM kill
 *               of the child (SIGKILL with memory.events oom_kill counted),
 *               are both fine; SIGBUS or wrong data are not.
 *  poison       deviceN_fail_copy: copies back fail with -EIO on a CPU fault
 *               (read or write, windows 1 to 512), on close (mirror
 *               teardown), on a device READ through the other device, and
 *               on fork. The pages of each failed batch become POISON: the
 *               set of SIGBUS pages must be exactly the simulated one (the
 *               first k batches), equal to debugfs "poisoned", SIGBUS stays
 *               (read and write, si_addr checked), a device READ of a
 *               poisoned page fails with -EFAULT (never stale data),
 *               MADV_DONTNEED makes it a zero page again, every other page
 *               keeps its data. fork() succeeds: the page whose copy
 *               failed is POISON in the parent and in the child.
 *  close        closing the file (migration back of everything, mirror
 *               teardown), exit with the file open, and munmap, under
 *               injection: after close, pages are back with their data,
 *               poisoned (SIGBUS count == debugfs poisoned), or, when the
 *               migration back could not allocate, still in device memory
 *               (counted: "left"), and a CPU access brings them back with
 *               their data; every device page is freed once all were
 *               touched. Pages are never poisoned for want of memory
 *               (hmm_migrate_back() keeps them, patch 0031).
 *  fork         fork() of a process with pages in device memory (the child
 *               gets system copies: hmm_entry_copy_for_fork()) under
 *               injection: success (the child sees the right data and its
 *               writes stay its own) or -ENOMEM; the parent's pages are
 *               intact and still in device memory either way.
 *  evict        eviction (hmm_devmem_evict(), through debugfs deviceN_evict,
 *               run by the child itself: the evictor's allocations are the
 *               ones injected) of a process's pages, without and with
 *               HMM_EVICT_WAIT, and with copies from the device that fail
 *               (deviceN_fail_copy). The write must succeed (eviction never
 *               fails for want of memory); a page that could not come back
 *               stays in device memory (counted "left") and a CPU access
 *               brings it back with its data; with HMM_EVICT_WAIT and a
 *               finite injection (fail-nth, or "times") nothing is left,
 *               since kept pages are tried again; pages are lost only for
 *               failed copies, and then the SIGBUS pages are exactly
 *               debugfs evict_lost and poisoned. Skipped on a kernel
 *               without eviction.
 *  batch        the cache of struct hmm_batch (failslab: cache-filter=Y
 *               and /sys/kernel/slab/hmm_batch/failslab=1, so only that
 *               cache fails) fails every allocation, or the nth: CPU
 *               touches (read or write, windows 1 to 512) and close must
 *               complete as if nothing failed (the batch comes from
 *               kvmalloc() then), with the right data, no SIGBUS, no page
 *               left in device memory after close, and no retried fault
 *               ("Huh VM_FAULT_OOM leaked out" fails the path), and the
 *               cache must have failed exactly once per batch: once per
 *               window the range meets (the "times" countdown), once per
 *               close (which cannot tell kvmalloc() from the static
 *               reserve of hmm_migrate_back()). FAIL
 *               on a kernel without the cache, or with it merged into
 *               another (its failslab attribute cannot be set).
 *
 * After each iteration debugfs in_use of both devices must be back to its
 * starting value (exact) and the fail_copy knobs are reset. After each path:
 * in_use, MemFree and MemAvailable plus the per-CPU free lists (after
 * drop_caches and shrinking every slab cache, within -M KiB), the test
 * memory cgroup's memory.current (the per-CPU charge stocks of every CPU
 * drained, read until stable, within -C KiB; the memory.stat counters that
 * moved are printed with it), and every kernel message the path caused
 * (read from /dev/kmsg): a BUG/WARNING/Oops/lockdep/KASAN/kmemleak/bad
 * rss-counter... report fails the path; expected notices are counted ("Huh
 * VM_FAULT_OOM leaked out" of retried faults, OOM-kill reports of
 * back-memcg, warn_alloc reports of failed vmalloc fallbacks, hmm_dummy's
 * "migrating back on close failed").
 *
 * "REGRESSION" comments mark the checks that found kernel bugs when this
 * test was written (both fixed in patch 0021); they stay as they are.
 *
 * Figures per path: iterations (sweep + random), faults injected (fail-nth
 * hits, or the drop of the "times" countdown in probability mode), how many
 * of them were survived (injected in iterations that passed every check),
 * and the outcomes. Exit status 0 only if every path passes.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sched.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "drivers/char/hmm_dummy_uapi.h"	/* from the kernel tree (-I) */

#include "ktap.h"

#ifndef MADV_HUGEPAGE
#define MADV_HUGEPAGE 14
#endif

#define PG		4096UL
#define MiB		(1024UL * 1024UL)
#define PMD_SZ		(2 * MiB)
#define MAP_SZ		(8 * MiB)	/* room for a 2 MiB aligned 4 MiB range */
#define MAX_NP		1024L

#define DBG		"/sys/kernel/debug"
#define FSLAB		DBG "/failslab/"
#define FPAGE		DBG "/fail_page_alloc/"
#define DUMMY_DBG	DBG "/hmm_dummy/"
#define MIG_PARAM	"/sys/module/hmm_migrate/parameters/"
#define CG_ROOT		"/sys/fs/cgroup"
#define CG_DIR		CG_ROOT "/hmm-finj"

/* "times" in probability mode when unlimited: the countdown counts faults. */
#define BIG_TIMES	1000000
#define CHILD_TMO	15	/* s: alarm() of a child (runs take < 1 s) */
#define PARENT_TMO	(CHILD_TMO + 10)

/* A_BATCH: only the hmm_batch slab cache (its failslab attribute). */
enum { A_SLAB = 1, A_PAGE = 2, A_BOTH = 3, A_BATCH = 4 };
static const char *const alloc_name[] = {
	"-", "slab", "page", "slab+page", "batch-cache"
};
#define BATCH_FAILSLAB	"/sys/kernel/slab/hmm_batch/failslab"

enum path {
	P_MIRROR, P_MIGRATE, P_BACK, P_BACK_MEMCG, P_POISON, P_CLOSE, P_FORK,
	P_EVICT, P_BATCH, NPATHS
};
static const char *const path_name[NPATHS] = {
	"mirror", "migrate", "back", "back-memcg", "poison", "close", "fork",
	"evict", "batch",
};

/* Operations and pre-states (variants); which apply depends on the path. */
enum { OP_EXPOSE, OP_READ, OP_WRITE };
static const char *const op_name[] = { "expose", "read", "write" };
/* mirror: where the pages are when the device accesses them */
enum { V_NONE, V_CPU, V_OTHER, V_OWN, NV_MIRROR };
/* migrate: what the range holds */
enum { M_CPU, M_NONE, M_MIX, M_THP, NV_MIGRATE };
/* poison: where the copy back happens */
enum { X_FAULT, X_CLOSE, X_OTHERDEV, X_FORK, NV_POISON };
/* close: what tears the device memory down */
enum { C_CLOSE, C_CLOSE_MIRRORED, C_EXIT, C_MUNMAP, NV_CLOSE };
/* evict: without and with HMM_EVICT_WAIT, or with failing copies */
enum { E_NOWAIT, E_WAIT, E_COPY, NV_EVICT };
/* batch: where the batch is allocated */
enum { B_FAULT, B_CLOSE, NV_BATCH };
static const char *const var_name[NPATHS][5] = {
	[P_MIRROR] = { "none", "cpu", "otherdev", "owndev" },
	[P_MIGRATE] = { "cpu", "none", "mix", "thp" },
	[P_BACK] = { "-" },
	[P_BACK_MEMCG] = { "-" },
	[P_POISON] = { "fault", "close", "otherdev", "fork" },
	[P_CLOSE] = { "close", "close-mirrored", "exit", "munmap" },
	[P_FORK] = { "-" },
	[P_EVICT] = { "nowait", "wait", "copy" },
	[P_BATCH] = { "fault", "close" },
};

/* One iteration: what to inject and what to run. */
struct iter {
	enum path path;
	int alloc;		/* A_*: which allocator may fail */
	int nth;		/* > 0: fail the nth allocation; 0: probability mode */
	int prob, interval, times;	/* probability mode; times < 0: unlimited */
	int dev;		/* device under test (0: pfn entries, 1: DMA) */
	int op, variant;
	long np;		/* pages in the range */
	int window;		/* hmm_migrate window for this iteration, 0: as is */
	int fail_copy;		/* poison: copies back that fail */
	long headroom;		/* back-memcg: pages above usage in memory.max */
	int ordered;		/* back: touch the pages in address order */
	uint64_t seed;
};

/* What a child reports, in a shared page. */
struct cres {
	int failed;
	int fired;		/* fail-nth mode: the nth allocation failed */
	int armed;		/* reached the operation under injection */
	int err;		/* errno of the operation under injection */
	int retried;		/* the retry after disarming succeeded */
	int partial;		/* migrate: fewer pages than the range moved */
	long count;		/* pages migrated by the operation */
	long sigbus;		/* poisoned pages seen (SIGBUS) */
	long left;		/* close: device pages left after close */
	long consumed;		/* poison: copy failures the kernel consumed */
	long batches;		/* batch: batches the operation allocates */
	char msg[512];
};

/* Per path figures. */
struct pstat {
	long iters, sweep_iters, rand_iters;
	long injected, survived, hit_iters;
	long ok, enomem, efault, other_err;
	long retried, partial, migrated, sigbus, left, oom_kills, hangs, fails;
	long skipped;		/* not run: the path hung too often */
	double max_s;
};

static struct pstat pst[NPATHS];
static int nstuck;	/* children left behind, stuck in the kernel */
static struct cres *res;
static int opt_verbose;
static double opt_scale = 1.0;
static uint64_t opt_seed;
/*
 * Accounting tolerances per path (-M, -C). Measured noise in the TCG guest,
 * after dropping caches, shrinking slabs and adding the per-CPU free lists
 * back: MemFree/MemAvailable within +-200 KiB, memory.current within
 * +-12 KiB (charges of kernel objects). 1 MiB (256 pages) and 64 KiB (16
 * pages) keep a margin of five; a leak of a page per injected fault is
 * caught by the exact checks (device in_use, memcg charges of user pages,
 * a second migration that must move every page) long before.
 */
static long opt_mem_tol_kb = 1024, opt_cg_tol_kb = 64;
static int have_cg;
static long base_in_use[2];

/* ---------------------------------------------------------------- utils */

static uint64_t splitmix(uint64_t x)
{
	x += 0x9e3779b97f4a7c15ULL;
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
	return x ^ (x >> 31);
}

static uint64_t rng_state;

static uint64_t rnd(void)
{
	rng_state = splitmix(rng_state);
	return rng_state;
}

static long rndn(long n)
{
	return (long)(rnd() % (uint64_t)n);
}

static int pick(const int *v, int n)
{
	return v[rndn(n)];
}

static double mono(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static int write_str(const char *path, const char *s)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return -errno;
	n = write(fd, s, strlen(s));
	n = n < 0 ? -errno : 0;
	close(fd);
	return (int)n;
}

static int write_long(const char *path, long v)
{
	char b[32];

	snprintf(b, sizeof(b), "%ld", v);
	return write_str(path, b);
}

static int read_str(const char *path, char *buf, size_t len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return -errno;
	n = read(fd, buf, len - 1);
	close(fd);
	if (n < 0)
		return -errno;
	buf[n] = 0;
	while (n > 0 && (buf[n - 1] == '\n' || buf[n - 1] == ' '))
		buf[--n] = 0;
	return 0;
}

static long read_long(const char *path)
{
	char b[64];

	if (read_str(path, b, sizeof(b)))
		return -1;
	return strtol(b, NULL, 0);
}

/* "key value" files (meminfo, debugfs stats, memory.events): -1 if absent. */
static long read_key(const char *path, const char *key)
{
	char line[256], k[128];
	long v, found = -1;
	FILE *f = fopen(path, "re");

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%127[^: ]%*[: ]%ld", k, &v) == 2 &&
		    !strcmp(k, key)) {
			found = v;
			break;
		}
	}
	fclose(f);
	return found;
}

static long dstat(int dev, const char *key)
{
	char path[128];

	snprintf(path, sizeof(path), DUMMY_DBG "device%d", dev);
	return read_key(path, key);
}

static void set_fail_copy(int dev, long n)
{
	char path[128];

	snprintf(path, sizeof(path), DUMMY_DBG "device%d_fail_copy", dev);
	write_long(path, n);
}

static long get_fail_copy(int dev)
{
	char path[128];

	snprintf(path, sizeof(path), DUMMY_DBG "device%d_fail_copy", dev);
	return read_long(path);
}

/* ------------------------------------------------ fault injection knobs */

/* Saved at start, restored at exit: other suites may run in this boot. */
static const char *const saved_knobs[] = {
	FSLAB "probability", FSLAB "interval", FSLAB "times", FSLAB "space",
	FSLAB "verbose", FSLAB "task-filter", FSLAB "ignore-gfp-wait",
	FSLAB "cache-filter",
	FPAGE "probability", FPAGE "interval", FPAGE "times", FPAGE "space",
	FPAGE "verbose", FPAGE "task-filter", FPAGE "ignore-gfp-wait",
	FPAGE "ignore-gfp-highmem", FPAGE "min-order",
	MIG_PARAM "window", MIG_PARAM "pingpong_threshold",
};
#define NKNOBS (sizeof(saved_knobs) / sizeof(saved_knobs[0]))
static char saved_val[NKNOBS][32];
static int saved_ok[NKNOBS];

static void knobs_save(void)
{
	size_t i;

	for (i = 0; i < NKNOBS; i++)
		saved_ok[i] = !read_str(saved_knobs[i], saved_val[i],
					sizeof(saved_val[i]));
}

static void knobs_restore(void)
{
	size_t i;

	write_str(FSLAB "probability", "0");
	write_str(FPAGE "probability", "0");
	for (i = 0; i < NKNOBS; i++)
		if (saved_ok[i])
			write_str(saved_knobs[i], saved_val[i]);
	set_fail_copy(0, 0);
	set_fail_copy(1, 0);
	if (!access(BATCH_FAILSLAB, W_OK))
		write_str(BATCH_FAILSLAB, "0");
}

static void knob_restore(const char *path)
{
	size_t i;

	for (i = 0; i < NKNOBS; i++)
		if (!strcmp(saved_knobs[i], path) && saved_ok[i])
			write_str(path, saved_val[i]);
}

static int fi_setup(void)
{
	static const char *const common[][2] = {
		{ "probability", "0" }, { "interval", "1" }, { "times", "-1" },
		{ "space", "0" }, { "verbose", "0" }, { "task-filter", "Y" },
		{ "ignore-gfp-wait", "N" },
	};
	char path[128];
	size_t i;
	int ret = 0;

	for (i = 0; i < sizeof(common) / sizeof(common[0]); i++) {
		snprintf(path, sizeof(path), FSLAB "%s", common[i][0]);
		ret |= write_str(path, common[i][1]);
		snprintf(path, sizeof(path), FPAGE "%s", common[i][0]);
		ret |= write_str(path, common[i][1]);
	}
	ret |= write_str(FSLAB "cache-filter", "N");
	ret |= write_str(FPAGE "ignore-gfp-highmem", "N");
	ret |= write_str(FPAGE "min-order", "0");
	return ret;
}

/*
 * Arm the global side for @it. An allocator that must not fail is filtered
 * out before should_fail_ex(), so it neither fails nor counts for fail-nth:
 * failslab by cache-filter=Y (no cache has SLAB_FAILSLAB but hmm_batch for
 * A_BATCH), fail_page_alloc by a min-order above any order.
 */
static void fi_arm_global(const struct iter *it)
{
	int slab = it->alloc & (A_SLAB | A_BATCH), page = it->alloc & A_PAGE;
	long times = it->times < 0 ? BIG_TIMES : it->times;

	write_str(FSLAB "probability", "0");
	write_str(FPAGE "probability", "0");
	write_str(FSLAB "cache-filter", it->alloc & A_SLAB ? "N" : "Y");
	if (it->alloc & A_BATCH)
		write_str(BATCH_FAILSLAB, "1");
	write_str(FPAGE "min-order", page ? "0" : "64");
	if (it->nth) {
		write_str(FSLAB "times", "-1");
		write_str(FPAGE "times", "-1");
		return;
	}
	write_long(FSLAB "interval", it->interval);
	write_long(FPAGE "interval", it->interval);
	write_long(FSLAB "times", slab ? times : 0);
	write_long(FPAGE "times", page ? times : 0);
	if (slab)
		write_long(FSLAB "probability", it->prob);
	if (page)
		write_long(FPAGE "probability", it->prob);
}

/* Disarm; in probability mode, return the faults injected (times drop). */
static long fi_disarm_global(const struct iter *it)
{
	long times = it->times < 0 ? BIG_TIMES : it->times, n = 0, t;

	write_str(FSLAB "probability", "0");
	write_str(FPAGE "probability", "0");
	if (it->alloc & A_BATCH)
		write_str(BATCH_FAILSLAB, "0");
	if (it->nth)
		return 0;
	if (it->alloc & (A_SLAB | A_BATCH)) {
		t = read_long(FSLAB "times");
		if (t >= 0)
			n += times - t;
	}
	if (it->alloc & A_PAGE) {
		t = read_long(FPAGE "times");
		if (t >= 0)
			n += times - t;
	}
	return n;
}

/* Child side: only this thread is hit, only between arm() and disarm(). */
static int mif_fd = -1, nth_fd = -1;
static const struct iter *cit;

static void arm(void)
{
	char b[16];
	int n;

	res->armed = 1;
	if (cit->nth) {
		n = snprintf(b, sizeof(b), "%d", cit->nth);
		if (write(nth_fd, b, n) != n)
			_exit(90);
	} else if (write(mif_fd, "1", 1) != 1) {
		_exit(91);
	}
}

static void disarm(void)
{
	char b[16] = "";
	ssize_t n;

	if (cit->nth) {
		n = pread(nth_fd, b, sizeof(b) - 1, 0);
		if (n > 0 && strtol(b, NULL, 10) == 0)
			res->fired = 1;
		if (write(nth_fd, "0", 1) != 1)
			_exit(92);
	} else if (write(mif_fd, "0", 1) != 1) {
		_exit(93);
	}
}

/* ------------------------------------------------------- child helpers */

static void cfail(const char *fmt, ...)
{
	char m[400];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(m, sizeof(m), fmt, ap);
	va_end(ap);
	if (!res->failed)
		snprintf(res->msg, sizeof(res->msg), "%s", m);
	else if (strlen(res->msg) + strlen(m) + 8 < sizeof(res->msg))
		strcat(strcat(res->msg, "; also: "), m);
	res->failed++;
}

static sigjmp_buf probe_jb;
static volatile sig_atomic_t probing;
static char *volatile probe_addr;
static volatile int probe_bad_addr;

static void on_fatal(int sig, siginfo_t *si, void *uc)
{
	static const char m[] = "unexpected SIGBUS/SIGSEGV outside a probe";
	char *a = si->si_addr;

	(void)uc;
	if (sig == SIGBUS && probing) {
		probing = 0;
		if (a < probe_addr || a >= probe_addr + PG)
			probe_bad_addr = 1;
		siglongjmp(probe_jb, 1);
	}
	if (!res->failed++)
		memcpy(res->msg, m, sizeof(m));
	signal(sig, SIG_DFL);
	raise(sig);
	_exit(96);
}

/*
 * Access the page at @p (read it into @out if not NULL, or write @wval to
 * its first word): 0, or 1 if the access raised SIGBUS (si_addr checked).
 */
static int probe(char *p, void *out, int wr, uint64_t wval)
{
	if (sigsetjmp(probe_jb, 1))
		return 1;
	probe_addr = p;
	probing = 1;
	if (wr)
		*(volatile uint64_t *)p = wval;
	if (out)
		memcpy(out, p, PG);
	probing = 0;
	return 0;
}

/* Word @w of page @pg of a range filled with @seed; seed 0: zero memory. */
static uint64_t pword(uint64_t seed, long pg, long w)
{
	if (!seed)
		return 0;
	return splitmix(seed ^ ((uint64_t)pg << 20) ^ (uint64_t)w) | 1;
}

static void fill_page(void *p, uint64_t seed, long pg)
{
	uint64_t *q = p;
	long w;

	for (w = 0; w < (long)(PG / 8); w++)
		q[w] = pword(seed, pg, w);
}

/* -1 if page @p holds page @pg of @seed (word 0 = @w0 if @has_w0), else the
 * first wrong word. */
static long check_page(const void *p, uint64_t seed, long pg, int has_w0,
		       uint64_t w0)
{
	const uint64_t *q = p;
	long w;

	for (w = 0; w < (long)(PG / 8); w++) {
		uint64_t want = (w == 0 && has_w0) ? w0 : pword(seed, pg, w);

		if (q[w] != want)
			return w;
	}
	return -1;
}

/* The range: np pages across a 2 MiB boundary (two page tables), or one
 * 2 MiB aligned THP-eligible block. */
static char *map_range(long np, int thp)
{
	char *m, *base;

	m = mmap(NULL, MAP_SZ, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (m == MAP_FAILED)
		return NULL;
	base = (char *)(((uintptr_t)m + PMD_SZ - 1) & ~(PMD_SZ - 1));
	if (thp) {
		madvise(base, PMD_SZ, MADV_HUGEPAGE);
		return base;
	}
	return base + PMD_SZ - (np / 2) * PG;
}

static int dopen(int dev, int minor)
{
	char path[64];
	int fd;

	snprintf(path, sizeof(path), "/dev/hmm_dummy_device%d%d", dev, minor);
	fd = open(path, O_RDWR | O_CLOEXEC);
	if (fd < 0)
		cfail("open %s: %s", path, strerror(errno));
	return fd;
}

static int expose(int fd)
{
	return ioctl(fd, HMM_DUMMY_EXPOSE_MM) ? -errno : 0;
}

static int d_rw(int fd, int wr, void *addr, size_t size, void *buf,
		long *ndev)
{
	struct hmm_dummy_read c;
	int ret;

	/* Same layout for both structures. */
	memset(&c, 0, sizeof(c));
	c.address = (uintptr_t)addr;
	c.size = size;
	c.ptr = (uintptr_t)buf;
	ret = ioctl(fd, wr ? HMM_DUMMY_WRITE : HMM_DUMMY_READ, &c) ? -errno : 0;
	if (ndev)
		*ndev = ret ? -1 : (long)c.ndev_pages;
	return ret;
}

static int d_migrate(int fd, void *addr, size_t size, long *count)
{
	struct hmm_dummy_migrate c;
	int ret;

	memset(&c, 0, sizeof(c));
	c.address = (uintptr_t)addr;
	c.size = size;
	ret = ioctl(fd, HMM_DUMMY_MIGRATE_TO, &c) ? -errno : 0;
	*count = ret ? 0 : (long)c.nfaulted_dev_pages;
	return ret;
}

static int clean_err(int ret, int allow_efault)
{
	return !ret || ret == -ENOMEM || (allow_efault && ret == -EFAULT);
}

/* Per-page expectation of a range. */
struct expect {
	long np;
	uint64_t *seed;		/* page contents: pword(seed[i], i, w) */
	uint64_t *w0;		/* word 0 override */
	char *has_w0;
};

static struct expect *expect_new(long np, uint64_t seed)
{
	struct expect *e = calloc(1, sizeof(*e));
	long i;

	e->np = np;
	e->seed = calloc(np, sizeof(*e->seed));
	e->w0 = calloc(np, sizeof(*e->w0));
	e->has_w0 = calloc(np, 1);
	for (i = 0; i < np; i++)
		e->seed[i] = seed;
	return e;
}

static long echeck(const struct expect *e, const void *p, long i)
{
	return check_page(p, e->seed[i], i, e->has_w0[i], e->w0[i]);
}

static char pagebuf[PG] __attribute__((aligned(4096)));

/*
 * CPU check of the whole range; @poison (may be NULL) says which pages must
 * give SIGBUS. Returns the number of SIGBUS pages.
 */
static long cpu_verify(char *a, const struct expect *e, const char *poison,
		       const char *what)
{
	long i, w, nbus = 0;

	for (i = 0; i < e->np; i++) {
		int bus = probe(a + i * PG, pagebuf, 0, 0);

		if (bus) {
			nbus++;
			if (probe_bad_addr)
				cfail("%s: page %ld: SIGBUS with a wrong si_addr",
				      what, i);
			if (!poison || !poison[i])
				cfail("%s: page %ld: SIGBUS (data lost)", what, i);
			continue;
		}
		if (poison && poison[i]) {
			cfail("%s: page %ld: readable, but it must be poisonous (stale data?)",
			      what, i);
			continue;
		}
		w = echeck(e, pagebuf, i);
		if (w >= 0)
			cfail("%s: page %ld word %ld: %#" PRIx64 " instead of %#" PRIx64,
			      what, i, w, ((uint64_t *)pagebuf)[w],
			      w == 0 && e->has_w0[i] ? e->w0[i] :
			      pword(e->seed[i], i, w));
	}
	return nbus;
}

/* Device READ of the range; must succeed and match. */
static void dev_verify(int fd, char *a, const struct expect *e, char *buf,
		       const char *what, long *ndev)
{
	long i, w;
	int ret;

	ret = d_rw(fd, 0, a, e->np * PG, buf, ndev);
	if (ret) {
		cfail("%s: device READ: %s", what, strerror(-ret));
		return;
	}
	for (i = 0; i < e->np; i++) {
		w = echeck(e, buf + i * PG, i);
		if (w >= 0) {
			cfail("%s: device READ page %ld word %ld wrong", what, i, w);
			return;
		}
	}
}

static void cg_join(void)
{
	if (have_cg && write_str(CG_DIR "/cgroup.procs", "0"))
		cfail("cannot join " CG_DIR);
}

static char *buf_map(long np)
{
	char *b = mmap(NULL, np * PG, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);

	if (b == MAP_FAILED)
		return NULL;
	memset(b, 0x5a, np * PG);
	return b;
}

static void shuffle(long *v, long n)
{
	long i, j, t;

	for (i = 0; i < n; i++)
		v[i] = i;
	for (i = n - 1; i > 0; i--) {
		j = rndn(i + 1);
		t = v[i];
		v[i] = v[j];
		v[j] = t;
	}
}

/*
 * Device pages in use back to where they were before the iteration? A
 * child left behind may free its pages any time: only more is wrong then.
 */
static int in_use_at_base(long d)
{
	long n = dstat(d, "in_use");

	return nstuck ? n <= base_in_use[d] : n == base_in_use[d];
}

/* ---------------------------------------------------------- (a) mirror */

static void child_mirror(const struct iter *it)
{
	long np = it->np, i, ndev, m;
	int d = it->dev, fd, fd2 = -1, ret, seen_old = 0;
	uint64_t s0 = splitmix(it->seed) | 1, s1 = splitmix(it->seed + 1) | 1;
	struct expect *e;
	char *a, *buf;

	fd = dopen(d, 0);
	a = map_range(np, 0);
	buf = buf_map(np);
	if (fd < 0 || !a || !buf)
		return cfail("setup: %s", strerror(errno));
	e = expect_new(np, it->variant == V_NONE ? 0 : s0);
	if (it->variant != V_NONE)
		for (i = 0; i < np; i++)
			fill_page(a + i * PG, s0, i);
	if (it->variant == V_OTHER) {
		fd2 = dopen(!d, 1);
		if (fd2 < 0 || expose(fd2) || d_migrate(fd2, a, np * PG, &m))
			return cfail("setup: migration to device %d failed", !d);
	}
	if (it->op != OP_EXPOSE && (ret = expose(fd)))
		return cfail("EXPOSE_MM: %s", strerror(-ret));
	if (it->variant == V_OWN && d_migrate(fd, a, np * PG, &m))
		return cfail("setup: migration to device %d failed", d);

	switch (it->op) {
	case OP_EXPOSE:
		arm();
		ret = expose(fd);
		disarm();
		res->err = -ret;
		if (!clean_err(ret, 0))
			cfail("EXPOSE_MM: %s", strerror(-ret));
		if (ret) {
			ret = expose(fd);
			if (ret)
				cfail("EXPOSE_MM after disarming: %s",
				      strerror(-ret));
			else
				res->retried = 1;
		}
		break;
	case OP_READ:
		arm();
		ret = d_rw(fd, 0, a, np * PG, buf, NULL);
		disarm();
		res->err = -ret;
		if (!clean_err(ret, 1))
			cfail("READ: %s", strerror(-ret));
		if (!ret) {
			for (i = 0; i < np; i++)
				if (echeck(e, buf + i * PG, i) >= 0) {
					cfail("READ returned wrong data (page %ld)", i);
					break;
				}
		} else {
			dev_verify(fd, a, e, buf, "READ after disarming", NULL);
			res->retried = !res->failed;
		}
		cpu_verify(a, e, NULL, "after READ");
		break;
	case OP_WRITE:
		for (i = 0; i < np; i++)
			fill_page(buf + i * PG, s1, i);
		arm();
		ret = d_rw(fd, 1, a, np * PG, buf, NULL);
		disarm();
		res->err = -ret;
		if (!clean_err(ret, 1))
			cfail("WRITE: %s", strerror(-ret));
		/* New pages, then old ones: the device writes in order. */
		for (i = 0; i < np; i++) {
			if (probe(a + i * PG, pagebuf, 0, 0)) {
				cfail("after WRITE: page %ld: SIGBUS", i);
				break;
			}
			if (check_page(pagebuf, s1, i, 0, 0) < 0) {
				if (seen_old) {
					cfail("after WRITE (%s): page %ld written after an unwritten one",
					      strerror(-ret), i);
					break;
				}
			} else if (echeck(e, pagebuf, i) < 0) {
				seen_old = 1;
			} else {
				cfail("after WRITE (%s): page %ld is neither old nor new data",
				      strerror(-ret), i);
				break;
			}
		}
		if (!ret && seen_old)
			cfail("WRITE succeeded but left pages unwritten");
		for (i = 0; i < np; i++)
			e->seed[i] = s1;
		if (ret) {
			ret = d_rw(fd, 1, a, np * PG, buf, NULL);
			if (ret)
				cfail("WRITE after disarming: %s", strerror(-ret));
			else
				res->retried = 1;
		}
		cpu_verify(a, e, NULL, "after WRITE");
		break;
	}
	/* The mirror works and agrees with the CPU. */
	dev_verify(fd, a, e, buf, "final", &ndev);
	close(fd);
	if (fd2 >= 0)
		close(fd2);
	cpu_verify(a, e, NULL, "after close");
	for (i = 0; i < 2; i++)
		if (!in_use_at_base(i))
			cfail("device%ld in_use %ld after close (was %ld)", i,
			      dstat(i, "in_use"), base_in_use[i]);
}

/* --------------------------------------------------------- (b) migrate */

static void child_migrate(const struct iter *it)
{
	int thp = it->variant == M_THP, d = it->dev, fd, ret;
	long np = thp ? 512 : it->np, i, m, m2, ndev, delta;
	uint64_t s0 = splitmix(it->seed) | 1;
	struct expect *e;
	char *a, *buf;

	fd = dopen(d, 0);
	a = map_range(np, thp);
	buf = buf_map(np);
	if (fd < 0 || !a || !buf)
		return cfail("setup: %s", strerror(errno));
	e = expect_new(np, s0);
	for (i = 0; i < np; i++) {
		if (it->variant == M_NONE || (it->variant == M_MIX && (i & 1)))
			e->seed[i] = 0;
		else
			fill_page(a + i * PG, s0, i);
	}
	if ((ret = expose(fd)))
		return cfail("EXPOSE_MM: %s", strerror(-ret));

	arm();
	ret = d_migrate(fd, a, np * PG, &m);
	disarm();
	res->err = -ret;
	res->count = m;
	if (!clean_err(ret, 0))
		cfail("MIGRATE_TO: %s", strerror(-ret));
	if (m < 0 || m > np)
		cfail("MIGRATE_TO: %ld pages of %ld", m, np);
	res->partial = !ret && m < np;
	delta = dstat(d, "in_use") - base_in_use[d];
	if (delta != m)
		cfail("in_use grew by %ld, %ld pages migrated", delta, m);
	dev_verify(fd, a, e, buf, "after MIGRATE_TO", &ndev);
	if (ndev >= 0 && ndev != m)
		cfail("device READ found %ld pages in device memory, %ld migrated",
		      ndev, m);
	cpu_verify(a, e, NULL, "after MIGRATE_TO");
	if (!in_use_at_base(d))
		cfail("in_use %ld after every page was touched (was %ld)",
		      dstat(d, "in_use"), base_in_use[d]);
	/* Every page can go now: one left behind has an extra reference. */
	ret = d_migrate(fd, a, np * PG, &m2);
	if (ret || m2 != np)
		cfail("MIGRATE_TO after disarming: %s, %ld of %ld pages",
		      strerror(-ret), m2, np);
	else
		res->retried = 1;
	close(fd);
	cpu_verify(a, e, NULL, "after close");
	if (!in_use_at_base(d))
		cfail("in_use %ld after close (was %ld)", dstat(d, "in_use"),
		      base_in_use[d]);
}

/* ------------------------------------------------------------ (c) back */

static void child_back(const struct iter *it)
{
	long np = it->np, i, k, m, *order;
	int d = it->dev, fd, ret, wr = it->op == OP_WRITE;
	uint64_t s0 = splitmix(it->seed) | 1, s1 = splitmix(it->seed + 7);
	struct expect *e;
	char *a, *bus;

	fd = dopen(d, 0);
	a = map_range(np, 0);
	order = calloc(np, sizeof(*order));
	bus = calloc(np, 1);
	if (fd < 0 || !a || !order || !bus)
		return cfail("setup: %s", strerror(errno));
	e = expect_new(np, s0);
	for (i = 0; i < np; i++)
		fill_page(a + i * PG, s0, i);
	if ((ret = expose(fd)))
		return cfail("EXPOSE_MM: %s", strerror(-ret));
	ret = d_migrate(fd, a, np * PG, &m);
	if (ret)
		return cfail("setup: MIGRATE_TO: %s", strerror(-ret));
	res->count = m;
	/*
	 * batch: the first touch in each window brings its whole run back,
	 * one fault and one batch per window the range meets.
	 */
	if (it->path == P_BATCH) {
		uintptr_t w = (uintptr_t)(it->window ? it->window : 1) * PG;

		/* The count below assumes every page is in device memory. */
		if (m != np)
			return cfail("setup: MIGRATE_TO moved %ld of %ld pages",
				     m, np);

		res->batches = ((uintptr_t)a + (np - 1) * PG) / w -
			       (uintptr_t)a / w + 1;
	}
	shuffle(order, np);
	if (it->ordered)
		for (i = 0; i < np; i++)
			order[i] = i;
	if (it->headroom) {
		long cur = read_long(CG_DIR "/memory.current");

		if (write_str(CG_DIR "/memory.swap.max", "0") ||
		    cur < 0 || write_long(CG_DIR "/memory.max",
					  cur + it->headroom * (long)PG))
			return cfail("cannot set memory.max");
	}
	for (i = 0; i < np; i++) {
		e->has_w0[i] = wr;
		e->w0[i] = s1 ^ (uint64_t)i;
	}

	/* Each access faults until the page comes back; SIGBUS is lost data. */
	arm();
	for (k = 0; k < np; k++) {
		i = order[k];
		if (wr)
			bus[i] = probe(a + i * PG, NULL, 1, s1 ^ (uint64_t)i);
		else
			bus[i] = probe(a + i * PG, pagebuf, 0, 0);
	}
	disarm();
	for (i = 0; i < np; i++) {
		if (bus[i]) {
			res->sigbus++;
			cfail("page %ld: SIGBUS on a CPU %s under injection (data lost)",
			      i, wr ? "write" : "read");
		}
	}
	cpu_verify(a, e, NULL, "after the accesses");
	if (!in_use_at_base(d))
		cfail("in_use %ld after every page came back (was %ld)",
		      dstat(d, "in_use"), base_in_use[d]);
	close(fd);
}

/* ---------------------------------------------------------- (d) poison */

/*
 * What the kernel must do: state 0 in device memory, 1 back, 2 poisoned.
 * A CPU (or hmm_range_fault()) fault at page @i migrates back the run of
 * contiguous device pages around it inside its naturally aligned window of
 * @w pages; the copy of the first *@fc runs fails: they are poisoned.
 * Returns the state of page @i afterwards.
 */
static int sim_fault(char *st, long np, const char *a, long i, long w,
		     long *fc)
{
	uintptr_t addr = (uintptr_t)(a + i * PG);
	uintptr_t blk = addr & ~((uintptr_t)w * PG - 1);
	long lo = i, hi = i, j;
	int to;

	if (st[i])
		return st[i];
	while (lo > 0 && st[lo - 1] == 0 &&
	       (uintptr_t)(a + (lo - 1) * PG) >= blk)
		lo--;
	while (hi + 1 < np && st[hi + 1] == 0 &&
	       (uintptr_t)(a + (hi + 1) * PG) < blk + w * PG)
		hi++;
	to = *fc > 0 ? 2 : 1;
	if (*fc > 0)
		(*fc)--;
	for (j = lo; j <= hi; j++)
		st[j] = to;
	return to;
}

static void child_poison(const struct iter *it)
{
	long np = it->np, i, k, m, p0, fc = it->fail_copy, nbus = 0, left;
	long w = it->window, *order;
	int d = it->dev, fd, fd2 = -1, ret, status, wr;
	uint64_t s0 = splitmix(it->seed) | 1;
	char *a, *st, *buf;
	struct expect *e;
	pid_t pid;

	fd = dopen(d, 0);
	a = map_range(np, 0);
	buf = buf_map(np);
	st = calloc(np, 1);
	order = calloc(np, sizeof(*order));
	if (fd < 0 || !a || !buf || !st || !order)
		return cfail("setup: %s", strerror(errno));
	e = expect_new(np, s0);
	for (i = 0; i < np; i++)
		fill_page(a + i * PG, s0, i);
	if ((ret = expose(fd)))
		return cfail("EXPOSE_MM: %s", strerror(-ret));
	ret = d_migrate(fd, a, np * PG, &m);
	if (ret || m != np)
		return cfail("setup: MIGRATE_TO: %s, %ld of %ld pages",
			     strerror(-ret), m, np);
	if (it->variant == X_OTHERDEV) {
		fd2 = dopen(!d, 1);
		if (fd2 < 0 || expose(fd2))
			return cfail("setup: EXPOSE_MM of device %d", !d);
	}
	p0 = dstat(d, "poisoned");
	res->armed = 1;
	set_fail_copy(d, fc);

	switch (it->variant) {
	case X_FAULT:
		/* Random order, reads and writes mixed. */
		shuffle(order, np);
		for (k = 0; k < np; k++) {
			int want, got;

			i = order[k];
			wr = rnd() & 1;
			want = sim_fault(st, np, a, i, w, &fc);
			got = probe(a + i * PG, wr ? NULL : pagebuf, wr,
				    s0 ^ 0x55);
			if (got != (want == 2))
				cfail("page %ld (%s %ld of %ld): %s, expected %s",
				      i, wr ? "write" : "read", k, np,
				      got ? "SIGBUS" : "data",
				      want == 2 ? "SIGBUS" : "data");
			if (got && probe_bad_addr)
				cfail("page %ld: SIGBUS with a wrong si_addr", i);
			if (!got && wr) {
				e->has_w0[i] = 1;
				e->w0[i] = s0 ^ 0x55;
			}
			if (!got && !wr && echeck(e, pagebuf, i) >= 0)
				cfail("page %ld: wrong data after migration back", i);
		}
		break;
	case X_CLOSE:
		/* Teardown: one batch per page table, in address order. */
		for (i = 0; i < np; i++) {
			if (!st[i])
				sim_fault(st, np, a, i, PMD_SZ / PG, &fc);
		}
		close(fd);
		fd = -1;
		left = dstat(d, "in_use") - base_in_use[d];
		if (left)
			cfail("%ld device pages left after close", left);
		break;
	case X_OTHERDEV:
		/* hmm_range_fault() faults in address order, stops at SIGBUS. */
		for (i = 0; i < np; i++)
			if (sim_fault(st, np, a, i, w, &fc) == 2)
				break;
		ret = d_rw(fd2, 0, a, np * PG, buf, NULL);
		if (ret != (i < np ? -EFAULT : 0))
			cfail("READ through device %d: %s, expected %s", !d,
			      strerror(-ret), i < np ? "EFAULT" : "success");
		break;
	case X_FORK:
		/*
		 * The first copy for the child (page 0, in address order)
		 * fails with -EIO: that page's data is lost for both
		 * processes (POISON, as a CPU access would make it) and
		 * fork() succeeds; the other pages are copied.
		 */
		pid = fork();
		if (pid == 0) {
			if (!probe(a, pagebuf, 0, 0))
				_exit(20);
			for (i = 1; i < np; i++)
				if (probe(a + i * PG, pagebuf, 0, 0) ||
				    echeck(e, pagebuf, i) >= 0)
					_exit(21);
			_exit(0);
		}
		if (pid < 0) {
			cfail("fork() with a lost page: %s, expected success",
			      strerror(errno));
		} else if (waitpid(pid, &status, 0) != pid ||
			   !WIFEXITED(status) || WEXITSTATUS(status)) {
			cfail("forked child: status %#x (20: the lost page was readable, 21: another page was wrong)",
			      status);
		}
		if (fc > 0) {
			st[0] = 2;
			fc--;
		}
		break;
	}
	/* The copies the kernel tried are the ones we simulated. */
	res->consumed = it->fail_copy - get_fail_copy(d);
	if (get_fail_copy(d) != fc)
		cfail("fail_copy %ld left, simulation says %ld",
		      get_fail_copy(d), fc);
	set_fail_copy(d, 0);
	/* Simulated poison set == SIGBUS set; poison sticks. */
	for (i = 0; i < np; i++)
		st[i] = st[i] == 2;
	nbus = cpu_verify(a, e, st, "first pass");
	res->sigbus = nbus;
	if (dstat(d, "poisoned") - p0 != nbus)
		cfail("debugfs poisoned +%ld, %ld SIGBUS pages",
		      dstat(d, "poisoned") - p0, nbus);
	cpu_verify(a, e, st, "second pass");
	for (i = 0; i < np; i++) {
		if (!st[i])
			continue;
		if (!probe(a + i * PG, NULL, 1, 1))
			cfail("page %ld: a write to a poisoned page succeeded", i);
	}
	if (fd >= 0 && nbus) {
		/* A device never reads poison as data. */
		for (i = 0; i < np && !st[i]; i++)
			;
		ret = d_rw(fd, 0, a + i * PG, PG, buf, NULL);
		if (ret != -EFAULT)
			cfail("device READ of poisoned page %ld: %s, expected EFAULT",
			      i, strerror(-ret));
		/* Zapping a poisonous entry makes a fresh zero page. */
		madvise(a + i * PG, PG, MADV_DONTNEED);
		st[i] = 0;
		e->seed[i] = 0;
		e->has_w0[i] = 0;
		if (probe(a + i * PG, pagebuf, 0, 0) ||
		    check_page(pagebuf, 0, i, 0, 0) >= 0)
			cfail("page %ld: not a zero page after MADV_DONTNEED", i);
	}
	if (fd >= 0) {
		ret = d_rw(fd, 0, a, np * PG, buf, NULL);
		if (ret != (nbus > 1 ? -EFAULT : 0))
			cfail("device READ of the range: %s, with %ld poisoned pages",
			      strerror(-ret), nbus - (nbus > 0));
	}
	if (it->variant == X_FORK) {
		/* Now the copies work: the child sees the data. */
		pid = fork();
		if (pid == 0) {
			for (i = 0; i < np; i++)
				if (probe(a + i * PG, pagebuf, 0, 0) ||
				    echeck(e, pagebuf, i) >= 0)
					_exit(1);
			_exit(0);
		}
		if (pid < 0 || waitpid(pid, &status, 0) != pid ||
		    !WIFEXITED(status) || WEXITSTATUS(status))
			cfail("fork() after the failure: %s, child status %#x",
			      pid < 0 ? strerror(errno) : "ok", status);
	}
	if (!in_use_at_base(d))
		cfail("in_use %ld after every page was touched (was %ld)",
		      dstat(d, "in_use"), base_in_use[d]);
	if (fd >= 0)
		close(fd);
	if (fd2 >= 0)
		close(fd2);
}

/* ----------------------------------------------------------- (e) close */

static void child_close(const struct iter *it)
{
	long np = it->np, i, m, p0, nbus, left;
	int d = it->dev, fd, ret;
	uint64_t s0 = splitmix(it->seed) | 1;
	struct expect *e;
	char *a, *buf, *st;

	fd = dopen(d, 0);
	a = map_range(np, 0);
	buf = buf_map(np);
	st = calloc(np, 1);
	if (fd < 0 || !a || !buf || !st)
		return cfail("setup: %s", strerror(errno));
	e = expect_new(np, s0);
	for (i = 0; i < np; i++)
		fill_page(a + i * PG, s0, i);
	if ((ret = expose(fd)))
		return cfail("EXPOSE_MM: %s", strerror(-ret));
	/* Half in device memory; with "mirrored", the mirror maps it all. */
	ret = d_migrate(fd, a, np / 2 * PG, &m);
	if (ret)
		return cfail("setup: MIGRATE_TO: %s", strerror(-ret));
	if (it->variant == C_CLOSE_MIRRORED) {
		ret = d_rw(fd, 0, a, np * PG, buf, NULL);
		if (ret)
			return cfail("setup: READ: %s", strerror(-ret));
	}
	p0 = dstat(d, "poisoned");

	switch (it->variant) {
	case C_CLOSE:
	case C_CLOSE_MIRRORED:
		arm();
		close(fd);	/* the release runs before close() returns */
		disarm();
		/*
		 * Pages the close could not bring back (an injected allocation
		 * failure) stay in device memory, as NORMAL entries: counted,
		 * and the probes below bring them back with their data. Only
		 * a lost copy poisons (none is injected here).
		 */
		left = dstat(d, "in_use") - base_in_use[d];
		res->left = left;
		/*
		 * Each page is back, still in device memory (the probe brings
		 * it back), or poisoned: which, we learn by SIGBUS.
		 */
		for (i = 0; i < np; i++) {
			st[i] = probe(a + i * PG, pagebuf, 0, 0);
			if (st[i] && probe_bad_addr)
				cfail("page %ld: SIGBUS with a wrong si_addr", i);
			if (!st[i] && echeck(e, pagebuf, i) >= 0)
				cfail("page %ld: wrong data after close", i);
		}
		nbus = cpu_verify(a, e, st, "after close");
		res->sigbus = nbus;
		if (dstat(d, "poisoned") - p0 != nbus)
			cfail("debugfs poisoned +%ld, %ld SIGBUS pages",
			      dstat(d, "poisoned") - p0, nbus);
		break;
	case C_EXIT:
		/* The parent checks in_use once we are gone. */
		arm();
		_exit(0);
	case C_MUNMAP:
		arm();
		ret = munmap(a, np * PG);
		disarm();
		res->err = ret ? errno : 0;
		if (ret && errno != ENOMEM)
			cfail("munmap: %s", strerror(errno));
		if (!ret && !in_use_at_base(d))
			cfail("in_use %ld after munmap (was %ld)",
			      dstat(d, "in_use"), base_in_use[d]);
		if (ret)
			cpu_verify(a, e, NULL, "after a failed munmap");
		close(fd);
		break;
	}
	if (!in_use_at_base(d))
		cfail("in_use %ld at the end (was %ld)", dstat(d, "in_use"),
		      base_in_use[d]);
}

/* ------------------------------------------------------------ (f) fork */

static void child_fork(const struct iter *it)
{
	long np = it->np, i, m, in0;
	int d = it->dev, fd, ret, status = 0, mfd;
	uint64_t s0 = splitmix(it->seed) | 1;
	struct expect *e;
	pid_t pid;
	char *a;

	fd = dopen(d, 0);
	a = map_range(np, 0);
	if (fd < 0 || !a)
		return cfail("setup: %s", strerror(errno));
	e = expect_new(np, s0);
	for (i = 0; i < np; i++)
		fill_page(a + i * PG, s0, i);
	if ((ret = expose(fd)))
		return cfail("EXPOSE_MM: %s", strerror(-ret));
	/* Two thirds in device memory, the rest in system memory. */
	ret = d_migrate(fd, a, np * 2 / 3 * PG, &m);
	if (ret)
		return cfail("setup: MIGRATE_TO: %s", strerror(-ret));
	in0 = dstat(d, "in_use");

	arm();
	pid = fork();
	if (pid == 0) {
		/*
		 * make-it-fail is inherited (fail-nth is not): clear ours,
		 * retrying while opening the file is itself failed.
		 */
		if (!cit->nth) {
			for (i = 0; i < 100000; i++) {
				mfd = open("/proc/thread-self/make-it-fail",
					   O_WRONLY);
				if (mfd >= 0 && write(mfd, "0", 1) == 1)
					break;
				if (mfd >= 0)
					close(mfd);
			}
		}
		for (i = 0; i < np; i++)
			if (probe(a + i * PG, pagebuf, 0, 0) ||
			    echeck(e, pagebuf, i) >= 0)
				_exit(10);
		/* Our copies: the parent must not see these. */
		for (i = 0; i < np; i++)
			if (probe(a + i * PG, NULL, 1, 0xdead))
				_exit(11);
		_exit(0);
	}
	disarm();
	res->err = pid < 0 ? errno : 0;
	if (pid < 0 && errno != ENOMEM)
		cfail("fork(): %s, expected success or ENOMEM", strerror(errno));
	if (pid > 0) {
		if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) ||
		    WEXITSTATUS(status))
			cfail("forked child: status %#x (10: wrong data, 11: write failed)",
			      status);
	}
	if (dstat(d, "in_use") != in0)
		cfail("fork changed device in_use %ld -> %ld", in0,
		      dstat(d, "in_use"));
	cpu_verify(a, e, NULL, "parent after fork");
	close(fd);
	if (!in_use_at_base(d))
		cfail("in_use %ld after close (was %ld)", dstat(d, "in_use"),
		      base_in_use[d]);
}

/* ----------------------------------------------------------- (e) evict */

static void child_evict(const struct iter *it)
{
	long np = it->np, i, m, pages, p0, l0, left, nbus, fc = it->fail_copy;
	int d = it->dev, fd, efd, ret, n, copy = it->variant == E_COPY;
	uint64_t s0 = splitmix(it->seed) | 1;
	char path[128], cmd[64], *a, *st;
	struct expect *e;

	fd = dopen(d, 0);
	a = map_range(np, 0);
	st = calloc(np, 1);
	snprintf(path, sizeof(path), DUMMY_DBG "device%d_evict", d);
	efd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0 || efd < 0 || !a || !st)
		return cfail("setup: %s", strerror(errno));
	e = expect_new(np, s0);
	for (i = 0; i < np; i++)
		fill_page(a + i * PG, s0, i);
	if ((ret = expose(fd)))
		return cfail("EXPOSE_MM: %s", strerror(-ret));
	ret = d_migrate(fd, a, np * PG, &m);
	if (ret || m != np)
		return cfail("setup: MIGRATE_TO: %s, %ld of %ld pages",
			     strerror(-ret), m, np);
	/* Everything that allocates, before the injection. */
	pages = dstat(d, "pages");
	p0 = dstat(d, "poisoned");
	l0 = dstat(d, "evict_lost");
	n = snprintf(cmd, sizeof(cmd), "0 %ld %d", pages,
		     it->variant == E_WAIT);
	if (copy)
		set_fail_copy(d, fc);

	arm();
	ret = pwrite(efd, cmd, n, 0) == n ? 0 : -errno;
	disarm();
	res->err = -ret;
	if (copy)
		res->consumed = fc - get_fail_copy(d);
	/* Kept pages are busy, never an error of the call. */
	if (ret)
		cfail("evict: %s, expected success", strerror(-ret));
	left = dstat(d, "in_use") - base_in_use[d];
	res->left = left;
	/*
	 * HMM_EVICT_WAIT tries the pages it kept for want of memory again:
	 * once a finite injection has run out, they all come back.
	 */
	if (it->variant == E_WAIT && (cit->nth || cit->times > 0) && left)
		cfail("%ld pages still in device memory after a waiting eviction",
		      left);
	/* Back, still in device memory (the probe brings it back), or lost. */
	for (i = 0; i < np; i++) {
		st[i] = probe(a + i * PG, pagebuf, 0, 0);
		if (st[i] && probe_bad_addr)
			cfail("page %ld: SIGBUS with a wrong si_addr", i);
		if (!st[i] && echeck(e, pagebuf, i) >= 0)
			cfail("page %ld: wrong data after eviction", i);
	}
	nbus = cpu_verify(a, e, st, "after eviction");
	res->sigbus = nbus;
	if (!copy && nbus)
		cfail("%ld pages lost without a failed copy", nbus);
	if (dstat(d, "evict_lost") - l0 != nbus ||
	    dstat(d, "poisoned") - p0 != nbus)
		cfail("debugfs evict_lost +%ld, poisoned +%ld, %ld SIGBUS pages",
		      dstat(d, "evict_lost") - l0, dstat(d, "poisoned") - p0,
		      nbus);
	close(efd);
	close(fd);
	if (!in_use_at_base(d))
		cfail("in_use %ld at the end (was %ld)", dstat(d, "in_use"),
		      base_in_use[d]);
}

/* ------------------------------------------------------------- parent */

static volatile sig_atomic_t parent_alarm;

static void on_parent_alarm(int sig)
{
	(void)sig;
	parent_alarm = 1;
}

static void it_desc(const struct iter *it, char *b, size_t len)
{
	int n;

	n = snprintf(b, len, "%s dev%d %s", path_name[it->path], it->dev,
		     var_name[it->path][it->variant]);
	if (it->path == P_MIRROR || it->path == P_BACK ||
	    it->path == P_BACK_MEMCG ||
	    (it->path == P_BATCH && it->variant == B_FAULT))
		n += snprintf(b + n, len - n, " %s", op_name[it->op]);
	n += snprintf(b + n, len - n, " np=%ld", it->np);
	if (it->window)
		n += snprintf(b + n, len - n, " window=%d", it->window);
	if (it->ordered)
		n += snprintf(b + n, len - n, " in-order");
	if (it->path == P_POISON || (it->path == P_EVICT && it->fail_copy))
		n += snprintf(b + n, len - n, " fail_copy=%d", it->fail_copy);
	else if (it->nth)
		n += snprintf(b + n, len - n, " %s fail-nth=%d",
			      alloc_name[it->alloc], it->nth);
	else
		n += snprintf(b + n, len - n,
			      " %s probability=%d interval=%d times=%d",
			      alloc_name[it->alloc], it->prob, it->interval,
			      it->times);
	if (it->headroom)
		n += snprintf(b + n, len - n, " headroom=%ld", it->headroom);
	snprintf(b + n, len - n, " seed=%#" PRIx64, it->seed);
}

static void child_main(const struct iter *it)
{
	struct sigaction sa;
	int fd;

	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = on_fatal;
	sa.sa_flags = SA_SIGINFO | SA_NODEFER;
	sigaction(SIGBUS, &sa, NULL);
	sigaction(SIGSEGV, &sa, NULL);
	signal(SIGALRM, SIG_DFL);
	alarm(CHILD_TMO);
	/*
	 * Report through @res only: a child stuck in the kernel must not
	 * hold the suite's output pipe open.
	 */
	fd = open("/dev/null", O_RDWR);
	if (fd >= 0) {
		dup2(fd, 0);
		dup2(fd, 1);
		dup2(fd, 2);
		if (fd > 2)
			close(fd);
	}
	cit = it;
	rng_state = it->seed;
	/* Our own buffer must not allocate under injection. */
	memset(pagebuf, 0, sizeof(pagebuf));
	cg_join();
	mif_fd = open("/proc/thread-self/make-it-fail", O_RDWR | O_CLOEXEC);
	nth_fd = open("/proc/thread-self/fail-nth", O_RDWR | O_CLOEXEC);
	if (mif_fd < 0 || nth_fd < 0) {
		cfail("no /proc/thread-self/make-it-fail or fail-nth");
		_exit(0);
	}
	switch (it->path) {
	case P_MIRROR:
		child_mirror(it);
		break;
	case P_MIGRATE:
		child_migrate(it);
		break;
	case P_BACK:
	case P_BACK_MEMCG:
		child_back(it);
		break;
	case P_POISON:
		child_poison(it);
		break;
	case P_CLOSE:
		child_close(it);
		break;
	case P_FORK:
		child_fork(it);
		break;
	case P_EVICT:
		child_evict(it);
		break;
	case P_BATCH:
		if (it->variant == B_FAULT) {
			child_back(it);
		} else {
			struct iter c = *it;

			/* One hmm_migrate_back() of the device's memory. */
			res->batches = 1;
			c.variant = C_CLOSE;
			child_close(&c);
		}
		break;
	default:
		break;
	}
	_exit(0);
}

static long cg_oom_kills(void)
{
	return have_cg ? read_key(CG_DIR "/memory.events", "oom_kill") : -1;
}

/* Wait for in_use of both devices to be back (exiting mms free late). */
static int in_use_back(long *got)
{
	double until = mono() + 3;
	int d, ok;

	for (;;) {
		ok = 1;
		for (d = 0; d < 2; d++) {
			got[d] = dstat(d, "in_use");
			ok &= in_use_at_base(d);
		}
		if (ok) {
			/* Children left behind freed some. */
			base_in_use[0] = got[0];
			base_in_use[1] = got[1];
		}
		if (ok || mono() > until)
			return ok;
		usleep(20000);
	}
}

/*
 * Children that could not be reaped (stuck in the kernel): each holds its
 * device file and memory for good. The run goes on without them; after
 * MAX_STUCK it stops.
 */
#define MAX_STUCK 3
static int stuck;

/*
 * A path that hung is cut short: each hang costs CHILD_TMO or more, and
 * the suite must stay within its time in CI.
 */
#define MAX_PATH_HANGS 1

/*
 * Run one iteration; returns 1 if it injected at least one fault or failed
 * (a fail-nth sweep goes on), -1 if it was skipped.
 */
static int run_iter(const struct iter *it, int sweep)
{
	struct pstat *ps = &pst[it->path];
	long injected, got[2], oom0 = -1;
	int status = 0, failed = 0, hang = 0, killed = 0;
	char desc[256], why[700] = "";
	struct sigaction sa;
	double t0 = mono(), dt;
	pid_t pid, w;

	if (stuck || ps->hangs >= MAX_PATH_HANGS) {
		ps->skipped++;
		return -1;
	}
	it_desc(it, desc, sizeof(desc));
	if (opt_verbose > 1)
		printf("hmm-finj:   %s\n", desc);
	memset(res, 0, sizeof(*res));
	if (it->window)
		write_long(MIG_PARAM "window", it->window);
	if (it->headroom)
		oom0 = cg_oom_kills();
	fi_arm_global(it);
	fflush(stdout);
	pid = fork();
	if (pid < 0) {
		fi_disarm_global(it);
		printf("hmm-finj: fork: %s\n", strerror(errno));
		ps->fails++;
		return 0;
	}
	if (pid == 0)
		child_main(it);

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_parent_alarm;
	sigaction(SIGALRM, &sa, NULL);
	parent_alarm = 0;
	alarm(PARENT_TMO);
	w = waitpid(pid, &status, 0);
	alarm(0);
	if (w != pid) {
		/* Not even SIGALRM ended it: stuck in the kernel. */
		char path[64], wchan[128] = "?";

		snprintf(path, sizeof(path), "/proc/%d/wchan", pid);
		read_str(path, wchan, sizeof(wchan));
		snprintf(why, sizeof(why),
			 "HANG: child %d still running after %d s (wchan %s)",
			 pid, PARENT_TMO, wchan);
		kill(pid, SIGKILL);
		alarm(10);
		w = waitpid(pid, &status, 0);
		alarm(0);
		if (w != pid) {
			snprintf(why + strlen(why), sizeof(why) - strlen(why),
				 ", unkillable: left behind (its device pages make later in_use checks unreliable)");
			stuck = ++nstuck >= MAX_STUCK;
		}
		hang = 1;
	}
	injected = fi_disarm_global(it);
	if (it->nth)
		injected = res->fired;
	if (it->path == P_POISON || (it->path == P_EVICT && it->fail_copy))
		injected = res->consumed;
	dt = mono() - t0;
	if (dt > ps->max_s)
		ps->max_s = dt;
	set_fail_copy(0, 0);
	set_fail_copy(1, 0);
	if (it->headroom) {
		write_str(CG_DIR "/memory.max", "max");
		write_str(CG_DIR "/memory.swap.max", "max");
	}

	if (hang) {
		failed = 1;
	} else if (WIFSIGNALED(status)) {
		if (WTERMSIG(status) == SIGKILL && it->path == P_BACK_MEMCG &&
		    cg_oom_kills() > oom0) {
			killed = 1;	/* the memcg OOM killer: fine */
		} else if (WTERMSIG(status) == SIGALRM) {
			snprintf(why, sizeof(why),
				 "HANG: no progress in %d s (stuck on a LOCKED entry?)",
				 CHILD_TMO);
			hang = failed = 1;
		} else {
			snprintf(why, sizeof(why), "child killed by signal %d%s",
				 WTERMSIG(status),
				 WTERMSIG(status) == SIGKILL ?
				 " (OOM kill outside a memcg?)" : "");
			failed = 1;
		}
	} else if (WEXITSTATUS(status)) {
		snprintf(why, sizeof(why), "child exit status %d",
			 WEXITSTATUS(status));
		failed = 1;
	}
	if (res->failed) {
		snprintf(why + strlen(why), sizeof(why) - strlen(why), "%s%s",
			 why[0] ? "; " : "", res->msg);
		failed = 1;
	}
	/*
	 * Only the batch's cache fails: the batch comes from kvmalloc(), and
	 * close brings everything back. Every allocation failing, the cache
	 * must have been asked (a batch no longer from it tests nothing).
	 */
	if (it->path == P_BATCH && res->left) {
		snprintf(why + strlen(why), sizeof(why) - strlen(why),
			 "%s%ld pages left in device memory after close",
			 why[0] ? "; " : "", res->left);
		failed = 1;
	}
	if (it->path == P_BATCH && !it->nth && !injected && !hang) {
		snprintf(why + strlen(why), sizeof(why) - strlen(why),
			 "%sthe hmm_batch cache was never asked",
			 why[0] ? "; " : "");
		failed = 1;
	}
	/*
	 * Every allocation of the cache failing, each batch asked it once:
	 * more failures mean faults retried for want of a batch (the log's
	 * "Huh" notices that say so are rate limited), fewer a batch taken
	 * elsewhere. The close variant cannot tell kvmalloc() from the static
	 * reserve of hmm_migrate_back(): it checks that close completes.
	 */
	if (it->path == P_BATCH && !it->nth && !hang &&
	    injected != res->batches) {
		snprintf(why + strlen(why), sizeof(why) - strlen(why),
			 "%sthe hmm_batch cache failed %ld times for %ld batches%s",
			 why[0] ? "; " : "", injected, res->batches,
			 injected > res->batches ? ": faults retried" : "");
		failed = 1;
	}
	if (!in_use_back(got)) {
		snprintf(why + strlen(why), sizeof(why) - strlen(why),
			 "%sdevice pages leaked: in_use %ld,%ld (was %ld,%ld)",
			 why[0] ? "; " : "", got[0], got[1], base_in_use[0],
			 base_in_use[1]);
		failed = 1;
		/* Report each leak once. */
		base_in_use[0] = got[0];
		base_in_use[1] = got[1];
	}

	ps->iters++;
	if (sweep)
		ps->sweep_iters++;
	else
		ps->rand_iters++;
	ps->injected += injected;
	if (injected)
		ps->hit_iters++;
	if (!failed)
		ps->survived += injected;
	switch (res->err) {
	case 0:
		ps->ok++;
		break;
	case ENOMEM:
		ps->enomem++;
		break;
	case EFAULT:
		ps->efault++;
		break;
	default:
		ps->other_err++;
	}
	ps->retried += res->retried;
	ps->partial += res->partial;
	ps->migrated += res->count;
	ps->sigbus += res->sigbus;
	ps->left += res->left;
	ps->oom_kills += killed;
	ps->hangs += hang;
	if (failed) {
		ps->fails++;
		printf("hmm-finj: FAIL %s: %s\n", desc, why);
	} else if (opt_verbose) {
		printf("hmm-finj: ok %s: injected %ld, %s%s\n", desc, injected,
		       res->err ? strerror(res->err) : "success",
		       killed ? ", OOM-killed" : "");
	}
	fflush(stdout);
	return injected > 0 || failed;
}

/*
 * fail-nth sweep: fail allocation 1, 2, 3, ... of the operation until it
 * runs without reaching the nth allocation. Past 32, every few.
 */
static void sweep(struct iter it, int maxn)
{
	int n = 1;

	while (n <= maxn) {
		int hit;

		it.nth = n;
		it.seed = rnd();
		hit = run_iter(&it, 1);
		if (hit < 0 || (!hit && res->armed))
			break;
		n += n < 32 ? 1 : n / 8;
	}
}

/* Random probability-mode parameters. */
static void rand_prob(struct iter *it, int finite)
{
	static const int probs[] = { 1, 2, 5, 10, 25, 50, 100 };
	static const int ivals[] = { 1, 1, 1, 2, 3, 7, 16 };
	static const int ftimes[] = { 1, 2, 3, 5, 10, 30 };

	it->nth = 0;
	it->alloc = 1 + rndn(3);
	it->prob = pick(probs, 7);
	it->interval = pick(ivals, 7);
	if (finite || rndn(3) == 0)
		it->times = pick(ftimes, 6);
	else
		it->times = -1;
	it->seed = rnd();
}

static long scaled(long n)
{
	long v = (long)(n * opt_scale + 0.5);

	return v < 1 ? 1 : v;
}

static void plan_mirror(void)
{
	static const int nps[] = { 1, 3, 16, 64, 200 };
	struct iter it = { .path = P_MIRROR, .np = 16 };
	int a, op, v;
	long k;

	for (a = A_SLAB; a <= A_PAGE; a++) {
		it.alloc = a;
		for (op = OP_EXPOSE; op <= OP_WRITE; op++) {
			for (v = 0; v < NV_MIRROR; v++) {
				if (op == OP_EXPOSE && v == V_OWN)
					continue;
				it.op = op;
				it.variant = v;
				it.dev = (a + op + v) & 1;
				sweep(it, 64);
			}
		}
	}
	for (k = 0; k < scaled(150); k++) {
		rand_prob(&it, 0);
		it.op = rndn(3);
		it.variant = rndn(it.op == OP_EXPOSE ? NV_MIRROR - 1 : NV_MIRROR);
		it.dev = rndn(2);
		it.np = pick(nps, 5);
		run_iter(&it, 0);
	}
}

static void plan_migrate(void)
{
	static const int nps[] = { 1, 5, 16, 64, 300 };
	struct iter it = { .path = P_MIGRATE, .np = 16 };
	int a, v;
	long k;

	for (a = A_SLAB; a <= A_PAGE; a++) {
		it.alloc = a;
		for (v = 0; v < NV_MIGRATE; v++) {
			it.variant = v;
			it.dev = (a + v) & 1;
			sweep(it, 48);
		}
	}
	for (k = 0; k < scaled(200); k++) {
		rand_prob(&it, 0);
		it.variant = rndn(NV_MIGRATE);
		it.dev = rndn(2);
		it.np = pick(nps, 5);
		run_iter(&it, 0);
	}
}

static void plan_back(void)
{
	static const int wins[] = { 1, 4, 16, 512 };
	static const int nps[] = { 4, 16, 64, 256 };
	struct iter it = { .path = P_BACK, .np = 16 };
	int a, wi;
	long k;

	/*
	 * REGRESSION reproducer (fixed in 0021; kept first, deterministic): 4 pages
	 * in device memory, two in each page table, window 2; a CPU read of
	 * the first with page allocation 2 failing (1: hmm_entry_fault()'s
	 * kvmalloc, 2: the faulting page, the first of a batch of two).
	 * hmm_back_pmd() gets VM_FAULT_OOM and undoes the batch, but its
	 * undo loop computes each PTE from b->addr[0], which
	 * hmm_batch_drop() changes: the second entry is checked against the
	 * first's PTE, taken for zapped, its device page freed and its PTE
	 * left LOCKED for good. The retried access works; the access to the
	 * second page then waits forever (a HANG here; unkillable through a
	 * device READ, see the mirror path's otherdev sweeps).
	 */
	it.alloc = A_PAGE;
	it.window = 2;
	it.np = 4;
	it.op = OP_READ;
	it.ordered = 1;
	sweep(it, 4);
	it.ordered = 0;
	it.np = 16;
	for (a = A_SLAB; a <= A_PAGE; a++) {
		it.alloc = a;
		for (wi = 0; wi < 4; wi++) {
			it.window = wins[wi];
			it.op = (a + wi) & 1 ? OP_WRITE : OP_READ;
			it.dev = wi & 1;
			sweep(it, 64);
		}
	}
	/* Finite "times": a fault failed forever would retry forever. */
	for (k = 0; k < scaled(200); k++) {
		rand_prob(&it, 1);
		it.op = rndn(2) ? OP_WRITE : OP_READ;
		it.window = pick(wins, 4);
		it.dev = rndn(2);
		it.np = pick(nps, 4);
		run_iter(&it, 0);
	}
}

static void plan_back_memcg(void)
{
	static const int wins[] = { 1, 16, 512 };
	struct iter it = { .path = P_BACK_MEMCG, .np = 1024 };
	long k;

	/*
	 * 4 MiB in device memory, memory.max 1 to 8 MiB above the usage:
	 * enough for the range or not; fail_page_alloc on top, or not.
	 */
	for (k = 0; k < scaled(30); k++) {
		rand_prob(&it, 1);
		it.alloc = A_PAGE;
		if (k % 3 == 0)
			it.prob = 0;
		it.op = rndn(2) ? OP_WRITE : OP_READ;
		it.window = pick(wins, 3);
		it.dev = rndn(2);
		it.headroom = 256L << rndn(4);
		run_iter(&it, 0);
	}
}

static void plan_poison(void)
{
	static const int wins[] = { 1, 2, 8, 32, 512 };
	static const int nps[] = { 1, 8, 40, 130 };
	struct iter it = { .path = P_POISON };
	int v, fc;
	long k;

	for (v = 0; v < NV_POISON; v++) {
		for (fc = 1; fc <= 3; fc++) {
			if (v == X_FORK && fc > 1)
				break;
			it.variant = v;
			it.fail_copy = fc;
			it.window = 8;
			it.np = 40;
			it.dev = (v + fc) & 1;
			it.seed = rnd();
			run_iter(&it, 1);
		}
	}
	for (k = 0; k < scaled(150); k++) {
		it.variant = rndn(NV_POISON);
		it.fail_copy = rndn(4) + (it.variant == X_FORK);
		if (it.variant == X_FORK)
			it.fail_copy = 1;
		it.window = pick(wins, 5);
		it.np = pick(nps, 4);
		it.dev = rndn(2);
		it.seed = rnd();
		run_iter(&it, 0);
	}
}

/* Probability mode, every allocation fails, no limit of our own. */
static void prob_always(struct iter *it)
{
	it->nth = 0;
	it->prob = 100;
	it->interval = 1;
	it->times = -1;
	it->seed = rnd();
}

/*
 * The hmm_batch cache fails, every time or the nth time; nothing else does.
 * Every time, a fault that returned VM_FAULT_OOM for want of a batch would
 * be retried until failslab's countdown (BIG_TIMES) ran out: the exact
 * count in run_iter() fails it.
 */
static void plan_batch(void)
{
	static const int wins[] = { 1, 4, 16, 512 };
	struct iter it = { .path = P_BATCH, .alloc = A_BATCH, .np = 16 };
	int wi, op, d;

	for (wi = 0; wi < 4; wi++) {
		for (op = OP_READ; op <= OP_WRITE; op++) {
			it.variant = B_FAULT;
			it.window = wins[wi];
			it.op = op;
			it.ordered = op == OP_READ;
			it.dev = (wi + op) & 1;
			prob_always(&it);
			run_iter(&it, 0);
			if (wi == 0 || wi == 3)
				sweep(it, 8);
		}
	}
	it.window = 0;
	it.ordered = 0;
	for (d = 0; d < 2; d++) {
		it.variant = B_CLOSE;
		it.dev = d;
		it.np = 64;
		prob_always(&it);
		run_iter(&it, 0);
		sweep(it, 4);
	}
}

static void plan_close(void)
{
	static const int nps[] = { 2, 16, 64, 600 };
	struct iter it = { .path = P_CLOSE, .np = 16 };
	int a, v;
	long k;

	for (a = A_SLAB; a <= A_PAGE; a++) {
		it.alloc = a;
		for (v = 0; v < NV_CLOSE; v++) {
			/* A dead child's fail-nth cannot be read: exit is
			 * covered by the random iterations only. */
			if (v == C_EXIT)
				continue;
			it.variant = v;
			it.dev = (a + v) & 1;
			sweep(it, 48);
		}
	}
	/* Every allocation fails: everything in device memory is lost. */
	for (a = A_SLAB; a <= A_BOTH; a++) {
		rand_prob(&it, 0);
		it.alloc = a;
		it.prob = 100;
		it.interval = 1;
		it.times = -1;
		it.variant = a & 1 ? C_CLOSE : C_CLOSE_MIRRORED;
		it.np = 64;
		run_iter(&it, 0);
	}
	for (k = 0; k < scaled(150); k++) {
		rand_prob(&it, 0);
		it.variant = k % 4 == 0 ? C_EXIT : rndn(NV_CLOSE);
		it.dev = rndn(2);
		it.np = pick(nps, 4);
		run_iter(&it, 0);
	}
}

static void plan_fork(void)
{
	static const int nps[] = { 3, 16, 100 };
	struct iter it = { .path = P_FORK, .np = 12 };
	int a;
	long k;

	for (a = A_SLAB; a <= A_PAGE; a++) {
		it.alloc = a;
		it.dev = a & 1;
		sweep(it, 200);
	}
	/* Finite: the child inherits make-it-fail until it clears it. */
	for (k = 0; k < scaled(100); k++) {
		rand_prob(&it, 1);
		it.dev = rndn(2);
		it.np = pick(nps, 3);
		run_iter(&it, 0);
	}
}

static void plan_evict(void)
{
	static const int nps[] = { 1, 8, 64, 130 };
	struct iter it = { .path = P_EVICT, .np = 40 };
	int a, v;
	long k;

	/* Each allocation of the evictor in turn, without and with waiting. */
	for (a = A_SLAB; a <= A_PAGE; a++) {
		it.alloc = a;
		for (v = E_NOWAIT; v <= E_WAIT; v++) {
			it.variant = v;
			it.dev = (a + v) & 1;
			sweep(it, 64);
		}
	}
	/* Copies from the device that fail: the batch is lost (POISON). */
	for (k = 1; k <= 3; k++) {
		struct iter c = { .path = P_EVICT, .variant = E_COPY,
				  .fail_copy = k, .np = 40, .dev = k & 1,
				  .seed = rnd() };

		run_iter(&c, 1);
	}
	for (k = 0; k < scaled(60); k++) {
		rand_prob(&it, 0);
		it.variant = rndn(2);
		it.dev = rndn(2);
		it.np = pick(nps, 4);
		run_iter(&it, 0);
	}
}

/* --------------------------------------------------------- accounting */

/* memory.stat counters of the test memcg reported when memory.current grew. */
static const char *const cg_keys[] = {
	"anon", "file", "kernel", "kernel_stack", "pagetables", "percpu",
	"slab", "sock", "hmm_device",
};

#define NCGKEYS (sizeof(cg_keys) / sizeof(cg_keys[0]))

struct acct {
	long in_use[2];
	long memfree, memavail, anon, pcp;	/* KiB */
	long cg;				/* bytes */
	long cg_stat[NCGKEYS];			/* bytes, or -1 */
	int cg_reads;				/* drains until stable */
	long depot;				/* stack depot pools, or -1 */
};

/*
 * Stack depot pools (KASAN, kmemleak and page_owner record every new call
 * stack there) are never freed: in a debug kernel the first run of a path
 * takes a few hundred of them for good. They are reported, and their
 * size added back: DEPOT_POOL_ORDER 2, 16 KiB each (lib/stackdepot.c).
 */
#define DEPOT_POOL_KB	16

/* Pages on the per-CPU free lists (/proc/zoneinfo "count:"), in KiB. */
static long pcp_kb(void)
{
	char line[256];
	long n = 0, v;
	FILE *f = fopen("/proc/zoneinfo", "re");

	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, " count: %ld", &v) == 1)
			n += v;
	fclose(f);
	return n * (long)(PG / 1024);
}

/* Empty slabs (per-CPU partial ones too) back to the page allocator. */
static void shrink_slabs(void)
{
	DIR *dir = opendir("/sys/kernel/slab");
	struct dirent *de;
	char path[512];

	if (!dir)
		return;
	while ((de = readdir(dir))) {
		if (de->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "/sys/kernel/slab/%s/shrink",
			 de->d_name);
		write_str(path, "1");
	}
	closedir(dir);
}

/*
 * memory.high below the usage drains the per-CPU charge stocks of the test
 * memcg (charged, unused: each CPU keeps up to MEMCG_CHARGE_BATCH, 64 pages,
 * for the last memcg that charged or uncharged kernel memory there) and
 * reclaims; unlike memory.max it never OOM-kills (the cgroup is empty now
 * anyway). But drain_all_stock() drains only the writer's own CPU before
 * the write returns: the other CPUs get a work item, which may run after
 * memory.current was read, and frees deferred by RCU (page tables, slab
 * objects) may refill a stock after the drain. Up to 256 KiB per CPU was
 * then counted as a leak: "back" failed with memcg+152KiB and +220KiB,
 * MemFree unchanged; read that way after every iteration, memory.current
 * jumped by 150 to 216 KiB and fell back at the next one, with the cgroup
 * empty. So the write is made from each CPU in turn, where its own stock
 * is drained synchronously, and memory.current is read until two readings
 * 20 ms apart agree. A charge that stays (a leak) is in every reading:
 * only charges that are not used memory are left out.
 */
static void cg_drain_all_cpus(void)
{
	cpu_set_t all, one;
	int cpu;

	if (sched_getaffinity(0, sizeof(all), &all)) {
		write_str(CG_DIR "/memory.high", "0");
		write_str(CG_DIR "/memory.high", "max");
		return;
	}
	for (cpu = 0; cpu < CPU_SETSIZE; cpu++) {
		if (!CPU_ISSET(cpu, &all))
			continue;
		CPU_ZERO(&one);
		CPU_SET(cpu, &one);
		if (sched_setaffinity(0, sizeof(one), &one))
			continue;
		write_str(CG_DIR "/memory.high", "0");
		write_str(CG_DIR "/memory.high", "max");
	}
	/* The children inherit it. */
	sched_setaffinity(0, sizeof(all), &all);
}

static long cg_current_drained(int *reads)
{
	long cur = -1, prev;
	int n;

	for (n = 1; ; n++) {
		prev = cur;
		cg_drain_all_cpus();
		cur = read_long(CG_DIR "/memory.current");
		/* 50: about a second; the value is reported with it. */
		if (cur < 0 || cur == prev || n == 50)
			break;
		usleep(20000);
	}
	*reads = n;
	return cur;
}

static void cg_stat_snap(long *v)
{
	char line[256], k[128];
	long x;
	size_t i;
	FILE *f = fopen(CG_DIR "/memory.stat", "re");

	for (i = 0; i < NCGKEYS; i++)
		v[i] = -1;
	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%127s %ld", k, &x) != 2)
			continue;
		for (i = 0; i < NCGKEYS; i++)
			if (!strcmp(k, cg_keys[i]))
				v[i] = x;
	}
	fclose(f);
}

/*
 * MemFree and MemAvailable do not count the pages cached on the per-CPU
 * free lists, which hold up to several MiB and change with every burst of
 * frees: they are added back (pcp). Page cache and slab caches are dropped
 * and empty slabs freed first, vmstat's per-CPU deltas folded.
 */
static void acct_snap(struct acct *a)
{
	int d;

	write_str("/proc/sys/vm/drop_caches", "3");
	shrink_slabs();
	write_str("/proc/sys/vm/stat_refresh", "1");
	for (d = 0; d < 2; d++)
		a->in_use[d] = dstat(d, "in_use");
	a->pcp = pcp_kb();
	a->memfree = read_key("/proc/meminfo", "MemFree");
	a->memavail = read_key("/proc/meminfo", "MemAvailable");
	a->anon = read_key("/proc/meminfo", "AnonPages");
	a->depot = read_key("/sys/kernel/debug/stackdepot/stats", "pools");
	a->cg = -1;
	a->cg_reads = 0;
	if (have_cg) {
		/* See cg_drain_all_cpus(). */
		a->cg = cg_current_drained(&a->cg_reads);
		cg_stat_snap(a->cg_stat);
	}
}

/* Kernel messages: problems fail the path, known notices are counted. */
static const char *const kmsg_bad[] = {
	"BUG:", "WARNING:", "Oops", "general protection fault",
	"Kernel panic", "KASAN:", "UBSAN:", "KCSAN:",
	"possible circular locking", "possible recursive locking",
	"inconsistent lock state", "DEBUG_LOCKS_WARN_ON",
	"suspicious RCU usage", "unreferenced object", "new suspected",
	"Bad page", "bad pte", "ad rss-counter", "detected stall",
	"soft lockup", "blocked for more than", "list_add corruption",
	"list_del corruption", "page_table_check", "Unable to handle kernel",
	"invalid opcode:", "stack-protector", "still in use",
};
static const char *const kmsg_known[] = {
	"Huh VM_FAULT_OOM leaked out",	/* back: retried faults */
	"invoked oom-killer",		/* back-memcg */
	"vmalloc error",		/* kvmalloc fallbacks that failed */
	"page allocation failure",
	"migrating back on close failed",	/* hmm_dummy, close */
};
#define NKNOWN (sizeof(kmsg_known) / sizeof(kmsg_known[0]))

static int kmsg_fd = -1;

static void kmsg_start(void)
{
	if (kmsg_fd < 0)
		kmsg_fd = open("/dev/kmsg", O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (kmsg_fd >= 0)
		lseek(kmsg_fd, 0, SEEK_END);
}

/* Returns the number of problem lines; counts the known notices. */
static long kmsg_scan(long *known, long *lines)
{
	char rec[8192], *msg, *nl;
	long bad = 0;
	ssize_t n;
	size_t i;

	*lines = 0;
	memset(known, 0, NKNOWN * sizeof(*known));
	if (kmsg_fd < 0)
		return 0;
	for (;;) {
		n = read(kmsg_fd, rec, sizeof(rec) - 1);
		if (n < 0 && errno == EPIPE)
			continue;	/* overwritten records: go on */
		if (n <= 0)
			break;
		rec[n] = 0;
		msg = strchr(rec, ';');
		msg = msg ? msg + 1 : rec;
		nl = strchr(msg, '\n');
		if (nl)
			*nl = 0;
		(*lines)++;
		for (i = 0; i < NKNOWN; i++)
			if (strstr(msg, kmsg_known[i]))
				known[i]++;
		for (i = 0; i < sizeof(kmsg_bad) / sizeof(kmsg_bad[0]); i++) {
			if (strstr(msg, kmsg_bad[i])) {
				if (bad++ < 10)
					printf("hmm-finj: kernel: %s\n", msg);
				break;
			}
		}
	}
	return bad;
}

static int result(const char *name, int ok, const char *fmt, ...)
{
	char detail[600];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(detail, sizeof(detail), fmt, ap);
	va_end(ap);
	ktap_result(ok ? KTAP_PASS : KTAP_FAIL, name, detail);
	return !ok;
}

static void skip(const char *name, const char *why)
{
	ktap_result(KTAP_SKIP, name, why);
}

static int run_path(enum path p)
{
	struct pstat *ps = &pst[p];
	struct acct a0, a1;
	long known[NKNOWN], lines, bad, dfree, davail, danon, dcg = 0, ddepot = 0;
	char name[64], notes[300] = "";
	double t0 = mono();
	int fails = 0, ok;
	size_t i;

	if (p == P_BACK_MEMCG && !have_cg) {
		skip(path_name[p], "no cgroup2 memory controller");
		return 0;
	}
	if (p == P_EVICT && access(DUMMY_DBG "device0_evict", W_OK)) {
		skip(path_name[p], "no eviction (debugfs device0_evict)");
		return 0;
	}
	/* Merged into another cache, its failslab attribute refuses 1. */
	if (p == P_BATCH && (write_str(BATCH_FAILSLAB, "1") ||
			     write_str(BATCH_FAILSLAB, "0"))) {
		result(path_name[p], 0,
		       "cannot set %s: no hmm_batch cache of its own", BATCH_FAILSLAB);
		return 1;
	}
	acct_snap(&a0);
	kmsg_start();
	switch (p) {
	case P_MIRROR:
		plan_mirror();
		break;
	case P_MIGRATE:
		plan_migrate();
		break;
	case P_BACK:
		plan_back();
		break;
	case P_BACK_MEMCG:
		plan_back_memcg();
		break;
	case P_POISON:
		plan_poison();
		break;
	case P_CLOSE:
		plan_close();
		break;
	case P_FORK:
		plan_fork();
		break;
	case P_EVICT:
		plan_evict();
		break;
	case P_BATCH:
		plan_batch();
		break;
	default:
		break;
	}
	knob_restore(MIG_PARAM "window");
	acct_snap(&a1);
	bad = kmsg_scan(known, &lines);

	printf("hmm-finj: %s: %ld iterations (%ld fail-nth sweep, %ld random) in %.1f s, max %.2f s each%s\n",
	       path_name[p], ps->iters, ps->sweep_iters, ps->rand_iters,
	       mono() - t0, ps->max_s,
	       ps->skipped ? "; cut short after hangs" : "");
	printf("hmm-finj: %s: %ld faults injected in %ld iterations, %ld survived; outcomes: success %ld, ENOMEM %ld, EFAULT %ld, other %ld; retries after disarming ok %ld\n",
	       path_name[p], ps->injected, ps->hit_iters, ps->survived, ps->ok,
	       ps->enomem, ps->efault, ps->other_err, ps->retried);
	if (p == P_MIGRATE)
		printf("hmm-finj: %s: %ld pages migrated under injection, %ld partial migrations\n",
		       path_name[p], ps->migrated, ps->partial);
	if (p == P_POISON || p == P_CLOSE)
		printf("hmm-finj: %s: %ld poisoned pages gave SIGBUS; %ld device pages left after close\n",
		       path_name[p], ps->sigbus, ps->left);
	if (p == P_EVICT)
		printf("hmm-finj: %s: %ld lost pages gave SIGBUS; %ld device pages left after eviction\n",
		       path_name[p], ps->sigbus, ps->left);
	if (p == P_BACK_MEMCG)
		printf("hmm-finj: %s: %ld OOM kills of the child\n",
		       path_name[p], ps->oom_kills);
	for (i = 0; i < NKNOWN; i++)
		if (known[i])
			snprintf(notes + strlen(notes),
				 sizeof(notes) - strlen(notes), ", %ld \"%s\"",
				 known[i], kmsg_known[i]);
	printf("hmm-finj: %s: kernel log: %ld lines, %ld problems%s\n",
	       path_name[p], lines, bad, notes);

	ok = !ps->fails && ps->iters > 0;
	/* kmsg_known[0]: a fault returned VM_FAULT_OOM for want of a batch. */
	if (p == P_BATCH && known[0]) {
		printf("hmm-finj: %s: FAIL: %ld retried faults (VM_FAULT_OOM) with only the batch cache failing\n",
		       path_name[p], known[0]);
		ok = 0;
	}
	snprintf(name, sizeof(name), "%s", path_name[p]);
	fails += result(name, ok,
			"injected=%ld survived=%ld iterations=%ld hit=%ld success=%ld enomem=%ld efault=%ld retried=%ld sigbus=%ld oom_kills=%ld hangs=%ld failed=%ld%s",
			ps->injected, ps->survived, ps->iters, ps->hit_iters,
			ps->ok, ps->enomem, ps->efault, ps->retried, ps->sigbus,
			ps->oom_kills, ps->hangs, ps->fails,
			ps->skipped ? " (cut short after hangs)" : "");

	dfree = a1.memfree + a1.pcp - a0.memfree - a0.pcp;
	davail = a1.memavail + a1.pcp - a0.memavail - a0.pcp;
	danon = a1.anon - a0.anon;
	if (a0.depot >= 0 && a1.depot >= a0.depot) {
		ddepot = (a1.depot - a0.depot) * DEPOT_POOL_KB;
		dfree += ddepot;
		davail += ddepot;
	}
	if (have_cg && a0.cg >= 0 && a1.cg >= 0) {
		char st[400] = "";

		dcg = (a1.cg - a0.cg) / 1024;
		/* Which counter grew, should memory.current have grown. */
		for (i = 0; i < NCGKEYS; i++)
			if (a0.cg_stat[i] >= 0 && a1.cg_stat[i] >= 0)
				snprintf(st + strlen(st), sizeof(st) - strlen(st),
					 " %s%+ldKiB", cg_keys[i],
					 (a1.cg_stat[i] - a0.cg_stat[i]) / 1024);
		printf("hmm-finj: %s: memcg%+ldKiB (stable after %d, %d drains), memory.stat:%s\n",
		       path_name[p], dcg, a0.cg_reads, a1.cg_reads, st);
	}
	/* Children left behind may free their device pages meanwhile. */
	ok = (nstuck ? a1.in_use[0] <= a0.in_use[0] && a1.in_use[1] <= a0.in_use[1] :
	      a1.in_use[0] == a0.in_use[0] && a1.in_use[1] == a0.in_use[1]) &&
	     davail > -opt_mem_tol_kb && dfree > -opt_mem_tol_kb &&
	     dcg < opt_cg_tol_kb && !bad;
	snprintf(name, sizeof(name), "%s-acct", path_name[p]);
	fails += result(name, ok,
			"in_use=%ld,%ld(was %ld,%ld) MemFree+pcp%+ldKiB MemAvailable+pcp%+ldKiB(tol %ld, stack depot +%ldKiB added back) AnonPages%+ldKiB memcg%+ldKiB(tol %ld) kmsg_problems=%ld",
			a1.in_use[0], a1.in_use[1], a0.in_use[0], a0.in_use[1],
			dfree, davail, opt_mem_tol_kb, ddepot, danon, dcg,
			opt_cg_tol_kb, bad);
	return fails;
}

static int cg_setup(void)
{
	char b[256];

	if (read_str(CG_ROOT "/cgroup.controllers", b, sizeof(b)) ||
	    !strstr(b, "memory"))
		return 0;
	write_str(CG_ROOT "/cgroup.subtree_control", "+memory");
	if (mkdir(CG_DIR, 0755) && errno != EEXIST)
		return 0;
	if (access(CG_DIR "/memory.max", W_OK))
		return 0;
	write_str(CG_DIR "/memory.max", "max");
	write_str(CG_DIR "/memory.swap.max", "max");
	return 1;
}

static void usage(void)
{
	printf("usage: hmm-finj [-p path,...] [-x scale] [-s seed] [-M KiB] [-C KiB] [-v]\n"
	       "  -p  paths to run (default all):");
	for (int p = 0; p < NPATHS; p++)
		printf(" %s", path_name[p]);
	printf("\n  -x  scale the random iterations (default 1.0)\n"
	       "  -M  MemFree/MemAvailable tolerance per path, KiB (default %ld)\n"
	       "  -C  memcg memory.current tolerance per path, KiB (default %ld)\n"
	       "  -v  print every iteration (-vv: before it runs)\n",
	       opt_mem_tol_kb, opt_cg_tol_kb);
}

static void on_term(int sig)
{
	knobs_restore();
	signal(sig, SIG_DFL);
	raise(sig);
}

int main(int argc, char **argv)
{
	int c, p, fails = 0, want[NPATHS];
	char *list = NULL, *tok, *save;
	double t0 = mono();

	setvbuf(stdout, NULL, _IOLBF, 0);
	opt_seed = (uint64_t)time(NULL);
	while ((c = getopt(argc, argv, "p:x:s:M:C:vh")) != -1) {
		switch (c) {
		case 'p':
			list = optarg;
			break;
		case 'x':
			opt_scale = atof(optarg);
			break;
		case 's':
			opt_seed = strtoull(optarg, NULL, 0);
			break;
		case 'M':
			opt_mem_tol_kb = atol(optarg);
			break;
		case 'C':
			opt_cg_tol_kb = atol(optarg);
			break;
		case 'v':
			opt_verbose++;
			break;
		default:
			usage();
			return c == 'h' ? 0 : 2;
		}
	}
	for (p = 0; p < NPATHS; p++)
		want[p] = !list;
	if (list) {
		for (tok = strtok_r(list, ",", &save); tok;
		     tok = strtok_r(NULL, ",", &save)) {
			for (p = 0; p < NPATHS; p++)
				if (!strcmp(tok, path_name[p]))
					break;
			if (p == NPATHS) {
				usage();
				return 2;
			}
			want[p] = 1;
		}
	}
	rng_state = opt_seed;
	ktap_header();

	if (access(FSLAB "probability", W_OK) ||
	    access(FPAGE "probability", W_OK)) {
		result("fault-injection", 0,
		       "no %s or %s (CONFIG_FAILSLAB, CONFIG_FAIL_PAGE_ALLOC, CONFIG_FAULT_INJECTION_DEBUG_FS, debugfs)",
		       FSLAB, FPAGE);
		return 1;
	}
	if (dstat(0, "in_use") < 0 || dstat(1, "in_use") < 0 ||
	    access(DUMMY_DBG "device0_fail_copy", W_OK) ||
	    access("/dev/hmm_dummy_device13", R_OK | W_OK)) {
		result("hmm_dummy", 0, "no hmm_dummy devices or debugfs files");
		return 1;
	}
	if (dstat(0, "pages") <= 0 || dstat(1, "pages") <= 0) {
		result("hmm_dummy", 0, "hmm_dummy has no device memory (devmem_mb=0)");
		return 1;
	}
	res = mmap(NULL, sizeof(*res), PROT_READ | PROT_WRITE,
		   MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (res == MAP_FAILED) {
		perror("mmap");
		return 1;
	}
	knobs_save();
	signal(SIGTERM, on_term);
	signal(SIGINT, on_term);
	if (fi_setup()) {
		knobs_restore();
		result("fault-injection", 0, "cannot configure %s and %s", FSLAB,
		       FPAGE);
		return 1;
	}
	/* Every migration may go: no ping-pong hold between iterations. */
	write_str(MIG_PARAM "pingpong_threshold", "0");
	have_cg = cg_setup();
	base_in_use[0] = dstat(0, "in_use");
	base_in_use[1] = dstat(1, "in_use");
	printf("hmm-finj: seed %#" PRIx64 ", scale %.2f, device pools %ld+%ld pages, in_use %ld+%ld, memcg %s\n",
	       opt_seed, opt_scale, dstat(0, "pages"), dstat(1, "pages"),
	       base_in_use[0], base_in_use[1], have_cg ? CG_DIR : "none");

	for (p = 0; p < NPATHS && !stuck; p++)
		if (want[p])
			fails += run_path(p);

	knobs_restore();
	if (have_cg)
		rmdir(CG_DIR);
	printf("hmm-finj: done in %.1f s, %d failed results%s\n", mono() - t0,
	       fails, stuck ? " (stopped: too many children stuck in the kernel)" :
	       nstuck ? " (children stuck in the kernel left behind)" : "");
	return fails ? 1 : 0;
}
