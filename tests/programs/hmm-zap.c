// SPDX-License-Identifier: GPL-2.0
/*
 * hmm-zap: zap a PMD *migration* entry of a device-private THP.
 *
 * Regression test (suite "zap", tests/guest/suites/zap.sh) for the series'
 * upstream fix "mm/huge_memory: zap a device-private PMD by its entry, not
 * its folio". The bug: mm/huge_memory.c zap_huge_pmd_folio() treats a non-present
 * PMD as "device private" from the folio type (folio_is_device_private())
 * rather than from the entry type.  A PMD migration entry that points to a
 * device-private THP (installed by migrate_device_range()/try_to_migrate() or
 * by migrate_vma_collect_huge_pmd()) holds neither an rmap nor a reference,
 * yet zapping it does folio_remove_rmap_pmd() + folio_put() again.  The folio
 * is freed under the migrating thread, which holds the only reference.
 *
 * Uses lib/test_hmm.c (/dev/hmm_dmirror0) exactly as the mm selftests do.
 *
 * Modes (-m):
 *  evict (default)  Process A migrates T THPs to the device (device-private
 *	PMDs), then lets process B open()+close() /dev/hmm_dmirror0:
 *	dmirror_fops_release() evicts every chunk of the device via
 *	migrate_device_range(), which turns A's PMDs into PMD migration
 *	entries and then copies the chunk's folios one by one.  A polls
 *	/proc/self/pagemap until its first THP shows a migration entry and
 *	then zaps the whole buffer with MADV_DONTNEED (the window is the
 *	evictor's copy loop).  With the bug the evictor copies from a freed
 *	folio's zone_device_data (a free-list link) or from freed backing
 *	memory: kernel oops in dmirror_device_evict_chunk()/folio_copy(), B
 *	dies of SIGKILL. A zap counts as a hit only if B's close() had not
 *	returned (the eviction was still running) when MADV_DONTNEED did.
 *  exit	As evict, but A _exit()s instead of MADV_DONTNEED (exit_mmap()
 *	zaps the entries: the scenario of the original oops). A hit: A was
 *	reaped (exit_mmap() done) before B's close() returned.
 *  tosys	One process, two threads: thread 1 loops MIGRATE_TO_DEV +
 *	MIGRATE_TO_SYS of one THP (migrate_vma_collect_huge_pmd() installs
 *	the PMD migration entry), thread 2 polls pagemap and MADV_DONTNEEDs
 *	the THP when it sees the migration entry. A hit: the zap returned
 *	before MIGRATE_TO_SYS did, on a THP that test_hmm's snapshot showed
 *	as one device-private PMD. Without the fix this mode ended in a soft
 *	lockup or an oops.
 *
 * Failure is reported (exit 1) when: a child is killed by a signal, the
 * buffer content is wrong afterwards, a watchdog expires, or the kernel log
 * (/dev/kmsg) gets a new BUG/WARNING/Oops/... line during the run.
 * Exit 2: the race window was hit fewer than -H times (inconclusive), or
 * setup failed, or a THP migrated to the device is not one device-private
 * PMD (after a memory compaction and a retry).
 * Exit 4: built against a lib/test_hmm_uapi.h without HMM_DMIRROR_FLAGS,
 * the ABI that came with test_hmm's device-private THPs (6.12): the kernel
 * splits a THP it migrates to the device, so there is no PMD migration
 * entry to zap and the test does not apply. This is decided when the
 * program is built against the tree's header, never from a run-time
 * outcome, so that a THP split on a kernel that should keep it fails.
 * Exit 0: the window was hit at least -H times and nothing went wrong.
 *
 * -c reads all THPs' pagemap entries right before the zap and reports how many
 * were PMD migration entries (evidence that the zap hit them).
 *
 * Build (scripts/build/build-soak.sh): gcc -O2 -static -pthread -I<kernel tree>
 *	-o hmm-zap hmm-zap.c
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <regex.h>
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
#include <sys/types.h>
#include <sys/wait.h>
#include <lib/test_hmm_uapi.h>

#define PMD_SIZE	(2UL << 20)
#define PAGE_SZ		4096UL
#define PM_PRESENT	(1ULL << 63)
#define PM_SWAP		(1ULL << 62)
#define PM_PFN_MASK	((1ULL << 55) - 1)
#define SWP_TYPE(e)	((unsigned int)((e) & 0x1f))

enum mode { M_EVICT, M_EXIT, M_TOSYS };

static const char *dev = "/dev/hmm_dmirror0";
static unsigned long iters = 20, nthp = 32, min_hits = 3;
static unsigned int timeout_s = 120;
static enum mode mode = M_EVICT;
static int verbose, count_all;
static int kmsg_fd = -1;
static regex_t bad_re;

/* Shared between the processes of one iteration. */
struct shared {
	volatile int a_stage;		/* how far A got */
	volatile int hit;		/* A zapped a migration entry in time */
	volatile int zapped;		/* A's MADV_DONTNEED succeeded */
	volatile int saw_present;	/* eviction finished before A looked */
	volatile unsigned int devtype;	/* swap type of the device-private PMD */
	volatile unsigned int migtype;	/* swap type A saw before zapping */
	volatile unsigned long polls;
	volatile unsigned int n_mig, n_dev, n_present;	/* -c: THP states before the zap */
	volatile int a_err;		/* nonzero: A found a problem */
	volatile int b_done;		/* set by the parent once B is reaped */
	volatile int b_closed;		/* B's close() (the eviction) returned */
	char msg[512];
};
static struct shared *sh;

