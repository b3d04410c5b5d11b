// SPDX-License-Identifier: GPL-2.0
/*
 * hmm-demo: show a person what HMM does, step by step, with the kernel's
 * own counters (suite "demo", run first by scripts/demo.sh).
 *
 *   1 mirror       the hmm_dummy device mirrors this process: it reads the
 *                  process's memory through its own page table, and follows
 *                  the CPU page table when a page changes
 *   2 migrate      32 MiB move to device memory: RssAnon and VmDevice
 *                  (/proc/self/status), the device pool (debugfs
 *                  hmm_dummy/device0) and memory.stat hmm_device change;
 *                  memory.current does not drop (the charge moves)
 *   3 cpu-fault    a CPU touch brings back a 2 MiB block per fault
 *                  (cpu_faults vs from_device, ru_majflt)
 *   4 fork         fork with memory on the device: the child gets system
 *                  copies, the parent's pages stay on the device
 *   5 struct-page  device memory without struct page: nr_memmap_pages does
 *                  not move when hmm_dummy registers its pools; what
 *                  DEVICE_PRIVATE would need for them, measured on
 *                  upstream's test_hmm
 *
 * Each step prints "DEMO N ..." lines, one "DEMO N FAIL: ..." line per wrong
 * number, then "DEMO N step N: PASS|FAIL" and the step's KTAP result,
 * "ok N N-NAME" or "not ok N N-NAME" (ktap.h; the host parses them). Exit
 * status 1 if a step failed, 2 if the demo could not start.
 *
 * Needs root, debugfs and the hmm_dummy module (loaded here if missing, and
 * then unloaded at the end); uses a memory cgroup "hmm-demo" under the
 * cgroup2 mount.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>

#include "drivers/char/hmm_dummy_uapi.h"	/* from the kernel tree (-I) */

#include "ktap.h"

#define MIB		(1UL << 20)
#define SIZE		(32 * MIB)
#define ALIGN		(2 * MIB)
#define DEV_NODE	"/dev/hmm_dummy_device00"
#define DBG		"/sys/kernel/debug/hmm_dummy"
#define CG_NAME		"hmm-demo"
/* sizeof(struct page) on 64-bit kernels without debug fields. */
#define STRUCT_PAGE	64

static long psize, npages;
static int step_no, step_fails, total_fails;
static const char *step_name;
static char cgroot[256], cg[300];

/* One "DEMO N <tag>..." line of the current step. */
static void vline(const char *tag, const char *fmt, va_list ap)
{
	printf("DEMO %d %s", step_no, tag);
	vprintf(fmt, ap);
	putchar('\n');
	fflush(stdout);
}

static void demo(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void demo(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vline("", fmt, ap);
	va_end(ap);
}

static void step(int n, const char *name, const char *title)
{
	step_no = n;
	step_name = name;
	step_fails = 0;
	printf("DEMO\nDEMO %d == %d. %s ==\n", n, n, title);
}

/* A wrong number: one FAIL line. */
static void fail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void fail(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vline("FAIL: ", fmt, ap);
	va_end(ap);
	step_fails++;
}

#define CHECK(cond, ...) do { if (!(cond)) fail(__VA_ARGS__); } while (0)

static void step_end(void)
{
	char name[64];

	demo("step %d: %s", step_no, step_fails ? "FAIL" : "PASS");
	snprintf(name, sizeof(name), "%d-%s", step_no, step_name);
	ktap_result(step_fails ? KTAP_FAIL : KTAP_PASS, name,
		    step_fails ? "wrong numbers (see the DEMO lines)" : NULL);
	if (step_fails)
		total_fails++;
}

/*
 * The number after @key in @path ("key value", "key: value kB", "key
 * value"); -1 if there is none. @key NULL: the first number of the file.
 */
static long read_key(const char *path, const char *key)
{
	char line[512];
	size_t n = key ? strlen(key) : 0;
	long v = -1;
	FILE *f = fopen(path, "r");

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		char *p = line;

		if (key) {
			if (strncmp(line, key, n))
				continue;
			p += n;
			if (*p == ':')
				p++;
			if (*p != ' ' && *p != '\t')
				continue;
		}
		v = strtol(p, NULL, 10);
		break;
	}
	fclose(f);
	return v;
}

