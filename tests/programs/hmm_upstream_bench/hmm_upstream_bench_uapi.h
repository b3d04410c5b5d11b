/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * User space interface of hmm_upstream_bench, the benchmark driver that runs
 * upstream HMM (migrate_vma_*(), MEMORY_DEVICE_PRIVATE) the way an in-tree
 * driver does, with the pool allocator and copy loops of the series'
 * hmm_dummy (see README). Like lib/test_hmm_uapi.h, the header is private to
 * the module and its benchmark (tests/programs/hmm-bench.c), which includes
 * it from this directory.
 *
 * Character devices /dev/hmm_upstream_bench0..N-1 (module parameter
 * ndevices). Each open file mirrors the address space of the process that
 * opened it; the ioctls that take a range work on that process only (-EPERM
 * from another one).
 *
 * Every structure is 128 bytes of __u64 fields. Fields documented as output
 * are ignored on input; reserved fields are ignored and come back as they
 * were.
 *
 * A range [addr, addr + size) must be page aligned, not empty, must not wrap
 * and must end below the task size: -EINVAL otherwise. Every page of it must
 * be covered by a VMA (-EFAULT otherwise) that is anonymous and not
 * VM_IO/VM_PFNMAP/VM_MIXEDMAP/VM_DONTEXPAND (-EINVAL otherwise); nothing
 * moves when the range is refused. These checks are not hmm_dummy's (see
 * README).
 *
 * Slice 1 implements UPB_MIGRATE_TO, UPB_MIGRATE_BACK, UPB_CEILING mode 0
 * and UPB_STATS. UPB_READ, UPB_WRITE, UPB_CALIBRATE and UPB_CEILING mode 1
 * fail with -EOPNOTSUPP, and so does UPB_F_COMPOUND. Of struct upb_times
 * only @total is filled so far.
 */
#ifndef _HMM_UPSTREAM_BENCH_UAPI_H
#define _HMM_UPSTREAM_BENCH_UAPI_H

#include <linux/const.h>
#include <linux/ioctl.h>
#include <linux/types.h>

/**
 * struct upb_times - where the time of an operation went, in nanoseconds
 * @total: the whole ioctl body (always filled)
 * @core: in mm core calls, minus the module's callbacks inside them
 * @copy: copy_highpage() / clear_highpage() / copy_page() loops
 * @devmem: pool allocator and the folio_free callback
 * @table: device table: xarray stores and erases, invalidate callback
 * @callbacks: time spent in the module's callbacks inside core calls
 *
 * All but @total are filled only with the timing module parameter (not
 * implemented yet: 0).
 */
struct upb_times {
	__u64 total;
	__u64 core;
	__u64 copy;
	__u64 devmem;
	__u64 table;
	__u64 callbacks;
};				/* 48 bytes */

/**
 * struct upb_migrate - argument of %UPB_MIGRATE_TO and %UPB_MIGRATE_BACK
 * @addr: input, start of the range (page aligned)
 * @size: input, its size in bytes (page aligned)
 * @flags: input, %UPB_F_COMPOUND (-EOPNOTSUPP so far); %UPB_F_NOMAP
 *	(%UPB_MIGRATE_TO only, test only): the device table entries of the
 *	pages that moved are erased instead of pointed at device memory
 * @npages: output, pages migrated
 * @ncompound: output, PMD folios moved whole (0 so far)
 * @nbusy: output, pages the core collected but that did not migrate (the
 *	pool was full, an allocation failed, or the core gave up on them);
 *	for %UPB_MIGRATE_BACK, device pages only, not the holes that the
 *	core collects too
 * @t: output, timing
 * @reserved: ignored
 *
 * %UPB_MIGRATE_TO moves the system pages of the range into device memory,
 * in batches of the batch_pages module parameter. Pages already in device
 * memory are skipped. When the pool is full the migration is partial (and
 * counted in debugfs alloc_failures); it is not an error. Nothing is copied
 * back to the caller. %UPB_MIGRATE_BACK moves this device's pages of the
 * range back to system memory.
 */
struct upb_migrate {
	__u64 addr;
	__u64 size;
	__u64 flags;
	__u64 npages;
	__u64 ncompound;
	__u64 nbusy;
	struct upb_times t;
	__u64 reserved[4];
};