static void out(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	fflush(stdout);
}

/* A message from a child (its stdout is /dev/null), into sh->msg. */
static void child_msg(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(sh->msg, sizeof(sh->msg), fmt, ap);
	va_end(ap);
}

static void quiet_child(void)
{
	int fd = open("/dev/null", O_RDWR);

	if (fd >= 0) {
		dup2(fd, 1);
		dup2(fd, 2);
		close(fd);
	}
}

static int dmirror(int fd, unsigned long req, void *addr, unsigned long npages,
		   void *mirror, unsigned long *cpages)
{
	struct hmm_dmirror_cmd cmd = {
		.addr = (uintptr_t)addr,
		.ptr = (uintptr_t)mirror,
		.npages = npages,
	};

	while (ioctl(fd, req, &cmd)) {
		if (errno != EINTR)
			return -errno;
	}
	if (cpages)
		*cpages = cmd.cpages;
	return 0;
}

static uint64_t pagemap(int pm, void *addr)
{
	uint64_t e = 0;

	if (pread(pm, &e, sizeof(e), ((uintptr_t)addr / PAGE_SZ) * 8) != sizeof(e))
		return 0;
	return e;
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void *thp_buffer(unsigned long size)
{
	char *p = mmap(NULL, size + PMD_SIZE, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED)
		return NULL;
	p = (char *)(((uintptr_t)p + PMD_SIZE - 1) & ~(PMD_SIZE - 1));
	if (madvise(p, size, MADV_HUGEPAGE))
		return NULL;
	return p;
}

static void fill(char *p, unsigned long size, unsigned long seed)
{
	unsigned long i;

	for (i = 0; i < size; i += PAGE_SZ)
		*(unsigned long *)(p + i) = seed ^ i;
}

/*
 * Check the buffer: zero (zapped) or the pattern.  Returns the first bad
 * offset, or -1.
 */
static long check(char *p, unsigned long size, unsigned long seed, int zero)
{
	unsigned long i;

	for (i = 0; i < size; i += PAGE_SZ) {
		unsigned long v = *(unsigned long *)(p + i);

		if (v != (zero ? 0 : (seed ^ i)))
			return i;
	}
	return -1;
}

/* New kernel log lines matching the bad pattern since the last call. */
static int kmsg_scan(void)
{
	char rec[8192];
	int bad = 0;
	ssize_t n;

	if (kmsg_fd < 0)
		return 0;
	for (;;) {
		n = read(kmsg_fd, rec, sizeof(rec) - 1);
		if (n < 0) {
			if (errno == EPIPE)	/* overwritten records */
				continue;
			break;			/* EAGAIN: nothing new */
		}
		rec[n] = 0;
		{
			char *msg = strchr(rec, ';');
			char *nl;

			msg = msg ? msg + 1 : rec;
			nl = strchr(msg, '\n');
			if (nl)
				*nl = 0;
			if (!regexec(&bad_re, msg, 0, NULL, 0)) {
				if (bad < 20)
					out("# kernel: %s\n", msg);
				bad++;
			}
		}
	}
	return bad;
}

/*
 * HMM_DMIRROR_SNAPSHOT: is every 2 MiB of [buf, buf + size) mapped by a
 * device-private PMD of this device?  perm needs size / PAGE_SZ bytes.
 */
static int pmd_mapped_on_device(int fd, char *buf, unsigned long size,
				void *perm)
{
	/* the device field (0xf0) must say local device private */
	const unsigned char dev_mask = 0xf0;
	unsigned char *p = perm;
	unsigned long i;
	int ret;

	ret = dmirror(fd, HMM_DMIRROR_SNAPSHOT, buf, size / PAGE_SZ, perm, NULL);
	if (ret) {
		child_msg("SNAPSHOT failed: %d", ret);
		return 0;
	}
	for (i = 0; i < size; i += PMD_SIZE) {
		unsigned char v = p[i / PAGE_SZ];

		if ((v & dev_mask) != HMM_DMIRROR_PROT_DEV_PRIVATE_LOCAL ||
		    !(v & HMM_DMIRROR_PROT_PMD)) {
			child_msg("THP at +%#lx: snapshot %#x, not a device-private PMD",
				  i, p[i / PAGE_SZ]);
			return 0;
		}
	}
	return 1;
}

/* AnonHugePages of this process, in kB. */
static long anon_huge_kb(void)
{
	char line[256];
	long kb = -1;
	FILE *f = fopen("/proc/self/smaps_rollup", "r");

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "AnonHugePages: %ld kB", &kb) == 1)
			break;
	fclose(f);
	return kb;
}