static int write_file(const char *path, const char *s)
{
	int fd = open(path, O_WRONLY);
	ssize_t r;

	if (fd < 0)
		return -1;
	r = write(fd, s, strlen(s));
	close(fd);
	return r == (ssize_t)strlen(s) ? 0 : -1;
}

/* Run a program (modprobe, rmmod) quietly; its exit status, or -1. */
static int run(const char *prog, const char *arg)
{
	int status;
	pid_t pid = fork();

	if (pid < 0)
		return -1;
	if (!pid) {
		int fd = open("/dev/null", O_WRONLY);

		if (fd >= 0) {
			dup2(fd, 1);
			dup2(fd, 2);
		}
		execlp(prog, prog, arg, (char *)NULL);
		_exit(127);
	}
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status))
		return -1;
	return WEXITSTATUS(status);
}

static long memmap_pages(void)
{
	return read_key("/proc/vmstat", "nr_memmap_pages");
}

/* The device memory pool of hmm_dummy device @d (debugfs). */
struct pool {
	long pages, in_use, to_device, from_device, cpu_faults;
};

static bool pool_read(int d, struct pool *p)
{
	char path[128];

	snprintf(path, sizeof(path), DBG "/device%d", d);
	p->pages = read_key(path, "pages");
	p->in_use = read_key(path, "in_use");
	p->to_device = read_key(path, "to_device");
	p->from_device = read_key(path, "from_device");
	p->cpu_faults = read_key(path, "cpu_faults");
	return p->pages >= 0 && p->in_use >= 0 && p->cpu_faults >= 0;
}

/* This process (/proc/self/status), its memory cgroup, its major faults. */
struct snap {
	struct pool pool;
	long rss_anon_kb, vmdevice_kb;
	long cg_current, cg_hmm_device;	/* bytes */
	long majflt;
};

static void snap(struct snap *s)
{
	char path[400];
	struct rusage ru;

	pool_read(0, &s->pool);
	s->rss_anon_kb = read_key("/proc/self/status", "RssAnon");
	s->vmdevice_kb = read_key("/proc/self/status", "VmDevice");
	snprintf(path, sizeof(path), "%s/memory.current", cg);
	s->cg_current = read_key(path, NULL);
	snprintf(path, sizeof(path), "%s/memory.stat", cg);
	s->cg_hmm_device = read_key(path, "hmm_device");
	getrusage(RUSAGE_SELF, &ru);
	s->majflt = ru.ru_majflt;
}

/* The byte page @i of the buffer holds: its own, so a misplaced page shows. */
static unsigned char pat(long i, int gen)
{
	return (unsigned char)(i * 31 + 7 + gen * 101);
}

static void fill(unsigned char *buf, int gen)
{
	long i;

	for (i = 0; i < npages; i++)
		memset(buf + i * psize, pat(i, gen), psize);
}

/* First page whose bytes are wrong, or -1. */
static long bad_page(const unsigned char *buf, int gen)
{
	long i, j;

	for (i = 0; i < npages; i++)
		for (j = 0; j < psize; j += 512)
			if (buf[i * psize + j] != pat(i, gen) ||
			    buf[i * psize + j + 511] != pat(i, gen))
				return i;
	return -1;
}

static int dev_read(int fd, void *addr, size_t size, void *dst,
		    struct hmm_dummy_read *r)
{
	memset(r, 0, sizeof(*r));
	r->address = (uintptr_t)addr;
	r->size = size;
	r->ptr = (uintptr_t)dst;
	return ioctl(fd, HMM_DUMMY_READ, r);
}

static long migrate(int fd, void *addr, size_t size)
{
	struct hmm_dummy_migrate m;

	memset(&m, 0, sizeof(m));
	m.address = (uintptr_t)addr;
	m.size = size;
	if (ioctl(fd, HMM_DUMMY_MIGRATE_TO, &m))
		return -errno;
	return m.nfaulted_dev_pages;
}

