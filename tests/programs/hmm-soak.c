// SPDX-License-Identifier: GPL-2.0
/*
 * hmm-soak: randomized soak test of the series' mirror and migration through
 * the hmm_dummy driver, run in the test guest (suite "soak", see
 * tests/guest/suites/soak.sh and scripts/soak.sh of the series repository).
 *
 * For -t seconds, -p worker processes each mirror themselves through BOTH
 * dummy devices (a minor of device 0, pfn entries, and one of device 1, DMA
 * entries) and loop over random operations on -r private anonymous regions
 * of 1 to -M MiB (about half of them 2 MiB aligned with MADV_HUGEPAGE).
 * Every region has a shadow: a second private anonymous mapping that no
 * device ever touches and that always holds what every byte of the region
 * must be. Operations (seeded with -s, printed): device write / read (either
 * device, compared with the shadow), CPU write / read, migration to either
 * device, fork (the child checks everything and writes its own copy; the
 * parent must not see it), mremap (with and without MREMAP_DONTUNMAP),
 * mprotect read-only and back (a CPU write must SIGSEGV: probed in a child,
 * a device write must fail with EPERM), MADV_DONTNEED (zero), MADV_FREE
 * (immediately rewritten), munmap + a fresh mmap (zero), and a threaded
 * phase: one thread writes the odd pages of a region with the CPU while the
 * main thread migrates the whole region and device-writes and reads the
 * even pages (per-page ownership keeps the shadow exact).
 *
 * At the end each worker checks every region, closes its device files
 * (which migrates everything back) and checks every region again. The main
 * process then waits up to 10 s for the devices' debugfs in_use to return to
 * its starting value and prints the operation counts, pages migrated to the
 * devices (sum of HMM_DUMMY_MIGRATE_TO results), pages migrated back
 * (debugfs from_device deltas), bytes verified and errors, and
 * KTAP results (ktap.h), one per check. Exit status 0 only if all pass.
 *
 * -m MiB starts stress-ng (memory pressure, and THP churn) in the background
 * when a stress-ng binary is found in PATH; the soak runs without it too.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "drivers/char/hmm_dummy_uapi.h"	/* from the kernel tree (-I) */

#include "ktap.h"

#ifndef MADV_HUGEPAGE
#define MADV_HUGEPAGE 14
#endif
#ifndef MADV_FREE
#define MADV_FREE 8
#endif
#ifndef MREMAP_DONTUNMAP
#define MREMAP_DONTUNMAP 4
#endif

#define PG		4096UL
#define MiB		(1024UL * 1024UL)
#define PMD_SZ		(2 * MiB)
#define MAX_REGIONS	16
#define MAX_PROCS	64
#define MAX_REPORTS	8	/* mismatch reports per worker */

#define DBG_DIR		"/sys/kernel/debug/hmm_dummy"
#define PINGPONG	"/sys/module/hmm_migrate/parameters/pingpong_threshold"

enum op {
	OP_DEV_WRITE, OP_DEV_READ, OP_CPU_WRITE, OP_CPU_READ, OP_MIGRATE,
	OP_FORK, OP_MREMAP, OP_MREMAP_DONTUNMAP, OP_MPROTECT, OP_DONTNEED,
	OP_FREE, OP_REMAP, OP_THREADED, OP_VERIFY, NOPS
};

static const char *const op_name[NOPS] = {
	"dev_write", "dev_read", "cpu_write", "cpu_read", "migrate", "fork",
	"mremap", "mremap_dontunmap", "mprotect", "madv_dontneed", "madv_free",
	"remap", "threaded", "verify",
};

/* Relative weights of the operations. */
static const unsigned int op_weight[NOPS] = {
	14, 14, 12, 12, 16, 2, 3, 3, 3, 4, 4, 2, 3, 2,
};

/* Per worker, in a MAP_SHARED page: the main process sums them. */
struct wstats {
	unsigned long ops[NOPS];
	unsigned long migrated;		/* sum of nfaulted_dev_pages */
	unsigned long migrate_enomem;	/* MIGRATE_TO -ENOMEM (tolerated) */
	unsigned long thread_writes;	/* CPU writes of the threaded phase */
	unsigned long sigsegv_probes;
	unsigned long long verified;	/* bytes compared with the shadow */
	unsigned long errors;
	int finished;			/* reached its final checks */
};

struct region {
	char *addr;	/* NULL: none */
	char *shadow;	/* what addr must hold; never given to a device */
	size_t size;	/* page multiple */
	int huge;	/* 2 MiB aligned, MADV_HUGEPAGE */
};

struct worker {
	int id;
	uint64_t rng;
	int fd[2];		/* device 0, device 1 */
	struct region reg[MAX_REGIONS];
	char *scratch;		/* device I/O buffer, max_size bytes */
	struct wstats *st;
	int reports;
};

static int opt_time = 60, opt_procs = 4, opt_regions = 4, opt_max_mib = 8;
static int opt_stress_mib, opt_threads = 1, opt_verbose;
static long opt_pingpong = -1;
static uint64_t opt_seed;
static size_t max_size;
static struct timespec t_end;
static struct wstats *stats;

/* What the worker is doing, for the fatal signal report. */
static const char *volatile cur_op = "setup";
static volatile int cur_worker = -1;

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