/* ---- evict / exit modes ---- */

static void process_a(int go_w, unsigned long seed)
{
	unsigned long size = nthp * PMD_SIZE, npages = size / PAGE_SZ;
	unsigned long cpages = 0, i;
	uint64_t e;
	double deadline;
	char *buf, *mirror;
	int fd, pm, ret;
	long bad;

	quiet_child();
	fd = open(dev, O_RDWR);
	pm = open("/proc/self/pagemap", O_RDONLY);
	buf = thp_buffer(size);
	mirror = malloc(size);
	if (fd < 0 || pm < 0 || !buf || !mirror) {
		child_msg("A: setup: %s", strerror(errno));
		sh->a_err = 2;
		_exit(2);
	}
	fill(buf, size, seed);
	if (anon_huge_kb() < (long)(size >> 10)) {
		child_msg("A: only %ld kB of %lu kB are THPs", anon_huge_kb(), size >> 10);
		sh->a_err = 2;
		_exit(2);
	}
	sh->a_stage = 1;
	ret = dmirror(fd, HMM_DMIRROR_MIGRATE_TO_DEV, buf, npages, mirror, &cpages);
	if (ret || cpages != npages) {
		child_msg("A: MIGRATE_TO_DEV ret %d cpages %lu/%lu", ret, cpages, npages);
		sh->a_err = 2;
		_exit(2);
	}
	/* test_hmm's view: every THP a device-private PMD of this device. */
	if (!pmd_mapped_on_device(fd, buf, size, mirror)) {
		sh->a_err = 2;
		_exit(2);
	}
	/* Every THP must now be a non-present (device-private) PMD entry. */
	sh->devtype = 0xff;
	for (i = 0; i < nthp; i++) {
		e = pagemap(pm, buf + i * PMD_SIZE);
		if (!(e & PM_SWAP) || (e & PM_PRESENT)) {
			child_msg("A: THP %lu not device private after migration (pagemap %#llx)",
				  i, (unsigned long long)e);
			sh->a_err = 2;
			_exit(2);
		}
		if (i == 0)
			sh->devtype = SWP_TYPE(e);
		else if (SWP_TYPE(e) != sh->devtype) {
			child_msg("A: THP %lu swap type %u != %u", i, SWP_TYPE(e), sh->devtype);
			sh->a_err = 2;
			_exit(2);
		}
	}
	if (!sh->devtype) {
		child_msg("A: pagemap shows no swap type (needs CAP_SYS_ADMIN)");
		sh->a_err = 2;
		_exit(2);
	}
	sh->a_stage = 2;
	/* Go, B: open()+close() evicts every chunk of the device. */
	if (write(go_w, "g", 1) != 1)
		_exit(2);
	close(go_w);

	deadline = now() + timeout_s / 2.0;
	for (;;) {
		sh->polls++;
		e = pagemap(pm, buf);
		if ((e & PM_SWAP) && SWP_TYPE(e) != sh->devtype) {
			/* PMD migration entry installed by the evictor: zap it. */
			if (count_all) {
				/* -c: how many THPs are in which state now */
				for (i = 0; i < nthp; i++) {
					uint64_t f = pagemap(pm, buf + i * PMD_SIZE);

					if (f & PM_PRESENT)
						sh->n_present++;
					else if ((f & PM_SWAP) && SWP_TYPE(f) == sh->devtype)
						sh->n_dev++;
					else if (f & PM_SWAP)
						sh->n_mig++;
				}
			}
			if (mode == M_EXIT) {
				/* the parent decides on the hit once it reaps A */
				sh->migtype = SWP_TYPE(e);
				sh->zapped = 1;
				_exit(0);	/* exit_mmap() zaps it */
			}
			if (madvise(buf, size, MADV_DONTNEED)) {
				child_msg("A: MADV_DONTNEED: %s", strerror(errno));
				sh->a_err = 2;
				_exit(2);
			}
			/* a hit only if the eviction was still running */
			sh->hit = !sh->b_closed;
			sh->zapped = 1;
			sh->migtype = SWP_TYPE(e);
			break;
		}
		if (e & PM_PRESENT) {
			sh->saw_present = 1;	/* eviction already done: a miss */
			break;
		}
		if (now() > deadline) {
			/* the eviction never reached this THP: a stall */
			child_msg("A: no migration entry within %us (pagemap %#llx)",
				  timeout_s / 2, (unsigned long long)e);
			sh->a_err = 3;
			_exit(1);
		}
	}
	sh->a_stage = 3;
	/* Wait for B (the parent sets b_done once it has reaped B). */
	deadline = now() + timeout_s / 2.0;
	while (!sh->b_done) {
		if (now() > deadline) {
			child_msg("A: evictor did not finish");
			sh->a_err = 4;
			_exit(1);	/* a stalled eviction is a failure */
		}
		usleep(1000);
	}
	/* After a zap the buffer must read as zero, else as the pattern. */
	bad = check(buf, size, seed, sh->zapped);
	if (bad >= 0) {
		child_msg("A: buffer wrong at offset %#lx after %s: %#lx", bad,
			  sh->zapped ? "zap (want 0)" : "eviction (want pattern)",
			  *(unsigned long *)(buf + bad));
		sh->a_err = 1;
		_exit(1);
	}
	close(fd);	/* evicts again: must find nothing of ours */
	_exit(0);
}

