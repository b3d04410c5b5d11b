// SPDX-License-Identifier: GPL-2.0
/*
 * hmm-fuzz: hostile input for the hmm_dummy driver (the series' HMM mirror
 * test device), run in the test guest (suite "fuzz", see tests/guest/suites/fuzz.sh
 * of the series repository). Modes (-T):
 *
 * fuzz (default): for -t seconds, -p worker processes each mirror
 *	themselves through a minor of BOTH dummy devices and loop over random
 *	operations, seeded (-s, always printed: the same -s and -p replay
 *	each worker's inputs; the racer's interleaving and the moment a fork
 *	child is killed are not reproducible). Ioctls: EXPOSE_MM, READ, WRITE, MIGRATE_TO, unknown command (MIGRATE_TO_FLAGS is known, not generated)
 *	numbers and wrong sizes/directions encoded in the command, garbage in
 *	the upper 32 bits of the command, on the worker's own mirror files, an
 *	unexposed file, a file exposed by a dead child, a pipe and bad fds, with
 *	random and boundary values in every field of the uapi structures (NULL,
 *	unaligned, kernel and non-canonical addresses, huge sizes, ranges that
 *	wrap or end exactly at / past TASK_SIZE, non-zero reserved fields,
 *	garbage in the output fields), user buffers that are unmapped,
 *	read-only, PROT_NONE or run into a guard page, ranges spanning holes,
 *	and the argument structure itself on the stack, unaligned, read-only,
 *	PROT_NONE, straddling into a PROT_NONE page, in device memory, NULL or
 *	in the kernel. Interleaved with mmap (private/shared anonymous, memfd,
 *	THP), munmap, mprotect, mremap (move, MREMAP_DONTUNMAP, resize),
 *	madvise (DONTNEED, FREE, HUGEPAGE, NOHUGEPAGE, PAGEOUT, COLD, WILLNEED,
 *	POPULATE_READ/WRITE, COLLAPSE), mlock, CPU accesses, fork (the child
 *	checks that the inherited mirror files refuse it with EPERM/EBUSY, may
 *	expose an inherited unexposed file - which the parent then sees refuse
 *	it with EPERM, and with ENODEV once the child is gone - mirrors itself
 *	with fresh files - sometimes from two threads at once: one wins, the
 *	other gets EEXIST/EBUSY - and runs its own burst of random ioctls;
 *	some children exit with a thread inside device requests, some are
 *	SIGKILLed in the middle of them), CPU probes of bad memory in a child
 *	(SIGSEGV expected) and close/reopen of the files. A racer thread per
 *	worker (-r 0: none) issues READ/WRITE/MIGRATE_TO on the same memory
 *	meanwhile; some closes race its requests (the release then runs in
 *	the racer, and a new file gets EEXIST until it has).
 *
 *	Every ioctl result is checked against what the driver documents for
 *	that input (drivers/char/hmm_dummy_uapi.h, drivers/char/hmm_dummy.c):
 *	the expected set is computed from the input and from the worker's own
 *	view of its address space (read back from /proc/self/maps after every
 *	mapping change), often a single errno; anything else is an error
 *	printed with the whole input. Successful calls have their output
 *	fields checked. A region per worker ("K", -k KiB, 2 MiB aligned, THP)
 *	is only written through defined paths (device writes, CPU writes,
 *	MADV_DONTNEED, MADV_FREE + rewrite) and has a shadow copy: it is checked
 *	through a device and the CPU every 32 operations, after fork, mremap,
 *	mprotect, close, and at the end.
 *
 * scm: a mirror's file passed to another process with SCM_RIGHTS gives
 *	that process no access to the mirrored memory (EPERM, EBUSY), the last
 *	close in that process migrates the owner's device pages back, and an
 *	owner that exits first leaves a file that fails with ENODEV and closes
 *	cleanly; also a file dropped while in flight. Device pages in use
 *	(debugfs) must return to their starting value every time.
 *
 * perm: /dev/hmm_dummy_device* are character devices owned by root with no
 *	access for group and others, and a process that dropped root
 *	(uid/gid 65534) gets EACCES opening them.
 *
 * all: perm, scm, then fuzz.
 *
 * Output: KTAP (ktap.h), one result per check, the inputs tried per
 * ioctl and context with the result counts. Exit status 0 only if all pass.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <inttypes.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <sys/uio.h>
#include <sys/wait.h>

#include "drivers/char/hmm_dummy_uapi.h"	/* from the kernel tree (-I) */

#include "ktap.h"

#ifndef MADV_FREE
#define MADV_FREE 8
#endif
#ifndef MADV_HUGEPAGE
#define MADV_HUGEPAGE 14
#endif
#ifndef MADV_NOHUGEPAGE
#define MADV_NOHUGEPAGE 15
#endif
#ifndef MADV_COLD
#define MADV_COLD 20
#endif
#ifndef MADV_PAGEOUT
#define MADV_PAGEOUT 21
#endif
#ifndef MADV_POPULATE_READ
#define MADV_POPULATE_READ 22
#endif
#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23
#endif
#ifndef MADV_COLLAPSE
#define MADV_COLLAPSE 25
#endif
#ifndef MREMAP_DONTUNMAP
#define MREMAP_DONTUNMAP 4
#endif
#ifndef MAP_FIXED_NOREPLACE
#define MAP_FIXED_NOREPLACE 0x100000
#endif
#ifndef MLOCK_ONFAULT
#define MLOCK_ONFAULT 1
#endif

#define PG		4096UL
#define MiB		(1024UL * 1024UL)
#define PMD_SZ		(2 * MiB)
#define MAX_PROCS	16
#define MAX_REPORTS	12	/* error reports per worker */
#define ARGSZ		128	/* every uapi structure */
#define VERIFY_EVERY	32	/* operations between checks of K */
#define CHILD_OPS	24	/* random ioctls of a fork child */
#define CHILD_TIMEOUT	120	/* seconds a fork child may take */
#define RACER_STACK	(256 * 1024)

#define DBG_DIR		"/sys/kernel/debug/hmm_dummy"
#define NOBODY		65534

_Static_assert(sizeof(struct hmm_dummy_read) == ARGSZ, "uapi size");
_Static_assert(sizeof(struct hmm_dummy_write) == ARGSZ, "uapi size");
_Static_assert(sizeof(struct hmm_dummy_migrate) == ARGSZ, "uapi size");
/* The fuzzer fills the structures as arrays of 16 u64; check the layout. */
_Static_assert(offsetof(struct hmm_dummy_read, ptr) == 16, "uapi layout");
_Static_assert(offsetof(struct hmm_dummy_read, nsys_pages) == 24, "uapi layout");
_Static_assert(offsetof(struct hmm_dummy_read, nfaulted_dev_pages) == 48, "uapi layout");
_Static_assert(offsetof(struct hmm_dummy_read, reserved) == 56, "uapi layout");
_Static_assert(offsetof(struct hmm_dummy_write, reserved) == 56, "uapi layout");
_Static_assert(offsetof(struct hmm_dummy_migrate, nfaulted_dev_pages) == 24, "uapi layout");
/*
 * MIGRATE_TO: raw[4] is the flags input (the fuzzer leaves it 0) and raw[5]
 * the nheld_pages output where the kernel has them, reserved words after.
 */
#ifdef HMM_DUMMY_MIGRATE_PINGPONG
_Static_assert(offsetof(struct hmm_dummy_migrate, flags) == 32, "uapi layout");
_Static_assert(offsetof(struct hmm_dummy_migrate, nheld_pages) == 40, "uapi layout");
#define MIG_RESV	6
#define MIG_OUT_END	6
#else
#define MIG_RESV	4
#define MIG_OUT_END	4
#endif
_Static_assert(offsetof(struct hmm_dummy_migrate, reserved) == MIG_RESV * 8, "uapi layout");

/* Results: index 0 is success, then these errnos, then "other". */
static const int res_errno[] = {
	0, EFAULT, EINVAL, EPERM, ENODEV, EBUSY, EEXIST, ENOTTY, EBADF,
	EOPNOTSUPP, ENOMEM, EINTR, EIO, ENOSPC, ESRCH, EAGAIN,
};
#define NERRNO		(int)(sizeof(res_errno) / sizeof(res_errno[0]))
#define NRES		(NERRNO + 1)
#define RES_OTHER	NERRNO

static int res_index(long ret)
{
	int i;

	if (ret > 0)
		return RES_OTHER;	/* the driver returns 0 on success */
	for (i = 0; i < NERRNO; i++)
		if (res_errno[i] == (int)-ret)
			return i;
	return RES_OTHER;
}

static const char *res_name(int i)
{
	static const char *const names[NRES] = {
		"ok", "EFAULT", "EINVAL", "EPERM", "ENODEV", "EBUSY", "EEXIST",
		"ENOTTY", "EBADF", "EOPNOTSUPP", "ENOMEM", "EINTR", "EIO",
		"ENOSPC", "ESRCH", "EAGAIN", "other",
	};
	return names[i];
}

#define M_OK		1u
#define M(e)		(1u << res_index(-(long)(e)))

enum ioc { I_EXPOSE, I_READ, I_WRITE, I_MIGRATE, I_BADCMD, NIOC };
static const char *const ioc_name[NIOC] = {
	"EXPOSE_MM", "READ", "WRITE", "MIGRATE_TO", "bad-cmd",
};

enum ctx { X_MAIN, X_CHILD, X_RACER, NCTX };
static const char *const ctx_name[NCTX] = { "main", "fork-child", "racer" };

/* Input generators, for the report of inputs tried. */
enum ga {
	GA_ARENA, GA_ARENA_EDGE, GA_HOLE, GA_GUARD, GA_K, GA_IO, GA_NULL,
	GA_TOP, GA_TASK, GA_KERNEL, GA_NONCANON, GA_MAX, GA_RANDOM, GA_STACK,
	GA_ARGPAGE, NGA
};
static const char *const ga_name[NGA] = {
	"arena", "arena-edge", "hole", "guard", "K", "iobuf", "null", "top",
	"task-size", "kernel", "noncanonical", "max", "random", "stack",
	"argpage",
};
static const unsigned int ga_weight[NGA] = {
	30, 6, 6, 3, 6, 4, 3, 3, 3, 3, 2, 3, 3, 2, 2,
};

enum gs {
	GS_ZERO, GS_ONE, GS_SMALL, GS_PAGE, GS_PAGE_PM, GS_PAGES, GS_PAGES_ODD,
	GS_PMD, GS_ARENA, GS_BIG, GS_TO_TOP, GS_WRAP, GS_MAX, GS_RANDOM, NGS
};
static const char *const gs_name[NGS] = {
	"0", "1", "small", "page", "page+-1", "pages", "pages-unaligned",
	"2MiB+-1", "arena", "big", "to-task-size", "wrap", "max", "random",
};
static const unsigned int gs_weight[NGS] = {
	3, 4, 10, 8, 6, 16, 14, 5, 5, 4, 4, 4, 5, 4,
};

enum gp {
	GP_IO, GP_IO_END, GP_IO_UNALIGNED, GP_ARENA, GP_HOLE, GP_GUARD, GP_RO,
	GP_ARGNONE, GP_NULL, GP_KERNEL, GP_NONCANON, GP_WRAP, GP_OVERLAP, GP_K,
	GP_RANDOM, GP_FORCED_BAD, NGP
};
static const char *const gp_name[NGP] = {
	"iobuf", "iobuf-end", "iobuf-unaligned", "arena", "hole", "guard",
	"read-only", "prot-none", "null", "kernel", "noncanonical", "wrap",
	"overlap", "K", "random", "forced-bad",
};
static const unsigned int gp_weight[NGP] = {
	30, 6, 6, 12, 4, 3, 5, 3, 3, 3, 2, 3, 5, 3, 2, 0,
};

enum gg {
	GG_STACK, GG_ARGRW, GG_STRADDLE, GG_STRADDLE_RO, GG_RO, GG_NONE,
	GG_NULL, GG_KERNEL, GG_ARENA, GG_ARENA_DEV, GG_HOLE, GG_WRAP, NGG
};
static const char *const gg_name[NGG] = {
	"stack", "unaligned", "straddles-prot-none", "straddles-read-only",
	"read-only", "prot-none", "null", "kernel", "arena",
	"arena-device-memory", "hole", "wrap",
};
static const unsigned int gg_weight[NGG] = {
	55, 8, 3, 3, 6, 3, 3, 3, 6, 3, 2, 3,
};
/* What the kernel can do with the argument structure. */
enum { ARG_OK, ARG_RO, ARG_FAULT };

enum fk { FK_OWN, FK_SPARE, FK_OTHER, FK_DEAD, FK_PIPE, FK_BAD, NFK };
static const char *const fk_name[NFK] = {
	"own-mirror", "unexposed", "other-process-mirror", "dead-mirror",
	"pipe", "bad-fd",
};
static const unsigned int fk_weight[2][NFK] = {
	{ 78, 8, 0, 4, 3, 3 },	/* main (no mirror of another live process) */
	{ 64, 8, 14, 4, 3, 3 },	/* fork child */
};

/* File slots of a worker. */
enum {
	SL_OWN, SL_SPARE = 2, SL_OTHER = 4, SL_DEAD = 6, SL_PIPE = 8, SL_BAD,
	NSLOT
};

/* Mapping and K operations, for the totals. */
enum mop {
	MOP_MMAP, MOP_MUNMAP, MOP_MPROTECT, MOP_MREMAP, MOP_MREMAP_DONTUNMAP,
	MOP_MREMAP_RESIZE, MOP_DONTNEED, MOP_FREE, MOP_HUGEPAGE,
	MOP_NOHUGEPAGE, MOP_PAGEOUT, MOP_COLD, MOP_WILLNEED, MOP_POPULATE_READ,
	MOP_POPULATE_WRITE, MOP_COLLAPSE, MOP_MLOCK, MOP_MUNLOCK, MOP_CPU_WRITE,
	MOP_CPU_READ, MOP_FORK, MOP_PROBE, MOP_REOPEN, NMOP
};
static const char *const mop_name[NMOP] = {
	"mmap", "munmap", "mprotect", "mremap", "mremap-dontunmap",
	"mremap-resize", "madv-dontneed", "madv-free", "madv-hugepage",
	"madv-nohugepage", "madv-pageout", "madv-cold", "madv-willneed",
	"madv-populate-read", "madv-populate-write", "madv-collapse", "mlock",
	"munlock", "cpu-write", "cpu-read", "fork", "segv-probe",
	"close-reopen",
};

enum kop {
	KOP_DEV_WRITE, KOP_DEV_READ, KOP_CPU_WRITE, KOP_CPU_READ, KOP_MIGRATE,
	KOP_DONTNEED, KOP_PAGEOUT, KOP_FREE_REWRITE, KOP_COLLAPSE, KOP_RO,
	KOP_NONE, KOP_MREMAP, KOP_VERIFY, NKOP
};
static const char *const kop_name[NKOP] = {
	"dev-write", "dev-read", "cpu-write", "cpu-read", "migrate",
	"dontneed", "pageout", "free-rewrite", "collapse", "mprotect-ro",
	"mprotect-none", "mremap", "verify",
};

/* Per worker, in a MAP_SHARED page: fork children and the racer add too. */
struct wstats {
	unsigned long calls[NIOC][NCTX][NRES];
	unsigned long surprises[NIOC];
	unsigned long single[NIOC];	/* inputs with exactly one allowed result */
	unsigned long gen_addr[NGA], gen_size[NGS], gen_ptr[NGP];
	unsigned long gen_arg[NGG], gen_fd[NFK];
	unsigned long reserved_set, outputs_set, cmd_highbits;
	unsigned long mops[NMOP], mop_fail[NMOP], kops[NKOP];
	unsigned long probe_segv, child_runs, child_kills;
	unsigned long racing_reopens, racing_eexist, expose_races;
	unsigned long migrated;		/* MIGRATE_TO results, pages */
	unsigned long long verified;	/* bytes of K compared */
	unsigned long err_ioctl, err_data, err_crash, err_other;
	unsigned long errors;
	int finished;
};

/* Page classes (the worker's view of its address space). */
enum {
	C_MAP = 1,	/* a VMA is there */
	C_R = 2,	/* VM_READ */
	C_W = 4,	/* VM_WRITE */
	C_SH = 8,	/* shared */
	C_PROT = 16,	/* must not be written by a random request (K, shadow) */
	C_UNK = 32,	/* not ours: unknown */
	C_KERN = 64,	/* at or above TASK_SIZE */
	C_SHANON = 128,	/* shared anonymous: its shmem object has the size of
			 * the original mmap(), so growing it with mremap()
			 * would map pages past EOF (SIGBUS, EFAULT) */
};

struct area {
	uintptr_t s, e;
	int cls;
};

struct fslot {
	int fd;
	int kind;
	int dev;
};

struct worker {
	int id;
	int ctx;
	uint64_t rng;
	struct wstats *st;
	int reports;
	unsigned long opno;
	struct fslot sl[NSLOT];
	int mirrored[2];
	pthread_rwlock_t fdlock;	/* the racer vs. close/reopen */
	/* the arena: random mappings */
	char *arena;
	size_t arena_size, arena_pages;
	unsigned char *pst;		/* class of every arena page */
	int memfd;
	/* K: the known region, in one of two 2 MiB aligned slots */
	char *kslot[2];
	int kcur;
	size_t ksize;
	int kcls;
	char *shadow;
	uintptr_t kres_s, kres_e;
	/* buffers */
	char *io, *rio;
	size_t iosize, riosize;
	char *argp;			/* [RW][RO][PROT_NONE] */
	char *rop;			/* read-only page, pattern */
	struct area areas[16];
	int nareas;
	/* the racer thread, its stack mapped before the arena has holes */
	void *racer_stack;
	int racer_on;
	/* a close/reopen without the lock: the racer may meet a closed fd */
	int closing;
	unsigned long closegen;
	pthread_t racer;
	volatile int racer_stop;
	uint64_t rrng;
};

static int opt_time = 60, opt_procs = 2, opt_racer = 1, opt_verbose;
static size_t opt_arena_mib = 8, opt_k_kib = 2048;
static uint64_t opt_seed;
static uint64_t task_size, mmap_min = 4096;
static long pool_pages[2] = { -1, -1 };	/* debugfs "pages": -1 unknown */
static struct timespec t_end;
static struct wstats *stats;

/* What the process is doing, for the fatal signal report. */
static const char *volatile cur_op = "setup";
static volatile int cur_worker = -1;
static volatile unsigned long cur_opno;

/* Random numbers: splitmix64 for seeding, xorshift64* after. */
static uint64_t splitmix(uint64_t x)
{
	x += 0x9e3779b97f4a7c15ULL;
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
	return x ^ (x >> 31);
}

static uint64_t rnd(uint64_t *s)
{
	uint64_t x = *s;

	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	*s = x;
	return x * 0x2545f4914f6cdd1dULL;
}

static uint64_t rndn(uint64_t *s, uint64_t n)
{
	return n ? rnd(s) % n : 0;
}

static int pick(uint64_t *s, const unsigned int *w, int n)
{
	unsigned int tot = 0, r;
	int i;

	for (i = 0; i < n; i++)
		tot += w[i];
	r = rndn(s, tot);
	for (i = 0; i < n; i++) {
		if (r < w[i])
			return i;
		r -= w[i];
	}
	return n - 1;
}

static void rnd_fill(uint64_t *s, void *buf, size_t len)
{
	unsigned char *p = buf;
	uint64_t v;

	while (len >= 8) {
		v = rnd(s);
		memcpy(p, &v, 8);
		p += 8;
		len -= 8;
	}
	if (len) {
		v = rnd(s);
		memcpy(p, &v, len);
	}
}

