// SPDX-License-Identifier: GPL-2.0
/*
 * upb-evict-check: hmm_upstream_bench's eviction at module unload, with
 * PMD-sized device folios (compound=1, 7.3) and single device pages in
 * the same pool. A check of the measuring apparatus, not of the series.
 *
 * Maps A (THP, 4 MiB) and B (4 KiB pages, 1 MiB), fills both with a
 * pattern, migrates A whole (UPB_F_COMPOUND: 2 device folios) and B page by
 * page to /dev/hmm_upstream_bench0, checks the counts, closes the device
 * and prints "migrated"; the caller then unloads the module, whose exit
 * migrates every device page back (migrate_device_range(): a THP for each
 * large device folio), and writes a line to our stdin. Then every page of
 * A and B must hold its pattern. Exit 0: PASS; 1: FAIL; 4: SKIP (6.12:
 * -EOPNOTSUPP).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
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

static void fill(char *p, unsigned long size, unsigned char seed)
{
	for (unsigned long i = 0; i < size; i += PG) {
		memset(p + i, (unsigned char)(seed + i / PG), PG);
		p[i] = (char)seed;
	}
}

static unsigned long bad(const char *p, unsigned long size, unsigned char seed)
{
	unsigned long n = 0;

	for (unsigned long i = 0; i < size; i += PG) {
		unsigned char v = (unsigned char)(seed + i / PG);

		if ((unsigned char)p[i] != seed || (unsigned char)p[i + PG - 1] != v)
			n++;
	}
	return n;
}

int main(void)
{
	unsigned long sa = 2 * PMD, sb = 1UL << 20, ba, bb;
	struct upb_migrate m;
	char *a = map(sa, 1), *b = map(sb, 0), line[16];
	int fd = open("/dev/hmm_upstream_bench0", O_RDWR);

	if (fd < 0) {
		perror("open /dev/hmm_upstream_bench0");
		return 1;
	}
	fill(a, sa, 3);
	fill(b, sb, 7);
	memset(&m, 0, sizeof(m));
	m.addr = (uintptr_t)a;
	m.size = sa;
	m.flags = UPB_F_COMPOUND;
	if (ioctl(fd, UPB_MIGRATE_TO, &m)) {
		if (errno == EOPNOTSUPP) {
			printf("SKIP: UPB_F_COMPOUND: %s\n", strerror(errno));
			return 4;
		}
		perror("UPB_MIGRATE_TO A");
		return 1;
	}
	if (m.npages != sa / PG || m.ncompound != sa / PMD) {
		printf("FAIL: A: npages %llu ncompound %llu, want %lu and %lu\n",
		       (unsigned long long)m.npages, (unsigned long long)m.ncompound,
		       sa / PG, sa / PMD);
		return 1;
	}
	memset(&m, 0, sizeof(m));
	m.addr = (uintptr_t)b;
	m.size = sb;
	if (ioctl(fd, UPB_MIGRATE_TO, &m) || m.npages != sb / PG || m.ncompound) {
		printf("FAIL: B: npages %llu ncompound %llu (%s)\n",
		       (unsigned long long)m.npages, (unsigned long long)m.ncompound,
		       strerror(errno));
		return 1;
	}
	close(fd);
	printf("migrated\n");
	fflush(stdout);
	if (!fgets(line, sizeof(line), stdin))
		return 1;
	ba = bad(a, sa, 3);
	bb = bad(b, sb, 7);
	if (ba || bb) {
		printf("FAIL: pages with the wrong data after the unload: A %lu, B %lu\n",
		       ba, bb);
		return 1;
	}
	printf("PASS: %lu + %lu pages back with their data\n", sa / PG, sb / PG);
	return 0;
}