/* Find the cgroup2 mount, make CG_NAME with the memory controller, join it. */
static bool cg_setup(void)
{
	char line[512], path[400], pid[32];
	FILE *f = fopen("/proc/mounts", "r");

	cgroot[0] = 0;
	while (f && fgets(line, sizeof(line), f)) {
		char dev[128], dir[256], type[64];

		if (sscanf(line, "%127s %255s %63s", dev, dir, type) == 3 &&
		    !strcmp(type, "cgroup2")) {
			snprintf(cgroot, sizeof(cgroot), "%s", dir);
			break;
		}
	}
	if (f)
		fclose(f);
	if (!cgroot[0])
		return false;
	snprintf(path, sizeof(path), "%s/cgroup.subtree_control", cgroot);
	write_file(path, "+memory");
	snprintf(cg, sizeof(cg), "%s/" CG_NAME, cgroot);
	if (mkdir(cg, 0755) && errno != EEXIST)
		return false;
	snprintf(path, sizeof(path), "%s/cgroup.procs", cg);
	snprintf(pid, sizeof(pid), "%d", getpid());
	if (write_file(path, pid))
		return false;
	snprintf(path, sizeof(path), "%s/memory.stat", cg);
	return read_key(path, "hmm_device") >= 0;
}

static void cg_teardown(void)
{
	char path[400], pid[32];
	int i;

	snprintf(path, sizeof(path), "%s/cgroup.procs", cgroot);
	snprintf(pid, sizeof(pid), "%d", getpid());
	write_file(path, pid);
	for (i = 0; i < 100 && rmdir(cg) && errno == EBUSY; i++)
		usleep(10000);
}

/* Step 1: the device mirrors the process. */
static void step_mirror(int fd, unsigned char *buf, unsigned char *dst)
{
	struct hmm_dummy_read r;
	long bad, p = 100;

	step(1, "mirror", "a process's memory, mirrored by a device");
	fill(buf, 0);
	demo("process %d wrote %lu MiB of anonymous memory at %p (%ld pages)",
	     getpid(), SIZE / MIB, (void *)buf, npages);
	demo("%s mirrors its address space (ioctl HMM_DUMMY_EXPOSE_MM): no copy, no pinned page",
	     DEV_NODE);
	if (dev_read(fd, buf, SIZE, dst, &r)) {
		fail("HMM_DUMMY_READ: %s", strerror(errno));
		step_end();
		return;
	}
	bad = bad_page(dst, 0);
	demo("the device reads the %lu MiB through its own page table: %llu pages of system memory, %llu faulted in from the CPU page table, %s",
	     SIZE / MIB, (unsigned long long)r.nsys_pages,
	     (unsigned long long)r.nfaulted_sys_pages,
	     bad < 0 ? "same bytes as the CPU wrote" : "WRONG BYTES");
	CHECK(r.nsys_pages == (unsigned long long)npages,
	      "device read %llu system pages, expected %ld",
	      (unsigned long long)r.nsys_pages, npages);
	CHECK(r.ndev_pages == 0, "device read %llu device pages, expected 0",
	      (unsigned long long)r.ndev_pages);
	CHECK(r.nfaulted_sys_pages > 0, "the device faulted in no page on its first read");
	CHECK(bad < 0, "page %ld read by the device differs from the CPU's", bad);

	/* The CPU page table changes: the mirror follows. */
	madvise(buf + p * psize, psize, MADV_DONTNEED);
	memset(buf + p * psize, 'X', psize);
	if (dev_read(fd, buf + p * psize, psize, dst, &r)) {
		fail("HMM_DUMMY_READ: %s", strerror(errno));
		step_end();
		return;
	}
	demo("the CPU replaces page %ld (MADV_DONTNEED, then writes 'X'): HMM invalidates the device's entry; its next read faults %llu page and sees '%c'",
	     p, (unsigned long long)r.nfaulted_sys_pages, dst[0]);
	CHECK(r.nfaulted_sys_pages == 1, "device faulted %llu pages after the change, expected 1",
	      (unsigned long long)r.nfaulted_sys_pages);
	CHECK(dst[0] == 'X' && dst[psize - 1] == 'X', "device read '%c', expected 'X'", dst[0]);
	memset(buf + p * psize, pat(p, 0), psize);
	step_end();
}

/* Step 2: migration to device memory, seen by the process, pool and memcg. */
static void step_migrate(int fd, unsigned char *buf, unsigned char *dst,
			 struct snap *before)
{
	struct hmm_dummy_read r;
	struct snap a;
	long moved, bad;