/* A boundary or random 64-bit value. */
static uint64_t boundary64(uint64_t *s)
{
	static const uint64_t v[] = {
		0, 1, 2, PG - 1, PG, PG + 1, 0x7fffffffffffffffULL,
		0x8000000000000000ULL, 0xffffffffffffffffULL,
		0xfffffffffffffffeULL, 0xffffffffULL, 0x100000000ULL,
		0x00007ffffffff000ULL, 0x0000800000000000ULL,
	};

	if (rndn(s, 4) == 0)
		return rnd(s);
	return v[rndn(s, sizeof(v) / sizeof(v[0]))];
}

static int time_up(void)
{
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	return now.tv_sec > t_end.tv_sec ||
	       (now.tv_sec == t_end.tv_sec && now.tv_nsec >= t_end.tv_nsec);
}

static double mono(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

#define INC(x)		__atomic_add_fetch(&(x), 1, __ATOMIC_RELAXED)
#define ADD(x, v)	__atomic_add_fetch(&(x), (v), __ATOMIC_RELAXED)

/*
 * Output of workers, fork children and the racer: one write() per line, no
 * stdio (a fork child of a threaded process must not take stdio locks).
 */
static void outv(int fd, const char *fmt, va_list ap)
{
	char buf[2048];
	int n;

	n = vsnprintf(buf, sizeof(buf) - 1, fmt, ap);
	if (n < 0)
		return;
	if (n > (int)sizeof(buf) - 2)
		n = sizeof(buf) - 2;
	buf[n++] = '\n';
	if (write(fd, buf, n) < 0)
		return;
}

static void out(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void out(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	outv(1, fmt, ap);
	va_end(ap);
}

enum { E_IOCTL, E_DATA, E_CRASH, E_OTHER };

static void werr(struct worker *w, int ctx, int kind, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
static void werr(struct worker *w, int ctx, int kind, const char *fmt, ...)
{
	char head[4096];
	va_list ap;
	int n;

	INC(w->st->errors);
	switch (kind) {
	case E_IOCTL: INC(w->st->err_ioctl); break;
	case E_DATA: INC(w->st->err_data); break;
	case E_CRASH: INC(w->st->err_crash); break;
	default: INC(w->st->err_other); break;
	}
	if (__atomic_fetch_add(&w->reports, 1, __ATOMIC_RELAXED) >= MAX_REPORTS)
		return;
	n = snprintf(head, sizeof(head), "hmm-fuzz: worker %d [%s] op %lu: ERROR: ",
		     w->id, ctx_name[ctx], w->opno);
	va_start(ap, fmt);
	vsnprintf(head + n, sizeof(head) - n, fmt, ap);
	va_end(ap);
	out("%s", head);
}

static char *mask_str(uint32_t m, char *buf, size_t len)
{
	size_t o = 0;
	int i;

	buf[0] = 0;
	for (i = 0; i < NRES; i++)
		if (m & (1u << i))
			o += snprintf(buf + o, len - o, "%s%s", o ? "," : "{",
				      res_name(i));
	snprintf(buf + o, len - o, o ? "}" : "{}");
	return buf;
}

/* Fatal signal in a worker: say where, then die of it. Async-signal-safe. */
static void say(const char *s)
{
	if (write(1, s, strlen(s)) < 0)
		return;
}

static void hex(char *out, uint64_t v)
{
	int i;

	for (i = 15; i >= 0; i--, v >>= 4)
		out[i] = "0123456789abcdef"[v & 15];
	out[16] = 0;
}

/* The input being tried, for the fatal signal report (set before the call). */
static char cur_detail[512];
static struct worker *cur_w;

static int page_class(struct worker *w, uint64_t a, uint64_t *next);

/*
 * The /proc/self/maps line and the pagemap entry of @addr (a swap-type
 * entry: bit 62; HMM entries are of that kind), for the report.
 */
static void say_mapping(uintptr_t addr)
{
	char buf[4096], a[17], *l, *e;
	uint64_t pm = 0;
	ssize_t n;
	int fd, carry = 0;

	fd = open("/proc/self/maps", O_RDONLY);
	while (fd >= 0 && (n = read(fd, buf + carry, sizeof(buf) - 1 - carry)) > 0) {
		buf[carry + n] = 0;
		for (l = buf; (e = strchr(l, '\n')); l = e + 1) {
			unsigned long s = strtoul(l, NULL, 16), t;
			char *dash = strchr(l, '-');

			t = dash ? strtoul(dash + 1, NULL, 16) : 0;
			if (addr >= s && addr < t) {
				say("hmm-fuzz: FATAL: mapping: ");
				if (write(1, l, e - l + 1) < 0)
					break;
			}
		}
		carry = strlen(l);
		memmove(buf, l, carry);
	}
	if (fd >= 0)
		close(fd);
	fd = open("/proc/self/pagemap", O_RDONLY);
	if (fd >= 0 && pread(fd, &pm, 8, (addr / PG) * 8) == 8) {
		hex(a, pm);
		say("hmm-fuzz: FATAL: pagemap entry 0x");
		say(a);
		say(pm >> 63 ? " (present)\n" : pm >> 62 & 1 ? " (swap/HMM entry)\n" : " (none)\n");
	}
	if (fd >= 0)
		close(fd);
	if (cur_w) {
		uint64_t next;

		hex(a, page_class(cur_w, addr, &next));
		say("hmm-fuzz: FATAL: the worker's class of the page: 0x");
		say(a);
		say("\n");
	}
}

static void fatal_signal(int sig, siginfo_t *si, void *uc)
{
	char a[17], n[17], c[17];

	(void)uc;
	hex(a, (uintptr_t)si->si_addr);
	hex(n, cur_opno);
	hex(c, si->si_code);
	say(sig == SIGBUS ? "hmm-fuzz: FATAL: SIGBUS" : "hmm-fuzz: FATAL: SIGSEGV");
	say(" in worker ");
	{
		int id = cur_worker;
		char d[4] = { (char)('0' + (id / 10) % 10), (char)('0' + id % 10), 0 };

		say(id >= 0 ? d : "main");
	}
	say(" at op 0x");
	say(n);
	say(" (");
	say((const char *)cur_op);
	say("), fault address 0x");
	say(a);
	say(", si_code 0x");
	say(c);
	say("\nhmm-fuzz: FATAL: last input: ");
	say(cur_detail);
	say("\n");
	say_mapping((uintptr_t)si->si_addr);
	signal(sig, SIG_DFL);
	raise(sig);
}

static void catch_fatal(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = fatal_signal;
	sa.sa_flags = SA_SIGINFO | SA_RESETHAND;
	sigaction(SIGSEGV, &sa, NULL);
	sigaction(SIGBUS, &sa, NULL);
}

/* ioctl(2) with the full 64-bit command word (the kernel truncates it). */
static long sys_ioctl(int fd, unsigned long cmd, unsigned long arg)
{
	long r = syscall(SYS_ioctl, fd, cmd, arg);

	return r < 0 ? -errno : r;
}

static int dummy_open(int dev, int minor)
{
	char path[64];

	snprintf(path, sizeof(path), "/dev/hmm_dummy_device%d%d", dev, minor);
	return open(path, O_RDWR | O_CLOEXEC);
}

/* Pages touched by [a, a + s). */
static uint64_t span_pages(uint64_t a, uint64_t s)
{
	return (a + s + PG - 1) / PG - a / PG;
}

/* Record a result; 0 if @mask allows it. */
static int record(struct worker *w, int ctx, int ioc, long ret, uint32_t mask)
{
	int ri = res_index(ret);

	uint32_t m = mask & ~M(ENOMEM);

	INC(w->st->calls[ioc][ctx][ri]);
	if (!(m & (m - 1)))
		INC(w->st->single[ioc]);
	if (mask & (1u << ri))
		return 0;
	INC(w->st->surprises[ioc]);
	return -1;
}

static const char *ret_str(long ret, char *buf, size_t len)
{
	if (!ret)
		return "ok";
	if (ret > 0)
		snprintf(buf, len, "positive %ld", ret);
	else if (res_index(ret) == RES_OTHER)
		snprintf(buf, len, "errno %ld (%s)", -ret, strerror(-ret));
	else
		snprintf(buf, len, "%s", res_name(res_index(ret)));
	return buf;
}

/*
 * Defined device operations (K, the fork child, reopen): one request with
 * a well-formed argument, its result checked against @mask.
 */
static long dev_rw(struct worker *w, int ctx, int fd, int write, uint64_t addr,
		   uint64_t size, uint64_t ptr, uint32_t mask, const char *what)
{
	struct hmm_dummy_write cmd;	/* same layout as hmm_dummy_read */
	char m[128], r[64];
	long ret;

	memset(&cmd, 0, sizeof(cmd));
	cmd.address = addr;
	cmd.size = size;
	cmd.ptr = ptr;
	ret = sys_ioctl(fd, write ? HMM_DUMMY_WRITE : HMM_DUMMY_READ,
			(uintptr_t)&cmd);
	if (record(w, ctx, write ? I_WRITE : I_READ, ret, mask)) {
		werr(w, ctx, E_IOCTL, "%s: %s address 0x%" PRIx64 " size 0x%" PRIx64
		     " ptr 0x%" PRIx64 ": got %s, expected %s", what,
		     write ? "WRITE" : "READ", addr, size, ptr,
		     ret_str(ret, r, sizeof(r)), mask_str(mask, m, sizeof(m)));
		return ret ? ret : -EIO;
	}
	if (!ret && (cmd.nsys_pages + cmd.ndev_pages != span_pages(addr, size) ||
		     cmd.nfaulted_dev_pages)) {
		werr(w, ctx, E_IOCTL, "%s: %s of 0x%" PRIx64 " bytes at 0x%" PRIx64
		     ": nsys_pages %llu + ndev_pages %llu for %" PRIu64
		     " pages, nfaulted_dev_pages %llu", what,
		     write ? "WRITE" : "READ", size, addr,
		     (unsigned long long)cmd.nsys_pages,
		     (unsigned long long)cmd.ndev_pages, span_pages(addr, size),
		     (unsigned long long)cmd.nfaulted_dev_pages);
		return -EIO;
	}
	return ret;
}

/* MIGRATE_TO: pages migrated, or -errno. */
static long dev_migrate(struct worker *w, int ctx, int fd, uint64_t addr,
			uint64_t size, uint32_t mask, const char *what)
{
	struct hmm_dummy_migrate cmd;
	char m[128], r[64];
	long ret;

	memset(&cmd, 0, sizeof(cmd));
	cmd.address = addr;
	cmd.size = size;
	ret = sys_ioctl(fd, HMM_DUMMY_MIGRATE_TO, (uintptr_t)&cmd);
	if (record(w, ctx, I_MIGRATE, ret, mask)) {
		werr(w, ctx, E_IOCTL, "%s: MIGRATE_TO address 0x%" PRIx64 " size 0x%"
		     PRIx64 ": got %s, expected %s", what, addr, size,
		     ret_str(ret, r, sizeof(r)), mask_str(mask, m, sizeof(m)));
		return ret ? ret : -EIO;
	}
	if (ret)
		return ret;
	if (cmd.nfaulted_dev_pages > span_pages(addr, size) ||
	    cmd.nfaulted_sys_pages) {
		werr(w, ctx, E_IOCTL, "%s: MIGRATE_TO of %" PRIu64 " pages: nfaulted_dev_pages %llu nfaulted_sys_pages %llu",
		     what, span_pages(addr, size),
		     (unsigned long long)cmd.nfaulted_dev_pages,
		     (unsigned long long)cmd.nfaulted_sys_pages);
		return -EIO;
	}
	ADD(w->st->migrated, cmd.nfaulted_dev_pages);
	return cmd.nfaulted_dev_pages;
}

static long dev_expose(struct worker *w, int ctx, int fd, uint32_t mask,
		       const char *what)
{
	char m[128], r[64];
	long ret;

	ret = sys_ioctl(fd, HMM_DUMMY_EXPOSE_MM, 0);
	if (record(w, ctx, I_EXPOSE, ret, mask))
		werr(w, ctx, E_IOCTL, "%s: EXPOSE_MM: got %s, expected %s", what,
		     ret_str(ret, r, sizeof(r)), mask_str(mask, m, sizeof(m)));
	return ret;
}

/* The pool of a device may be absent (devmem_mb=0) or unknown. */
static uint32_t migrate_ok_mask(int dev)
{
	if (pool_pages[dev] == 0)
		return M(EOPNOTSUPP);
	return M_OK | M(ENOMEM) | (pool_pages[dev] < 0 ? M(EOPNOTSUPP) : 0);
}

/* ------------------------------------------------------------------ */
/* The worker's view of its address space                              */

static int page_class(struct worker *w, uint64_t a, uint64_t *next)
{
	uint64_t pa = a & ~(PG - 1);
	int i;

	if (a >= task_size) {
		*next = UINT64_MAX;
		return C_KERN;
	}
	*next = pa + PG;
	if (a < mmap_min) {
		*next = mmap_min;
		return 0;
	}
	if (a >= (uintptr_t)w->arena && a < (uintptr_t)w->arena + w->arena_size)
		return w->pst[(a - (uintptr_t)w->arena) / PG];
	if (a >= w->kres_s && a < w->kres_e) {
		uintptr_t ks = (uintptr_t)w->kslot[w->kcur], ke = ks + w->ksize;

		if (a >= ks && a < ke) {
			*next = ke;
			return w->kcls;
		}
		*next = a < ks ? ks : w->kres_e;
		return C_MAP;
	}
	for (i = 0; i < w->nareas; i++)
		if (a >= w->areas[i].s && a < w->areas[i].e) {
			*next = w->areas[i].e;
			return w->areas[i].cls;
		}
	return C_UNK;
}

static void add_area(struct worker *w, const void *s, size_t len, int cls)
{
	struct area *a = &w->areas[w->nareas++];

	a->s = (uintptr_t)s;
	a->e = (uintptr_t)s + len;
	a->cls = cls;
}

static void resync_line(struct worker *w, const char *line)
{
	uintptr_t as = (uintptr_t)w->arena, ae = as + w->arena_size;
	unsigned long s, e, p;
	char perm[8];
	int cls;

	if (sscanf(line, "%lx-%lx %7s", &s, &e, perm) != 3 || e <= as || s >= ae)
		return;
	cls = C_MAP | (perm[0] == 'r' ? C_R : 0) | (perm[1] == 'w' ? C_W : 0) |
	      (perm[3] == 's' ? C_SH : 0) |
	      (perm[3] == 's' && strstr(line, " /dev/zero") ? C_SHANON : 0);
	if (s < as)
		s = as;
	if (e > ae)
		e = ae;
	for (p = s; p < e; p += PG)
		w->pst[(p - as) / PG] = cls;
}

/*
 * Rebuild the classes of the arena's pages from /proc/self/maps (no malloc:
 * a large one would be mmap()ed, maybe into a hole of the arena).
 */
static void resync(struct worker *w)
{
	static char buf[16384];
	size_t have = 0;
	char *p, *nl;
	ssize_t n;
	int fd;

	memset(w->pst, 0, w->arena_pages);
	fd = open("/proc/self/maps", O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		werr(w, w->ctx, E_OTHER, "open /proc/self/maps: %s", strerror(errno));
		return;
	}
	for (;;) {
		n = read(fd, buf + have, sizeof(buf) - 1 - have);
		if (n < 0)
			n = 0;
		have += n;
		buf[have] = 0;
		p = buf;
		while ((nl = memchr(p, '\n', buf + have - p))) {
			*nl = 0;
			resync_line(w, p);
			p = nl + 1;
		}
		if (!n) {
			if (p < buf + have)
				resync_line(w, p);
			break;
		}
		have = buf + have - p;
		memmove(buf, p, have);
		if (have >= sizeof(buf) - 1)
			have = 0;	/* no line is that long */
	}
	close(fd);
}

/*
 * What the device meets in the data range [a, a + s) of a READ or WRITE
 * (a valid range): @bad, the error of the first page that makes the copy
 * fail (a hole, PROT_NONE: EFAULT; a WRITE to a mapping without write
 * permission: EPERM; hmm_range_fault() decides, and the device works in
 * address order); @maybe for a write-only mapping, which HMM cannot fault
 * (no VM_READ: EFAULT) but whose existing entries may still be used;
 * @unknown when the range reaches memory the worker does not track;
 * @unsafe when a WRITE could reach memory that random requests must not
 * write (K, its shadow, memory the worker does not track).
 */
struct dscan {
	int bad;
	int maybe;
	int unknown;
	int unsafe;
};

static void scan_data(struct worker *w, uint64_t a, uint64_t s, int write,
		      struct dscan *r)
{
	uint64_t p = a & ~(PG - 1), end = a + s, next;
	int c;

	memset(r, 0, sizeof(*r));
	while (p < end) {
		c = page_class(w, p, &next);
		if (c & C_UNK) {
			r->unknown = 1;
			r->unsafe = 1;
			return;
		}
		if (c & C_PROT)
			r->unsafe = 1;
		if (!(c & C_MAP) || (c & C_KERN)) {
			r->bad = EFAULT;
			return;
		}
		if (!(c & C_R)) {
			if (!(c & C_W)) {
				r->bad = EFAULT;
				return;
			}
			r->maybe = 1;
		} else if (write && !(c & C_W)) {
			r->bad = EPERM;
			return;
		}
		p = next;
	}
}

/*
 * The user buffer [p, p + s): 0 if the kernel can access all of it (write
 * to it: @kwrite, else read it), 1 if some byte is not accessible, 2 if it
 * reaches memory the worker does not track. *@unsafe: it reaches memory a
 * random READ must not write into before any inaccessible byte.
 */
static int scan_buf(struct worker *w, uint64_t p, uint64_t s, int kwrite,
		    int *unsafe)
{
	uint64_t q = p & ~(PG - 1), end = p + s, next;
	int c;

	*unsafe = 0;
	if (end < p)
		return 1;
	while (q < end) {
		c = page_class(w, q, &next);
		if (c & C_KERN)
			return 1;
		if (c & C_UNK) {
			*unsafe = 1;
			return 2;
		}
		if (c & C_PROT)
			*unsafe = 1;
		if (!(c & C_MAP))
			return 1;
		if (kwrite ? !(c & C_W) : !(c & (C_R | C_W)))
			return 1;
		q = next;
	}
	return 0;
}

static int range_ok(uint64_t a, uint64_t s)
{
	return s && a + s >= a && a + s <= task_size;
}

/*
 * READ/WRITE on the caller's own mirror with a readable argument, zero
 * reserved fields and a valid range (hmm_dummy_rw_ioctl() and
 * hmm_dummy_copy()): access_ok() of the buffer, then page by page: for a
 * WRITE the buffer chunk is copied in first, then the page is accessed
 * (faulting up to 2 MiB ahead), then for a READ the chunk is copied out.
 */
static uint32_t predict_rw(struct worker *w, uint64_t a, uint64_t s,
			   uint64_t p, int write)
{
	uint32_t m = M(ENOMEM);
	struct dscan d;
	uint64_t first;
	int pb, uns;

	/* access_ok(): beyond USER_PTR_MAX (at most 2^63 - PAGE_SIZE). */
	if (p + s < p || p + s > (1ULL << 63) - PG)
		return M(EFAULT);
	if (write) {
		first = PG - (a & (PG - 1));
		if (first > s)
			first = s;
		if (scan_buf(w, p, first, 0, &uns) == 1)
			return M(EFAULT) | M(ENOMEM);
	}
	scan_data(w, a, s, write, &d);
	pb = scan_buf(w, p, s, !write, &uns);
	if (d.bad)
		m |= M(d.bad);
	if (d.maybe)
		m |= M(EFAULT);
	if (d.unknown)
		m |= M(EFAULT) | (write ? M(EPERM) : 0);
	if (pb)
		m |= M(EFAULT);
	if (!d.bad && pb != 1)
		m |= M_OK;
	return m;
}

/*
 * MIGRATE_TO on the caller's own mirror (hmm_migrate_to_device()): -EFAULT
 * if a page of the range has no VMA and nothing migrated before it, so
 * exactly EFAULT when the first page has none; partial migration (pinned,
 * shared, non-anonymous pages, a full pool) is a success.
 */
static uint32_t predict_migrate(struct worker *w, int dev, uint64_t a,
				uint64_t s)
{
	uint64_t p = a & ~(PG - 1), end = (a + s + PG - 1) & ~(PG - 1), next;
	uint32_t m = M(ENOMEM);
	int c, first = 1;

	if (pool_pages[dev] == 0)
		return M(EOPNOTSUPP);
	if (pool_pages[dev] < 0)
		m |= M(EOPNOTSUPP);
	while (p < end) {
		c = page_class(w, p, &next);
		if (c & C_UNK)
			return m | M_OK | M(EFAULT);
		if (!(c & C_MAP))
			return m | M(EFAULT) | (first ? 0 : M_OK);
		first = 0;
		p = next;
	}
	return m | M_OK;
}

/* ------------------------------------------------------------------ */
/* Random requests                                                     */

/* One random input. */
struct fin {
	int slot, fd, fkind, dev;
	int ioc;
	unsigned long cmd;
	int ga, gs, gp, gg;
	int argcls;
	int reserved_nz;
	uint64_t arg;		/* where the structure is (or a bad pointer) */
	union {
		struct hmm_dummy_read rd;
		struct hmm_dummy_write wr;
		struct hmm_dummy_migrate mg;
		uint64_t raw[16];
	} in;
};

static const uint64_t kernel_addrs[] = {
	0xffff888000000000ULL, 0xffffffff81000000ULL, 0xffffffffff600000ULL,
	0xffff800000000000ULL, 0xff11000000000000ULL,
};
static const uint64_t noncanon_addrs[] = {
	0x0000800000000000ULL, 0x00ff000000000000ULL, 0x0100000000000000ULL,
	0x7ffffffffffff000ULL, 0x8000000000000000ULL,
};

#define PICK(s, tab)	((tab)[rndn((s), sizeof(tab) / sizeof((tab)[0]))])

/* A random unmapped arena page, else the arena's trailing guard. */
static uint64_t arena_hole(struct worker *w)
{
	size_t i, start = rndn(&w->rng, w->arena_pages);

	for (i = 0; i < w->arena_pages; i++) {
		size_t j = (start + i) % w->arena_pages;

		if (!w->pst[j])
			return (uintptr_t)w->arena + j * PG;
	}
	return (uintptr_t)w->arena + w->arena_size;
}

static uint64_t gen_addr(struct worker *w, int g)
{
	uint64_t *s = &w->rng, v, arena = (uintptr_t)w->arena;
	int local;

	switch (g) {
	case GA_ARENA:
		v = arena + rndn(s, w->arena_size);
		return rndn(s, 2) ? v & ~(PG - 1) : v;
	case GA_ARENA_EDGE:
		switch (rndn(s, 3)) {
		case 0: return arena;
		case 1: return arena + w->arena_size - 1 - rndn(s, 2 * PG);
		default:
			return arena + PMD_SZ * (1 + rndn(s, w->arena_size / PMD_SZ)) -
			       1 - rndn(s, 64);
		}
	case GA_HOLE:
		return arena_hole(w) + rndn(s, PG);
	case GA_GUARD:
		return rndn(s, 2) ? arena - 1 - rndn(s, PG) :
				    arena + w->arena_size + rndn(s, PG);
	case GA_K:
		return (uintptr_t)w->kslot[w->kcur] + rndn(s, w->ksize);
	case GA_IO:
		return (uintptr_t)w->io + rndn(s, w->iosize);
	case GA_NULL:
		return rndn(s, 2) ? 0 : rndn(s, mmap_min);
	case GA_TOP:
		return task_size - (1 + rndn(s, 4)) * PG + rndn(s, PG);
	case GA_TASK: {
		static const int64_t d[] = { -1, 0, 1, PG, -(int64_t)PG };

		return task_size + PICK(s, d);
	}
	case GA_KERNEL:
		return PICK(s, kernel_addrs) + rndn(s, 2) * rndn(s, PG);
	case GA_NONCANON:
		return PICK(s, noncanon_addrs);
	case GA_MAX:
		return UINT64_MAX - (rndn(s, 2) ? PG - 1 : rndn(s, PG));
	case GA_RANDOM:
		return rndn(s, 2) ? rnd(s) : rnd(s) & ((1ULL << 47) - 1);
	case GA_STACK:
		return (uintptr_t)&local - rndn(s, 4 * PG);
	default:
		return (uintptr_t)w->argp + rndn(s, 3 * PG);
	}
}

static uint64_t gen_size(struct worker *w, int g, uint64_t a)
{
	uint64_t *s = &w->rng, arena = (uintptr_t)w->arena;

	switch (g) {
	case GS_ZERO: return 0;
	case GS_ONE: return 1;
	case GS_SMALL: return 1 + rndn(s, 128);
	case GS_PAGE: return PG;
	case GS_PAGE_PM: return rndn(s, 2) ? PG - 1 : PG + 1;
	case GS_PAGES: return (1 + rndn(s, 64)) * PG;
	case GS_PAGES_ODD: return (1 + rndn(s, 64)) * PG + 1 + rndn(s, PG - 1);
	case GS_PMD: return PMD_SZ - 1 + rndn(s, 3);
	case GS_ARENA:
		if (a >= arena && a < arena + w->arena_size && rndn(s, 2))
			return arena + w->arena_size - a + rndn(s, 2);
		return w->arena_size;
	case GS_BIG: {
		static const uint64_t b[] = { 1ULL << 30, 1ULL << 40, 1ULL << 46 };

		return rndn(s, 4) ? PICK(s, b) : task_size;
	}
	case GS_TO_TOP:
		return a < task_size ? task_size - a + rndn(s, 2) : 1 + rndn(s, PG);
	case GS_WRAP:
		return (uint64_t)0 - a + rndn(s, 2);
	case GS_MAX: {
		static const uint64_t b[] = {
			UINT64_MAX, INT64_MAX, 1ULL << 63, UINT64_MAX - PG + 1,
		};

		return PICK(s, b);
	}
	default:
		return rndn(s, 2) ? rnd(s) : rnd(s) & 0xffffff;
	}
}

static uint64_t gen_ptr(struct worker *w, int g, uint64_t a)
{
	uint64_t *s = &w->rng, v;

	switch (g) {
	case GP_IO:
		v = (uintptr_t)w->io + rndn(s, w->iosize);
		return rndn(s, 2) ? v & ~(PG - 1) : v;
	case GP_IO_END:
		return (uintptr_t)w->io + w->iosize - 1 - rndn(s, 2 * PG);
	case GP_IO_UNALIGNED:
		return (uintptr_t)w->io + 1 + rndn(s, 7);
	case GP_ARENA:
		v = (uintptr_t)w->arena + rndn(s, w->arena_size);
		return rndn(s, 2) ? v & ~(PG - 1) : v;
	case GP_HOLE:
		return arena_hole(w) + rndn(s, PG);
	case GP_GUARD:
		return (uintptr_t)w->io + w->iosize + rndn(s, PG);
	case GP_RO:
		return (uintptr_t)w->rop + rndn(s, PG);
	case GP_ARGNONE:
		return (uintptr_t)w->argp + 2 * PG + rndn(s, PG);
	case GP_NULL:
		return rndn(s, 2) ? 0 : rndn(s, mmap_min);
	case GP_KERNEL:
		return PICK(s, kernel_addrs);
	case GP_NONCANON:
		return PICK(s, noncanon_addrs);
	case GP_WRAP:
		return UINT64_MAX - rndn(s, PG);
	case GP_OVERLAP:
		return a + rndn(s, PG) - PG / 2;
	case GP_K:
		return (uintptr_t)w->kslot[w->kcur] + rndn(s, w->ksize);
	default:
		return rnd(s) & ((1ULL << 47) - 1);
	}
}

/* A user pointer whose first byte nothing can access. */
static uint64_t bad_ptr(struct worker *w)
{
	switch (rndn(&w->rng, 3)) {
	case 0: return 0;
	case 1: return (uintptr_t)w->argp + 2 * PG;
	default: return kernel_addrs[0];
	}
}

/* Commands the VFS handles itself (do_vfs_ioctl()) are never sent. */
static int vfs_cmd_type(unsigned int c)
{
	switch ((c >> 8) & 0xff) {
	case 0x00: case 0x15: case 0x54: case 0x94: case 'X': case 'f':
		return 1;
	}
	return 0;
}

static int hmm_cmd(unsigned int c)
{
#ifdef HMM_DUMMY_MIGRATE_TO_FLAGS
	/* MIGRATE_TO with flags: a command of its own, not a bad one. */
	if (c == HMM_DUMMY_MIGRATE_TO_FLAGS)
		return 1;
#endif
	return c == HMM_DUMMY_EXPOSE_MM || c == HMM_DUMMY_READ ||
	       c == HMM_DUMMY_WRITE || c == HMM_DUMMY_MIGRATE_TO;
}

/* Unknown command numbers, and the known ones with a wrong size/direction. */
static unsigned long gen_badcmd(struct worker *w, int for_pipe)
{
	static const unsigned int sizes[] = {
		0, 1, 8, 64, 120, 127, 129, 136, 256, 0x3fff,
	};
	static const unsigned int known[] = {
		HMM_DUMMY_EXPOSE_MM, HMM_DUMMY_READ, HMM_DUMMY_WRITE,
		HMM_DUMMY_MIGRATE_TO,
	};
	uint64_t *s = &w->rng;
	unsigned long c;

	for (;;) {
		switch (rndn(s, for_pipe ? 2 : 4)) {
		case 0:
			c = _IOC(rndn(s, 4), 'H', rndn(s, 2) ? rndn(s, 4) : rndn(s, 256),
				 rndn(s, 4) ? PICK(s, sizes) : rndn(s, 0x4000));
			break;
		case 1:
			c = _IOC(rndn(s, 4), 'H', 4 + rndn(s, 252), ARGSZ);
			break;
		case 2:
			c = (unsigned int)rnd(s);
			break;
		default:
			c = PICK(s, known) ^ (1u << rndn(s, 32));
			break;
		}
		if (rndn(s, 8) == 0)
			c |= rnd(s) << 32;
		if (!hmm_cmd((unsigned int)c) && !vfs_cmd_type((unsigned int)c) &&
		    (!for_pipe || ((c >> 8) & 0xff) == 'H'))
			return c;
	}
}

/* A random RW arena page for the argument (second half if the racer runs). */
static char *arena_arg_page(struct worker *w)
{
	size_t lo = w->racer_on ? w->arena_pages / 2 : 0, n = w->arena_pages - lo;
	size_t i, start = rndn(&w->rng, n);

	for (i = 0; i < n; i++) {
		size_t j = lo + (start + i) % n;

		if ((w->pst[j] & (C_R | C_W)) == (C_R | C_W))
			return w->arena + j * PG;
	}
	return NULL;
}

static int pick_slot(struct worker *w, int *kind)
{
	int ctxi = w->ctx == X_CHILD, k, d, i, slot;

	for (i = 0; i < 64; i++) {
		k = pick(&w->rng, fk_weight[ctxi], NFK);
		d = rndn(&w->rng, 2);
		switch (k) {
		case FK_OWN: slot = SL_OWN + d; break;
		case FK_SPARE: slot = SL_SPARE + d; break;
		case FK_OTHER: slot = SL_OTHER + d; break;
		case FK_DEAD: slot = SL_DEAD + d; break;
		case FK_PIPE: slot = SL_PIPE; break;
		default: slot = SL_BAD; break;
		}
		if (slot == SL_BAD || (w->sl[slot].fd >= 0 && w->sl[slot].kind == k)) {
			*kind = k;
			return slot;
		}
	}
	*kind = FK_BAD;
	return SL_BAD;
}

static void dump_input(struct worker *w, struct fin *f, long ret, uint32_t mask,
		       const char *why)
{
	char m[128], r[64], res[200] = "", ptr[64] = "";
	int i, rw = f->ioc == I_READ || f->ioc == I_WRITE, first = rw ? 7 : MIG_RESV;
	size_t o = 0;

	for (i = first; i < 16; i++)
		if (f->in.raw[i])
			o += snprintf(res + o, sizeof(res) - o, " reserved[%d]=0x%" PRIx64,
				      i - first, f->in.raw[i]);
	if (rw)
		snprintf(ptr, sizeof(ptr), " ptr 0x%" PRIx64 " (%s)", f->in.raw[2],
			 gp_name[f->gp]);
	werr(w, w->ctx, E_IOCTL,
	     "%s: %s on %s fd %d (device %d) cmd 0x%lx, argument %s at 0x%" PRIx64
	     ": address 0x%" PRIx64 " (%s) size 0x%" PRIx64 " (%s)%s out=[0x%"
	     PRIx64 " 0x%" PRIx64 "]%s: got %s, expected %s",
	     why, ioc_name[f->ioc], fk_name[f->fkind], f->fd, f->dev, f->cmd,
	     gg_name[f->gg], f->arg, f->in.raw[0], ga_name[f->ga], f->in.raw[1],
	     gs_name[f->gs], ptr, f->in.raw[rw ? 3 : 2], f->in.raw[rw ? 4 : 3],
	     res, ret_str(ret, r, sizeof(r)), mask_str(mask, m, sizeof(m)));
}

/* A file of this process's mirror of @dev changed hands: keep the slots right. */
static void open_spare(struct worker *w, int d)
{
	int fd;

	if (w->sl[SL_SPARE + d].fd >= 0)
		close(w->sl[SL_SPARE + d].fd);
	w->sl[SL_SPARE + d].fd = -1;
	fd = dummy_open(d, rndn(&w->rng, 4));
	if (fd < 0) {
		werr(w, w->ctx, E_OTHER, "open device %d: %s", d, strerror(errno));
		return;
	}
	w->sl[SL_SPARE + d] = (struct fslot){ fd, FK_SPARE, d };
}

static void fuzz_ioctl(struct worker *w)
{
	static const unsigned int ioc_weight[NIOC] = { 6, 30, 30, 24, 10 };
	static const unsigned long cmds[NIOC] = {
		HMM_DUMMY_EXPOSE_MM, HMM_DUMMY_READ, HMM_DUMMY_WRITE,
		HMM_DUMMY_MIGRATE_TO, 0,
	};
	uint64_t *s = &w->rng;
	struct fin f;
	uint32_t mask;
	long ret;
	int i, n, rw;
	char *page = NULL;

	memset(&f, 0, sizeof(f));
	cur_op = "fuzz ioctl: placing the argument";
	cur_detail[0] = 0;
	f.ioc = pick(s, ioc_weight, NIOC);
	f.slot = pick_slot(w, &f.fkind);
	f.fd = w->sl[f.slot].fd;
	f.dev = w->sl[f.slot].dev;
	if (f.fkind == FK_BAD) {
		static const int bad[] = { -1, INT_MAX, 1023, -2147483647 - 1 };

		f.fd = PICK(s, bad);
		f.dev = -1;
	}
	INC(w->st->gen_fd[f.fkind]);
	rw = f.ioc == I_READ || f.ioc == I_WRITE;

	/* The command word. */
	if (f.ioc == I_BADCMD) {
		f.cmd = gen_badcmd(w, f.fkind == FK_PIPE);
	} else {
		f.cmd = cmds[f.ioc];
		if (rndn(s, 12) == 0) {
			f.cmd |= (rnd(s) | (1ULL << 32)) & 0xffffffff00000000ULL;
			INC(w->st->cmd_highbits);
		}
	}

	/* The structure. */
	f.ga = pick(s, ga_weight, NGA);
	f.in.raw[0] = gen_addr(w, f.ga);
	f.gs = pick(s, gs_weight, NGS);
	f.in.raw[1] = gen_size(w, f.gs, f.in.raw[0]);
	if (rw) {
		f.gp = pick(s, gp_weight, NGP);
		f.in.raw[2] = gen_ptr(w, f.gp, f.in.raw[0]);
	}
	if (rndn(s, 10) < 3) {	/* output fields: ignored on input */
		for (i = rw ? 3 : 2; i < (rw ? 7 : MIG_OUT_END); i++)
			if (rw || i != 4)	/* MIGRATE_TO flags: input */
				f.in.raw[i] = boundary64(s);
		INC(w->st->outputs_set);
	}
	if (rndn(s, 100) < 15) {	/* reserved fields: ignored (2015 ABI) */
		int first = rw ? 7 : MIG_RESV;

		n = 1 + rndn(s, 3);
		for (i = 0; i < n; i++)
			f.in.raw[first + rndn(s, 16 - first)] = boundary64(s) | 1;
		f.reserved_nz = 1;
		INC(w->st->reserved_set);
	}
	if (f.ioc == I_BADCMD || f.ioc == I_EXPOSE)
		for (i = 0; i < 16 && rndn(s, 2); i++)
			f.in.raw[i] = boundary64(s);

	/* Where the structure is. */
	f.gg = pick(s, gg_weight, NGG);
	switch (f.gg) {
	case GG_ARGRW:
		f.arg = (uintptr_t)w->argp + 1 + rndn(s, PG - ARGSZ);
		break;
	case GG_STRADDLE:	/* read-only page into PROT_NONE: unreadable */
		f.arg = (uintptr_t)w->argp + 2 * PG - 1 - rndn(s, ARGSZ - 1);
		f.argcls = ARG_FAULT;
		break;
	case GG_STRADDLE_RO:	/* read/write page into read-only: no copy back */
		f.arg = (uintptr_t)w->argp + PG - 1 - rndn(s, ARGSZ - 1);
		f.argcls = ARG_RO;
		break;
	case GG_RO:
		f.arg = (uintptr_t)w->argp + PG + rndn(s, PG - ARGSZ + 1);
		f.argcls = ARG_RO;
		break;
	case GG_NONE:
		f.arg = (uintptr_t)w->argp + 2 * PG + rndn(s, PG - ARGSZ + 1);
		f.argcls = ARG_FAULT;
		break;
	case GG_NULL:
		f.arg = rndn(s, 2) ? 0 : rndn(s, mmap_min);
		f.argcls = ARG_FAULT;
		break;
	case GG_KERNEL:
		f.arg = PICK(s, kernel_addrs);
		f.argcls = ARG_FAULT;
		break;
	case GG_ARENA:
	case GG_ARENA_DEV:
		page = arena_arg_page(w);
		if (page) {
			f.arg = (uintptr_t)page + rndn(s, PG - ARGSZ + 1);
			break;
		}
		f.gg = GG_STACK;
		/* fall through */
	case GG_STACK:
		f.arg = 0;	/* set below: &f.in */
		break;
	case GG_HOLE:
		f.arg = arena_hole(w) + rndn(s, PG - ARGSZ + 1);
		f.argcls = ARG_FAULT;
		break;
	default:
		f.arg = UINT64_MAX - rndn(s, ARGSZ);
		f.argcls = ARG_FAULT;
		break;
	}

	/*
	 * Random requests must not write where the worker keeps state: a
	 * WRITE that could reach such memory gets a source buffer whose first
	 * byte is inaccessible (nothing is written), a READ that could write
	 * such memory gets an inaccessible buffer.
	 */
	if (rw && f.fkind == FK_OWN && f.argcls != ARG_FAULT &&
	    range_ok(f.in.raw[0], f.in.raw[1])) {
		uint64_t a = f.in.raw[0], sz = f.in.raw[1], p = f.in.raw[2];
		int uns;

		if (f.ioc == I_WRITE) {
			struct dscan d;
			uint64_t first = PG - (a & (PG - 1));

			if (first > sz)
				first = sz;
			scan_data(w, a, sz, 1, &d);
			if (d.unsafe && scan_buf(w, p, first, 0, &uns) != 1) {
				f.in.raw[2] = bad_ptr(w);
				f.gp = GP_FORCED_BAD;
			}
		} else {
			scan_buf(w, p, sz, 1, &uns);
			if (uns) {
				f.in.raw[2] = bad_ptr(w);
				f.gp = GP_FORCED_BAD;
			}
		}
	}
	INC(w->st->gen_addr[f.ga]);
	INC(w->st->gen_size[f.gs]);
	if (rw)
		INC(w->st->gen_ptr[f.gp]);
	INC(w->st->gen_arg[f.gg]);

	/* What the driver must answer. */
	if (f.fkind == FK_BAD) {
		mask = M(EBADF);
	} else if (f.fkind == FK_PIPE || f.ioc == I_BADCMD) {
		mask = M(ENOTTY);
	} else if (f.ioc == I_EXPOSE) {
		if (f.fkind != FK_SPARE)
			mask = M(EBUSY);
		else
			mask = w->mirrored[f.dev] ? M(EEXIST) : M_OK | M(ENOMEM);
	} else if (f.fkind == FK_SPARE) {
		mask = M(EINVAL);
	} else if (f.fkind == FK_OTHER) {
		mask = M(EPERM);
	} else if (f.fkind == FK_DEAD) {
		mask = M(ENODEV);
	} else if (f.argcls == ARG_FAULT) {
		mask = M(EFAULT);
	} else if (!range_ok(f.in.raw[0], f.in.raw[1])) {
		mask = M(EINVAL);
	} else {
		if (f.ioc == I_MIGRATE)
			mask = predict_migrate(w, f.dev, f.in.raw[0], f.in.raw[1]);
		else
			mask = predict_rw(w, f.in.raw[0], f.in.raw[1], f.in.raw[2],
					  f.ioc == I_WRITE);
		/* The results cannot be copied back to a read-only argument. */
		if (f.argcls == ARG_RO && (mask & M_OK))
			mask = (mask & ~M_OK) | M(EFAULT);
	}

	snprintf(cur_detail, sizeof(cur_detail),
		 "%s on %s fd, argument %s at 0x%" PRIx64 ", address 0x%" PRIx64
		 " size 0x%" PRIx64 " ptr 0x%" PRIx64, ioc_name[f.ioc],
		 fk_name[f.fkind], gg_name[f.gg], f.arg, f.in.raw[0], f.in.raw[1],
		 f.in.raw[2]);
	/* Put the structure in place. */
	switch (f.gg) {
	case GG_STACK:
		f.arg = (uintptr_t)&f.in;
		break;
	case GG_ARGRW:
	case GG_ARENA:
		memcpy((void *)(uintptr_t)f.arg, &f.in, ARGSZ);
		break;
	case GG_ARENA_DEV:
		memcpy((void *)(uintptr_t)f.arg, &f.in, ARGSZ);
		/* In device memory when the kernel reads it (if it migrates). */
		i = rndn(s, 2);
		if (w->sl[SL_OWN + i].fd >= 0)
			dev_migrate(w, w->ctx, w->sl[SL_OWN + i].fd, (uintptr_t)page,
				    PG, migrate_ok_mask(i), "argument to device memory");
		break;
	case GG_RO:
	case GG_STRADDLE_RO:
		mprotect(w->argp + PG, PG, PROT_READ | PROT_WRITE);
		memcpy((void *)(uintptr_t)f.arg, &f.in, ARGSZ);
		mprotect(w->argp + PG, PG, PROT_READ);
		break;
	case GG_STRADDLE:
		mprotect(w->argp + PG, PG, PROT_READ | PROT_WRITE);
		memcpy((void *)(uintptr_t)f.arg, &f.in,
		       (uintptr_t)w->argp + 2 * PG - f.arg);
		mprotect(w->argp + PG, PG, PROT_READ);
		break;
	}

	cur_op = "fuzz ioctl: the call";
	ret = sys_ioctl(f.fd, f.cmd, f.arg);
	cur_op = "fuzz ioctl: after the call";

	if (record(w, w->ctx, f.ioc, ret, mask)) {
		dump_input(w, &f, ret, mask, "surprise");
		if (f.ioc == I_EXPOSE && !ret) {
			/* A second mirror of this device: drop it. */
			w->sl[f.slot].fd = -1;
			close(f.fd);
			if (f.slot == SL_SPARE + f.dev)
				open_spare(w, f.dev);
		}
		return;
	}
	if (ret)
		return;

	/* Success: the state and the outputs. */
	if (f.ioc == I_EXPOSE) {
		/*
		 * An unexposed file of a device that did not mirror us (only
		 * expected then: the device has no mirror slot in use).
		 */
		int d = f.dev;

		w->sl[SL_OWN + d] = (struct fslot){ f.fd, FK_OWN, d };
		w->sl[SL_SPARE + d].fd = -1;
		open_spare(w, d);
		w->mirrored[d] = 1;
		return;
	}
	if (f.argcls != ARG_OK || f.fkind != FK_OWN)
		return;
	{
		union { struct hmm_dummy_read rd; struct hmm_dummy_migrate mg; uint64_t raw[16]; } o;
		uint64_t a = f.in.raw[0], sz = f.in.raw[1];

		memcpy(&o, (void *)(uintptr_t)f.arg, ARGSZ);
		if (o.raw[0] != a || o.raw[1] != sz ||
		    (rw && o.raw[2] != f.in.raw[2])) {
			dump_input(w, &f, ret, mask, "inputs changed");
			return;
		}
		/* Reserved fields come back as they were. */
		for (i = rw ? 7 : MIG_RESV; i < 16; i++)
			if (o.raw[i] != f.in.raw[i]) {
				dump_input(w, &f, ret, mask, "reserved field written");
				return;
			}
		if (rw && (o.rd.nsys_pages + o.rd.ndev_pages != span_pages(a, sz) ||
			   o.rd.nfaulted_dev_pages)) {
			werr(w, w->ctx, E_IOCTL, "%s at 0x%" PRIx64 " size 0x%" PRIx64
			     ": nsys_pages %llu + ndev_pages %llu for %" PRIu64
			     " pages, nfaulted_dev_pages %llu", ioc_name[f.ioc], a, sz,
			     (unsigned long long)o.rd.nsys_pages,
			     (unsigned long long)o.rd.ndev_pages, span_pages(a, sz),
			     (unsigned long long)o.rd.nfaulted_dev_pages);
		}
		if (f.ioc == I_MIGRATE) {
			if (o.mg.nfaulted_dev_pages > span_pages(a, sz) ||
			    o.mg.nfaulted_sys_pages)
				werr(w, w->ctx, E_IOCTL, "MIGRATE_TO at 0x%" PRIx64 " size 0x%"
				     PRIx64 ": nfaulted_dev_pages %llu for %" PRIu64
				     " pages, nfaulted_sys_pages %llu", a, sz,
				     (unsigned long long)o.mg.nfaulted_dev_pages,
				     span_pages(a, sz),
				     (unsigned long long)o.mg.nfaulted_sys_pages);
			else
				ADD(w->st->migrated, o.mg.nfaulted_dev_pages);
		}
	}
}

/* ------------------------------------------------------------------ */
/* K: the region with a shadow                                         */

static char *kaddr(struct worker *w)
{
	return w->kslot[w->kcur];
}

static int own_fd(struct worker *w, int d)
{
	return w->sl[SL_OWN + d].fd;
}

/* A random range of K: *off, returns the length (> 0). */
static size_t k_range(struct worker *w, size_t *off, int page_aligned)
{
	uint64_t *s = &w->rng;
	size_t len;

	switch (rndn(s, 6)) {
	case 0:
		*off = 0;
		return w->ksize;
	case 1:
	case 2: {
		size_t np = w->ksize / PG, p = 1 + rndn(s, np < 64 ? np : 64);

		*off = rndn(s, np - p + 1) * PG;
		return p * PG;
	}
	default:
		if (page_aligned) {
			size_t np = w->ksize / PG, p = 1 + rndn(s, np);

			*off = rndn(s, np - p + 1) * PG;
			return p * PG;
		}
		*off = rndn(s, w->ksize);
		len = 1 + rndn(s, w->ksize - *off);
		if (rndn(s, 2) && len > 3 * PG)
			len = 1 + rndn(s, 3 * PG);
		return len;
	}
}

static int compare(struct worker *w, const char *what, size_t off,
		   const char *found, size_t len)
{
	const unsigned char *f = (const void *)found;
	const unsigned char *e = (const void *)(w->shadow + off);
	size_t i, first, ndiff = 0;

	if (!memcmp(found, w->shadow + off, len)) {
		ADD(w->st->verified, len);
		return 0;
	}
	for (i = 0; i < len && f[i] == e[i]; i++)
		;
	first = i;
	for (; i < len; i++)
		ndiff += f[i] != e[i];
	werr(w, w->ctx, E_DATA, "MISMATCH (%s): K offset 0x%zx (page %zu, address %p): expected 0x%02x found 0x%02x; %zu bytes differ in [0x%zx, 0x%zx)",
	     what, off + first, (off + first) / PG, kaddr(w) + off + first,
	     e[first], f[first], ndiff, off, off + len);
	return -1;
}

/* After a mismatch, take what K holds as the truth: one report per loss. */
static void k_resync(struct worker *w)
{
	if (w->kcls & C_R)
		memcpy(w->shadow, kaddr(w), w->ksize);
}

static int k_dev_check(struct worker *w, int d, size_t off, size_t len,
		       const char *what)
{
	memset(w->io, 0xa5, len);
	if (dev_rw(w, w->ctx, own_fd(w, d), 0, (uintptr_t)kaddr(w) + off, len,
		   (uintptr_t)w->io, M_OK, what))
		return -1;
	return compare(w, what, off, w->io, len);
}

/* The whole of K, through a device and through the CPU. */
static int k_verify(struct worker *w, const char *what)
{
	int d = rndn(&w->rng, 2), err = 0;

	INC(w->st->kops[KOP_VERIFY]);
	if (own_fd(w, d) < 0)
		d = !d;
	if (own_fd(w, d) >= 0)
		err = k_dev_check(w, d, 0, w->ksize, what);
	if (compare(w, what, 0, kaddr(w), w->ksize))
		err = -1;
	if (err)
		k_resync(w);
	return err;
}

static void k_dev_write(struct worker *w, size_t off, size_t len, const char *what)
{
	int d = rndn(&w->rng, 2);

	if (own_fd(w, d) < 0)
		d = !d;
	if (own_fd(w, d) < 0)
		return;

	rnd_fill(&w->rng, w->io, len);
	if (!dev_rw(w, w->ctx, own_fd(w, d), 1, (uintptr_t)kaddr(w) + off, len,
		    (uintptr_t)w->io, M_OK, what))
		memcpy(w->shadow + off, w->io, len);
	else
		k_resync(w);
}

static void k_op(struct worker *w, int op)
{
	uint64_t *s = &w->rng;
	size_t off, len;
	int d = rndn(s, 2), fd;
	char *k = kaddr(w);

	/* Both mirrors exist, unless a reopen failed (reported then). */
	if (own_fd(w, 0) < 0 || own_fd(w, 1) < 0)
		return;
	fd = own_fd(w, d);
	INC(w->st->kops[op]);
	cur_op = kop_name[op];
	switch (op) {
	case KOP_DEV_WRITE:
		len = k_range(w, &off, 0);
		k_dev_write(w, off, len, "K device write");
		break;
	case KOP_DEV_READ:
		len = k_range(w, &off, 0);
		if (k_dev_check(w, d, off, len, "K device read"))
			k_resync(w);
		break;
	case KOP_CPU_WRITE:
		len = k_range(w, &off, 0);
		rnd_fill(s, w->shadow + off, len);
		memcpy(k + off, w->shadow + off, len);
		break;
	case KOP_CPU_READ:
		len = k_range(w, &off, 0);
		if (compare(w, "K CPU read", off, k + off, len))
			k_resync(w);
		break;
	case KOP_MIGRATE:
		len = k_range(w, &off, 0);
		dev_migrate(w, w->ctx, fd, (uintptr_t)k + off, len,
			    migrate_ok_mask(d), "K migrate");
		break;
	case KOP_DONTNEED:
		len = k_range(w, &off, 1);
		if (madvise(k + off, len, MADV_DONTNEED)) {
			werr(w, w->ctx, E_OTHER, "K MADV_DONTNEED: %s", strerror(errno));
			break;
		}
		memset(w->shadow + off, 0, len);
		/* No stale device entry: the device reads zeroes. */
		if (k_dev_check(w, d, off, len, "K device read after MADV_DONTNEED"))
			k_resync(w);
		break;
	case KOP_PAGEOUT:
		len = k_range(w, &off, 1);
		madvise(k + off, len, rndn(s, 2) ? MADV_PAGEOUT : MADV_COLD);
		dev_migrate(w, w->ctx, fd, (uintptr_t)k + off, len,
			    migrate_ok_mask(d), "K migrate after MADV_PAGEOUT");
		if (k_dev_check(w, !d, off, len, "K device read after MADV_PAGEOUT"))
			k_resync(w);
		break;
	case KOP_FREE_REWRITE:
		/* Lazily freed pages hold old data or zeroes until written. */
		len = k_range(w, &off, 1);
		if (madvise(k + off, len, MADV_FREE)) {
			werr(w, w->ctx, E_OTHER, "K MADV_FREE: %s", strerror(errno));
			break;
		}
		if (rndn(s, 2)) {
			k_dev_write(w, off, len, "K device write after MADV_FREE");
		} else {
			rnd_fill(s, w->shadow + off, len);
			memcpy(k + off, w->shadow + off, len);
		}
		break;
	case KOP_COLLAPSE:
		madvise(k, w->ksize, rndn(s, 2) ? MADV_COLLAPSE : MADV_HUGEPAGE);
		break;
	case KOP_RO:
		/* Read-only: the device must not write (EPERM), reads work. */
		if (mprotect(k, w->ksize, PROT_READ)) {
			werr(w, w->ctx, E_OTHER, "K mprotect RO: %s", strerror(errno));
			break;
		}
		w->kcls = C_MAP | C_R | C_PROT;
		len = k_range(w, &off, 0);
		rnd_fill(s, w->io, len);
		dev_rw(w, w->ctx, fd, 1, (uintptr_t)k + off, len, (uintptr_t)w->io,
		       M(EPERM), "K device write while read-only");
		if (k_dev_check(w, !d, 0, w->ksize, "K device read while read-only"))
			k_resync(w);
		dev_migrate(w, w->ctx, fd, (uintptr_t)k + off, len,
			    migrate_ok_mask(d), "K migrate while read-only");
		if (k_dev_check(w, d, off, len, "K device read while read-only"))
			k_resync(w);
		mprotect(k, w->ksize, PROT_READ | PROT_WRITE);
		w->kcls = C_MAP | C_R | C_W | C_PROT;
		break;
	case KOP_NONE:
		/*
		 * PROT_NONE: no device access (EFAULT), but the anonymous
		 * pages can still migrate; the data is back with the access.
		 */
		if (mprotect(k, w->ksize, PROT_NONE)) {
			werr(w, w->ctx, E_OTHER, "K mprotect NONE: %s", strerror(errno));
			break;
		}
		w->kcls = C_MAP | C_PROT;
		len = k_range(w, &off, 0);
		dev_rw(w, w->ctx, fd, 0, (uintptr_t)k + off, len, (uintptr_t)w->io,
		       M(EFAULT), "K device read while PROT_NONE");
		dev_rw(w, w->ctx, own_fd(w, !d), 1, (uintptr_t)k + off, len,
		       (uintptr_t)w->io, M(EFAULT), "K device write while PROT_NONE");
		dev_migrate(w, w->ctx, fd, (uintptr_t)k + off, len,
			    migrate_ok_mask(d), "K migrate while PROT_NONE");
		mprotect(k, w->ksize, PROT_READ | PROT_WRITE);
		w->kcls = C_MAP | C_R | C_W | C_PROT;
		k_verify(w, "K after PROT_NONE");
		break;
	case KOP_MREMAP: {
		char *dst = w->kslot[!w->kcur], *src = k, *p;
		int dontunmap = rndn(s, 2);

		p = mremap(src, w->ksize, w->ksize, MREMAP_MAYMOVE | MREMAP_FIXED |
			   (dontunmap ? MREMAP_DONTUNMAP : 0), dst);
		if (p == MAP_FAILED) {
			werr(w, w->ctx, E_OTHER, "K mremap%s: %s",
			     dontunmap ? " DONTUNMAP" : "", strerror(errno));
			break;
		}
		w->kcur = !w->kcur;
		/* No stale entry at the old address. */
		if (dontunmap) {
			size_t i;

			memset(w->io, 0x5a, w->ksize);
			if (!dev_rw(w, w->ctx, fd, 0, (uintptr_t)src, w->ksize,
				    (uintptr_t)w->io, M_OK,
				    "device read of the old K after MREMAP_DONTUNMAP")) {
				for (i = 0; i < w->ksize && !w->io[i]; i++)
					;
				if (i < w->ksize)
					werr(w, w->ctx, E_DATA, "old K range after MREMAP_DONTUNMAP: byte 0x%zx is 0x%02x, not 0 (stale device entry?)",
					     i, (unsigned char)w->io[i]);
			}
		} else {
			dev_rw(w, w->ctx, fd, 0, (uintptr_t)src, w->ksize,
			       (uintptr_t)w->io, M(EFAULT),
			       "device read of the old K after mremap");
		}
		if (mmap(src, w->ksize, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS |
			 MAP_FIXED | MAP_NORESERVE, -1, 0) == MAP_FAILED)
			werr(w, w->ctx, E_OTHER, "K slot re-reserve: %s", strerror(errno));
		k_verify(w, "K after mremap");
		break;
	}
	default:
		k_verify(w, "K verify");
		break;
	}
}

/* ------------------------------------------------------------------ */
/* Arena mapping operations                                            */

enum mt { MT_PRIV_RW, MT_PRIV_RO, MT_PRIV_NONE, MT_PRIV_WO, MT_SHARED, MT_MEMFD_SH, MT_MEMFD_PRIV, NMT };
static const unsigned int mt_weight[NMT] = { 50, 12, 8, 4, 8, 10, 8 };

static int map_at(struct worker *w, char *addr, size_t len, int type)
{
	static const int prots[] = {
		PROT_READ | PROT_WRITE, PROT_READ, PROT_NONE, PROT_WRITE,
		PROT_READ | PROT_WRITE, PROT_READ | PROT_WRITE, PROT_READ | PROT_WRITE,
	};
	int flags = MAP_FIXED, fd = -1;
	off_t off = 0;
	void *p;

	switch (type) {
	case MT_SHARED:
		flags |= MAP_SHARED | MAP_ANONYMOUS;
		break;
	case MT_MEMFD_SH:
	case MT_MEMFD_PRIV:
		flags |= type == MT_MEMFD_SH ? MAP_SHARED : MAP_PRIVATE;
		fd = w->memfd;
		off = addr - w->arena;
		break;
	default:
		flags |= MAP_PRIVATE | MAP_ANONYMOUS;
		break;
	}
	p = mmap(addr, len, prots[type], flags, fd, off);
	return p == MAP_FAILED ? -1 : 0;
}

/* A random page range of the arena. */
static size_t arena_range(struct worker *w, size_t *first)
{
	uint64_t *s = &w->rng;
	size_t n, np = w->arena_pages;

	switch (rndn(s, 8)) {
	case 0: n = 1; break;
	case 1: case 2: case 3: n = 1 + rndn(s, 16); break;
	case 4: case 5: n = 1 + rndn(s, 128); break;
	case 6:
		if (np >= 512) {
			*first = rndn(s, np / 512) * 512;
			return 512;
		}
		n = np;
		break;
	default: n = 1 + rndn(s, np); break;
	}
	if (n > np)
		n = np;
	*first = rndn(s, np - n + 1);
	return n;
}

static void cpu_touch(struct worker *w, size_t first, size_t n, int write)
{
	volatile char *p;
	size_t i;

	for (i = first; i < first + n; i++) {
		int c = w->pst[i];

		p = (volatile char *)w->arena + i * PG + rndn(&w->rng, PG);
		if (write && (c & C_W))
			*p = (char)rnd(&w->rng);
		else if (!write && (c & (C_R | C_W)))
			(void)*p;
	}
}

static void arena_op(struct worker *w, int op)
{
	static const int advice[] = {
		[MOP_DONTNEED] = MADV_DONTNEED, [MOP_FREE] = MADV_FREE,
		[MOP_HUGEPAGE] = MADV_HUGEPAGE, [MOP_NOHUGEPAGE] = MADV_NOHUGEPAGE,
		[MOP_PAGEOUT] = MADV_PAGEOUT, [MOP_COLD] = MADV_COLD,
		[MOP_WILLNEED] = MADV_WILLNEED,
		[MOP_POPULATE_READ] = MADV_POPULATE_READ,
		[MOP_POPULATE_WRITE] = MADV_POPULATE_WRITE,
		[MOP_COLLAPSE] = MADV_COLLAPSE,
	};
	static const int prots[] = {
		PROT_READ | PROT_WRITE, PROT_READ, PROT_NONE, PROT_WRITE,
	};
	uint64_t *s = &w->rng;
	size_t first, n = arena_range(w, &first), j, m;
	char *a, *p;
	int ret = 0;

	/* MADV_COLLAPSE works on whole 2 MiB blocks. */
	if (op == MOP_COLLAPSE && w->arena_pages >= 512) {
		first = rndn(s, w->arena_pages / 512) * 512;
		n = 512;
	}
	a = w->arena + first * PG;

	INC(w->st->mops[op]);
	cur_op = mop_name[op];
	switch (op) {
	case MOP_MMAP:
		if (n == 512 && rndn(s, 2)) {
			/* A THP: 2 MiB aligned, MADV_HUGEPAGE, touched. */
			ret = map_at(w, a, n * PG, MT_PRIV_RW);
			if (!ret) {
				madvise(a, n * PG, MADV_HUGEPAGE);
				a[0] = 1;
			}
		} else {
			ret = map_at(w, a, n * PG, pick(s, mt_weight, NMT));
		}
		break;
	case MOP_MUNMAP:
		ret = munmap(a, n * PG);
		break;
	case MOP_MPROTECT:
		ret = mprotect(a, n * PG, PICK(s, prots));
		break;
	case MOP_MREMAP:
	case MOP_MREMAP_DONTUNMAP:
		/* Move to a place of the arena that does not overlap. */
		if (n > w->arena_pages / 2)
			n = 1 + rndn(s, w->arena_pages / 2);
		a = w->arena + first * PG;
		for (m = 0; m < 16; m++) {
			j = rndn(s, w->arena_pages - n + 1);
			if (j >= first + n || first >= j + n)
				break;
		}
		if (m == 16) {
			INC(w->st->mop_fail[op]);
			break;
		}
		p = mremap(a, n * PG, n * PG, MREMAP_MAYMOVE | MREMAP_FIXED |
			   (op == MOP_MREMAP_DONTUNMAP ? MREMAP_DONTUNMAP : 0),
			   w->arena + j * PG);
		ret = p == MAP_FAILED ? -1 : 0;
		break;
	case MOP_MREMAP_RESIZE:
		m = 1 + rndn(s, 2 * n);
		if (first + m > w->arena_pages)
			m = w->arena_pages - first;
		/*
		 * A shared anonymous mapping only shrinks: the pages a growth
		 * adds lie past the end of its shmem object, where every
		 * access is SIGBUS; that is shmem's business, not the
		 * driver's, and the class model does not track object sizes.
		 * (memfd mappings grow within the memfd's size.)
		 */
		if ((w->pst[first] & C_SHANON) && m > n)
			m = n;
		p = mremap(a, n * PG, m * PG, 0);
		ret = p == MAP_FAILED ? -1 : 0;
		break;
	case MOP_MLOCK:
		ret = rndn(s, 2) ? mlock(a, n * PG) : mlock2(a, n * PG, MLOCK_ONFAULT);
		break;
	case MOP_MUNLOCK:
		ret = munlock(a, n * PG);
		break;
	case MOP_CPU_WRITE:
		cpu_touch(w, first, n, 1);
		break;
	case MOP_CPU_READ:
		cpu_touch(w, first, n, 0);
		break;
	default:
		ret = madvise(a, n * PG, advice[op]);
		break;
	}
	if (ret)
		INC(w->st->mop_fail[op]);
	if (op != MOP_CPU_WRITE && op != MOP_CPU_READ)
		resync(w);
}

/* ------------------------------------------------------------------ */
/* Processes                                                           */

/* Wait for a child, at most @tmo seconds; its status, or -1 (killed). */
static int wait_child(pid_t pid, int tmo, int *st)
{
	double until = mono() + tmo;
	pid_t r;

	for (;;) {
		r = waitpid(pid, st, WNOHANG);
		if (r == pid)
			return 0;
		if (r < 0 && errno != EINTR)
			return -1;
		if (mono() > until) {
			kill(pid, SIGKILL);
			waitpid(pid, st, 0);
			return -1;
		}
		usleep(2000);
	}
}

/* A child touches an arena page with the CPU: fine, or SIGSEGV. */
static void op_probe(struct worker *w)
{
	size_t i = rndn(&w->rng, w->arena_pages);
	int write = rndn(&w->rng, 2), c = w->pst[i], st, ok;
	volatile char *p = (volatile char *)w->arena + i * PG + rndn(&w->rng, PG);
	pid_t pid;

	INC(w->st->mops[MOP_PROBE]);
	cur_op = "segv probe";
	ok = write ? (c & C_W) : (c & (C_R | C_W));
	pid = fork();
	if (pid < 0) {
		INC(w->st->mop_fail[MOP_PROBE]);
		return;
	}
	if (!pid) {
		signal(SIGSEGV, SIG_DFL);
		signal(SIGBUS, SIG_DFL);
		if (write)
			*p = 1;
		else
			(void)*p;
		_exit(0);
	}
	if (wait_child(pid, CHILD_TIMEOUT, &st)) {
		werr(w, w->ctx, E_CRASH, "CPU probe child (%s of %p) hung", write ? "write" : "read", (void *)p);
		return;
	}
	if (ok && WIFEXITED(st) && !WEXITSTATUS(st))
		return;
	if (!ok && WIFSIGNALED(st) && WTERMSIG(st) == SIGSEGV) {
		INC(w->st->probe_segv);
		return;
	}
	werr(w, w->ctx, E_CRASH, "CPU %s of %p (class 0x%x): expected %s, got status 0x%x (%s)",
	     write ? "write" : "read", (void *)p, c, ok ? "success" : "SIGSEGV", st,
	     WIFSIGNALED(st) ? strsignal(WTERMSIG(st)) : "exit");
}

/* A second thread of a fork child (on the racer's stack: no racer there). */
struct xthr {
	struct worker *w;
	int fd;
	int go;
	long ret;
};

static void *expose_thread(void *arg)
{
	struct xthr *x = arg;

	while (!__atomic_load_n(&x->go, __ATOMIC_ACQUIRE))
		;
	x->ret = sys_ioctl(x->fd, HMM_DUMMY_EXPOSE_MM, 0);
	return NULL;
}

static int child_thread(struct worker *w, pthread_t *t, void *(*fn)(void *),
			void *arg)
{
	pthread_attr_t at;
	int ret;

	pthread_attr_init(&at);
	pthread_attr_setstack(&at, w->racer_stack, RACER_STACK);
	ret = pthread_create(t, &at, fn, arg);
	pthread_attr_destroy(&at);
	if (ret)
		werr(w, X_CHILD, E_OTHER, "child: pthread_create: %s", strerror(ret));
	return ret;
}

/*
 * Two threads of a process that no device mirrors expose two files of a
 * device (or the same file) at once: exactly one wins, the other gets
 * EEXIST (EBUSY for the same file). The winner is the child's mirror.
 */
static void expose_race(struct worker *w, int d)
{
	int same = !rndn(&w->rng, 3), loser = same ? EBUSY : EEXIST, fa, fb;
	struct xthr x = { .w = w };
	char m1[64], m2[64];
	pthread_t t;
	long r;

	fa = dummy_open(d, rndn(&w->rng, 4));
	fb = same ? fa : dummy_open(d, rndn(&w->rng, 4));
	if (fa < 0 || fb < 0) {
		werr(w, X_CHILD, E_OTHER, "child: open device %d: %s", d, strerror(errno));
		goto close;
	}
	x.fd = fb;
	INC(w->st->expose_races);
	if (child_thread(w, &t, expose_thread, &x))
		goto close;
	__atomic_store_n(&x.go, 1, __ATOMIC_RELEASE);
	r = sys_ioctl(fa, HMM_DUMMY_EXPOSE_MM, 0);
	pthread_join(t, NULL);
	record(w, X_CHILD, I_EXPOSE, r, M_OK | M(loser));
	record(w, X_CHILD, I_EXPOSE, x.ret, M_OK | M(loser));
	if (!r == !x.ret || (r && r != -loser) || (x.ret && x.ret != -loser)) {
		werr(w, X_CHILD, E_IOCTL, "child: concurrent EXPOSE_MM of %s of device %d: %s and %s, expected one success and one %s",
		     same ? "one file" : "two files", d, ret_str(r, m1, sizeof(m1)),
		     ret_str(x.ret, m2, sizeof(m2)), strerror(loser));
		goto close;
	}
	w->sl[SL_OWN + d] = (struct fslot){ r ? fb : fa, FK_OWN, d };
	w->mirrored[d] = 1;
	if (!same)
		close(r ? fa : fb);
	return;
close:
	if (fa >= 0)
		close(fa);
	if (fb >= 0 && fb != fa)
		close(fb);
}

/* Device requests without end, for a process that exits or is killed. */
static void *busy_thread(void *arg)
{
	struct worker *w = arg;
	struct hmm_dummy_read rd;
	struct hmm_dummy_migrate mg;
	unsigned int i;

	for (i = 0;; i++) {
		int fd = w->sl[SL_OWN + (i & 1)].fd;

		memset(&mg, 0, sizeof(mg));
		mg.address = (uintptr_t)(i & 2 ? w->arena : kaddr(w));
		mg.size = i & 2 ? w->arena_size : w->ksize;
		sys_ioctl(fd, HMM_DUMMY_MIGRATE_TO, (uintptr_t)&mg);
		memset(&rd, 0, sizeof(rd));
		rd.address = (uintptr_t)kaddr(w);
		rd.size = w->riosize;
		rd.ptr = (uintptr_t)w->rio;
		sys_ioctl(w->sl[SL_OWN + !(i & 1)].fd, HMM_DUMMY_READ, (uintptr_t)&rd);
	}
	return NULL;
}

/*
 * The fork child: the parent's mirror files refuse it (EPERM, EBUSY), it
 * may expose an inherited unexposed file (the parent then gets EPERM from
 * it, and ENODEV once the child is gone), mirrors itself with fresh files,
 * checks the parent's K data as it inherited it (through a device first:
 * fork met the device entries), writes its own copy and runs random
 * requests. Its errors go to the shared statistics.
 */
static void child_main(struct worker *w, int plan_spare, int plan_kill,
		       int to_parent, int from_parent)
{
	uint64_t k;
	int d, fd;
	char c = 'x';
	pthread_t t;

	w->ctx = X_CHILD;
	w->rng = splitmix(w->rng ^ 0x6368696c64ULL);
	w->racer_on = 0;
	w->reports = MAX_REPORTS / 2;	/* children report less */
	INC(w->st->child_runs);
	for (d = 0; d < 2; d++) {
		w->sl[SL_OTHER + d] = w->sl[SL_OWN + d];
		w->sl[SL_OTHER + d].kind = FK_OTHER;
		w->sl[SL_OWN + d].fd = -1;
		w->mirrored[d] = 0;
	}
	k = (uintptr_t)kaddr(w);
	for (d = 0; d < 2; d++) {
		fd = w->sl[SL_OTHER + d].fd;
		if (fd < 0)
			continue;
		dev_rw(w, X_CHILD, fd, 0, k, PG, (uintptr_t)w->io, M(EPERM),
		       "child: READ through the parent's mirror");
		dev_rw(w, X_CHILD, fd, 1, k, PG, (uintptr_t)w->io, M(EPERM),
		       "child: WRITE through the parent's mirror");
		dev_migrate(w, X_CHILD, fd, k, PG, M(EPERM),
			    "child: MIGRATE_TO through the parent's mirror");
		dev_expose(w, X_CHILD, fd, M(EBUSY),
			   "child: EXPOSE_MM of the parent's mirror");
	}
	if (plan_spare >= 0) {
		d = plan_spare;
		fd = w->sl[SL_SPARE + d].fd;
		if (!dev_expose(w, X_CHILD, fd, M_OK, "child: EXPOSE_MM of an inherited unexposed file")) {
			w->sl[SL_OWN + d] = (struct fslot){ fd, FK_OWN, d };
			w->sl[SL_SPARE + d].fd = -1;
			w->mirrored[d] = 1;
		}
		/* The parent tries it now. */
		if (write(to_parent, &c, 1) != 1 || read(from_parent, &c, 1) != 1)
			werr(w, X_CHILD, E_OTHER, "child: sync with the parent: %s", strerror(errno));
	}
	if (rndn(&w->rng, 2)) {
		d = rndn(&w->rng, 2);
		if (w->sl[SL_OWN + d].fd < 0)
			expose_race(w, d);
	}
	for (d = 0; d < 2; d++) {
		if (w->sl[SL_OWN + d].fd >= 0)
			continue;
		fd = dummy_open(d, rndn(&w->rng, 4));
		if (fd < 0) {
			werr(w, X_CHILD, E_OTHER, "child: open device %d: %s", d, strerror(errno));
			continue;
		}
		if (dev_expose(w, X_CHILD, fd, M_OK, "child: EXPOSE_MM of a fresh file")) {
			close(fd);
			continue;
		}
		w->sl[SL_OWN + d] = (struct fslot){ fd, FK_OWN, d };
		w->mirrored[d] = 1;
	}
	if (own_fd(w, 0) < 0 || own_fd(w, 1) < 0)
		_exit(1);
	k_verify(w, "child: K as inherited");
	if (plan_kill) {
		/* Until the parent kills it (SIGKILL), two threads at work. */
		if (rndn(&w->rng, 2))
			child_thread(w, &t, busy_thread, w);
		for (;;) {
			w->opno++;
			fuzz_ioctl(w);
			dev_migrate(w, X_CHILD, own_fd(w, w->opno & 1), (uintptr_t)w->arena,
				    w->arena_size, M_OK | M(EFAULT) | M(ENOMEM) | M(EOPNOTSUPP),
				    "child: arena migrate until killed");
		}
	}
	for (k = 0; k < CHILD_OPS; k++) {
		w->opno++;
		fuzz_ioctl(w);
		if (k == CHILD_OPS / 2) {
			size_t off, len = k_range(w, &off, 0);

			k_dev_write(w, off, len, "child: K device write");
			dev_migrate(w, X_CHILD, own_fd(w, rndn(&w->rng, 2)),
				    (uintptr_t)kaddr(w), w->ksize,
				    M_OK | M(ENOMEM) | M(EOPNOTSUPP), "child: K migrate");
		}
	}
	k_verify(w, "child: K at exit");
	/* A third of the time it exits with a thread inside device requests. */
	if (!rndn(&w->rng, 3) && !child_thread(w, &t, busy_thread, w)) {
		usleep(rndn(&w->rng, 3000));
		_exit(0);
	}
	/* Half the time the files are released with the mm already gone. */
	if (rndn(&w->rng, 2)) {
		close(own_fd(w, 0));
		close(own_fd(w, 1));
		if (compare(w, "child: K after close", 0, kaddr(w), w->ksize))
			_exit(1);
	}
	_exit(0);
}

static void op_fork(struct worker *w)
{
	int plan_spare = -1, d = rndn(&w->rng, 2), st, p2c[2], c2p[2];
	int plan_kill = !rndn(&w->rng, 6);
	char c = 'x';
	pid_t pid;

	INC(w->st->mops[MOP_FORK]);
	cur_op = "fork";
	if (rndn(&w->rng, 2) && w->sl[SL_SPARE + d].fd >= 0 &&
	    w->sl[SL_SPARE + d].kind == FK_SPARE && w->ctx == X_MAIN)
		plan_spare = d;
	/* Half the time K is in device memory when fork() copies it. */
	if (rndn(&w->rng, 2))
		dev_migrate(w, w->ctx, own_fd(w, d), (uintptr_t)kaddr(w), w->ksize,
			    migrate_ok_mask(d), "K migrate before fork");
	if (pipe2(p2c, O_CLOEXEC) || pipe2(c2p, O_CLOEXEC)) {
		INC(w->st->mop_fail[MOP_FORK]);
		return;
	}
	pid = fork();
	if (pid < 0) {
		INC(w->st->mop_fail[MOP_FORK]);
		goto out;
	}
	if (!pid)
		child_main(w, plan_spare, plan_kill, c2p[1], p2c[0]);
	if (plan_spare >= 0) {
		int fd = w->sl[SL_SPARE + d].fd;
		uint64_t k = (uintptr_t)kaddr(w);

		if (read(c2p[0], &c, 1) == 1) {
			/* The file now mirrors the (live) child. */
			dev_rw(w, w->ctx, fd, 0, k, PG, (uintptr_t)w->io, M(EPERM),
			       "READ through a file a fork child exposed");
			dev_rw(w, w->ctx, fd, 1, k, PG, (uintptr_t)w->io, M(EPERM),
			       "WRITE through a file a fork child exposed");
			dev_migrate(w, w->ctx, fd, k, PG, M(EPERM),
				    "MIGRATE_TO through a file a fork child exposed");
			dev_expose(w, w->ctx, fd, M(EBUSY),
				   "EXPOSE_MM of a file a fork child exposed");
			if (write(p2c[1], &c, 1) != 1)
				werr(w, w->ctx, E_OTHER, "sync with the fork child: %s", strerror(errno));
		}
	}
	if (plan_kill) {
		/* Killed in the middle of its requests (or done by then). */
		usleep(rndn(&w->rng, 30000));
		kill(pid, SIGKILL);
		INC(w->st->child_kills);
	}
	if (wait_child(pid, CHILD_TIMEOUT, &st)) {
		werr(w, w->ctx, E_CRASH, "fork child hung (killed)");
	} else if (WIFSIGNALED(st) && !(plan_kill && WTERMSIG(st) == SIGKILL)) {
		werr(w, w->ctx, E_CRASH, "fork child died of signal %d (%s)",
		     WTERMSIG(st), strsignal(WTERMSIG(st)));
	}
	if (plan_spare >= 0) {
		/* The child's mm is gone: its mirror has ended. */
		int fd = w->sl[SL_SPARE + d].fd;

		if (w->racer_on)
			pthread_rwlock_wrlock(&w->fdlock);
		if (w->sl[SL_DEAD + d].fd >= 0)
			close(w->sl[SL_DEAD + d].fd);
		w->sl[SL_DEAD + d] = (struct fslot){ fd, FK_DEAD, d };
		w->sl[SL_SPARE + d].fd = -1;
		open_spare(w, d);
		if (w->racer_on)
			pthread_rwlock_unlock(&w->fdlock);
		dev_rw(w, w->ctx, fd, 0, (uintptr_t)kaddr(w), PG, (uintptr_t)w->io,
		       M(ENODEV), "READ through the mirror of an exited child");
		dev_migrate(w, w->ctx, fd, (uintptr_t)kaddr(w), PG, M(ENODEV),
			    "MIGRATE_TO through the mirror of an exited child");
		dev_expose(w, w->ctx, fd, M(EBUSY),
			   "EXPOSE_MM of the mirror of an exited child");
	}
	/* The child's writes are its own. */
	k_verify(w, "K after fork");
out:
	close(p2c[0]);
	close(p2c[1]);
	close(c2p[0]);
	close(c2p[1]);
}

/* Close a mirror (its device pages come back) and make a new one. */
/*
 * Close a mirror while the racer may be inside an ioctl on it: the file
 * lives on until that call returns and its release then runs in the racer
 * thread, migrating everything back; until it has, this device still
 * mirrors the process through it (EEXIST for a new file).
 */
static void reopen_racing(struct worker *w, int d)
{
	double until;
	long ret;
	int fd;

	INC(w->st->racing_reopens);
	__atomic_store_n(&w->closing, 1, __ATOMIC_SEQ_CST);
	__atomic_add_fetch(&w->closegen, 1, __ATOMIC_SEQ_CST);
	fd = own_fd(w, d);
	__atomic_store_n(&w->sl[SL_OWN + d].fd, -1, __ATOMIC_SEQ_CST);
	close(fd);
	w->mirrored[d] = 0;
	fd = dummy_open(d, rndn(&w->rng, 4));
	if (fd < 0) {
		werr(w, w->ctx, E_OTHER, "reopen device %d: %s", d, strerror(errno));
		goto out;
	}
	until = mono() + 10;
	do {
		ret = dev_expose(w, w->ctx, fd, M_OK | M(EEXIST),
				 "EXPOSE_MM after closing the mirror under the racer");
		if (ret == -EEXIST) {
			INC(w->st->racing_eexist);
			usleep(1000);
		}
	} while (ret == -EEXIST && mono() < until);
	if (ret) {
		werr(w, w->ctx, E_IOCTL, "EXPOSE_MM after closing the mirror under the racer: %s for 10 s",
		     strerror(-ret));
		close(fd);
		goto out;
	}
	w->sl[SL_OWN + d] = (struct fslot){ fd, FK_OWN, d };
	w->mirrored[d] = 1;
out:
	__atomic_add_fetch(&w->closegen, 1, __ATOMIC_SEQ_CST);
	__atomic_store_n(&w->closing, 0, __ATOMIC_SEQ_CST);
}

static void op_reopen(struct worker *w)
{
	int d = rndn(&w->rng, 2), how = rndn(&w->rng, 5), fd;

	INC(w->st->mops[MOP_REOPEN]);
	cur_op = "close/reopen";
	if (how == 4 && w->racer_on) {
		reopen_racing(w, d);
		goto verify;
	}
	how %= 4;
	if (w->racer_on)
		pthread_rwlock_wrlock(&w->fdlock);
	if (how == 3) {
		/* Release an ended mirror, or a never exposed file. */
		if (w->sl[SL_DEAD + d].fd >= 0) {
			close(w->sl[SL_DEAD + d].fd);
			w->sl[SL_DEAD + d].fd = -1;
		} else {
			open_spare(w, d);
			dev_expose(w, w->ctx, w->sl[SL_SPARE + d].fd, M(EEXIST),
				   "EXPOSE_MM of a second file of a device");
		}
		goto out;
	}
	if (rndn(&w->rng, 2))
		dev_migrate(w, w->ctx, own_fd(w, d), (uintptr_t)kaddr(w), w->ksize,
			    migrate_ok_mask(d), "K migrate before close");
	close(own_fd(w, d));
	w->sl[SL_OWN + d].fd = -1;
	w->mirrored[d] = 0;
	if (how == 0 && w->sl[SL_SPARE + d].fd >= 0 &&
	    w->sl[SL_SPARE + d].kind == FK_SPARE) {
		fd = w->sl[SL_SPARE + d].fd;
		w->sl[SL_SPARE + d].fd = -1;
		open_spare(w, d);
	} else {
		fd = dummy_open(d, rndn(&w->rng, 4));
		if (fd < 0) {
			werr(w, w->ctx, E_OTHER, "reopen device %d: %s", d, strerror(errno));
			goto out;
		}
	}
	if (dev_expose(w, w->ctx, fd, M_OK, "EXPOSE_MM after closing the mirror")) {
		close(fd);
		goto out;
	}
	w->sl[SL_OWN + d] = (struct fslot){ fd, FK_OWN, d };
	w->mirrored[d] = 1;
out:
	if (w->racer_on)
		pthread_rwlock_unlock(&w->fdlock);
verify:
	/* Everything the closed mirror held came back. */
	if (own_fd(w, d) >= 0 || own_fd(w, !d) >= 0)
		k_verify(w, "K after close/reopen");
}

/*
 * The racer: READ/WRITE/MIGRATE_TO on the arena from a second thread while
 * the main thread changes the mappings. Only the first half of the arena
 * is written (the main thread puts argument structures in the second).
 */
static void *racer_main(void *arg)
{
	struct worker *w = arg;
	uint64_t *s = &w->rrng;
	unsigned long done = 0;

	while (!__atomic_load_n(&w->racer_stop, __ATOMIC_RELAXED)) {
		int op = rndn(s, 3), d = rndn(s, 2), fd, racy;
		size_t half = w->arena_pages / 2;
		size_t np = 1 + rndn(s, rndn(s, 4) ? 16 : 256);
		unsigned long gen;
		uint64_t a, len, p;
		uint32_t m;
		long ret;

		/* At most 2 requests per operation of the main thread. */
		if (done >= 2 * __atomic_load_n(&w->opno, __ATOMIC_RELAXED)) {
			usleep(200);
			continue;
		}
		done++;
		a = (uintptr_t)w->arena + rndn(s, op == 1 ? half : w->arena_pages) * PG;
		len = np * PG - rndn(s, PG);
		if (len > w->riosize + 2 * PG)
			len = w->riosize + 2 * PG;
		if (op == 1 && a + len > (uintptr_t)w->arena + half * PG)
			len = (uintptr_t)w->arena + half * PG - a;
		p = (uintptr_t)w->rio + (rndn(s, 4) ? 0 : rndn(s, w->riosize));
		pthread_rwlock_rdlock(&w->fdlock);
		gen = __atomic_load_n(&w->closegen, __ATOMIC_SEQ_CST);
		racy = __atomic_load_n(&w->closing, __ATOMIC_SEQ_CST);
		fd = __atomic_load_n(&w->sl[SL_OWN + d].fd, __ATOMIC_SEQ_CST);
		if (fd >= 0) {
			/*
			 * A close racing the call (reopen_racing()): the fd may
			 * be closed (EBADF) or already a new, unexposed file
			 * (EINVAL). Allowed here, checked below.
			 */
			m = M_OK | M(EFAULT) | M(ENOMEM) | M(EBADF) | M(EINVAL);
			if (op == 2) {
				m |= pool_pages[d] <= 0 ? M(EOPNOTSUPP) : 0;
				ret = dev_migrate(w, X_RACER, fd, a, len, m, "racer");
			} else {
				m |= op == 1 ? M(EPERM) : 0;
				ret = dev_rw(w, X_RACER, fd, op == 1, a, len, p, m, "racer");
			}
			if ((ret == -EBADF || ret == -EINVAL) && !racy &&
			    gen == __atomic_load_n(&w->closegen, __ATOMIC_SEQ_CST)) {
				INC(w->st->surprises[op == 2 ? I_MIGRATE : op ? I_WRITE : I_READ]);
				werr(w, X_RACER, E_IOCTL, "racer: %s on its own mirror (fd %d) at 0x%" PRIx64 " size 0x%" PRIx64 ": got %s with no close racing",
				     op == 2 ? "MIGRATE_TO" : op ? "WRITE" : "READ", fd, a, len,
				     strerror(-ret));
			}
		}
		pthread_rwlock_unlock(&w->fdlock);
	}
	return NULL;
}

/* ------------------------------------------------------------------ */
/* The worker                                                          */

/* PROT_NONE reservation of @len bytes plus guards, @align aligned inside. */
static char *reserve(size_t len, size_t align, size_t guard, uintptr_t *rs,
		     uintptr_t *re)
{
	size_t total = len + align + 2 * guard;
	char *p = mmap(NULL, total, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS |
		       MAP_NORESERVE, -1, 0);
	uintptr_t a;

	if (p == MAP_FAILED)
		return NULL;
	a = ((uintptr_t)p + guard + align - 1) & ~(align - 1);
	*rs = (uintptr_t)p;
	*re = (uintptr_t)p + total;
	return (char *)a;
}

struct wop {
	const char *name;
	unsigned int weight;
	int kind;	/* 0: fuzz ioctl, 1: arena op, 2: K op, 3: fork, 4: probe, 5: reopen */
	int arg;
};

static const struct wop wops[] = {
	{ "ioctl", 120, 0, 0 },
	{ "mmap", 6, 1, MOP_MMAP }, { "munmap", 4, 1, MOP_MUNMAP },
	{ "mprotect", 6, 1, MOP_MPROTECT }, { "mremap", 3, 1, MOP_MREMAP },
	{ "mremap-dontunmap", 2, 1, MOP_MREMAP_DONTUNMAP },
	{ "mremap-resize", 2, 1, MOP_MREMAP_RESIZE },
	{ "dontneed", 2, 1, MOP_DONTNEED }, { "free", 2, 1, MOP_FREE },
	{ "hugepage", 1, 1, MOP_HUGEPAGE }, { "nohugepage", 1, 1, MOP_NOHUGEPAGE },
	{ "pageout", 2, 1, MOP_PAGEOUT }, { "cold", 1, 1, MOP_COLD },
	{ "willneed", 1, 1, MOP_WILLNEED },
	{ "populate-read", 1, 1, MOP_POPULATE_READ },
	{ "populate-write", 1, 1, MOP_POPULATE_WRITE },
	{ "collapse", 1, 1, MOP_COLLAPSE }, { "mlock", 1, 1, MOP_MLOCK },
	{ "munlock", 1, 1, MOP_MUNLOCK }, { "cpu-write", 5, 1, MOP_CPU_WRITE },
	{ "cpu-read", 3, 1, MOP_CPU_READ },
	{ "k-dev-write", 8, 2, KOP_DEV_WRITE }, { "k-dev-read", 6, 2, KOP_DEV_READ },
	{ "k-cpu-write", 4, 2, KOP_CPU_WRITE }, { "k-cpu-read", 2, 2, KOP_CPU_READ },
	{ "k-migrate", 8, 2, KOP_MIGRATE }, { "k-dontneed", 2, 2, KOP_DONTNEED },
	{ "k-pageout", 2, 2, KOP_PAGEOUT },
	{ "k-free-rewrite", 2, 2, KOP_FREE_REWRITE },
	{ "k-collapse", 1, 2, KOP_COLLAPSE }, { "k-ro", 2, 2, KOP_RO },
	{ "k-none", 2, 2, KOP_NONE }, { "k-mremap", 2, 2, KOP_MREMAP },
	{ "fork", 2, 3, 0 }, { "probe", 2, 4, 0 }, { "reopen", 2, 5, 0 },
};
#define NWOPS	(int)(sizeof(wops) / sizeof(wops[0]))

static int setup(struct worker *w)
{
	size_t i, n;
	int d, fd;

	/*
	 * The racer's stack now: pthread_create() would mmap() it later,
	 * maybe into a hole of the arena.
	 */
	w->racer_stack = mmap(NULL, RACER_STACK, PROT_READ | PROT_WRITE,
			      MAP_PRIVATE | MAP_ANONYMOUS | MAP_STACK, -1, 0);
	if (w->racer_stack == MAP_FAILED)
		return -1;

	/* Files: each device mirrors us through one; a second stays unexposed. */
	for (i = 0; i < NSLOT; i++)
		w->sl[i] = (struct fslot){ -1, FK_BAD, -1 };
	for (d = 0; d < 2; d++) {
		fd = dummy_open(d, w->id % 4);
		if (fd < 0) {
			werr(w, X_MAIN, E_OTHER, "open /dev/hmm_dummy_device%d%d: %s", d,
			     w->id % 4, strerror(errno));
			return -1;
		}
		if (dev_expose(w, X_MAIN, fd, M_OK, "EXPOSE_MM at setup"))
			return -1;
		w->sl[SL_OWN + d] = (struct fslot){ fd, FK_OWN, d };
		w->mirrored[d] = 1;
		open_spare(w, d);
		dev_expose(w, X_MAIN, w->sl[SL_SPARE + d].fd, M(EEXIST),
			   "EXPOSE_MM of a second file at setup");
	}
	{
		int pfd[2];

		if (pipe2(pfd, O_CLOEXEC))
			return -1;
		close(pfd[1]);
		w->sl[SL_PIPE] = (struct fslot){ pfd[0], FK_PIPE, -1 };
	}

	/* K and its shadow. */
	w->ksize = (opt_k_kib * 1024 + PG - 1) & ~(PG - 1);
	{
		size_t slot = (w->ksize + PMD_SZ - 1) & ~(PMD_SZ - 1);
		char *base = reserve(2 * slot, PMD_SZ, PG, &w->kres_s, &w->kres_e);

		if (!base)
			return -1;
		w->kslot[0] = base;
		w->kslot[1] = base + slot;
	}
	w->kcur = 0;
	if (mmap(kaddr(w), w->ksize, PROT_READ | PROT_WRITE, MAP_PRIVATE |
		 MAP_ANONYMOUS | MAP_FIXED, -1, 0) == MAP_FAILED)
		return -1;
	madvise(kaddr(w), w->ksize, MADV_HUGEPAGE);
	w->kcls = C_MAP | C_R | C_W | C_PROT;
	w->shadow = mmap(NULL, w->ksize, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (w->shadow == MAP_FAILED)
		return -1;
	add_area(w, w->shadow, w->ksize, C_MAP | C_R | C_W | C_PROT);
	rnd_fill(&w->rng, w->shadow, w->ksize);
	memcpy(kaddr(w), w->shadow, w->ksize);

	/* I/O buffers with guards, the argument pages, a read-only page. */
	w->iosize = w->ksize > MiB ? w->ksize : MiB;
	w->riosize = 256 * 1024;
	{
		uintptr_t rs, re;

		w->io = reserve(w->iosize, PG, PG, &rs, &re);
		if (!w->io || mprotect(w->io, w->iosize, PROT_READ | PROT_WRITE))
			return -1;
		add_area(w, (void *)rs, re - rs, C_MAP);	/* guards */
		w->rio = reserve(w->riosize, PG, PG, &rs, &re);
		if (!w->rio || mprotect(w->rio, w->riosize, PROT_READ | PROT_WRITE))
			return -1;
		add_area(w, (void *)rs, re - rs, C_MAP);
		w->argp = reserve(3 * PG, PG, PG, &rs, &re);
		if (!w->argp || mprotect(w->argp, 2 * PG, PROT_READ | PROT_WRITE))
			return -1;
		mprotect(w->argp + PG, PG, PROT_READ);
		add_area(w, (void *)rs, re - rs, C_MAP);
		w->rop = reserve(PG, PG, PG, &rs, &re);
		if (!w->rop || mprotect(w->rop, PG, PROT_READ | PROT_WRITE))
			return -1;
		memset(w->rop, 0x3c, PG);
		mprotect(w->rop, PG, PROT_READ);
		add_area(w, (void *)rs, re - rs, C_MAP);
	}
	/*
	 * The arena last: once it has holes, an mmap(NULL) may land in one.
	 * A memfd for file mappings (room for mremap growth).
	 */
	w->arena_size = opt_arena_mib * MiB;
	w->arena_pages = w->arena_size / PG;
	w->pst = calloc(w->arena_pages, 1);
	{
		uintptr_t rs, re;

		w->arena = reserve(w->arena_size, PMD_SZ, PG, &rs, &re);
		if (!w->arena || !w->pst)
			return -1;
		add_area(w, (void *)rs, (uintptr_t)w->arena - rs, C_MAP);
		add_area(w, w->arena + w->arena_size,
			 re - ((uintptr_t)w->arena + w->arena_size), C_MAP);
	}
	w->memfd = memfd_create("hmm-fuzz", MFD_CLOEXEC);
	if (w->memfd < 0 || ftruncate(w->memfd, 2 * w->arena_size)) {
		werr(w, X_MAIN, E_OTHER, "memfd: %s", strerror(errno));
		return -1;
	}
	for (i = 0; i < w->arena_pages; i += n) {
		if (!(i % 512) && i + 512 <= w->arena_pages && rndn(&w->rng, 3) == 0) {
			n = 512;
			if (!map_at(w, w->arena + i * PG, n * PG, MT_PRIV_RW)) {
				madvise(w->arena + i * PG, n * PG, MADV_HUGEPAGE);
				w->arena[i * PG] = 1;
			}
			continue;
		}
		n = 1 + rndn(&w->rng, 64);
		if (i + n > w->arena_pages)
			n = w->arena_pages - i;
		if (rndn(&w->rng, 20))
			map_at(w, w->arena + i * PG, n * PG, pick(&w->rng, mt_weight, NMT));
		else
			munmap(w->arena + i * PG, n * PG);
	}

	/* Inner areas first: page_class() takes the first match. */
	{
		struct area tmp[16];
		int k = 0, j;

		tmp[k++] = (struct area){ (uintptr_t)w->io, (uintptr_t)w->io + w->iosize, C_MAP | C_R | C_W };
		tmp[k++] = (struct area){ (uintptr_t)w->rio, (uintptr_t)w->rio + w->riosize, C_MAP | C_R | C_W | C_PROT };
		tmp[k++] = (struct area){ (uintptr_t)w->argp, (uintptr_t)w->argp + PG, C_MAP | C_R | C_W };
		tmp[k++] = (struct area){ (uintptr_t)w->argp + PG, (uintptr_t)w->argp + 2 * PG, C_MAP | C_R };
		tmp[k++] = (struct area){ (uintptr_t)w->argp + 2 * PG, (uintptr_t)w->argp + 3 * PG, C_MAP };
		tmp[k++] = (struct area){ (uintptr_t)w->rop, (uintptr_t)w->rop + PG, C_MAP | C_R };
		for (j = 0; j < w->nareas; j++)
			tmp[k++] = w->areas[j];
		memcpy(w->areas, tmp, k * sizeof(tmp[0]));
		w->nareas = k;
	}
	resync(w);
	return 0;
}

static int worker_main(int id, uint64_t seed)
{
	unsigned int weights[NWOPS];
	struct worker w;
	int i, op;

	memset(&w, 0, sizeof(w));
	w.id = id;
	w.ctx = X_MAIN;
	w.rng = splitmix(seed) | 1;
	w.rrng = splitmix(seed ^ 0x7261636572ULL) | 1;
	w.st = &stats[id];
	cur_worker = id;
	cur_w = &w;
	catch_fatal();
	if (setup(&w)) {
		werr(&w, X_MAIN, E_OTHER, "setup failed (%s)", strerror(errno));
		return 1;
	}
	for (i = 0; i < NWOPS; i++)
		weights[i] = wops[i].weight;

	if (opt_racer) {
		pthread_rwlockattr_t attr;
		pthread_attr_t tattr;

		pthread_rwlockattr_init(&attr);
		pthread_rwlockattr_setkind_np(&attr,
				PTHREAD_RWLOCK_PREFER_WRITER_NONRECURSIVE_NP);
		pthread_rwlock_init(&w.fdlock, &attr);
		pthread_attr_init(&tattr);
		pthread_attr_setstack(&tattr, w.racer_stack, RACER_STACK);
		if (pthread_create(&w.racer, &tattr, racer_main, &w))
			werr(&w, X_MAIN, E_OTHER, "racer thread: %s", strerror(errno));
		else
			w.racer_on = 1;
	}

	while (!time_up()) {
		w.opno++;
		cur_opno = w.opno;
		op = pick(&w.rng, weights, NWOPS);
		switch (wops[op].kind) {
		case 0: fuzz_ioctl(&w); break;
		case 1: arena_op(&w, wops[op].arg); break;
		case 2: k_op(&w, wops[op].arg); break;
		case 3: op_fork(&w); break;
		case 4: op_probe(&w); break;
		default: op_reopen(&w); break;
		}
		if (!(w.opno % VERIFY_EVERY))
			k_verify(&w, "K batch verify");
	}
	if (w.racer_on) {
		__atomic_store_n(&w.racer_stop, 1, __ATOMIC_RELAXED);
		pthread_join(w.racer, NULL);
		w.racer_on = 0;
	}

	/* Final checks: K, then again once every file is closed. */
	cur_op = "final verify";
	k_verify(&w, "K final verify");
	cur_op = "close (migrate back)";
	for (i = 0; i < NSLOT; i++)
		if (w.sl[i].fd >= 0 && i != SL_BAD)
			close(w.sl[i].fd);
	cur_op = "final CPU verify after close";
	if (compare(&w, "K CPU verify after close", 0, kaddr(&w), w.ksize))
		k_resync(&w);
	w.st->finished = 1;
	return w.st->errors ? 1 : 0;
}

/* ------------------------------------------------------------------ */
/* debugfs                                                             */

struct dstats {
	long pages, in_use, to_device, from_device, cpu_faults, poisoned;
	long alloc_failures;
};

static int read_dstats(int dev, struct dstats *s)
{
	char path[64], line[128], key[64];
	long v;
	FILE *f;

	memset(s, 0xff, sizeof(*s));
	snprintf(path, sizeof(path), DBG_DIR "/device%d", dev);
	f = fopen(path, "re");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%63s %ld", key, &v) != 2)
			continue;
		if (!strcmp(key, "pages"))
			s->pages = v;
		else if (!strcmp(key, "in_use"))
			s->in_use = v;
		else if (!strcmp(key, "to_device"))
			s->to_device = v;
		else if (!strcmp(key, "from_device"))
			s->from_device = v;
		else if (!strcmp(key, "cpu_faults"))
			s->cpu_faults = v;
		else if (!strcmp(key, "poisoned"))
			s->poisoned = v;
		else if (!strcmp(key, "alloc_failures"))
			s->alloc_failures = v;
	}
	fclose(f);
	return s->in_use < 0 ? -1 : 0;
}

/* Wait up to @tmo s for device @dev's in_use to be @want; the last value. */
static long wait_in_use(int dev, long want, double tmo)
{
	double until = mono() + tmo;
	struct dstats s;

	for (;;) {
		if (read_dstats(dev, &s))
			return -1;
		if (s.in_use == want || mono() > until)
			return s.in_use;
		usleep(20000);
	}
}

static int result(const char *name, int ok, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static int result(const char *name, int ok, const char *fmt, ...)
{
	char note[256] = "";
	va_list ap;

	if (fmt) {
		va_start(ap, fmt);
		vsnprintf(note, sizeof(note), fmt, ap);
		va_end(ap);
	}
	ktap_result(ok ? KTAP_PASS : KTAP_FAIL, name, note);
	return ok ? 0 : 1;
}

/* ------------------------------------------------------------------ */
/* -T perm: the device nodes are root's                                */

static int run_perm(void)
{
	char names[64][300];
	int n = 0, bad = 0, i, fails = 0, st, p[2];
	struct dirent *de;
	struct stat sb;
	pid_t pid;
	DIR *dir;

	dir = opendir("/dev");
	if (!dir)
		return result("root-only", 0, "opendir /dev: %s", strerror(errno));
	while ((de = readdir(dir)) && n < 64)
		if (!strncmp(de->d_name, "hmm_dummy_device", 16))
			snprintf(names[n++], sizeof(names[0]), "/dev/%s", de->d_name);
	closedir(dir);
	if (n < 2)
		return result("root-only", 0, "%d /dev/hmm_dummy_device* nodes (hmm_dummy loaded?)", n);
	for (i = 0; i < n; i++) {
		if (lstat(names[i], &sb)) {
			printf("hmm-fuzz: perm: %s: %s\n", names[i], strerror(errno));
			bad++;
			continue;
		}
		printf("hmm-fuzz: perm: %s: %s mode 0%03o uid %u gid %u\n", names[i],
		       S_ISCHR(sb.st_mode) ? "char" : "NOT A CHAR DEVICE",
		       (unsigned int)(sb.st_mode & 07777), (unsigned int)sb.st_uid,
		       (unsigned int)sb.st_gid);
		if (!S_ISCHR(sb.st_mode) || sb.st_uid != 0 || (sb.st_mode & 0077))
			bad++;
	}
	fails += result("root-only", !bad, "nodes=%d not-root-only=%d", n, bad);

	/* A process that dropped root cannot open them. */
	fflush(stdout);
	if (pipe(p))
		return fails + result("non-root-open", 0, "pipe: %s", strerror(errno));
	pid = fork();
	if (!pid) {
		int nok = 0;

		close(p[0]);
		if (setgroups(0, NULL) || setgid(NOBODY) || setuid(NOBODY) ||
		    getuid() != NOBODY || geteuid() != NOBODY) {
			dprintf(p[1], "hmm-fuzz: perm: cannot drop root: %s\n", strerror(errno));
			_exit(100);
		}
		for (i = 0; i < n; i++) {
			static const int modes[] = { O_RDWR, O_RDONLY, O_WRONLY };
			int j, fd;

			for (j = 0; j < 3; j++) {
				fd = open(names[i], modes[j] | O_CLOEXEC);
				if (fd >= 0 || errno != EACCES) {
					dprintf(p[1], "hmm-fuzz: perm: uid %d opened %s (mode %d): %s\n",
						NOBODY, names[i], modes[j],
						fd >= 0 ? "SUCCEEDED" : strerror(errno));
					nok++;
					if (fd >= 0)
						close(fd);
				}
			}
			/* O_PATH does not open the device: no ioctl either. */
			fd = open(names[i], O_PATH | O_CLOEXEC);
			if (fd >= 0) {
				if (ioctl(fd, HMM_DUMMY_EXPOSE_MM) != -1 || errno != EBADF) {
					dprintf(p[1], "hmm-fuzz: perm: EXPOSE_MM on an O_PATH fd of %s: %s\n",
						names[i], strerror(errno));
					nok++;
				}
				close(fd);
			}
		}
		_exit(nok > 99 ? 99 : nok);
	}
	close(p[1]);
	{
		char buf[4096];
		ssize_t r;

		while ((r = read(p[0], buf, sizeof(buf))) > 0)
			fwrite(buf, 1, r, stdout);
		close(p[0]);
	}
	if (pid < 0 || waitpid(pid, &st, 0) != pid)
		return fails + result("non-root-open", 0, "fork/wait: %s", strerror(errno));
	fails += result("non-root-open", WIFEXITED(st) && !WEXITSTATUS(st),
			"uid=%d nodes=%d opens=%d status=0x%x", NOBODY, n, 3 * n, st);
	return fails;
}

/* ------------------------------------------------------------------ */
/* -T scm: a mirror's file in another process                          */

#define SCM_PAGES	64

struct scm_msg {
	uint64_t addr, size, migrated;
	int step, errors;
};

static int send_msg(int sock, const struct scm_msg *m, int fd)
{
	char cbuf[CMSG_SPACE(sizeof(int))];
	struct iovec iov = { (void *)m, sizeof(*m) };
	struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1 };
	struct cmsghdr *cm;

	if (fd >= 0) {
		memset(cbuf, 0, sizeof(cbuf));
		mh.msg_control = cbuf;
		mh.msg_controllen = sizeof(cbuf);
		cm = CMSG_FIRSTHDR(&mh);
		cm->cmsg_level = SOL_SOCKET;
		cm->cmsg_type = SCM_RIGHTS;
		cm->cmsg_len = CMSG_LEN(sizeof(int));
		memcpy(CMSG_DATA(cm), &fd, sizeof(int));
	}
	return sendmsg(sock, &mh, 0) == sizeof(*m) ? 0 : -1;
}

static int recv_msg(int sock, struct scm_msg *m, int *fd)
{
	char cbuf[CMSG_SPACE(sizeof(int))];
	struct iovec iov = { m, sizeof(*m) };
	struct msghdr mh = {
		.msg_iov = &iov, .msg_iovlen = 1,
		.msg_control = cbuf, .msg_controllen = sizeof(cbuf),
	};
	struct cmsghdr *cm;

	if (fd)
		*fd = -1;
	if (recvmsg(sock, &mh, MSG_CMSG_CLOEXEC) != sizeof(*m))
		return -1;
	for (cm = CMSG_FIRSTHDR(&mh); cm; cm = CMSG_NXTHDR(&mh, cm))
		if (cm->cmsg_level == SOL_SOCKET && cm->cmsg_type == SCM_RIGHTS &&
		    fd)
			memcpy(fd, CMSG_DATA(cm), sizeof(int));
	return 0;
}

static int scm_errors;

static void scm_fail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void scm_fail(const char *fmt, ...)
{
	char buf[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	out("hmm-fuzz: scm: ERROR: %s", buf);
	scm_errors++;
}

/* One request, its errno checked (0: success). */
static void scm_expect(int fd, unsigned long cmd, uint64_t addr, uint64_t size,
		       uint64_t ptr, int want, const char *what)
{
	uint64_t raw[16] = { addr, size, ptr };
	long ret;

	if (cmd == HMM_DUMMY_MIGRATE_TO)
		raw[2] = 0;
	ret = sys_ioctl(fd, cmd, cmd == HMM_DUMMY_EXPOSE_MM ? 0 : (uintptr_t)raw);
	if (ret != -want)
		scm_fail("%s: got %s, expected %s", what,
			 ret ? strerror(-ret) : "success",
			 want ? strerror(want) : "success");
}

static void pattern(char *buf, size_t len, unsigned int seed)
{
	size_t i;

	for (i = 0; i < len; i++)
		buf[i] = (char)(i * 131 + seed + (i >> 12) * 7);
}

static int pattern_ok(const char *buf, size_t len, unsigned int seed)
{
	size_t i;

	for (i = 0; i < len; i++)
		if (buf[i] != (char)(i * 131 + seed + (i >> 12) * 7))
			return 0;
	return 1;
}

/*
 * Process A: its mirror of @dev, a pattern, half of it in device memory.
 * @buf lies in a reservation made before B was forked (B has PROT_NONE
 * there). Returns the file, *@mig the pages migrated.
 */
static int scm_owner_setup(int dev, char *buf, size_t size, unsigned int seed,
			   long *mig)
{
	struct hmm_dummy_migrate mg;
	char *tmp;
	int fd;

	*mig = 0;
	if (mmap(buf, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS |
		 MAP_FIXED, -1, 0) == MAP_FAILED) {
		scm_fail("owner mmap: %s", strerror(errno));
		return -1;
	}
	pattern(buf, size, seed);
	fd = dummy_open(dev, 3);
	if (fd < 0) {
		scm_fail("owner open device %d: %s", dev, strerror(errno));
		return -1;
	}
	if (ioctl(fd, HMM_DUMMY_EXPOSE_MM)) {
		scm_fail("owner EXPOSE_MM: %s", strerror(errno));
		close(fd);
		return -1;
	}
	tmp = malloc(size);
	if (tmp) {
		struct hmm_dummy_read rd = {
			.address = (uintptr_t)buf, .size = size, .ptr = (uintptr_t)tmp,
		};

		if (ioctl(fd, HMM_DUMMY_READ, &rd) || !pattern_ok(tmp, size, seed))
			scm_fail("owner device read before migration: %s",
				 strerror(errno));
		free(tmp);
	}
	memset(&mg, 0, sizeof(mg));
	mg.address = (uintptr_t)buf;
	mg.size = size / 2;
	if (ioctl(fd, HMM_DUMMY_MIGRATE_TO, &mg)) {
		if (errno != EOPNOTSUPP || pool_pages[dev] > 0)
			scm_fail("owner MIGRATE_TO: %s", strerror(errno));
	} else {
		*mig = mg.nfaulted_dev_pages;
		if (pool_pages[dev] > 0 && !*mig)
			scm_fail("owner MIGRATE_TO migrated nothing");
	}
	return fd;
}

/*
 * Process B's checks of a received file of A's mirror (@owner_alive: A
 * still has its address space): no access to A's memory, nor to B's own
 * memory through it; B's own mirror does not see A's memory either.
 */
static void scm_other_checks(int dev, int fd, const struct scm_msg *m,
			     int owner_alive)
{
	int want = owner_alive ? EPERM : ENODEV, own, i;
	size_t size = m->size;
	char *b = mmap(NULL, size + 7 * PG, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (b == MAP_FAILED) {
		scm_fail("B mmap: %s", strerror(errno));
		return;
	}
	memset(b, 0xb5, size + 7 * PG);
	scm_expect(fd, HMM_DUMMY_READ, m->addr, size, (uintptr_t)b, want,
		   "B: READ of A's memory through A's file");
	scm_expect(fd, HMM_DUMMY_WRITE, m->addr, size, (uintptr_t)b, want,
		   "B: WRITE of A's memory through A's file");
	scm_expect(fd, HMM_DUMMY_MIGRATE_TO, m->addr, size, 0, want,
		   "B: MIGRATE_TO of A's memory through A's file");
	scm_expect(fd, HMM_DUMMY_READ, (uintptr_t)b, PG, (uintptr_t)b + PG, want,
		   "B: READ of B's own memory through A's file");
	scm_expect(fd, HMM_DUMMY_EXPOSE_MM, 0, 0, 0, EBUSY,
		   "B: EXPOSE_MM of A's file");
	for (i = 0; i < (int)(size + 7 * PG); i++)
		if ((unsigned char)b[i] != 0xb5) {
			scm_fail("B: its buffer changed at offset %d (0x%02x): A's data leaked?",
				 i, (unsigned char)b[i]);
			break;
		}
	/* B's own mirror of the same device: A's range is PROT_NONE in B. */
	own = dummy_open(dev, 2);
	if (own < 0) {
		scm_fail("B: open device %d: %s", dev, strerror(errno));
	} else {
		scm_expect(own, HMM_DUMMY_EXPOSE_MM, 0, 0, 0, 0, "B: EXPOSE_MM of its own file");
		scm_expect(own, HMM_DUMMY_READ, m->addr, size, (uintptr_t)b, EFAULT,
			   "B: READ of A's addresses through B's own mirror");
		scm_expect(own, HMM_DUMMY_READ, (uintptr_t)b, PG, (uintptr_t)b + PG, 0,
			   "B: READ of its own memory through its own mirror");
		close(own);
	}
	munmap(b, size + 7 * PG);
}

static int scm_case(int dev, int variant)
{
	static const char *const names[] = {
		"other-process", "owner-exited", "in-flight-dropped",
	};
	size_t size = SCM_PAGES * PG;
	struct dstats before, s;
	struct scm_msg m;
	int sv[2], ctl[2], a2m[2] = { -1, -1 }, st, fd = -1, errs0 = scm_errors;
	int have_dbg;
	long mig = 0, v;
	char name[64], *res;
	pid_t b, a = -1;
	unsigned int seed = 0x51 + dev * 16 + variant;

	snprintf(name, sizeof(name), "scm-dev%d-%s", dev, names[variant]);
	have_dbg = !read_dstats(dev, &before);
	res = mmap(NULL, size, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (res == MAP_FAILED || socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) ||
	    pipe2(ctl, O_CLOEXEC))
		return result(name, 0, "setup: %s", strerror(errno));
	fflush(stdout);

	/* B: forked before A maps anything. */
	b = fork();
	if (!b) {
		int rfd;
		char c;

		close(sv[0]);
		close(ctl[1]);
		if (variant == 2) {
			/* Never receives: drops the file with the socket. */
			if (read(ctl[0], &c, 1) != 1)
				_exit(2);
			close(sv[1]);
			_exit(0);
		}
		if (recv_msg(sv[1], &m, &rfd) || rfd < 0) {
			scm_fail("B: no file received");
			_exit(1);
		}
		if (variant == 1) {
			/* A exits with the file in B's hands. */
			m.step = 1;
			send_msg(sv[1], &m, -1);
			if (read(ctl[0], &c, 1) != 1)
				_exit(2);
			scm_other_checks(dev, rfd, &m, 0);
			close(rfd);
			_exit(scm_errors ? 1 : 0);
		}
		scm_other_checks(dev, rfd, &m, 1);
		m.step = 1;
		m.errors = scm_errors;
		send_msg(sv[1], &m, -1);
		/* A has closed its file: B's close is the last, in B. */
		if (recv_msg(sv[1], &m, NULL))
			_exit(2);
		close(rfd);
		m.step = 3;
		send_msg(sv[1], &m, -1);
		_exit(scm_errors ? 1 : 0);
	}
	close(sv[1]);
	close(ctl[0]);

	if (variant == 1) {
		/* A: a child that exits while B holds its file. */
		if (pipe2(a2m, O_CLOEXEC))
			scm_fail("pipe: %s", strerror(errno));
		a = fork();
		if (!a) {
			fd = scm_owner_setup(dev, res, size, seed, &mig);
			if (fd < 0)
				_exit(1);
			if (have_dbg && !read_dstats(dev, &s) &&
			    s.in_use != before.in_use + mig)
				scm_fail("A: in_use %ld after migrating %ld pages, %ld before",
					 s.in_use, mig, before.in_use);
			if (write(a2m[1], &mig, sizeof(mig)) != sizeof(mig))
				_exit(3);
			m = (struct scm_msg){ (uintptr_t)res, size, mig, 0, 0 };
			if (send_msg(sv[0], &m, fd) || recv_msg(sv[0], &m, NULL))
				_exit(2);
			_exit(scm_errors ? 1 : 0);	/* the file is still open */
		}
		close(a2m[1]);
		a2m[1] = -1;
		if (a < 0 || waitpid(a, &st, 0) != a || !WIFEXITED(st) || WEXITSTATUS(st))
			scm_fail("A exited with status 0x%x", a < 0 ? -1 : st);
		if (read(a2m[0], &mig, sizeof(mig)) != sizeof(mig))
			mig = -1;
		/* A's exit_mmap() freed its device pages. */
		if (have_dbg && (v = wait_in_use(dev, before.in_use, 10)) != before.in_use)
			scm_fail("in_use %ld after A exited, %ld before A", v, before.in_use);
		if (write(ctl[1], "g", 1) != 1)
			scm_fail("ctl: %s", strerror(errno));
	} else {
		fd = scm_owner_setup(dev, res, size, seed, &mig);
		if (fd < 0)
			goto wait_b;
		if (have_dbg && !read_dstats(dev, &s) && s.in_use != before.in_use + mig)
			scm_fail("in_use %ld after migrating %ld pages, %ld before",
				 s.in_use, mig, before.in_use);
		m = (struct scm_msg){ (uintptr_t)res, size, mig, 0, 0 };
		if (send_msg(sv[0], &m, fd))
			scm_fail("sendmsg: %s", strerror(errno));
		if (variant == 0) {
			struct hmm_dummy_read rd;
			char *tmp = malloc(size);

			if (recv_msg(sv[0], &m, NULL) || m.step != 1)
				scm_fail("B's checks did not finish");
			/* B changed nothing: A's mirror still works, same data. */
			memset(&rd, 0, sizeof(rd));
			rd.address = (uintptr_t)res;
			rd.size = size;
			rd.ptr = (uintptr_t)tmp;
			if (!tmp || ioctl(fd, HMM_DUMMY_READ, &rd) ||
			    !pattern_ok(tmp, size, seed) || (long)rd.ndev_pages != mig)
				scm_fail("A's device read after B's attempts: %s, %llu device pages (migrated %ld)",
					 strerror(errno), (unsigned long long)rd.ndev_pages, mig);
			free(tmp);
		}
		close(fd);	/* B now holds the only reference */
		if (have_dbg && !read_dstats(dev, &s) && s.in_use != before.in_use + mig)
			scm_fail("in_use %ld after A closed its file (B holds it), expected %ld",
				 s.in_use, before.in_use + mig);
		if (variant == 0) {
			m.step = 2;
			send_msg(sv[0], &m, -1);
			if (recv_msg(sv[0], &m, NULL) || m.step != 3)
				scm_fail("B did not close");
		} else {
			if (write(ctl[1], "d", 1) != 1)
				scm_fail("ctl: %s", strerror(errno));
		}
	}
wait_b:
	/* Closed before the wait: a B waiting for a message sees EOF. */
	close(sv[0]);
	close(ctl[1]);
	if (waitpid(b, &st, 0) != b || !WIFEXITED(st) || WEXITSTATUS(st))
		scm_fail("B exited with status 0x%x", st);
	if (variant != 1 && fd >= 0) {
		/*
		 * The release ran in B (or when B dropped the message): A's
		 * pages came back without A touching them.
		 */
		if (have_dbg) {
			if ((v = wait_in_use(dev, before.in_use, 10)) != before.in_use)
				scm_fail("in_use %ld after the last close in B, %ld before",
					 v, before.in_use);
			if (!read_dstats(dev, &s) &&
			    (s.from_device - before.from_device != mig ||
			     s.cpu_faults != before.cpu_faults))
				scm_fail("from_device +%ld cpu_faults +%ld, expected +%ld and +0",
					 s.from_device - before.from_device,
					 s.cpu_faults - before.cpu_faults, mig);
		}
		if (!pattern_ok(res, size, seed))
			scm_fail("A's data changed after the last close in B");
	}
	if (have_dbg && !read_dstats(dev, &s) && s.poisoned != before.poisoned)
		scm_fail("poisoned +%ld", s.poisoned - before.poisoned);
	if (a2m[0] >= 0)
		close(a2m[0]);
	munmap(res, size);
	return result(name, scm_errors == errs0, "migrated=%ld%s", mig,
		      have_dbg ? "" : " (no debugfs: in_use not checked)");
}

static int run_scm(void)
{
	int fails = 0, dev, v;

	for (dev = 0; dev < 2; dev++)
		for (v = 0; v < 3; v++)
			fails += scm_case(dev, v);
	return fails;
}

/* ------------------------------------------------------------------ */
/* -T fuzz                                                             */

static void print_totals(void)
{
	unsigned long tot[NIOC][NCTX][NRES] = { { { 0 } } }, surprises[NIOC] = { 0 };
	unsigned long single[NIOC] = { 0 }, ga[NGA] = { 0 }, gs[NGS] = { 0 };
	unsigned long gp[NGP] = { 0 }, gg[NGG] = { 0 }, gf[NFK] = { 0 };
	unsigned long mops[NMOP] = { 0 }, mfail[NMOP] = { 0 }, kops[NKOP] = { 0 };
	unsigned long resv = 0, outs = 0, high = 0, all = 0;
	int i, c, r, x;

	for (i = 0; i < opt_procs; i++) {
		struct wstats *s = &stats[i];

		for (c = 0; c < NIOC; c++) {
			for (x = 0; x < NCTX; x++)
				for (r = 0; r < NRES; r++)
					tot[c][x][r] += s->calls[c][x][r];
			surprises[c] += s->surprises[c];
			single[c] += s->single[c];
		}
		for (r = 0; r < NGA; r++)
			ga[r] += s->gen_addr[r];
		for (r = 0; r < NGS; r++)
			gs[r] += s->gen_size[r];
		for (r = 0; r < NGP; r++)
			gp[r] += s->gen_ptr[r];
		for (r = 0; r < NGG; r++)
			gg[r] += s->gen_arg[r];
		for (r = 0; r < NFK; r++)
			gf[r] += s->gen_fd[r];
		for (r = 0; r < NMOP; r++) {
			mops[r] += s->mops[r];
			mfail[r] += s->mop_fail[r];
		}
		for (r = 0; r < NKOP; r++)
			kops[r] += s->kops[r];
		resv += s->reserved_set;
		outs += s->outputs_set;
		high += s->cmd_highbits;
	}
	printf("hmm-fuzz: inputs tried per ioctl and context (results):\n");
	for (c = 0; c < NIOC; c++) {
		unsigned long ioc_all = 0;

		for (x = 0; x < NCTX; x++) {
			unsigned long n = 0;
			char line[1024];
			size_t o = 0;

			for (r = 0; r < NRES; r++)
				n += tot[c][x][r];
			if (!n)
				continue;
			ioc_all += n;
			for (r = 0; r < NRES; r++)
				if (tot[c][x][r])
					o += snprintf(line + o, sizeof(line) - o, " %s=%lu",
						      res_name(r), tot[c][x][r]);
			printf("hmm-fuzz:   %-10s %-10s %8lu:%s\n", ioc_name[c],
			       ctx_name[x], n, line);
		}
		printf("hmm-fuzz:   %-10s %-10s %8lu (single expected result: %lu, surprises: %lu)\n",
		       ioc_name[c], "total", ioc_all, single[c], surprises[c]);
		all += ioc_all;
	}
	printf("hmm-fuzz: inputs tried: %lu\n", all);
#define GEN(title, names, arr, n)					\
	do {								\
		printf("hmm-fuzz: %s:", title);				\
		for (r = 0; r < (n); r++)				\
			printf(" %s=%lu", names[r], arr[r]);		\
		printf("\n");						\
	} while (0)
	GEN("random requests by file", fk_name, gf, NFK);
	GEN("  address", ga_name, ga, NGA);
	GEN("  size", gs_name, gs, NGS);
	GEN("  user buffer (READ/WRITE)", gp_name, gp, NGP);
	GEN("  argument structure", gg_name, gg, NGG);
	printf("hmm-fuzz:   reserved fields set %lu, output fields set %lu, command upper bits set %lu\n",
	       resv, outs, high);
	printf("hmm-fuzz: memory operations (failed):");
	for (r = 0; r < NMOP; r++)
		printf(" %s=%lu(%lu)", mop_name[r], mops[r], mfail[r]);
	printf("\nhmm-fuzz: K operations:");
	for (r = 0; r < NKOP; r++)
		printf(" %s=%lu", kop_name[r], kops[r]);
	printf("\n");
}

static int run_fuzz(void)
{
	struct dstats before[2], after[2];
	pid_t pids[MAX_PROCS];
	int i, d, fails = 0, dead = 0, have_dbg, in_use_ok = 1;
	unsigned long errors = 0, e_ioctl = 0, e_data = 0, e_crash = 0, e_other = 0;
	unsigned long migrated = 0, children = 0, segv = 0, inputs = 0, kills = 0;
	unsigned long rreopen = 0, reexist = 0, xraces = 0;
	unsigned long long verified = 0;
	double t0, deadline, next_progress;

	have_dbg = !read_dstats(0, &before[0]) && !read_dstats(1, &before[1]);
	if (have_dbg)
		for (d = 0; d < 2; d++)
			printf("hmm-fuzz: device%d before: pages %ld in_use %ld to_device %ld from_device %ld poisoned %ld\n",
			       d, before[d].pages, before[d].in_use, before[d].to_device,
			       before[d].from_device, before[d].poisoned);
	else
		printf("hmm-fuzz: no %s/device0,1 (debugfs not mounted?): device pages not checked\n",
		       DBG_DIR);
	stats = mmap(NULL, sizeof(*stats) * MAX_PROCS, PROT_READ | PROT_WRITE,
		     MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (stats == MAP_FAILED)
		return result("setup", 0, "mmap: %s", strerror(errno));

	t0 = mono();
	next_progress = t0 + 30;
	clock_gettime(CLOCK_MONOTONIC, &t_end);
	t_end.tv_sec += opt_time;
	fflush(stdout);
	for (i = 0; i < opt_procs; i++) {
		uint64_t ws = splitmix(opt_seed + i);

		pids[i] = fork();
		if (pids[i] < 0) {
			printf("hmm-fuzz: fork: %s\n", strerror(errno));
			pids[i] = 0;
			dead++;
			continue;
		}
		if (!pids[i])
			_exit(worker_main(i, ws));
		if (opt_verbose)
			printf("hmm-fuzz: worker %d: pid %d, seed %" PRIu64 "\n", i,
			       pids[i], ws);
	}

	deadline = t0 + opt_time + 180;
	for (;;) {
		int st, left = 0;
		pid_t p;

		for (i = 0; i < opt_procs; i++)
			left += pids[i] > 0;
		if (!left)
			break;
		p = waitpid(-1, &st, WNOHANG);
		if (p <= 0) {
			if (mono() >= next_progress) {
				unsigned long n = 0, e = 0;
				int c, x, r;

				for (i = 0; i < opt_procs; i++) {
					for (c = 0; c < NIOC; c++)
						for (x = 0; x < NCTX; x++)
							for (r = 0; r < NRES; r++)
								n += stats[i].calls[c][x][r];
					e += stats[i].errors;
				}
				printf("hmm-fuzz: %.0f s: %lu inputs, %lu errors\n",
				       mono() - t0, n, e);
				next_progress += 30;
			}
			if (mono() > deadline) {
				for (i = 0; i < opt_procs; i++)
					if (pids[i] > 0) {
						printf("hmm-fuzz: worker %d (pid %d) still running %d s after the end: killed\n",
						       i, pids[i], (int)(mono() - t0) - opt_time);
						kill(pids[i], SIGKILL);
					}
				deadline += 30;
			}
			usleep(100000);
			continue;
		}
		for (i = 0; i < opt_procs && pids[i] != p; i++)
			;
		if (i == opt_procs)
			continue;
		pids[i] = 0;
		if (WIFSIGNALED(st)) {
			printf("hmm-fuzz: worker %d died of signal %d (%s)\n", i,
			       WTERMSIG(st), strsignal(WTERMSIG(st)));
			dead++;
		} else if (!stats[i].finished) {
			printf("hmm-fuzz: worker %d exited with status %d before its final checks\n",
			       i, WEXITSTATUS(st));
			dead++;
		}
	}

	/* Every device page must be freed once the workers are gone. */
	if (have_dbg)
		for (d = 0; d < 2; d++)
			if (wait_in_use(d, before[d].in_use, 10) != before[d].in_use ||
			    read_dstats(d, &after[d]))
				in_use_ok = 0;

	for (i = 0; i < opt_procs; i++) {
		struct wstats *s = &stats[i];
		int c, x, r;

		errors += s->errors;
		e_ioctl += s->err_ioctl;
		e_data += s->err_data;
		e_crash += s->err_crash;
		e_other += s->err_other;
		migrated += s->migrated;
		verified += s->verified;
		children += s->child_runs;
		kills += s->child_kills;
		rreopen += s->racing_reopens;
		reexist += s->racing_eexist;
		xraces += s->expose_races;
		segv += s->probe_segv;
		for (c = 0; c < NIOC; c++)
			for (x = 0; x < NCTX; x++)
				for (r = 0; r < NRES; r++)
					inputs += s->calls[c][x][r];
	}
	print_totals();
	printf("hmm-fuzz: %.0f s, %d workers, racer %s: fork children %lu (%lu killed mid-way), SIGSEGV probes %lu, pages migrated %lu, K bytes verified %llu\n",
	       mono() - t0, opt_procs, opt_racer ? "on" : "off", children, kills,
	       segv, migrated, verified);
	printf("hmm-fuzz: closes racing the racer's requests %lu (EXPOSE_MM EEXIST until its release ran: %lu), concurrent EXPOSE_MM races %lu\n",
	       rreopen, reexist, xraces);
	printf("hmm-fuzz: errors %lu: ioctl results %lu, data %lu, crashes %lu, other %lu; workers dead %d\n",
	       errors, e_ioctl, e_data, e_crash, e_other, dead);
	if (have_dbg) {
		for (d = 0; d < 2; d++)
			printf("hmm-fuzz: device%d after: in_use %ld (before %ld) to_device +%ld from_device +%ld poisoned +%ld alloc_failures (pool full) +%ld\n",
			       d, after[d].in_use, before[d].in_use,
			       after[d].to_device - before[d].to_device,
			       after[d].from_device - before[d].from_device,
			       after[d].poisoned - before[d].poisoned,
			       after[d].alloc_failures - before[d].alloc_failures);
		fails += result("in_use", in_use_ok, "device0 %ld->%ld device1 %ld->%ld",
				before[0].in_use, after[0].in_use, before[1].in_use,
				after[1].in_use);
		fails += result("poisoned", after[0].poisoned == before[0].poisoned &&
				after[1].poisoned == before[1].poisoned, "+%ld +%ld",
				after[0].poisoned - before[0].poisoned,
				after[1].poisoned - before[1].poisoned);
	}
	fails += result("ioctl-results", !e_ioctl && inputs > 0, "inputs=%lu surprises=%lu",
			inputs, e_ioctl);
	fails += result("no-crash", !dead && !e_crash, "workers=%d dead=%d crashes=%lu fork-children=%lu",
			opt_procs, dead, e_crash, children);
	fails += result("data", !e_data && verified > 0, "verified=%llu errors=%lu",
			verified, e_data);
	fails += result("other", !e_other, "errors=%lu", e_other);
	fails += result("run", !fails, "seed=%" PRIu64 " inputs=%lu", opt_seed, inputs);
	return fails;
}

/* ------------------------------------------------------------------ */

/* TASK_SIZE: 56 bits with 5-level page tables, else 47. */
static uint64_t probe_task_size(void)
{
	void *p = mmap((void *)(1ULL << 50), PG, PROT_NONE, MAP_PRIVATE |
		       MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);

	if (p == MAP_FAILED)
		return (1ULL << 47) - PG;
	munmap(p, PG);
	return (1ULL << 56) - PG;
}

static void usage(void)
{
	fprintf(stderr,
		"usage: hmm-fuzz [-T fuzz|scm|perm|all] [-t SECONDS] [-p WORKERS] [-s SEED]\n"
		"                [-r 0|1] [-a ARENA_MIB] [-k K_KIB] [-v]\n"
		"  -T  mode (default fuzz)            -t  fuzz time bound (default 60)\n"
		"  -p  worker processes (default 2)   -s  seed (default: time; printed)\n"
		"  -r  racer thread per worker (1)    -a  arena MiB per worker (8)\n"
		"  -k  K (checked region) KiB (2048)  -v  verbose\n");
	exit(2);
}

int main(int argc, char **argv)
{
	const char *mode = "fuzz";
	int c, d, fails = 0;
	char *end;
	FILE *f;

	opt_seed = (uint64_t)time(NULL) ^ ((uint64_t)getpid() << 32);
	while ((c = getopt(argc, argv, "T:t:p:s:r:a:k:vh")) != -1) {
		switch (c) {
		case 'T': mode = optarg; break;
		case 't': opt_time = atoi(optarg); break;
		case 'p': opt_procs = atoi(optarg); break;
		case 's':
			opt_seed = strtoull(optarg, &end, 0);
			if (*end)
				usage();
			break;
		case 'r': opt_racer = atoi(optarg); break;
		case 'a': opt_arena_mib = strtoul(optarg, NULL, 0); break;
		case 'k': opt_k_kib = strtoul(optarg, NULL, 0); break;
		case 'v': opt_verbose = 1; break;
		default: usage();
		}
	}
	if (optind != argc || opt_time < 1 || opt_procs < 1 ||
	    opt_procs > MAX_PROCS || opt_arena_mib < 2 || opt_arena_mib > 256 ||
	    opt_k_kib < 4 || opt_k_kib > 65536 ||
	    (strcmp(mode, "fuzz") && strcmp(mode, "scm") && strcmp(mode, "perm") &&
	     strcmp(mode, "all")))
		usage();
	opt_arena_mib &= ~1UL;	/* whole 2 MiB blocks */
	setvbuf(stdout, NULL, _IOLBF, 0);
	setvbuf(stderr, NULL, _IOLBF, 0);

	task_size = probe_task_size();
	f = fopen("/proc/sys/vm/mmap_min_addr", "re");
	if (f) {
		unsigned long v;

		if (fscanf(f, "%lu", &v) == 1 && v >= PG)
			mmap_min = (v + PG - 1) & ~(PG - 1);
		fclose(f);
	}
	for (d = 0; d < 2; d++) {
		struct dstats s;

		if (!read_dstats(d, &s))
			pool_pages[d] = s.pages;
	}
	ktap_header();
	printf("hmm-fuzz: mode %s, seed %" PRIu64 " (-s %" PRIu64 "), %d s, %d workers, racer %s, arena %zu MiB, K %zu KiB\n",
	       mode, opt_seed, opt_seed, opt_time, opt_procs, opt_racer ? "on" : "off",
	       opt_arena_mib, opt_k_kib);
	printf("hmm-fuzz: TASK_SIZE 0x%" PRIx64 ", mmap_min_addr 0x%" PRIx64 ", device pool pages %ld %ld\n",
	       task_size, mmap_min, pool_pages[0], pool_pages[1]);

	c = dummy_open(0, 0);
	if (c < 0) {
		printf("hmm-fuzz: /dev/hmm_dummy_device00: %s (hmm_dummy loaded?)\n",
		       strerror(errno));
		return result("setup", 0, "no-device");
	}
	close(c);
	if (!strcmp(mode, "perm") || !strcmp(mode, "all"))
		fails += run_perm();
	if (!strcmp(mode, "scm") || !strcmp(mode, "all"))
		fails += run_scm();
	if (!strcmp(mode, "fuzz") || !strcmp(mode, "all"))
		fails += run_fuzz();
	return fails ? 1 : 0;
}
