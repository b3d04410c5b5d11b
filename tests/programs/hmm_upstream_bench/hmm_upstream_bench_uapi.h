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
 * Implemented: UPB_MIGRATE_TO, UPB_MIGRATE_BACK, UPB_READ, UPB_CEILING mode
 * 0, UPB_STATS and UPB_CALIBRATE, and with the timing module parameter the
 * phase times (struct upb_times, the timing counters of struct upb_stats).
 * UPB_WRITE and UPB_CEILING mode 1 fail with -EOPNOTSUPP, and so does
 * UPB_F_COMPOUND on 6.12 (no MIGRATE_VMA_SELECT_COMPOUND there).
 */
#ifndef _HMM_UPSTREAM_BENCH_UAPI_H
#define _HMM_UPSTREAM_BENCH_UAPI_H

#include <linux/const.h>
#include <linux/ioctl.h>
#include <linux/types.h>

/**
 * struct upb_times - where the time of an operation went, in nanoseconds
 * @total: the whole ioctl body (always filled)
 * @core: in mm core calls (migrate_vma_*(), the device page init, and on
 *	the way back alloc_page_vma() and lock_page()), minus the module's
 *	callbacks inside them
 * @copy: the copy loop
 * @devmem: the pool allocation loop, but for the device page init
 * @table: device table updates outside the callbacks
 * @callbacks: time in the module's callbacks (invalidate, folio_free)
 *	during the operation
 *
 * So for migrations; %UPB_READ fills @core and @table otherwise (see
 * struct upb_rw).
 *
 * All but @total are filled only with the timing module parameter (0
 * otherwise).
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
 * @flags: input, %UPB_F_COMPOUND (PMD-sized folios move whole, as with
 *	the compound parameter; -EOPNOTSUPP on 6.12); %UPB_F_NOMAP
 *	(%UPB_MIGRATE_TO only, test only): the device table entries of the
 *	pages that moved are erased instead of pointed at device memory
 * @npages: output, pages migrated
 * @ncompound: output, PMD-sized folios moved whole (%UPB_MIGRATE_TO)
 * @nbusy: output, pages the core collected but that did not migrate (the
 *	pool was full, an allocation failed, or the core gave up on them);
 *	for %UPB_MIGRATE_BACK, device pages only, not the holes that the
 *	core collects too
 * @t: output, timing
 * @nclocks: output, with timing: clock pairs inside @t.core's intervals;
 *	each adds about half a %UPB_CALIBRATE pair to @t.core
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
	__u64 nclocks;
	__u64 reserved[3];
};

/**
 * struct upb_rw - argument of %UPB_READ (and %UPB_WRITE, not implemented)
 * @addr: input, start of the mirrored range (page aligned)
 * @size: input, bytes to copy (page aligned)
 * @ptr: input, the caller's buffer, @size bytes
 * @nsys: output, pages copied from system memory
 * @ndev: output, pages copied from this device's memory
 * @nfaulted: output, device table entries that device faults filled
 *	where there was none
 * @nfault_calls: output, device faults (upb_fault() calls, one
 *	hmm_range_fault() call each, more if invalidations raced it or
 *	the table's node allocation fell back)
 * @t: output, timing: @core, the device faults but for their table
 *	stores (the pfn array, the mm reference, the notifier sequence
 *	protocol, the mmap lock and hmm_range_fault()), minus the callbacks;
 *	@table, the table stores of the faults and the fallback's node
 *	allocation; @copy and @devmem 0 (the
 *	accesses are not timed, as on ours' side)
 * @nclocks: output, with timing: clock pairs inside @t.core's intervals
 * @table_clocks: output, with timing: the table intervals of the faults
 *	(each adds about one ktime_get_ns() call to @t.table)
 * @reserved: ignored
 *
 * The range is copied through a bounce of 16 pages, as hmm_dummy's
 * %HMM_DUMMY_READ. Where the device table has no entry, a device fault
 * fills it for the rest of the request, at most fault_pages pages (module
 * parameter, default 512, as hmm_dummy's faults).
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
	__u64 nclocks;
	__u64 table_clocks;
	__u64 reserved[1];
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
 *
 * With the timing module parameter on, in nanoseconds (counted while it
 * is on, never reset):
 * @m2r_total: time in migrate_to_ram
 * @m2r_core: its core calls (migrate_vma_*(), alloc_page_vma() and
 *	lock_page()), with the callbacks they make
 * @m2r_copy: its copy loop
 * @m2r_table: its device table erase
 * @m2r_clocks: clock pairs inside @m2r_core's intervals
 * @folio_free_ns: time in the folio_free (6.12: page_free) callback,
 *	wherever it is called from
 * @folio_free_calls: its calls
 * @invalidate_ns: time in the invalidate callback
 * @invalidate_calls: its calls
 * @reserved: 0
 *
 * The driver's part of a CPU fault is @m2r_total - @m2r_core plus the
 * callbacks; the core's part is the rest of the fault.
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
	__u64 m2r_table;
	__u64 m2r_clocks;
	__u64 folio_free_ns;
	__u64 folio_free_calls;
	__u64 invalidate_ns;
	__u64 invalidate_calls;
	__u64 reserved[2];
};

/**
 * struct upb_calibrate - argument of %UPB_CALIBRATE
 * @iters: input, iterations (0: 100000; at most 10000000, -EINVAL above)
 * @ktime_pair_ps: output, picoseconds per ktime_get_ns() pair (the fastest
 *	of chunks of 4096 pairs)
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