	step(2, "migrate", "pages migrated to device memory");
	snap(before);
	moved = migrate(fd, buf, SIZE);
	snap(&a);
	demo("ioctl HMM_DUMMY_MIGRATE_TO of the %lu MiB: %ld pages moved to the device's memory",
	     SIZE / MIB, moved);
	demo("  process   /proc/self/status  RssAnon %ld -> %ld kB, VmDevice %ld -> %ld kB",
	     before->rss_anon_kb, a.rss_anon_kb, before->vmdevice_kb, a.vmdevice_kb);
	demo("  device    debugfs hmm_dummy/device0  in_use %ld -> %ld of %ld pages, to_device +%ld",
	     before->pool.in_use, a.pool.in_use, a.pool.pages,
	     a.pool.to_device - before->pool.to_device);
	demo("  cgroup    %s  memory.stat hmm_device %ld -> %ld bytes, memory.current %ld -> %ld KiB (the charge moved with the data)",
	     CG_NAME, before->cg_hmm_device, a.cg_hmm_device,
	     before->cg_current >> 10, a.cg_current >> 10);
	CHECK(moved == npages, "%ld pages migrated, expected %ld", moved, npages);
	CHECK(a.vmdevice_kb - before->vmdevice_kb == (long)(SIZE >> 10),
	      "VmDevice grew by %ld kB, expected %lu",
	      a.vmdevice_kb - before->vmdevice_kb, SIZE >> 10);
	/* Within 1 MiB: the stack and libc may grow meanwhile. */
	CHECK(before->rss_anon_kb - a.rss_anon_kb >= (long)(SIZE >> 10) - 1024,
	      "RssAnon dropped by %ld kB, expected %lu", before->rss_anon_kb - a.rss_anon_kb,
	      SIZE >> 10);
	CHECK(a.pool.in_use - before->pool.in_use == npages,
	      "pool in_use grew by %ld, expected %ld", a.pool.in_use - before->pool.in_use, npages);
	CHECK(a.pool.to_device - before->pool.to_device == npages,
	      "to_device grew by %ld, expected %ld",
	      a.pool.to_device - before->pool.to_device, npages);
	CHECK(a.cg_hmm_device - before->cg_hmm_device == (long)SIZE,
	      "memory.stat hmm_device grew by %ld, expected %lu",
	      a.cg_hmm_device - before->cg_hmm_device, SIZE);
	CHECK(a.cg_current >= before->cg_current - (long)(2 * MIB),
	      "memory.current dropped from %ld to %ld", before->cg_current, a.cg_current);

	if (dev_read(fd, buf, SIZE, dst, &r)) {
		fail("HMM_DUMMY_READ: %s", strerror(errno));
	} else {
		bad = bad_page(dst, 0);
		demo("the device reads the %lu MiB from its own memory: %llu device pages, %llu system pages, %s",
		     SIZE / MIB, (unsigned long long)r.ndev_pages,
		     (unsigned long long)r.nsys_pages,
		     bad < 0 ? "same bytes" : "WRONG BYTES");
		CHECK(r.ndev_pages == (unsigned long long)npages,
		      "device read %llu device pages, expected %ld",
		      (unsigned long long)r.ndev_pages, npages);
		CHECK(bad < 0, "page %ld read from device memory is wrong", bad);
	}
	step_end();
}