static void process_b(int go_r)
{
	char c;
	int fd;

	quiet_child();
	if (read(go_r, &c, 1) != 1)
		_exit(2);	/* A gave up */
	fd = open(dev, O_RDWR);
	if (fd < 0)
		_exit(2);
	close(fd);		/* dmirror_fops_release(): evicts all chunks */
	sh->b_closed = 1;
	_exit(0);
}

static int run_evict(unsigned long it, unsigned long *hits)
{
	int go[2], sta, stb, fail = 0;
	pid_t a, b;
	double deadline;

	memset(sh, 0, sizeof(*sh));
	if (pipe(go))
		return 2;
	b = fork();
	if (b < 0) {
		out("# iter %lu: fork: %s\n", it, strerror(errno));
		close(go[0]);
		close(go[1]);
		return 2;
	}
	if (b == 0) {
		close(go[1]);
		process_b(go[0]);
	}
	a = fork();
	if (a < 0) {
		out("# iter %lu: fork: %s\n", it, strerror(errno));
		close(go[0]);
		close(go[1]);	/* B reads EOF and exits */
		waitpid(b, NULL, 0);
		return 2;
	}
	if (a == 0) {
		close(go[0]);
		process_a(go[1], 0x5a5a0000UL + it);
	}
	close(go[0]);
	close(go[1]);
	deadline = now() + timeout_s;
	/*
	 * Reap both as they end: B first sets b_done for A, which waits for
	 * it after a miss. In exit mode a hit is A's exit_mmap() zapping the
	 * migration entries before the eviction ended, i.e. A reaped before
	 * B's close() returned.
	 */
	sta = stb = -1;
	while (sta == -1 || stb == -1) {
		int st;

		if (stb == -1 && waitpid(b, &st, WNOHANG) == b) {
			stb = st;
			sh->b_done = 1;
		}
		if (sta == -1 && waitpid(a, &st, WNOHANG) == a) {
			sta = st;
			if (mode == M_EXIT && WIFEXITED(st) && !WEXITSTATUS(st) &&
			    sh->zapped)
				sh->hit = !sh->b_closed;
		}
		if (now() > deadline)
			break;
		usleep(2000);
	}
	if (stb == -1 || sta == -1) {
		out("# iter %lu: TIMEOUT (A stage %d, B %s) - kernel hung?\n", it,
		    sh->a_stage, stb == -1 ? "still running" : "done");
		if (a > 0)
			kill(a, SIGKILL);
		if (b > 0)
			kill(b, SIGKILL);
		return 1;
	}
	if (WIFSIGNALED(stb)) {
		out("# iter %lu: evictor B killed by signal %d (kernel oops in close()?)\n",
		    it, WTERMSIG(stb));
		fail = 1;
	} else if (WEXITSTATUS(stb)) {
		out("# iter %lu: evictor B exit %d\n", it, WEXITSTATUS(stb));
		fail = fail ? fail : 2;
	}
	if (WIFSIGNALED(sta)) {
		out("# iter %lu: A killed by signal %d\n", it, WTERMSIG(sta));
		fail = 1;
	} else if (WEXITSTATUS(sta)) {
		out("# iter %lu: A exit %d: %s\n", it, WEXITSTATUS(sta), sh->msg);
		if (WEXITSTATUS(sta) == 1 || !fail)
			fail = WEXITSTATUS(sta) == 1 ? 1 : 2;
	}
	if (sh->hit)
		(*hits)++;
	if (verbose || fail)
		out("# iter %lu: %s devtype %u migtype %u polls %lu\n", it,
		    sh->hit ? "HIT (zapped PMD migration entries)" :
		    sh->zapped ? "miss (zapped after the eviction ended)" :
		    sh->saw_present ? "miss (eviction finished first)" : "no-window",
		    sh->devtype, sh->migtype, sh->polls);
	if (count_all && sh->hit)
		out("# iter %lu: just before the zap: %u/%lu THPs PMD migration entries, "
		    "%u device-private, %u present\n", it, sh->n_mig, nthp,
		    sh->n_dev, sh->n_present);
	return fail;
}