/**
 * struct upb_rw - argument of %UPB_READ and %UPB_WRITE (not implemented yet)
 * @addr: input, start of the mirrored range
 * @size: input, bytes to copy
 * @ptr: input, the caller's buffer
 * @nsys: output, pages copied from or to system memory
 * @ndev: output, pages copied from or to device memory
 * @nfaulted: output, entries made valid by device faults
 * @nfault_calls: output, hmm_range_fault() calls
 * @t: output, timing (@core: hmm_range_fault() plus the sequence protocol)
 * @reserved: ignored
 */
struct upb_rw {
	__u64 addr;
	__u64 size;
	__u64 ptr;
	__u64 nsys;
	__u64 ndev;
	__u64 nfaulted;
	__u64 nfault_calls;
	struct upb_times t;
	__u64 reserved[3];
};

/**
 * struct upb_ceiling - argument of %UPB_CEILING
 * @npages: input, pages to copy (at most the free pages of the pool)
 * @mode: input, 0: copy_highpage() from temporary system pages into free
 *	pool pages, in batches of PTRS_PER_PTE (512) pages, with hmm_dummy's
 *	copy loop (the single-copy ceiling of a migration); 1: copy_page()
 *	into a 64 KiB bounce plus copy_to_user() into @ptr (not implemented
 *	yet). -ENOSPC if the pool has fewer than @npages free pages, which is
 *	not counted in alloc_failures
 * @ptr: input, mode 1 only: a user buffer of @npages pages
 * @ns: output, nanoseconds of the copies alone (the pages are allocated
 *	and freed outside the timed region)
 * @reserved: ignored
 */
struct upb_ceiling {
	__u64 npages;
	__u64 mode;
	__u64 ptr;
	__u64 ns;
	__u64 reserved[12];
};

/**
 * struct upb_stats - output of %UPB_STATS: the counters of the file's
 *	device since the module was loaded (debugfs hmm_upstream_bench/deviceN
 *	shows the first five under the same names)
 * @to_device: pages migrated to the device
 * @from_device: pages migrated back (CPU faults, %UPB_MIGRATE_BACK, eviction)
 * @cpu_faults: CPU faults that migrated pages back
 * @in_use: allocated pool pages
 * @alloc_failures: pool allocations that found the pool full
 * @m2r_total: time in migrate_to_ram (timing, not implemented yet: 0)
 * @m2r_core: its core part (0)
 * @m2r_copy: its copy part (0)
 * @m2r_devmem: its allocator part (0)
 * @m2r_table: its device table part (0)
 * @m2r_folio_free: time in the folio_free callback (0)
 * @reserved: 0
 */
struct upb_stats {
	__u64 to_device;
	__u64 from_device;
	__u64 cpu_faults;
	__u64 in_use;
	__u64 alloc_failures;
	__u64 m2r_total;
	__u64 m2r_core;
	__u64 m2r_copy;
	__u64 m2r_devmem;
	__u64 m2r_table;
	__u64 m2r_folio_free;
	__u64 reserved[5];
};

/**
 * struct upb_calibrate - argument of %UPB_CALIBRATE (not implemented yet)
 * @iters: input, iterations
 * @ktime_pair_ps: output, picoseconds per ktime_get_ns() pair
 * @alloc_free_pair_ps: output, picoseconds per pool alloc + free pair
 * @reserved: ignored
 */
struct upb_calibrate {
	__u64 iters;
	__u64 ktime_pair_ps;
	__u64 alloc_free_pair_ps;
	__u64 reserved[13];
};

#define UPB_MIGRATE_TO		_IOWR('U', 0x01, struct upb_migrate)
#define UPB_READ		_IOWR('U', 0x02, struct upb_rw)
#define UPB_WRITE		_IOWR('U', 0x03, struct upb_rw)
#define UPB_MIGRATE_BACK	_IOWR('U', 0x04, struct upb_migrate)
#define UPB_CEILING		_IOWR('U', 0x05, struct upb_ceiling)
#define UPB_STATS		_IOR('U', 0x06, struct upb_stats)
#define UPB_CALIBRATE		_IOWR('U', 0x07, struct upb_calibrate)

/* struct upb_migrate.flags */
#define UPB_F_COMPOUND		_BITULL(0)	/* per call, overrides the param */
#define UPB_F_NOMAP		_BITULL(1)	/* no table remap (test only) */

#endif /* _HMM_UPSTREAM_BENCH_UAPI_H */