/* Uniform-ish in [0, n), n > 0. */
static size_t rndn(uint64_t *s, size_t n)
{
	return rnd(s) % n;
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

/* Fatal signal in a worker: say where, then die of it. Async-signal-safe. */
static void say(const char *s)
{
	if (write(2, s, strlen(s)) < 0)
		return;
}

static void fatal_signal(int sig, siginfo_t *si, void *uc)
{
	char num[24], *p = num + sizeof(num);
	uintptr_t a = (uintptr_t)si->si_addr;
	int i, id = cur_worker;

	(void)uc;
	*--p = 0;
	for (i = 0; i < 16; i++, a >>= 4)
		*--p = "0123456789abcdef"[a & 15];
	say(sig == SIGBUS ? "hmm-soak: FATAL: SIGBUS in worker " :
			    "hmm-soak: FATAL: SIGSEGV in worker ");
	{
		char d[4] = { (char)('0' + (id / 10) % 10), (char)('0' + id % 10), 0 };

		say(id >= 0 ? d : "main");
	}
	say(" during op ");
	say((const char *)cur_op);
	say(", fault address 0x");
	say(p);
	say("\n");
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

static void werr(struct worker *w, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void werr(struct worker *w, const char *fmt, ...)
{
	va_list ap;

	w->st->errors++;
	if (w->reports++ >= MAX_REPORTS)
		return;
	va_start(ap, fmt);
	fprintf(stderr, "hmm-soak: worker %d: ERROR: ", w->id);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
}

static void hexdump(char *out, size_t outlen, const unsigned char *p,
		    size_t n)
{
	size_t i, o = 0;

	out[0] = 0;
	for (i = 0; i < n && o + 3 < outlen; i++)
		o += snprintf(out + o, outlen - o, "%02x", p[i]);
}

/*
 * Compare @len bytes found (at @found) with the shadow (@expect) of region
 * @ri at offset @off; the region address @base is only for the report.
 * 0 if equal, -1 (and a report) if not.
 */
static int compare(struct worker *w, const char *what, int ri,
		   const char *base, size_t off, const char *found,
		   const char *expect, size_t len)
{
	const unsigned char *f = (const void *)found, *e = (const void *)expect;
	size_t i, first, last, ndiff = 0, n;
	char hf[40], he[40];

	if (!memcmp(found, expect, len)) {
		w->st->verified += len;
		return 0;
	}
	for (i = 0; i < len && f[i] == e[i]; i++)
		;
	first = last = i;
	for (; i < len; i++)
		if (f[i] != e[i]) {
			ndiff++;
			last = i;
		}
	n = len - first < 16 ? len - first : 16;
	hexdump(hf, sizeof(hf), f + first, n);
	hexdump(he, sizeof(he), e + first, n);
	werr(w, "MISMATCH (%s) region %d at %p (region offset 0x%zx, page %zu): "
	     "expected %s found %s; %zu bytes differ in [%p, %p), last at %p",
	     what, ri, (void *)(base + off + first), off + first,
	     (off + first) / PG, he, hf, ndiff, (void *)(base + off),
	     (void *)(base + off + len), (void *)(base + off + last));
	return -1;
}

/* Device I/O. Returns 0 or -errno; restarts on EINTR. */
static int dev_rw(int fd, int write, const void *addr, size_t size, void *ptr,
		  uint64_t *nsys, uint64_t *ndev)
{
	struct hmm_dummy_write cmd;	/* same layout as hmm_dummy_read */
	int ret;

	_Static_assert(sizeof(struct hmm_dummy_read) ==
		       sizeof(struct hmm_dummy_write), "layout");
	do {
		memset(&cmd, 0, sizeof(cmd));
		cmd.address = (uintptr_t)addr;
		cmd.size = size;
		cmd.ptr = (uintptr_t)ptr;
		ret = ioctl(fd, write ? HMM_DUMMY_WRITE : HMM_DUMMY_READ, &cmd);
	} while (ret && errno == EINTR);
	if (ret)
		return -errno;
	if (nsys)
		*nsys = cmd.nsys_pages;
	if (ndev)
		*ndev = cmd.ndev_pages;
	return 0;
}

/* Pages touched by [addr, addr + size). */
static uint64_t span_pages(const char *addr, size_t size)
{
	uintptr_t a = (uintptr_t)addr;

	return ((a + size + PG - 1) / PG) - a / PG;
}

/* Device read of region @ri [off, off + len) into scratch, compared. */
static int dev_verify(struct worker *w, int ri, int dev, size_t off,
		      size_t len, const char *what)
{
	struct region *r = &w->reg[ri];
	uint64_t nsys = 0, ndev = 0;
	size_t done, n;
	int ret;

	for (done = 0; done < len; done += n) {
		n = len - done < max_size ? len - done : max_size;
		ret = dev_rw(w->fd[dev], 0, r->addr + off + done, n,
			     w->scratch, &nsys, &ndev);
		if (ret) {
			werr(w, "%s: device %d read of %zu bytes at %p (region %d): %s",
			     what, dev, n, (void *)(r->addr + off + done), ri,
			     strerror(-ret));
			return -1;
		}
		if (nsys + ndev != span_pages(r->addr + off + done, n)) {
			werr(w, "%s: device %d read at %p: %" PRIu64 " sys + %" PRIu64
			     " dev pages for %" PRIu64 " pages", what, dev,
			     (void *)(r->addr + off + done), nsys, ndev,
			     span_pages(r->addr + off + done, n));
			return -1;
		}
		if (compare(w, what, ri, r->addr, off + done, w->scratch,
			    r->shadow + off + done, n))
			return -1;
	}
	return 0;
}

static int cpu_verify(struct worker *w, int ri, size_t off, size_t len,
		      const char *what)
{
	struct region *r = &w->reg[ri];

	return compare(w, what, ri, r->addr, off, r->addr + off,
		       r->shadow + off, len);
}

/* A random range of region @r: *off, returns the length (> 0). */
static size_t pick_range(struct worker *w, struct region *r, size_t *off,
			 int page_aligned)
{
	size_t len, k = rndn(&w->rng, 8);

	if (k == 0) {
		*off = 0;
		return r->size;
	}
	if (k <= 2 || page_aligned) {
		size_t np = r->size / PG, maxp = np < 512 ? np : 512;
		size_t p = 1 + rndn(&w->rng, maxp);

		*off = rndn(&w->rng, np - p + 1) * PG;
		return p * PG;
	}
	if (k == 3 && r->size >= PMD_SZ) {
		/* a 2 MiB block of the region's address space */
		uintptr_t a = (uintptr_t)r->addr + rndn(&w->rng, r->size);
		uintptr_t s = a & ~(PMD_SZ - 1), e = s + PMD_SZ;

		if (s < (uintptr_t)r->addr)
			s = (uintptr_t)r->addr;
		if (e > (uintptr_t)r->addr + r->size)
			e = (uintptr_t)r->addr + r->size;
		*off = s - (uintptr_t)r->addr;
		return e - s;
	}
	/* Any bytes, up to 1 MiB (mostly small). */
	len = 1 + rndn(&w->rng, k == 4 ? MiB : 3 * PG);
	if (len > r->size)
		len = r->size;
	*off = rndn(&w->rng, r->size - len + 1);
	return len;
}

/* Reserve @size bytes of address space, 2 MiB aligned if @huge. */
static char *reserve(size_t size, int huge)
{
	size_t extra = huge ? PMD_SZ : 0;
	char *p, *a;

	p = mmap(NULL, size + extra, PROT_NONE,
		 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (p == MAP_FAILED)
		return NULL;
	if (!huge)
		return p;
	a = (char *)(((uintptr_t)p + PMD_SZ - 1) & ~(PMD_SZ - 1));
	if (a > p)
		munmap(p, a - p);
	if (p + size + extra > a + size)
		munmap(a + size, p + size + extra - (a + size));
	return a;
}

static void free_region(struct region *r)
{
	if (r->addr)
		munmap(r->addr, r->size);
	if (r->shadow)
		munmap(r->shadow, r->size);
	r->addr = r->shadow = NULL;
}

/* A fresh region (zero; sometimes filled by the CPU). 0 or -1. */
static int new_region(struct worker *w, int ri)
{
	struct region *r = &w->reg[ri];
	size_t np = (MiB + rndn(&w->rng, (size_t)opt_max_mib * MiB - MiB + 1)) / PG;
	char *a;

	r->huge = rndn(&w->rng, 2);
	r->size = np * PG;
	if (r->huge)
		r->size = (r->size + PMD_SZ - 1) & ~(PMD_SZ - 1);
	if (r->size > max_size)
		r->size = max_size;
	a = reserve(r->size, r->huge);
	if (!a || mmap(a, r->size, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0) != a) {
		werr(w, "mmap of %zu bytes: %s", r->size, strerror(errno));
		return -1;
	}
	r->addr = a;
	if (r->huge && madvise(a, r->size, MADV_HUGEPAGE))
		werr(w, "MADV_HUGEPAGE: %s", strerror(errno));
	r->shadow = mmap(NULL, r->size, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (r->shadow == MAP_FAILED) {
		r->shadow = NULL;
		werr(w, "shadow mmap of %zu bytes: %s", r->size, strerror(errno));
		return -1;
	}
	if (rndn(&w->rng, 4)) {
		rnd_fill(&w->rng, r->shadow, r->size);
		memcpy(r->addr, r->shadow, r->size);
	}
	return 0;
}

static int op_dev_write(struct worker *w, int ri)
{
	struct region *r = &w->reg[ri];
	int dev = rndn(&w->rng, 2), ret;
	uint64_t nsys = 0, ndev = 0;
	size_t off, len;

	len = pick_range(w, r, &off, 0);
	rnd_fill(&w->rng, w->scratch, len);
	ret = dev_rw(w->fd[dev], 1, r->addr + off, len, w->scratch, &nsys, &ndev);
	if (ret) {
		werr(w, "device %d write of %zu bytes at %p (region %d): %s",
		     dev, len, (void *)(r->addr + off), ri, strerror(-ret));
		return -1;
	}
	memcpy(r->shadow + off, w->scratch, len);
	if (nsys + ndev != span_pages(r->addr + off, len)) {
		werr(w, "device %d write at %p: %" PRIu64 " sys + %" PRIu64
		     " dev pages for %" PRIu64 " pages", dev,
		     (void *)(r->addr + off), nsys, ndev,
		     span_pages(r->addr + off, len));
		return -1;
	}
	return 0;
}

static int op_dev_read(struct worker *w, int ri)
{
	struct region *r = &w->reg[ri];
	size_t off, len = pick_range(w, r, &off, 0);

	return dev_verify(w, ri, rndn(&w->rng, 2), off, len, "device read");
}

static int op_cpu_write(struct worker *w, int ri)
{
	struct region *r = &w->reg[ri];
	size_t off, len = pick_range(w, r, &off, 0), i;

	if (rndn(&w->rng, 4) == 0) {
		/* scattered single bytes, one per page */
		for (i = off; i < off + len; i += PG) {
			char v = (char)rnd(&w->rng);

			r->addr[i] = v;
			r->shadow[i] = v;
		}
		return 0;
	}
	rnd_fill(&w->rng, r->shadow + off, len);
	memcpy(r->addr + off, r->shadow + off, len);
	return 0;
}

static int op_cpu_read(struct worker *w, int ri)
{
	struct region *r = &w->reg[ri];
	size_t off, len = pick_range(w, r, &off, 0);

	return cpu_verify(w, ri, off, len, "CPU read");
}

static int migrate(struct worker *w, int dev, char *addr, size_t len)
{
	struct hmm_dummy_migrate cmd;
	int ret;

	do {
		memset(&cmd, 0, sizeof(cmd));
		cmd.address = (uintptr_t)addr;
		cmd.size = len;
		ret = ioctl(w->fd[dev], HMM_DUMMY_MIGRATE_TO, &cmd);
	} while (ret && errno == EINTR);
	if (ret && errno == ENOMEM) {
		/* Kernel allocation failure under pressure: not a data error. */
		w->st->migrate_enomem++;
		return 0;
	}
	if (ret) {
		werr(w, "device %d MIGRATE_TO of %zu bytes at %p: %s", dev, len,
		     (void *)addr, strerror(errno));
		return -1;
	}
	if (cmd.nfaulted_dev_pages > span_pages(addr, len)) {
		werr(w, "device %d MIGRATE_TO at %p: %llu pages migrated of %" PRIu64,
		     dev, (void *)addr, (unsigned long long)cmd.nfaulted_dev_pages,
		     span_pages(addr, len));
		return -1;
	}
	__atomic_add_fetch(&w->st->migrated, cmd.nfaulted_dev_pages,
			   __ATOMIC_RELAXED);
	return 0;
}

static int op_migrate(struct worker *w, int ri)
{
	struct region *r = &w->reg[ri];
	size_t off, len = pick_range(w, r, &off, 0);

	return migrate(w, rndn(&w->rng, 2), r->addr + off, len);
}

static int op_verify(struct worker *w, int ri)
{
	struct region *r = &w->reg[ri];
	int how = rndn(&w->rng, 3);

	if (how == 2)
		return cpu_verify(w, ri, 0, r->size, "full CPU verify");
	return dev_verify(w, ri, how, 0, r->size, "full device verify");
}

/* Wait for @pid: its exit status, or 256 + signal. */
static int wait_pid(pid_t pid)
{
	int status;

	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return -1;
	if (WIFEXITED(status))
		return WEXITSTATUS(status);
	return 256 + WTERMSIG(status);
}

/*
 * Fork: the child checks every region against the shadow (its copies of
 * both), checks that it cannot use the parent's mirrors, writes some pages
 * of one region and exits; the parent must not see those writes.
 */
static int op_fork(struct worker *w, int ri)
{
	struct region *r = &w->reg[ri];
	size_t np = r->size / PG, pages[16], i, n = 1 + rndn(&w->rng, 16);
	uint64_t crng = rnd(&w->rng);
	pid_t pid;
	int st, j;

	for (i = 0; i < n; i++)
		pages[i] = rndn(&w->rng, np);
	pid = fork();
	if (pid < 0) {
		werr(w, "fork: %s", strerror(errno));
		return -1;
	}
	if (!pid) {
		char tmp[64];
		int ret;

		cur_op = "fork child";
		for (j = 0; j < opt_regions; j++)
			if (cpu_verify(w, j, 0, w->reg[j].size, "fork child read"))
				_exit(1);
		ret = dev_rw(w->fd[crng & 1], 0, r->addr, sizeof(tmp), tmp,
			     NULL, NULL);
		if (ret != -EPERM) {
			werr(w, "fork child: device read through the parent's mirror: %s, expected EPERM",
			     ret ? strerror(-ret) : "success");
			_exit(1);
		}
		for (i = 0; i < n; i++) {
			char *p = r->addr + pages[i] * PG;

			rnd_fill(&crng, r->shadow + pages[i] * PG, PG);
			memcpy(p, r->shadow + pages[i] * PG, PG);
			if (cpu_verify(w, ri, pages[i] * PG, PG, "fork child write"))
				_exit(1);
		}
		_exit(0);
	}
	st = wait_pid(pid);
	if (st) {
		werr(w, "fork child exited with %s %d", st > 255 ? "signal" : "status",
		     st > 255 ? st - 256 : st);
		return -1;
	}
	/* The child counted its bytes verified in the shared statistics. */
	for (i = 0; i < n; i++) {
		int how = rndn(&w->rng, 3);

		if (how == 2 ? cpu_verify(w, ri, pages[i] * PG, PG, "parent after fork")
			     : dev_verify(w, ri, how, pages[i] * PG, PG,
					  "parent after fork"))
			return -1;
	}
	return 0;
}

static int op_mremap(struct worker *w, int ri, int dontunmap)
{
	struct region *r = &w->reg[ri];
	char *old = r->addr, *dst, *n, tmp[64];
	int flags = MREMAP_MAYMOVE | MREMAP_FIXED, ret;
	size_t off, len;

	dst = reserve(r->size, r->huge);
	if (!dst) {
		werr(w, "mremap: no address space: %s", strerror(errno));
		return -1;
	}
	if (dontunmap)
		flags |= MREMAP_DONTUNMAP;
	n = mremap(old, r->size, r->size, flags, dst);
	if (n == MAP_FAILED) {
		werr(w, "mremap%s of region %d (%zu bytes at %p): %s",
		     dontunmap ? " DONTUNMAP" : "", ri, r->size, (void *)old,
		     strerror(errno));
		munmap(dst, r->size);
		return -1;
	}
	if (n != dst) {
		werr(w, "mremap moved region %d to %p, not %p", ri, (void *)n,
		     (void *)dst);
		r->addr = n;
		return -1;
	}
	r->addr = n;
	if (dontunmap) {
		/* The old range stays mapped and reads zero (CPU, device). */
		static char zero[PG];
		int dev = rndn(&w->rng, 2);

		len = pick_range(w, r, &off, 0);
		if (len > PG)
			len = PG;
		ret = dev_rw(w->fd[dev], 0, old + off, len, w->scratch, NULL, NULL);
		if (ret)
			werr(w, "device %d read of the old range of a DONTUNMAP mremap at %p: %s",
			     dev, (void *)(old + off), strerror(-ret));
		else if (memcmp(w->scratch, zero, len))
			werr(w, "device %d read of the old range of a DONTUNMAP mremap at %p: not zero",
			     dev, (void *)(old + off));
		for (off = 0; off < r->size; off += PG)
			if (memcmp(old + off, zero, PG)) {
				werr(w, "old range of a DONTUNMAP mremap not zero at %p",
				     (void *)(old + off));
				break;
			}
		munmap(old, r->size);
		if (ret || off < r->size)
			return -1;
		w->st->verified += r->size + len;
	} else {
		/* Nothing mapped there any more: the device must fail. */
		ret = dev_rw(w->fd[rndn(&w->rng, 2)], 0, old, sizeof(tmp), tmp,
			     NULL, NULL);
		if (ret != -EFAULT) {
			werr(w, "device read of the unmapped old range %p after mremap: %s, expected EFAULT",
			     (void *)old, ret ? strerror(-ret) : "success");
			return -1;
		}
	}
	len = pick_range(w, r, &off, 0);
	if (rndn(&w->rng, 2))
		return dev_verify(w, ri, rndn(&w->rng, 2), off, len, "after mremap");
	return cpu_verify(w, ri, off, len, "after mremap");
}

/* A CPU write to @p, in a child: it must die of SIGSEGV. */
static int segv_probe(struct worker *w, char *p)
{
	pid_t pid = fork();
	int st;

	if (pid < 0) {
		werr(w, "fork: %s", strerror(errno));
		return -1;
	}
	if (!pid) {
		struct rlimit no_core = { 0, 0 };

		setrlimit(RLIMIT_CORE, &no_core);
		signal(SIGSEGV, SIG_DFL);
		*(volatile char *)p = 1;
		_exit(10);
	}
	w->st->sigsegv_probes++;
	st = wait_pid(pid);
	if (st != 256 + SIGSEGV) {
		werr(w, "CPU write to read-only %p in a child: %s %d, expected SIGSEGV",
		     (void *)p, st > 255 ? "signal" : "exit status",
		     st > 255 ? st - 256 : st);
		return -1;
	}
	return 0;
}

static int op_mprotect(struct worker *w, int ri)
{
	struct region *r = &w->reg[ri];
	size_t off, len, pg = rndn(&w->rng, r->size / PG);
	int dev = rndn(&w->rng, 2), ret, err = 0;

	if (mprotect(r->addr, r->size, PROT_READ)) {
		werr(w, "mprotect(PROT_READ) of region %d: %s", ri, strerror(errno));
		return -1;
	}
	cur_op = "mprotect (read-only)";
	if (rndn(&w->rng, 2))
		err |= migrate(w, rndn(&w->rng, 2), r->addr, r->size);
	/* A device write fails at its first page: nothing is written. */
	rnd_fill(&w->rng, w->scratch, PG);
	ret = dev_rw(w->fd[dev], 1, r->addr + pg * PG, PG, w->scratch, NULL, NULL);
	if (ret != -EPERM) {
		werr(w, "device %d write to read-only %p: %s, expected EPERM", dev,
		     (void *)(r->addr + pg * PG), ret ? strerror(-ret) : "success");
		err = -1;
		if (!ret)	/* keep the shadow exact anyway */
			memcpy(r->shadow + pg * PG, w->scratch, PG);
	}
	if (rndn(&w->rng, 2))
		err |= segv_probe(w, r->addr + pg * PG + rndn(&w->rng, PG));
	len = pick_range(w, r, &off, 0);
	err |= dev_verify(w, ri, rndn(&w->rng, 2), off, len, "read-only device read");
	len = pick_range(w, r, &off, 0);
	err |= cpu_verify(w, ri, off, len, "read-only CPU read");
	if (mprotect(r->addr, r->size, PROT_READ | PROT_WRITE)) {
		werr(w, "mprotect(PROT_READ|PROT_WRITE) of region %d: %s", ri,
		     strerror(errno));
		return -1;
	}
	return err ? -1 : 0;
}

/* Rewrite [off, off + len) of region @ri by the CPU or a device. */
static int rewrite(struct worker *w, int ri, size_t off, size_t len)
{
	struct region *r = &w->reg[ri];
	int dev = rndn(&w->rng, 3), ret;

	if (dev == 2) {
		rnd_fill(&w->rng, r->shadow + off, len);
		memcpy(r->addr + off, r->shadow + off, len);
		return 0;
	}
	rnd_fill(&w->rng, w->scratch, len);
	ret = dev_rw(w->fd[dev], 1, r->addr + off, len, w->scratch, NULL, NULL);
	if (ret) {
		werr(w, "device %d rewrite of %zu bytes at %p: %s", dev, len,
		     (void *)(r->addr + off), strerror(-ret));
		return -1;
	}
	memcpy(r->shadow + off, w->scratch, len);
	return 0;
}

static int op_madvise(struct worker *w, int ri, int advice)
{
	struct region *r = &w->reg[ri];
	size_t off, len = pick_range(w, r, &off, 1);

	if (madvise(r->addr + off, len, advice)) {
		werr(w, "madvise(%s) of %zu bytes at %p: %s",
		     advice == MADV_FREE ? "MADV_FREE" : "MADV_DONTNEED", len,
		     (void *)(r->addr + off), strerror(errno));
		return -1;
	}
	if (advice == MADV_FREE) {
		/* Old data or zero: rewrite it right away to stay exact. */
		if (rewrite(w, ri, off, len))
			return -1;
	} else {
		memset(r->shadow + off, 0, len);
	}
	if (rndn(&w->rng, 2))
		return dev_verify(w, ri, rndn(&w->rng, 2), off, len, "after madvise");
	return cpu_verify(w, ri, off, len, "after madvise");
}

static int op_remap(struct worker *w, int ri)
{
	struct region *r = &w->reg[ri];

	free_region(r);
	if (new_region(w, ri))
		return -1;
	return op_verify(w, ri);
}

/*
 * Threaded phase: a thread writes (and reads back) the odd pages of a
 * region with the CPU, while the main thread migrates the whole region or
 * 2 MiB blocks of it to either device and writes and reads the even pages
 * through either device.
 */
struct tphase {
	struct worker *w;
	int ri;
	uint64_t rng;
	volatile int stop;
	unsigned long writes;
	int bad;	/* page of the first mismatch + 1 */
};

static void *cpu_thread(void *arg)
{
	struct tphase *t = arg;
	struct region *r = &t->w->reg[t->ri];
	size_t np = r->size / PG, p, o, len;
	char buf[PG];

	while (!__atomic_load_n(&t->stop, __ATOMIC_RELAXED)) {
		p = rndn(&t->rng, np / 2) * 2 + 1;
		o = rndn(&t->rng, PG);
		len = 1 + rndn(&t->rng, PG - o);
		rnd_fill(&t->rng, buf, len);
		memcpy(r->shadow + p * PG + o, buf, len);
		memcpy(r->addr + p * PG + o, buf, len);
		t->writes++;
		if (!(t->writes & 15) &&
		    memcmp(r->addr + p * PG, r->shadow + p * PG, PG)) {
			t->bad = p + 1;
			break;
		}
	}
	return NULL;
}

static int op_threaded(struct worker *w, int ri)
{
	struct region *r = &w->reg[ri];
	size_t np = r->size / PG, p, o, len;
	struct tphase t;
	pthread_t th;
	double end;
	int ret, err = 0, dev;

	memset(&t, 0, sizeof(t));
	t.w = w;
	t.ri = ri;
	t.rng = splitmix(rnd(&w->rng));
	ret = pthread_create(&th, NULL, cpu_thread, &t);
	if (ret) {
		werr(w, "pthread_create: %s", strerror(ret));
		return -1;
	}
	end = mono() + 0.1 + rndn(&w->rng, 400) / 1000.0;
	while (!err && mono() < end && !t.bad) {
		dev = rndn(&w->rng, 2);
		switch (rndn(&w->rng, 4)) {
		case 0: {
			size_t off, l = pick_range(w, r, &off, 1);

			err = migrate(w, dev, r->addr + off, l);
			break;
		}
		case 1:
			p = rndn(&w->rng, (np + 1) / 2) * 2;
			o = rndn(&w->rng, PG);
			len = 1 + rndn(&w->rng, PG - o);
			rnd_fill(&w->rng, w->scratch, len);
			ret = dev_rw(w->fd[dev], 1, r->addr + p * PG + o, len,
				     w->scratch, NULL, NULL);
			if (ret) {
				werr(w, "threaded: device %d write at %p: %s", dev,
				     (void *)(r->addr + p * PG + o), strerror(-ret));
				err = -1;
				break;
			}
			memcpy(r->shadow + p * PG + o, w->scratch, len);
			break;
		case 2:
			p = rndn(&w->rng, (np + 1) / 2) * 2;
			err = dev_verify(w, ri, dev, p * PG, PG,
					 "threaded: device read of an even page");
			break;
		default:
			p = rndn(&w->rng, (np + 1) / 2) * 2;
			err = cpu_verify(w, ri, p * PG, PG,
					 "threaded: CPU read of an even page");
			break;
		}
	}
	__atomic_store_n(&t.stop, 1, __ATOMIC_RELAXED);
	pthread_join(th, NULL);
	w->st->thread_writes += t.writes;
	if (t.bad) {
		/* report it through the common path */
		cpu_verify(w, ri, (t.bad - 1) * PG, PG,
			   "threaded: CPU read back of an odd page");
		return -1;
	}
	if (err)
		return -1;
	return op_verify(w, ri);
}

static int pick_op(struct worker *w)
{
	unsigned int total = 0, i, x;

	for (i = 0; i < NOPS; i++)
		total += (i == OP_THREADED && !opt_threads) ? 0 : op_weight[i];
	x = rndn(&w->rng, total);
	for (i = 0; i < NOPS; i++) {
		unsigned int wt = (i == OP_THREADED && !opt_threads) ? 0 : op_weight[i];

		if (x < wt)
			return i;
		x -= wt;
	}
	return OP_CPU_READ;
}

static int dummy_open(int device, int minor)
{
	char path[64];

	snprintf(path, sizeof(path), "/dev/hmm_dummy_device%d%d", device, minor);
	return open(path, O_RDWR | O_CLOEXEC);
}

static int run_op(struct worker *w, int op, int ri)
{
	switch (op) {
	case OP_DEV_WRITE: return op_dev_write(w, ri);
	case OP_DEV_READ: return op_dev_read(w, ri);
	case OP_CPU_WRITE: return op_cpu_write(w, ri);
	case OP_CPU_READ: return op_cpu_read(w, ri);
	case OP_MIGRATE: return op_migrate(w, ri);
	case OP_FORK: return op_fork(w, ri);
	case OP_MREMAP: return op_mremap(w, ri, 0);
	case OP_MREMAP_DONTUNMAP: return op_mremap(w, ri, 1);
	case OP_MPROTECT: return op_mprotect(w, ri);
	case OP_DONTNEED: return op_madvise(w, ri, MADV_DONTNEED);
	case OP_FREE: return op_madvise(w, ri, MADV_FREE);
	case OP_REMAP: return op_remap(w, ri);
	case OP_THREADED: return op_threaded(w, ri);
	default: return op_verify(w, ri);
	}
}

static int worker_main(int id, uint64_t seed)
{
	struct worker w;
	int i, d, fd, op, err = 0;

	memset(&w, 0, sizeof(w));
	w.id = id;
	w.rng = splitmix(seed) | 1;
	w.st = &stats[id];
	cur_worker = id;
	catch_fatal();
	w.fd[0] = w.fd[1] = -1;
	for (d = 0; d < 2; d++) {
		w.fd[d] = dummy_open(d, id % 4);
		if (w.fd[d] < 0) {
			werr(&w, "open /dev/hmm_dummy_device%d%d: %s", d, id % 4,
			     strerror(errno));
			return 1;
		}
		if (ioctl(w.fd[d], HMM_DUMMY_EXPOSE_MM)) {
			werr(&w, "HMM_DUMMY_EXPOSE_MM on device %d: %s", d,
			     strerror(errno));
			return 1;
		}
		/* A second mirror of this process by the same device: EEXIST. */
		fd = dummy_open(d, (id + 1) % 4);
		if (fd >= 0) {
			if (!ioctl(fd, HMM_DUMMY_EXPOSE_MM) || errno != EEXIST)
				werr(&w, "second HMM_DUMMY_EXPOSE_MM on device %d: %s, expected EEXIST",
				     d, strerror(errno));
			close(fd);
		}
	}
	w.scratch = mmap(NULL, max_size, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (w.scratch == MAP_FAILED) {
		werr(&w, "scratch mmap: %s", strerror(errno));
		return 1;
	}
	for (i = 0; i < opt_regions; i++)
		if (new_region(&w, i))
			return 1;

	while (!err && !time_up()) {
		op = pick_op(&w);
		i = rndn(&w.rng, opt_regions);
		cur_op = op_name[op];
		err = run_op(&w, op, i);
		w.st->ops[op]++;
	}

	/* Final checks: everything, then again once the devices let go. */
	cur_op = "final verify";
	for (i = 0; i < opt_regions && !err; i++)
		err = dev_verify(&w, i, i & 1, 0, w.reg[i].size, "final device verify");
	cur_op = "close (migrate back)";
	close(w.fd[0]);
	close(w.fd[1]);
	cur_op = "final CPU verify after close";
	for (i = 0; i < opt_regions && !err; i++)
		err = cpu_verify(&w, i, 0, w.reg[i].size, "CPU verify after close");
	for (i = 0; i < opt_regions; i++)
		free_region(&w.reg[i]);
	w.st->finished = 1;
	return w.st->errors ? 1 : 0;
}

/* debugfs statistics of a device */
struct dstats {
	long in_use, to_device, from_device, cpu_faults, poisoned, alloc_failures;
};

static int read_dstats(int dev, struct dstats *s)
{
	char path[64], line[128], key[64];
	long v;
	FILE *f;

	memset(s, 0xff, sizeof(*s));	/* -1: missing */
	snprintf(path, sizeof(path), DBG_DIR "/device%d", dev);
	f = fopen(path, "re");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%63s %ld", key, &v) != 2)
			continue;
		if (!strcmp(key, "in_use"))
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

static long read_param(const char *path)
{
	long v = -1;
	FILE *f = fopen(path, "re");

	if (!f)
		return -1;
	if (fscanf(f, "%ld", &v) != 1)
		v = -1;
	fclose(f);
	return v;
}

static int write_param(const char *path, long v)
{
	FILE *f = fopen(path, "we");
	int ok;

	if (!f)
		return -1;
	ok = fprintf(f, "%ld\n", v) > 0;
	return fclose(f) || !ok ? -1 : 0;
}

/* Is @name an executable in PATH? */
static int in_path(const char *name)
{
	const char *path = getenv("PATH");
	char buf[4096], *s, *save;

	snprintf(buf, sizeof(buf), "%s", path ? path : "/bin:/usr/bin");
	for (s = strtok_r(buf, ":", &save); s; s = strtok_r(NULL, ":", &save)) {
		char f[4200];

		snprintf(f, sizeof(f), "%s/%s", s, name);
		if (!access(f, X_OK))
			return 1;
	}
	return 0;
}

/* Start a stress-ng in its own process group; its pid or -1. */
static pid_t start_stress(char *const argv[])
{
	pid_t pid = fork();

	if (pid < 0)
		return -1;
	if (!pid) {
		setpgid(0, 0);
		execvp(argv[0], argv);
		fprintf(stderr, "hmm-soak: exec %s: %s\n", argv[0], strerror(errno));
		_exit(127);
	}
	setpgid(pid, pid);
	return pid;
}

static void stop_stress(pid_t pid)
{
	int i, st = 0;

	if (pid <= 0)
		return;
	kill(-pid, SIGTERM);
	for (i = 0; i < 100; i++) {
		if (waitpid(pid, &st, WNOHANG) == pid)
			goto reaped;
		usleep(100000);
	}
	kill(-pid, SIGKILL);
	waitpid(pid, &st, 0);
reaped:
	kill(-pid, SIGKILL);	/* stray stressor processes of the group */
	if (WIFEXITED(st) && WEXITSTATUS(st) == 127)
		printf("hmm-soak: stress-ng could not run (see above)\n");
}

static void usage(void)
{
	fprintf(stderr,
		"usage: hmm-soak [-t SECONDS] [-p PROCS] [-s SEED] [-r REGIONS] [-M MAX_MIB]\n"
		"                [-m STRESS_MIB] [-P PINGPONG_THRESHOLD] [-T] [-v]\n"
		"  -t  run time (default 60)        -p  worker processes (default 4)\n"
		"  -s  seed (default: time)          -r  regions per worker (default 4)\n"
		"  -M  largest region in MiB (8)     -T  no threaded phase\n"
		"  -m  stress-ng --vm pressure of this many MiB, plus THP churn (if found)\n"
		"  -P  set pingpong_threshold during the run (0: control off)\n");
	exit(2);
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

int main(int argc, char **argv)
{
	struct dstats before[2], after[2];
	pid_t pids[MAX_PROCS], stress[2] = { -1, -1 };
	int c, i, d, fails = 0, dead = 0, have_dbg, in_use_ok = 1;
	unsigned long long verified = 0;
	unsigned long ops[NOPS] = { 0 }, migrated = 0, enomem = 0, errors = 0;
	unsigned long twrites = 0, probes = 0, nops = 0;
	long saved_pp = -1;
	double t0, deadline, waited, next_progress;
	char *end;

	opt_seed = (uint64_t)time(NULL) ^ ((uint64_t)getpid() << 32);
	while ((c = getopt(argc, argv, "t:p:s:r:M:m:P:Tvh")) != -1) {
		switch (c) {
		case 't': opt_time = atoi(optarg); break;
		case 'p': opt_procs = atoi(optarg); break;
		case 's':
			opt_seed = strtoull(optarg, &end, 0);
			if (*end)
				usage();
			break;
		case 'r': opt_regions = atoi(optarg); break;
		case 'M': opt_max_mib = atoi(optarg); break;
		case 'm': opt_stress_mib = atoi(optarg); break;
		case 'P': opt_pingpong = atol(optarg); break;
		case 'T': opt_threads = 0; break;
		case 'v': opt_verbose = 1; break;
		default: usage();
		}
	}
	if (optind != argc || opt_time < 1 || opt_procs < 1 ||
	    opt_procs > MAX_PROCS || opt_regions < 1 ||
	    opt_regions > MAX_REGIONS || opt_max_mib < 1 || opt_max_mib > 1024 ||
	    opt_stress_mib < 0)
		usage();
	max_size = ((size_t)opt_max_mib * MiB + PMD_SZ - 1) & ~(PMD_SZ - 1);
	setvbuf(stdout, NULL, _IOLBF, 0);
	setvbuf(stderr, NULL, _IOLBF, 0);

	ktap_header();
	printf("hmm-soak: seed %" PRIu64 " (-s %" PRIu64 "), %d s, %d workers, %d regions of 1-%d MiB, threads %s, stress-ng %d MiB\n",
	       opt_seed, opt_seed, opt_time, opt_procs, opt_regions, opt_max_mib,
	       opt_threads ? "on" : "off", opt_stress_mib);

	c = dummy_open(0, 0);
	if (c < 0) {
		printf("hmm-soak: /dev/hmm_dummy_device00: %s (hmm_dummy loaded?)\n",
		       strerror(errno));
		return result("setup", 0, "no-device");
	}
	close(c);
	have_dbg = !read_dstats(0, &before[0]) && !read_dstats(1, &before[1]);
	if (!have_dbg)
		printf("hmm-soak: no %s/device0,1 (debugfs not mounted, or hmm_dummy without migration?)\n",
		       DBG_DIR);
	else
		for (d = 0; d < 2; d++)
			printf("hmm-soak: device%d before: in_use %ld to_device %ld from_device %ld cpu_faults %ld poisoned %ld alloc_failures %ld\n",
			       d, before[d].in_use, before[d].to_device,
			       before[d].from_device, before[d].cpu_faults,
			       before[d].poisoned, before[d].alloc_failures);
	printf("hmm-soak: pingpong_threshold %ld", read_param(PINGPONG));
	if (opt_pingpong >= 0) {
		saved_pp = read_param(PINGPONG);
		if (saved_pp < 0 || write_param(PINGPONG, opt_pingpong))
			printf(" (cannot set it to %ld)", opt_pingpong);
		else
			printf(" -> %ld for the run", opt_pingpong);
	}
	printf("\n");

	stats = mmap(NULL, sizeof(*stats) * MAX_PROCS, PROT_READ | PROT_WRITE,
		     MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (stats == MAP_FAILED) {
		perror("hmm-soak: mmap");
		return 1;
	}

	if (opt_stress_mib && !in_path("stress-ng")) {
		printf("hmm-soak: no stress-ng in PATH: running without background pressure\n");
	} else if (opt_stress_mib) {
		char vmb[32], vmb2[32], tmo[32];
		char *a1[] = { "stress-ng", "--vm", "1", "--vm-bytes", vmb,
			       "--vm-keep", "--page-in", "--timeout", tmo, NULL };
		char *a2[] = { "stress-ng", "--vm", "1", "--vm-bytes", vmb2,
			       "--vm-madvise", "hugepage", "--timeout", tmo, NULL };

		snprintf(vmb, sizeof(vmb), "%dM", opt_stress_mib);
		snprintf(vmb2, sizeof(vmb2), "%dM",
			 opt_stress_mib / 4 > 4 ? opt_stress_mib / 4 : 4);
		snprintf(tmo, sizeof(tmo), "%ds", opt_time + 30);
		stress[0] = start_stress(a1);
		stress[1] = start_stress(a2);
		printf("hmm-soak: stress-ng: pressure --vm-bytes %s --vm-keep --page-in (pid %d), THP churn --vm-bytes %s --vm-madvise hugepage (pid %d)\n",
		       vmb, stress[0], vmb2, stress[1]);
	}

	t0 = mono();
	next_progress = t0 + 30;
	clock_gettime(CLOCK_MONOTONIC, &t_end);
	t_end.tv_sec += opt_time;
	for (i = 0; i < opt_procs; i++) {
		uint64_t ws = splitmix(opt_seed + i);

		pids[i] = fork();
		if (pids[i] < 0) {
			perror("hmm-soak: fork");
			pids[i] = 0;
			fails++;
			continue;
		}
		if (!pids[i])
			_exit(worker_main(i, ws));
		if (opt_verbose)
			printf("hmm-soak: worker %d: pid %d, seed %" PRIu64 "\n", i,
			       pids[i], ws);
	}

	/* Operations are bounded; allow a generous grace time for the last. */
	deadline = t0 + opt_time + (opt_time > 120 ? opt_time : 120);
	for (;;) {
		int st, left = 0;
		pid_t p;

		for (i = 0; i < opt_procs; i++)
			left += pids[i] > 0;
		if (!left)
			break;
		p = waitpid(-1, &st, WNOHANG);
		if (p <= 0 && mono() >= next_progress) {
			unsigned long n = 0, e = 0, m = 0;

			for (i = 0; i < opt_procs; i++) {
				for (c = 0; c < NOPS; c++)
					n += stats[i].ops[c];
				e += stats[i].errors;
				m += stats[i].migrated;
			}
			printf("hmm-soak: %.0f s: %lu operations, %lu pages migrated to device, %lu errors\n",
			       mono() - t0, n, m, e);
			next_progress += 30;
		}
		if (p <= 0) {
			if (mono() > deadline) {
				for (i = 0; i < opt_procs; i++)
					if (pids[i] > 0) {
						printf("hmm-soak: worker %d (pid %d) still running %d s after the end: killed\n",
						       i, pids[i], (int)(mono() - t0) - opt_time);
						kill(pids[i], SIGKILL);
					}
				deadline += 30;
			}
			usleep(100000);
			continue;
		}
		for (d = 0; d < 2; d++)
			if (p == stress[d]) {
				printf("hmm-soak: stress-ng (pid %d) ended early: status 0x%x\n",
				       p, st);
				stress[d] = -1;
			}
		for (i = 0; i < opt_procs && pids[i] != p; i++)
			;
		if (i == opt_procs)
			continue;
		pids[i] = 0;
		if (WIFSIGNALED(st)) {
			printf("hmm-soak: worker %d died of signal %d (%s)\n", i,
			       WTERMSIG(st), strsignal(WTERMSIG(st)));
			dead++;
		} else if (WEXITSTATUS(st) || !stats[i].finished) {
			printf("hmm-soak: worker %d exited with status %d%s\n", i,
			       WEXITSTATUS(st), stats[i].finished ? "" : " before its final checks");
			if (!stats[i].errors)
				dead++;
		}
	}
	stop_stress(stress[0]);
	stop_stress(stress[1]);
	if (saved_pp >= 0)
		write_param(PINGPONG, saved_pp);

	/* Every device page must be freed once the workers are gone. */
	if (have_dbg) {
		double until = mono() + 10;

		for (;;) {
			in_use_ok = !read_dstats(0, &after[0]) &&
				    !read_dstats(1, &after[1]) &&
				    after[0].in_use == before[0].in_use &&
				    after[1].in_use == before[1].in_use;
			if (in_use_ok || mono() > until)
				break;
			usleep(100000);
		}
	}
	waited = mono() - t0;

	for (i = 0; i < opt_procs; i++) {
		for (c = 0; c < NOPS; c++) {
			ops[c] += stats[i].ops[c];
			nops += stats[i].ops[c];
		}
		migrated += stats[i].migrated;
		enomem += stats[i].migrate_enomem;
		verified += stats[i].verified;
		errors += stats[i].errors;
		twrites += stats[i].thread_writes;
		probes += stats[i].sigsegv_probes;
		if (opt_verbose) {
			printf("hmm-soak: worker %d:", i);
			for (c = 0; c < NOPS; c++)
				printf(" %s=%lu", op_name[c], stats[i].ops[c]);
			printf(" migrated=%lu verified=%llu errors=%lu\n",
			       stats[i].migrated, stats[i].verified,
			       stats[i].errors);
		}
	}

	printf("hmm-soak: %.0f s, %lu operations:", waited, nops);
	for (c = 0; c < NOPS; c++)
		printf(" %s=%lu", op_name[c], ops[c]);
	printf("\n");
	printf("hmm-soak: threaded-phase CPU writes %lu, SIGSEGV probes %lu, MIGRATE_TO ENOMEM %lu\n",
	       twrites, probes, enomem);
	printf("hmm-soak: pages migrated to device (MIGRATE_TO results): %lu\n",
	       migrated);
	if (have_dbg) {
		long to = 0, from = 0, faults = 0, poison = 0, afail = 0;

		for (d = 0; d < 2; d++) {
			to += after[d].to_device - before[d].to_device;
			from += after[d].from_device - before[d].from_device;
			faults += after[d].cpu_faults - before[d].cpu_faults;
			poison += after[d].poisoned - before[d].poisoned;
			afail += after[d].alloc_failures - before[d].alloc_failures;
			printf("hmm-soak: device%d after: in_use %ld (before %ld) to_device +%ld from_device +%ld cpu_faults +%ld poisoned +%ld alloc_failures +%ld\n",
			       d, after[d].in_use, before[d].in_use,
			       after[d].to_device - before[d].to_device,
			       after[d].from_device - before[d].from_device,
			       after[d].cpu_faults - before[d].cpu_faults,
			       after[d].poisoned - before[d].poisoned,
			       after[d].alloc_failures - before[d].alloc_failures);
		}
		printf("hmm-soak: pages migrated back (debugfs from_device): %ld, to device (debugfs to_device): %ld, CPU faults %ld\n",
		       from, to, faults);
		fails += result("in_use", in_use_ok,
				"device0 %ld->%ld device1 %ld->%ld", before[0].in_use,
				after[0].in_use, before[1].in_use, after[1].in_use);
		fails += result("poisoned", !poison, "%ld", poison);
		/*
		 * Nobody else migrates during the soak. A MIGRATE_TO counts a
		 * page of its range once, while debugfs to_device counts every
		 * move: a page that a CPU fault took back in the middle of the
		 * call (the threaded phase) and that the call's retry after a
		 * THP split moved again counts twice there. So debugfs may
		 * exceed the ioctls' sum, by at most the pages migrated back.
		 */
		fails += result("to_device_count", to >= (long)migrated &&
				to - (long)migrated <= from,
				"debugfs %ld ioctl %lu (moved again: %ld, from_device %ld)",
				to, migrated, to - (long)migrated, from);
	}
	printf("hmm-soak: bytes verified %llu, errors %lu, workers dead %d\n",
	       verified, errors, dead);
	fails += result("workers", !dead, "dead=%d", dead);
	fails += result("data", !errors, "errors=%lu verified=%llu", errors,
			verified);
	fails += result("migration", migrated > 0 || !ops[OP_MIGRATE],
			"pages=%lu", migrated);
	fails += result("run", !fails, "seed=%" PRIu64, opt_seed);
	return fails ? 1 : 0;
}