/* Step 3: CPU faults bring back a block of (by default) 512 pages each. */
static void step_cpu_fault(unsigned char *buf, const struct snap *s0)
{
	long window = read_key("/sys/module/hmm_migrate/parameters/window", NULL);
	volatile unsigned char *v = buf;
	struct snap b, a, c;
	unsigned char x;
	long bad, faults, back;

	step(3, "cpu-fault", "a CPU touch brings back 2 MiB per fault");
	if (window <= 0)
		window = 512;
	snap(&b);
	x = v[0];
	snap(&a);
	demo("the CPU reads 1 byte at the start: %ld fault (cpu_faults %ld -> %ld, ru_majflt +%ld) brought back %ld pages = %ld KiB (from_device +%ld)",
	     a.pool.cpu_faults - b.pool.cpu_faults, b.pool.cpu_faults, a.pool.cpu_faults,
	     a.majflt - b.majflt, a.pool.from_device - b.pool.from_device,
	     (a.pool.from_device - b.pool.from_device) * psize >> 10,
	     a.pool.from_device - b.pool.from_device);
	demo("  VmDevice %ld -> %ld kB, RssAnon %ld -> %ld kB, byte read %s",
	     b.vmdevice_kb, a.vmdevice_kb, b.rss_anon_kb, a.rss_anon_kb,
	     x == pat(0, 0) ? "right" : "WRONG");
	CHECK(a.pool.cpu_faults - b.pool.cpu_faults == 1, "%ld CPU faults, expected 1",
	      a.pool.cpu_faults - b.pool.cpu_faults);
	CHECK(a.pool.from_device - b.pool.from_device == window,
	      "%ld pages back, expected the window of %ld", a.pool.from_device - b.pool.from_device,
	      window);
	CHECK(b.vmdevice_kb - a.vmdevice_kb == window * psize >> 10,
	      "VmDevice dropped by %ld kB, expected %ld", b.vmdevice_kb - a.vmdevice_kb,
	      window * psize >> 10);
	CHECK(a.majflt - b.majflt == 1, "ru_majflt +%ld, expected 1", a.majflt - b.majflt);
	CHECK(x == pat(0, 0), "wrong byte back");

	bad = bad_page(buf, 0);
	snap(&c);
	faults = c.pool.cpu_faults - b.pool.cpu_faults;
	back = c.pool.from_device - b.pool.from_device;
	demo("the CPU reads all %lu MiB: %ld faults in all brought back %ld pages: %ld pages (%ld KiB) per fault, data %s",
	     SIZE / MIB, faults, back, faults ? back / faults : 0,
	     faults ? (back / faults) * psize >> 10 : 0, bad < 0 ? "intact" : "WRONG");
	demo("  VmDevice %ld kB, RssAnon %ld kB, pool in_use %ld, memory.stat hmm_device %ld: all back as before the migration",
	     c.vmdevice_kb, c.rss_anon_kb, c.pool.in_use, c.cg_hmm_device);
	CHECK(back == npages, "%ld pages back in all, expected %ld", back, npages);
	CHECK(faults == npages / window, "%ld CPU faults for %ld pages, expected %ld", faults,
	      npages, npages / window);
	CHECK(bad < 0, "page %ld came back wrong", bad);
	CHECK(c.vmdevice_kb == s0->vmdevice_kb, "VmDevice %ld kB, expected %ld", c.vmdevice_kb,
	      s0->vmdevice_kb);
	CHECK(c.pool.in_use == s0->pool.in_use, "pool in_use %ld, expected %ld", c.pool.in_use,
	      s0->pool.in_use);
	CHECK(c.cg_hmm_device == s0->cg_hmm_device, "hmm_device %ld, expected %ld",
	      c.cg_hmm_device, s0->cg_hmm_device);
	CHECK(c.rss_anon_kb >= s0->rss_anon_kb - 1024, "RssAnon %ld kB, was %ld before",
	      c.rss_anon_kb, s0->rss_anon_kb);
	step_end();
}

/* What the fork child reports to its parent. */
struct child_report {
	long vmdevice_kb, rss_anon_kb, majflt, bad;
	int read_errno;
};