/* ---- tosys mode: one process, two threads ---- */

static char *t_buf;
static int t_pm;
static volatile int t_go, t_stop, t_hit, t_zapped, t_sys_done;
static pthread_mutex_t t_lock = PTHREAD_MUTEX_INITIALIZER;

static void *zapper(void *arg)
{
	unsigned int devtype = *(unsigned int *)arg;

	while (!t_stop) {
		uint64_t e;

		if (!t_go) {
			usleep(50);
			continue;
		}
		/*
		 * t_lock: the main thread clears t_go under it, so once it has
		 * taken it no zap is in flight and t_hit is final.
		 */
		pthread_mutex_lock(&t_lock);
		if (t_go) {
			e = pagemap(t_pm, t_buf);
			if ((e & PM_SWAP) && SWP_TYPE(e) != devtype &&
			    !madvise(t_buf, PMD_SIZE, MADV_DONTNEED)) {
				t_zapped = 1;
				/* a hit only while MIGRATE_TO_SYS still runs */
				t_hit = !t_sys_done;
				t_go = 0;
			}
		}
		pthread_mutex_unlock(&t_lock);
	}
	return NULL;
}

static void tosys_timeout(int sig)
{
	static const char msg[] = "# tosys: TIMEOUT - kernel hung?\n# RESULT: FAIL\n";

	(void)sig;
	if (write(1, msg, sizeof(msg) - 1) < 0)
		_exit(1);
	_exit(1);
}

