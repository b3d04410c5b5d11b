// SPDX-License-Identifier: GPL-2.0
/*
 * upb-evict-check: hmm_upstream_bench's eviction at module unload, with
 * PMD-sized device folios (compound=1, 7.3) and single device pages in
 * the same pool. A check of the measuring apparatus, not of the series.
 *
 * Maps A (THP, 4 MiB) and B (4 KiB pages, 1 MiB), fills both with a
 * pattern, migrates A whole (UPB_F_COMPOUND: 2 device folios) and B page by
 * page to /dev/hmm_upstream_bench0, checks the counts, reads 16 pages of A
 * from page 16 on through the device (UPB_READ: a device fault that starts
 * inside a device-private PMD; 7.3's hmm_range_fault() gives such a range
 * the PMD's pfns from its first page on, which the module corrects: pages
 * 0-15 instead of 16-31 without that), closes the device
 * and prints "migrated"; the caller then unloads the module, whose exit
 * migrates every device page back (migrate_device_range(): a THP for each
 * large device folio), and writes a line to our stdin. Then the module
 * must be gone, every page of A and B present in system memory before any
 * is touched (/proc/self/pagemap: the unload brought them back, not a CPU
 * fault; a device page is a swap-type entry), A's as THP (/proc/kpageflags
 * KPF_THP; AnonHugePages counts device-private THP too), and every page
 * must hold its pattern: its own page number and seed at 8 places.
 * Exit 0: PASS; 1: FAIL; 4: SKIP (6.12: -EOPNOTSUPP; or A not THP).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "hmm_upstream_bench_uapi.h"

#define PG	4096UL
#define PMD	(2UL << 20)

static char *map(unsigned long size, int thp)
{
	char *p = mmap(NULL, size + PMD, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	char *a;

	if (p == MAP_FAILED) {
		perror("mmap");
		exit(1);
	}
	a = (char *)(((uintptr_t)p + PMD - 1) & ~(PMD - 1));
	if (madvise(a, size, thp ? MADV_HUGEPAGE : MADV_NOHUGEPAGE)) {
		perror("madvise");
		exit(1);
	}
	return a;
}

/* Page i: (seed << 32 | i) at 8 places (every 512 bytes), the rest 0x5a. */
static void fill(char *p, unsigned long size, uint64_t seed)
{
	for (unsigned long i = 0; i < size / PG; i++) {
		memset(p + i * PG, 0x5a, PG);
		for (unsigned long o = 0; o < PG; o += 512)
			*(uint64_t *)(p + i * PG + o) = seed << 32 | i;
	}
}

static unsigned long bad(const char *p, unsigned long size, uint64_t seed)
{
	unsigned long n = 0;

	for (unsigned long i = 0; i < size / PG; i++)
		for (unsigned long o = 0; o < PG; o += 512)
			if (*(const uint64_t *)(p + i * PG + o) != (seed << 32 | i) ||
			    (unsigned char)p[i * PG + o + 8] != 0x5a) {
				n++;
				break;
			}
	return n;
}

/*
 * Pages of [p, p + size) not present in system memory, and with @thp, not
 * part of a THP (KPF_THP, bit 22 of /proc/kpageflags; needs root).
 */
static long not_back(const char *p, unsigned long size, int thp)
{
	int pm = open("/proc/self/pagemap", O_RDONLY);
	int kf = open("/proc/kpageflags", O_RDONLY);
	long n = 0;

	if (pm < 0 || (thp && kf < 0)) {
		perror("open /proc/self/pagemap or /proc/kpageflags");
		n = -1;
	}
	for (unsigned long i = 0; n >= 0 && i < size / PG; i++) {
		uint64_t e = 0, f = 0;

		if (pread(pm, &e, 8, ((uintptr_t)p / PG + i) * 8) != 8) {
			n = -1;
		} else if (!(e >> 63 & 1)) {
			n++;
		} else if (thp) {
			if (pread(kf, &f, 8, (e & ((1ULL << 55) - 1)) * 8) != 8)
				n = -1;
			else if (!(f >> 22 & 1))
				n++;
		}
	}
	if (pm >= 0)
		close(pm);
	if (kf >= 0)
		close(kf);
	return n;
}

/*
 * UPB_MIGRATE_TO of [p, p + size) with @flags: every page must move, and
 * with UPB_F_COMPOUND as one folio per 2 MiB (none without). 0: so; 1:
 * FAIL; 4: SKIP (UPB_F_COMPOUND refused: 6.12).
 */