/* Step 4: fork with memory on the device. */
static void step_fork(int fd, unsigned char *buf, unsigned char *dst,
		      const struct snap *s0)
{
	struct child_report cr = { .bad = -2 };
	struct hmm_dummy_read r;
	struct snap b, a, c;
	int pfd[2], status;
	long moved, bad;
	pid_t pid;

	step(4, "fork", "fork with memory on the device");
	moved = migrate(fd, buf, SIZE);
	snap(&b);
	demo("the %lu MiB go to the device again (%ld pages); VmDevice %ld kB, pool in_use %ld",
	     SIZE / MIB, moved, b.vmdevice_kb, b.pool.in_use);
	CHECK(moved == npages, "%ld pages migrated, expected %ld", moved, npages);
	if (pipe(pfd)) {
		fail("pipe: %s", strerror(errno));
		step_end();
		return;
	}
	pid = fork();
	if (pid < 0) {
		fail("fork: %s", strerror(errno));
		step_end();
		return;
	}
	if (!pid) {
		struct rusage ru0, ru1;
		struct hmm_dummy_read cr_r;

		close(pfd[0]);
		cr.vmdevice_kb = read_key("/proc/self/status", "VmDevice");
		cr.rss_anon_kb = read_key("/proc/self/status", "RssAnon");
		getrusage(RUSAGE_SELF, &ru0);
		cr.bad = bad_page(buf, 0);
		getrusage(RUSAGE_SELF, &ru1);
		cr.majflt = ru1.ru_majflt - ru0.ru_majflt;
		/* The child's own copy: the parent must not see this. */
		memset(buf, 'C', SIZE);
		cr.read_errno = dev_read(fd, buf, psize, dst, &cr_r) ? errno : 0;
		if (write(pfd[1], &cr, sizeof(cr)) != sizeof(cr))
			_exit(1);
		_exit(0);
	}
	close(pfd[1]);
	if (read(pfd[0], &cr, sizeof(cr)) != sizeof(cr))
		fail("no report from the child");
	close(pfd[0]);
	waitpid(pid, &status, 0);
	snap(&a);
	demo("  child  %d: VmDevice %ld kB, RssAnon %ld kB: fork gave it a copy in system memory; it reads all %lu MiB with %ld major faults, data %s",
	     pid, cr.vmdevice_kb, cr.rss_anon_kb, SIZE / MIB, cr.majflt,
	     cr.bad == -1 ? "intact" : "WRONG");
	demo("  child  : the device's mirror is the parent's only (HMM_DUMMY_READ in the child: %s); the child overwrites its copy and exits",
	     cr.read_errno ? strerror(cr.read_errno) : "succeeded");
	demo("  parent %d: VmDevice %ld -> %ld kB, pool in_use %ld -> %ld, from_device +%ld, cpu_faults +%ld: its pages stayed on the device",
	     getpid(), b.vmdevice_kb, a.vmdevice_kb, b.pool.in_use, a.pool.in_use,
	     a.pool.from_device - b.pool.from_device, a.pool.cpu_faults - b.pool.cpu_faults);
	CHECK(WIFEXITED(status) && !WEXITSTATUS(status), "child status 0x%x", status);
	CHECK(cr.vmdevice_kb == 0, "child VmDevice %ld kB, expected 0", cr.vmdevice_kb);
	CHECK(cr.rss_anon_kb >= (long)(SIZE >> 10), "child RssAnon %ld kB, expected at least %lu",
	      cr.rss_anon_kb, SIZE >> 10);
	CHECK(cr.bad == -1, "child data wrong (page %ld)", cr.bad);
	CHECK(cr.majflt == 0, "child had %ld major faults reading its copy", cr.majflt);
	CHECK(cr.read_errno == EPERM, "HMM_DUMMY_READ in the child: %s, expected EPERM",
	      strerror(cr.read_errno));
	CHECK(a.vmdevice_kb == b.vmdevice_kb, "parent VmDevice %ld kB, was %ld", a.vmdevice_kb,
	      b.vmdevice_kb);
	CHECK(a.pool.in_use == b.pool.in_use, "pool in_use %ld, was %ld", a.pool.in_use,
	      b.pool.in_use);
	CHECK(a.pool.from_device == b.pool.from_device && a.pool.cpu_faults == b.pool.cpu_faults,
	      "pages came back from the device during fork");

	if (dev_read(fd, buf, SIZE, dst, &r)) {
		fail("HMM_DUMMY_READ: %s", strerror(errno));
	} else {
		bad = bad_page(dst, 0);
		demo("  parent : the device still reads %llu device pages, the parent's data %s (the child's writes went to its copy)",
		     (unsigned long long)r.ndev_pages, bad < 0 ? "intact" : "WRONG");
		CHECK(r.ndev_pages == (unsigned long long)npages,
		      "device read %llu device pages, expected %ld",
		      (unsigned long long)r.ndev_pages, npages);
		CHECK(bad < 0, "parent page %ld wrong after fork", bad);
	}
	munmap(buf, SIZE);
	snap(&c);
	demo("munmap frees the device pages without bringing them back: VmDevice %ld kB, pool in_use %ld, from_device +%ld, hmm_device %ld",
	     c.vmdevice_kb, c.pool.in_use, c.pool.from_device - a.pool.from_device,
	     c.cg_hmm_device);
	CHECK(c.vmdevice_kb == s0->vmdevice_kb, "VmDevice %ld kB after munmap", c.vmdevice_kb);
	CHECK(c.pool.in_use == s0->pool.in_use, "pool in_use %ld after munmap, expected %ld",
	      c.pool.in_use, s0->pool.in_use);
	CHECK(c.pool.from_device == a.pool.from_device, "munmap migrated pages back");
	CHECK(c.cg_hmm_device == s0->cg_hmm_device, "hmm_device %ld after munmap",
	      c.cg_hmm_device);
	step_end();
}