static int run_tosys(unsigned long *hits)
{
	unsigned long npages = PMD_SIZE / PAGE_SZ, cpages, it, not_pmd = 0;
	static unsigned int devtype;
	pthread_t th;
	char *mirror = malloc(PMD_SIZE);
	int fd = open(dev, O_RDWR), ret;
	uint64_t e;
	long bad;

	t_pm = open("/proc/self/pagemap", O_RDONLY);
	t_buf = thp_buffer(PMD_SIZE);
	if (fd < 0 || t_pm < 0 || !t_buf || !mirror) {
		out("# tosys: setup: %s\n", strerror(errno));
		return 2;
	}
	/* learn the device-private swap type */
	fill(t_buf, PMD_SIZE, 1);
	if (dmirror(fd, HMM_DMIRROR_MIGRATE_TO_DEV, t_buf, npages, mirror, &cpages) ||
	    cpages != npages) {
		out("# tosys: MIGRATE_TO_DEV failed\n");
		return 2;
	}
	if (!pmd_mapped_on_device(fd, t_buf, PMD_SIZE, mirror)) {
		out("# tosys: %s\n", sh->msg);
		return 2;
	}
	e = pagemap(t_pm, t_buf);
	if (!(e & PM_SWAP)) {
		out("# tosys: not device private (pagemap %#llx)\n", (unsigned long long)e);
		return 2;
	}
	devtype = SWP_TYPE(e);
	if (!devtype) {
		out("# tosys: pagemap shows no swap type (needs CAP_SYS_ADMIN)\n");
		return 2;
	}
	madvise(t_buf, PMD_SIZE, MADV_DONTNEED);
	/* the suite would hang on a wedged kernel: a watchdog for the loop */
	signal(SIGALRM, tosys_timeout);
	alarm(timeout_s);
	if (pthread_create(&th, NULL, zapper, &devtype)) {
		out("# tosys: pthread_create failed\n");
		return 2;
	}
	for (it = 1; it <= iters; it++) {
		fill(t_buf, PMD_SIZE, it);
		if (dmirror(fd, HMM_DMIRROR_MIGRATE_TO_DEV, t_buf, npages, mirror, &cpages) ||
		    cpages != npages) {
			out("# tosys iter %lu: MIGRATE_TO_DEV cpages %lu\n", it, cpages);
			madvise(t_buf, PMD_SIZE, MADV_DONTNEED);
			continue;
		}
		/* only a device-private PMD gives a PMD migration entry */
		if (!pmd_mapped_on_device(fd, t_buf, PMD_SIZE, mirror)) {
			not_pmd++;
			if (verbose)
				out("# tosys iter %lu: %s\n", it, sh->msg);
			madvise(t_buf, PMD_SIZE, MADV_DONTNEED);
			continue;
		}
		t_hit = 0;
		t_zapped = 0;
		t_sys_done = 0;
		t_go = 1;
		ret = dmirror(fd, HMM_DMIRROR_MIGRATE_TO_SYS, t_buf, npages, mirror, &cpages);
		t_sys_done = 1;
		pthread_mutex_lock(&t_lock);
		t_go = 0;
		pthread_mutex_unlock(&t_lock);
		if (ret)
			out("# tosys iter %lu: MIGRATE_TO_SYS ret %d\n", it, ret);
		bad = check(t_buf, PMD_SIZE, it, t_zapped);
		if (t_hit)
			(*hits)++;
		if (bad >= 0) {
			out("# tosys iter %lu: buffer wrong at %#lx (%s): %#lx\n", it, bad,
			    t_zapped ? "want 0" : "want pattern", *(unsigned long *)(t_buf + bad));
			t_stop = 1;
			return 1;
		}
		if (kmsg_scan()) {
			out("# tosys iter %lu: kernel reported a problem\n", it);
			t_stop = 1;
			return 1;
		}
		madvise(t_buf, PMD_SIZE, MADV_DONTNEED);
	}
	t_stop = 1;
	pthread_join(th, NULL);
	alarm(0);
	close(fd);
	if (not_pmd)
		out("# tosys: %lu of %lu iterations had no device-private PMD\n",
		    not_pmd, iters);
	return 0;
}

static void compact_memory(void)
{
	int fd = open("/proc/sys/vm/compact_memory", O_WRONLY);

	if (fd >= 0) {
		if (write(fd, "1", 1) != 1)
			out("# compact_memory: %s\n", strerror(errno));
		close(fd);
	}
}

/*
 * Is a THP migrated to the device one device-private PMD? 1 yes, 0 no
 * (test_hmm fell back to small pages), -1 setup failed.
 */
static int probe_device_pmd(void)
{
	unsigned long npages = PMD_SIZE / PAGE_SZ, cpages = 0;
	char *mirror = malloc(PMD_SIZE), *buf = thp_buffer(PMD_SIZE);
	int fd = open(dev, O_RDWR), ret = -1;

	if (fd < 0 || !buf || !mirror) {
		out("# probe: setup: %s\n", strerror(errno));
		goto out;
	}
	fill(buf, PMD_SIZE, 7);
	if (anon_huge_kb() < (long)(PMD_SIZE >> 10)) {
		out("# probe: no THP (AnonHugePages %ld kB)\n", anon_huge_kb());
		goto out;
	}
	if (dmirror(fd, HMM_DMIRROR_MIGRATE_TO_DEV, buf, npages, mirror, &cpages) ||
	    cpages != npages) {
		out("# probe: MIGRATE_TO_DEV: %lu of %lu pages\n", cpages, npages);
		goto out;
	}
	ret = pmd_mapped_on_device(fd, buf, PMD_SIZE, mirror);
	if (!ret)
		out("# probe: %s\n", sh->msg);
out:
	if (buf)
		munmap(buf, PMD_SIZE);
	if (fd >= 0)
		close(fd);
	free(mirror);
	return ret;
}