static int migrate_to(int fd, char *p, unsigned long size, uint64_t flags,
		      const char *what)
{
	unsigned long want_c = flags & UPB_F_COMPOUND ? size / PMD : 0;
	struct upb_migrate m;

	memset(&m, 0, sizeof(m));
	m.addr = (uintptr_t)p;
	m.size = size;
	m.flags = flags;
	if (ioctl(fd, UPB_MIGRATE_TO, &m)) {
		if (errno == EOPNOTSUPP && (flags & UPB_F_COMPOUND)) {
			printf("SKIP: UPB_F_COMPOUND: %s\n", strerror(errno));
			return 4;
		}
		printf("FAIL: UPB_MIGRATE_TO %s: %s\n", what, strerror(errno));
		return 1;
	}
	if (m.npages != size / PG || m.ncompound != want_c) {
		printf("FAIL: %s: npages %llu ncompound %llu, want %lu and %lu\n", what,
		       (unsigned long long)m.npages, (unsigned long long)m.ncompound,
		       size / PG, want_c);
		return 1;
	}
	return 0;
}

static long anon_huge_kb(void)
{
	char line[128];
	long v = -1;
	FILE *f = fopen("/proc/meminfo", "r");

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "AnonHugePages: %ld", &v) == 1)
			break;
	fclose(f);
	return v;
}

int main(void)
{
	unsigned long sa = 2 * PMD, sb = 1UL << 20, ba, bb;
	long h0 = anon_huge_kb(), na, nb;
	int rc;
	char *a = map(sa, 1), *b = map(sb, 0), line[16];
	int fd = open("/dev/hmm_upstream_bench0", O_RDWR);
	struct stat st;

	if (fd < 0) {
		perror("open /dev/hmm_upstream_bench0");
		return 1;
	}
	fill(a, sa, 3);
	fill(b, sb, 7);
	if (anon_huge_kb() - h0 < (long)(sa >> 10)) {
		printf("SKIP: A is not THP-backed (AnonHugePages +%ld KiB)\n",
		       anon_huge_kb() - h0);
		return 4;
	}
	rc = migrate_to(fd, a, sa, UPB_F_COMPOUND, "A");
	if (!rc)
		rc = migrate_to(fd, b, sb, 0, "B");
	if (rc)
		return rc;
	{
		char *buf = malloc(16 * PG);
		struct upb_rw rw = { .addr = (uintptr_t)a + 16 * PG, .size = 16 * PG };
		unsigned long nb = 0;

		if (!buf)
			return 1;
		rw.ptr = (uintptr_t)buf;
		if (ioctl(fd, UPB_READ, &rw)) {
			perror("UPB_READ A");
			return 1;
		}
		for (unsigned long i = 0; i < 16; i++)
			if (*(uint64_t *)(buf + i * PG) != ((uint64_t)3 << 32 | (16 + i)))
				nb++;
		if (nb || rw.ndev != 16) {
			printf("FAIL: UPB_READ of A's pages 16-31: %lu wrong (page 16 reads as %llu), ndev %llu\n",
			       nb, (unsigned long long)(*(uint64_t *)buf & 0xffffffff),
			       (unsigned long long)rw.ndev);
			return 1;
		}
		free(buf);
	}
	close(fd);
	if (not_back(a, sa, 0) != (long)(sa / PG) || not_back(b, sb, 0) != (long)(sb / PG)) {
		printf("FAIL: A or B has pages present in system memory after the migration\n");
		return 1;
	}
	printf("migrated\n");
	fflush(stdout);
	if (!fgets(line, sizeof(line), stdin))
		return 1;
	if (!stat("/sys/module/hmm_upstream_bench", &st)) {
		printf("FAIL: the module is still loaded\n");
		return 1;
	}
	na = not_back(a, sa, 1);
	nb = not_back(b, sb, 0);
	if (na || nb) {
		printf("FAIL: after the unload, not back in system memory: A %ld (or not THP), B %ld\n",
		       na, nb);
		return 1;
	}
	ba = bad(a, sa, 3);
	bb = bad(b, sb, 7);
	if (ba || bb) {
		printf("FAIL: pages with the wrong data after the unload: A %lu, B %lu\n",
		       ba, bb);
		return 1;
	}
	printf("PASS: %lu + %lu pages back in system memory (A as THP) with their data\n",
	       sa / PG, sb / PG);
	return 0;
}