/* Sum of the /proc/iomem ranges named @name, in bytes. */
static long iomem_bytes(const char *name)
{
	char line[256];
	unsigned long s, e;
	long sum = 0;
	FILE *f = fopen("/proc/iomem", "r");

	while (f && fgets(line, sizeof(line), f))
		if (strstr(line, name) && sscanf(line, " %lx-%lx", &s, &e) == 2)
			sum += e - s + 1;
	if (f)
		fclose(f);
	return sum;
}

/* Step 5: no struct page for device memory. */
static void step_struct_page(long memmap_dummy)
{
	struct pool p0, p1;
	long pages, m0, m1, m2, dp_bytes;

	step(5, "struct-page", "the struct page bytes not spent");
	if (!pool_read(0, &p0) || !pool_read(1, &p1)) {
		fail("no debugfs counters");
		step_end();
		return;
	}
	pages = p0.pages + p1.pages;
	if (memmap_dummy >= 0) {
		demo("hmm_dummy registered 2 pools of device memory, %ld + %ld pages (%ld MiB): nr_memmap_pages (/proc/vmstat) +%ld, no struct page",
		     p0.pages, p1.pages, pages * psize / (long)MIB, memmap_dummy);
		CHECK(memmap_dummy == 0, "nr_memmap_pages grew by %ld when hmm_dummy loaded",
		      memmap_dummy);
	} else {
		demo("hmm_dummy was loaded before the demo: 2 pools, %ld + %ld pages (%ld MiB), registered without struct page",
		     p0.pages, p1.pages, pages * psize / (long)MIB);
	}
	demo("DEVICE_PRIVATE would need a struct page per device page: %ld pages x %d bytes = %ld KiB not spent (%ld KiB per GiB of device memory)",
	     pages, STRUCT_PAGE, pages * STRUCT_PAGE >> 10,
	     (1L << 30) / psize * STRUCT_PAGE >> 10);

	/* Measured on upstream's DEVICE_PRIVATE driver, lib/test_hmm.c. */
	if (access("/dev/hmm_dmirror0", F_OK) == 0) {
		demo("(test_hmm is already loaded: no DEVICE_PRIVATE measurement)");
	} else {
		m0 = memmap_pages();
		if (run("modprobe", "test_hmm")) {
			demo("(no test_hmm module: no DEVICE_PRIVATE measurement)");
		} else {
			m1 = memmap_pages();
			dp_bytes = iomem_bytes("hmm_dmirror");
			if (run("rmmod", "test_hmm"))
				fail("rmmod test_hmm failed");
			m2 = memmap_pages();
			demo("measured: upstream's test_hmm maps %ld MiB of DEVICE_PRIVATE memory: nr_memmap_pages +%ld (%ld KiB) = %ld bytes per device page; -%ld at rmmod",
			     dp_bytes / (long)MIB, m1 - m0, (m1 - m0) * psize >> 10,
			     dp_bytes ? (m1 - m0) * psize / (dp_bytes / psize) : 0, m1 - m2);
			CHECK(dp_bytes > 0, "no hmm_dmirror range in /proc/iomem");
			CHECK(dp_bytes && (m1 - m0) * psize / (dp_bytes / psize) == STRUCT_PAGE,
			      "DEVICE_PRIVATE memmap is not %d bytes per page", STRUCT_PAGE);
			CHECK(m2 == m0, "nr_memmap_pages %ld after rmmod test_hmm, %ld before", m2, m0);
		}
	}
	step_end();
}