static void usage(void)
{
	fprintf(stderr,
		"usage: hmm-zap [-m evict|exit|tosys] [-n ITERS] [-t THPS] [-H MIN_HITS]\n"
		"               [-T TIMEOUT_S] [-d DEV] [-v] [-c]\n"
		"  -c  (evict/exit) count the THPs' PMD states right before the zap\n");
	exit(2);
}

int main(int argc, char **argv)
{
	unsigned long it, hits = 0;
	int c, ret = 0, kbad = 0;

	while ((c = getopt(argc, argv, "m:n:t:H:T:d:vc")) != -1) {
		switch (c) {
		case 'm':
			if (!strcmp(optarg, "evict"))
				mode = M_EVICT;
			else if (!strcmp(optarg, "exit"))
				mode = M_EXIT;
			else if (!strcmp(optarg, "tosys"))
				mode = M_TOSYS;
			else
				usage();
			break;
		case 'n': iters = strtoul(optarg, NULL, 0); break;
		case 't': nthp = strtoul(optarg, NULL, 0); break;
		case 'H': min_hits = strtoul(optarg, NULL, 0); break;
		case 'T': timeout_s = strtoul(optarg, NULL, 0); break;
		case 'd': dev = optarg; break;
		case 'v': verbose = 1; break;
		case 'c': count_all = 1; break;
		default: usage();
		}
	}
	if (regcomp(&bad_re, "BUG:|WARNING:|Oops|general protection fault|kernel BUG at|"
		    "Bad page|bad pte|[Bb]ad rss-counter|refcount_t:|KASAN:|"
		    "Unable to handle kernel|list_(add|del) corruption|page_ref",
		    REG_EXTENDED | REG_NOSUB))
		return 2;
	kmsg_fd = open("/dev/kmsg", O_RDONLY | O_NONBLOCK);
	if (kmsg_fd >= 0)
		lseek(kmsg_fd, 0, SEEK_END);
	sh = mmap(NULL, sizeof(*sh), PROT_READ | PROT_WRITE,
		  MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (sh == MAP_FAILED)
		return 2;
	out("# hmm-zap: mode %s, %lu iterations, %lu THPs (%lu MiB), device %s\n",
	    mode == M_EVICT ? "evict" : mode == M_EXIT ? "exit" : "tosys",
	    iters, nthp, nthp * 2, dev);

#ifndef HMM_DMIRROR_FLAGS
	out("# SKIP: this test_hmm ABI predates device-private THPs: no PMD to zap\n");
	return 4;
#endif
	c = probe_device_pmd();
	if (c != 1) {
		/* a fragmented guest may lack an order-9 page: compact, retry */
		compact_memory();
		c = probe_device_pmd();
	}
	if (c != 1) {
		out("# FAIL: a THP migrated to the device is not one device-private PMD\n");
		return 2;
	}
	if (mode == M_TOSYS) {
		ret = run_tosys(&hits);
	} else {
		for (it = 1; it <= iters; it++) {
			int r = run_evict(it, &hits);

			kbad = kmsg_scan();
			if (kbad) {
				out("# iter %lu: the kernel log reported %d problem line(s)\n",
				    it, kbad);
				r = 1;
			}
			if (r == 1) {
				ret = 1;
				break;
			}
			if (r == 2) {
				out("# iter %lu: setup problem (not counted)\n", it);
				if (!ret)
					ret = 2;
			}
		}
		if (ret == 2 && hits)
			ret = 0;	/* some iterations were fine */
	}
	if (!ret && kmsg_scan())
		ret = 1;
	if (ret == 1) {
		out("# RESULT: FAIL (after %lu window hits)\n", hits);
		return 1;
	}
	if (hits < min_hits) {
		out("# RESULT: INCONCLUSIVE: the window was hit %lu time(s), %lu needed\n",
		    hits, min_hits);
		return 2;
	}
	out("# RESULT: PASS (%lu window hits, no kernel problem)\n", hits);
	return 0;
}