int main(void)
{
	long memmap_dummy = -1, m0;
	bool loaded = false;
	unsigned char *buf, *dst;
	struct pool p;
	struct snap s0, before;
	size_t head;
	int fd, i;

	psize = sysconf(_SC_PAGESIZE);
	npages = SIZE / psize;
	setvbuf(stdout, NULL, _IOLBF, 0);
	ktap_header();

	if (access(DBG, F_OK))
		mount("debugfs", "/sys/kernel/debug", "debugfs", 0, NULL);
	if (access(DEV_NODE, F_OK)) {
		m0 = memmap_pages();
		if (run("modprobe", "hmm_dummy")) {
			printf("DEMO 0 FAIL: cannot load hmm_dummy\n");
			ktap_result(KTAP_FAIL, "0-setup", "modprobe");
			return 2;
		}
		loaded = true;
		memmap_dummy = memmap_pages() - m0;
		/* devtmpfs creates the nodes asynchronously */
		for (i = 0; i < 100 && access(DEV_NODE, F_OK); i++)
			usleep(100000);
	}
	fd = open(DEV_NODE, O_RDWR);
	if (fd < 0 || ioctl(fd, HMM_DUMMY_EXPOSE_MM)) {
		printf("DEMO 0 FAIL: cannot mirror through %s: %s\n",
		       DEV_NODE, strerror(errno));
		ktap_result(KTAP_FAIL, "0-setup", "mirror");
		return 2;
	}
	if (!pool_read(0, &p)) {
		printf("DEMO 0 FAIL: no counters in " DBG "/device0\n");
		ktap_result(KTAP_FAIL, "0-setup", "debugfs");
		return 2;
	}
	if (!cg_setup()) {
		printf("DEMO 0 FAIL: no memory cgroup with hmm_device in memory.stat\n");
		ktap_result(KTAP_FAIL, "0-setup", "memcg");
		return 2;
	}
	/*
	 * 2 MiB aligned, so that each CPU fault's window (a naturally aligned
	 * block) lies inside the buffer.
	 */
	buf = mmap(NULL, SIZE + ALIGN, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	dst = mmap(NULL, SIZE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (buf == MAP_FAILED || dst == MAP_FAILED) {
		printf("DEMO 0 FAIL: mmap: %s\n", strerror(errno));
		ktap_result(KTAP_FAIL, "0-setup", "mmap");
		return 2;
	}
	head = (ALIGN - ((uintptr_t)buf & (ALIGN - 1))) & (ALIGN - 1);
	if (head)
		munmap(buf, head);
	buf += head;
	munmap(buf + SIZE, ALIGN - head);
	/* 4 KiB pages, so that the counters below are exact page counts. */
	madvise(buf, SIZE, MADV_NOHUGEPAGE);
	memset(dst, 0, SIZE);
	demo("HMM demo: hmm_dummy, a fake device with its own page table and %ld MiB of device memory (debugfs " DBG "/device0)",
	     p.pages * psize / (long)MIB);
	demo("process %d runs in memory cgroup %s", getpid(), cg);

	step_mirror(fd, buf, dst);
	snap(&s0);
	step_migrate(fd, buf, dst, &before);
	step_cpu_fault(buf, &s0);
	step_fork(fd, buf, dst, &s0);
	step_struct_page(memmap_dummy);

	step(6, "teardown", "the end: the mirror goes, the device is empty");
	close(fd);
	pool_read(0, &p);
	demo("the mirror's file is closed: pool in_use %ld (%ld before the demo)", p.in_use,
	     s0.pool.in_use);
	CHECK(p.in_use == s0.pool.in_use, "pool in_use %ld, expected %ld", p.in_use,
	      s0.pool.in_use);
	if (loaded) {
		i = run("rmmod", "hmm_dummy");
		demo("rmmod hmm_dummy: %s", i ? "FAILED (a mirror or device page leaked?)" : "done");
		CHECK(!i, "rmmod hmm_dummy failed");
	}
	munmap(dst, SIZE);
	cg_teardown();
	step_end();
	step_no = 7;
	demo("%s; the tests follow", total_fails ? "SOME STEPS FAILED" : "every step's numbers are right");
	return total_fails ? 1 : 0;
}
