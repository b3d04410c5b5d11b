// SPDX-License-Identifier: GPL-2.0
/*
 * hmm_upstream_bench: the competitor of the series' hmm_dummy in the HMM
 * benchmarks. It drives upstream HMM (migrate_vma_*(), memremap_pages() of
 * MEMORY_DEVICE_PRIVATE memory, mmu interval notifiers) the way the best
 * in-tree driver does, and does the driver's own work exactly as hmm_dummy
 * does it, so that a ratio between the two compares the cores:
 *
 * - device memory is a pool of ordinary pages filled at load with hmm_dummy's
 *   alloc_page() loop; device pfn pfn_first + i is pool page i;
 * - the pool allocator (bitmap, hint, spinlock, counters) is a verbatim copy
 *   of hmm_dummy_devmem_alloc() and hmm_dummy_devmem_free();
 * - the copies are hmm_dummy's copy_highpage() / clear_highpage() loops with
 *   a cond_resched() per page, with the same signatures;
 * - UPB_MIGRATE_TO migrates in batches aligned as hmm_dummy's core does
 *   (batch_pages, PTRS_PER_PTE: one PMD), and copies nothing back to the
 *   caller;
 * - a CPU fault migrates back every device page of this device in the
 *   naturally aligned block of window pages around the address, clipped to
 *   the VMA, as amdkfd's svm_migrate_to_ram() does (without its process-wide
 *   lock, as drm_pagemap).
 * It is measuring apparatus, not part of the posted series (see README).
 *
 * Locking. Each open file mirrors its process's address space through an
 * mmu interval notifier over all of it and keeps a device table, an xarray
 * indexed by virtual page number, which UPB_READ's device faults fill and
 * its accesses read under @lock, copying the pages under it too (the table
 * holds no page references: every other path that frees or migrates a page
 * invalidates first, and the invalidation waits for @lock; this module's
 * own migrations update the tables under @lock themselves, below). @lock
 * of the file serializes the table against the
 * invalidate callback, which takes it (or tries to, when it must not sleep)
 * and bumps the notifier sequence. It erases the invalidated range, except
 * for the MMU_NOTIFY_MIGRATE invalidations that name this device as owner:
 * those are this module's own migrations, which update the tables
 * themselves. To the device, the entries of the collected pages lose their
 * write permission before the copy and name the pool page after
 * migrate_vma_pages(); on the way back they are erased before the copy, as
 * lib/test_hmm.c does. Since every file of the device that mirrors the same mm
 * skips them, the update walks all of them: the device's @files list, under
 * @files_sem for reading. Lock order: mmap lock -> page locks -> @files_sem
 * -> file @lock -> xarray lock. No lock of the module is held across
 * migrate_vma_setup() or migrate_vma_pages(), across an allocation that may
 * reclaim (reclaim may call the invalidate callback), or across a user
 * copy. The pool's spinlock is a leaf: nothing is taken under it, but the
 * folio_free callback takes it wherever the last reference to a device page
 * goes, e.g. under a page table lock (zap) or page locks (finalize).
 *
 * Device pages live on after their file is closed: a CPU fault, munmap() or
 * exit brings them back or frees them, and module exit evicts the rest
 * before memunmap_pages().
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/bitmap.h>
#include <linux/build_bug.h>
#include <linux/cdev.h>
#include <linux/debugfs.h>
#include <linux/delay.h>
#include <linux/device.h>
#include <linux/fs.h>
#include <linux/highmem.h>
#include <linux/hmm.h>
#include <linux/ioport.h>
#include <linux/kernel.h>
#include <linux/ktime.h>
#include <linux/list.h>
#include <linux/log2.h>
#include <linux/memremap.h>
#include <linux/migrate.h>
#include <linux/minmax.h>
#include <linux/mm.h>
#include <linux/mmu_notifier.h>
#include <linux/mmzone.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/mutex.h>
#include <linux/overflow.h>
#include <linux/pagemap.h>
#include <linux/rwsem.h>
#include <linux/sched.h>
#include <linux/sched/mm.h>
#include <linux/sched/signal.h>
#include <linux/seq_file.h>
#include <linux/sizes.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/uaccess.h>
#include <linux/wait.h>
#include <linux/xarray.h>

#include "hmm_upstream_bench_uapi.h"

#if !IS_ENABLED(CONFIG_DEVICE_PRIVATE) || !IS_ENABLED(CONFIG_HMM_MIRROR) || \
	!IS_ENABLED(CONFIG_MMU_NOTIFIER)
#error "hmm_upstream_bench needs CONFIG_DEVICE_PRIVATE, CONFIG_HMM_MIRROR and CONFIG_MMU_NOTIFIER"
#endif

/*
 * Two bases, 6.12 and 7.3. 6.12 has ->page_free(page), zone_device_page_init()
 * without a pgmap and order, page->pgmap, and no MIGRATE_VMA_SELECT_COMPOUND.
 * No macro names ->folio_free itself. MIGRATE_PFN_COMPOUND came with it, in
 * the series that moved device-private memory to large folios, and tells
 * the two bases apart; it is no general test (page_pgmap() is older, the
 * pgmap argument of zone_device_folio_init() newer), so a kernel between
 * the two bases may build with neither branch.
 */
#ifndef MIGRATE_PFN_COMPOUND
#define UPB_PAGE_FREE_API 1
/* 6.12: no large device folios; the flags test false and select nothing */
#define MIGRATE_PFN_COMPOUND		0UL
#define MIGRATE_VMA_SELECT_COMPOUND	0
#endif
#ifndef kzalloc_obj	/* 6.12 */
#define kzalloc_obj(P, GFP)	kzalloc(sizeof(P), GFP)
#endif

static_assert(sizeof(struct upb_times) == 48);
static_assert(sizeof(struct upb_migrate) == 128);
static_assert(sizeof(struct upb_rw) == 128);
static_assert(sizeof(struct upb_ceiling) == 128);
static_assert(sizeof(struct upb_stats) == 128);
static_assert(sizeof(struct upb_calibrate) == 128);

#define UPB_NAME		"hmm_upstream_bench"
#define UPB_MAX_DEVICES		8
#define UPB_MAX_DEVMEM_MB	SZ_1M	/* 1 TiB */
/*
 * Largest batch_pages, and the largest migrate_vma_setup() call of
 * batch_pages=0: 1 GiB (1 << 18 pages of 4 KiB, 8 MiB of arrays).
 */
#define UPB_MAX_BATCH_PAGES	(1UL << (30 - PAGE_SHIFT))
/* Pages per copy call of UPB_CEILING, as one batch of hmm_dummy's core. */
#define UPB_COPY_BATCH		((unsigned long)PTRS_PER_PTE)
/* A PMD-sized folio (compound): its order and pages. */
#define UPB_PMD_ORDER		(PMD_SHIFT - PAGE_SHIFT)
#define UPB_PMD_PAGES		BIT(UPB_PMD_ORDER)
/*
 * Pages per migrate_device_range() call at module exit, at most: an aligned
 * chunk, a multiple of UPB_PMD_PAGES.
 */
#define UPB_EVICT_PAGES		UPB_PMD_PAGES
/*
 * Module exit evicts and waits up to HZ / 10 per round until no device page
 * is in use. After this many rounds (10 s, hmm_dummy's wait) it warns, and
 * it reports again every this many rounds.
 */
#define UPB_EXIT_ROUNDS		100
/* Device pages per block of hmm_dummy's eviction LRU (bookkeeping only). */
#define UPB_BLOCK_PAGES		512UL
/* Tag of a writable device table entry. */
#define UPB_XA_TAG_WRITE	1UL
/* Pages per device access (the bounce), as hmm_dummy's HMM_DUMMY_ACCESS_PAGES. */
#define UPB_ACCESS_PAGES	16UL
/* Largest fault_pages. */
#define UPB_MAX_FAULT_PAGES	4096U

/* Module parameters */

static unsigned int devmem_mb = 64;
module_param(devmem_mb, uint, 0444);
MODULE_PARM_DESC(devmem_mb, "MiB of fake device memory per device (default 64)");

static unsigned int ndevices = 1;
module_param(ndevices, uint, 0444);
MODULE_PARM_DESC(ndevices, "Number of devices, 1 to 8 (default 1)");

/* 6.12 has no MIGRATE_VMA_SELECT_COMPOUND: compound=1 is refused there. */
static int upb_compound_set(const char *val, const struct kernel_param *kp)
{
	bool on;
	int ret = kstrtobool(val, &on);

	if (ret)
		return ret;
	if (on && !MIGRATE_VMA_SELECT_COMPOUND)
		return -EOPNOTSUPP;
	return param_set_bool(val, kp);
}

static const struct kernel_param_ops upb_compound_ops = {
	.set = upb_compound_set,
	.get = param_get_bool,
};

static bool compound;
module_param_cb(compound, &upb_compound_ops, &compound, 0644);
MODULE_PARM_DESC(compound,
		 "Move PMD-sized folios whole (MIGRATE_VMA_SELECT_COMPOUND) in UPB_MIGRATE_TO and UPB_MIGRATE_BACK, as their flag UPB_F_COMPOUND (CPU faults always do, on 7.3); 7.3 only (default 0)");

static bool timing;
module_param(timing, bool, 0644);
MODULE_PARM_DESC(timing,
		 "Time the phases of migrations and CPU faults (struct upb_times, the timing counters of UPB_STATS); read once per operation (default 0)");

/* hmm_dummy's debugfs deviceN_copy_delay_ms, for all devices */
static unsigned int copy_delay_ms;
module_param(copy_delay_ms, uint, 0644);
MODULE_PARM_DESC(copy_delay_ms,
		 "Sleep this long (at most 10 s) before each copy to the device, as hmm_dummy's deviceN_copy_delay_ms: a slow device (default 0)");

/* hmm_dummy_timed's copy_from_delay_ms: the other direction */
static unsigned int copy_from_delay_ms;
module_param(copy_from_delay_ms, uint, 0644);
MODULE_PARM_DESC(copy_from_delay_ms,
		 "Sleep this long (at most 10 s) before each copy back to system memory: a slow device (default 0)");

static int upb_param_set_pow2(const char *val, const struct kernel_param *kp,
			      unsigned long max, bool zero_ok)
{
	unsigned int n;
	int ret;

	ret = kstrtouint(val, 0, &n);
	if (ret)
		return ret;
	if (!(zero_ok && !n) && (!is_power_of_2(n) || n > max))
		return -EINVAL;
	WRITE_ONCE(*(unsigned int *)kp->arg, n);
	return 0;
}

static int upb_window_set(const char *val, const struct kernel_param *kp)
{
	return upb_param_set_pow2(val, kp, PTRS_PER_PTE, false);
}

static const struct kernel_param_ops upb_window_ops = {
	.set = upb_window_set,
	.get = param_get_uint,
};

static unsigned int window = 512;
module_param_cb(window, &upb_window_ops, &window, 0644);
MODULE_PARM_DESC(window,
		 "Pages per CPU fault: the aligned block around the address, a power of two <= PTRS_PER_PTE (default 512, as amdkfd; 1: test_hmm's one page)");

static int upb_batch_set(const char *val, const struct kernel_param *kp)
{
	return upb_param_set_pow2(val, kp, UPB_MAX_BATCH_PAGES, true);
}

static const struct kernel_param_ops upb_batch_ops = {
	.set = upb_batch_set,
	.get = param_get_uint,
};

static unsigned int batch_pages = PTRS_PER_PTE;
module_param_cb(batch_pages, &upb_batch_ops, &batch_pages, 0644);
MODULE_PARM_DESC(batch_pages,
		 "Pages per migrate_vma_setup() call, in aligned blocks: a power of two (default PTRS_PER_PTE: one PMD, as hmm_dummy's core); 0: the whole VMA piece, as amdkfd, in pieces of at most 1 GiB");

static int upb_fault_set(const char *val, const struct kernel_param *kp)
{
	return upb_param_set_pow2(val, kp, UPB_MAX_FAULT_PAGES, false);
}

static const struct kernel_param_ops upb_fault_ops = {
	.set = upb_fault_set,
	.get = param_get_uint,
};

static unsigned int fault_pages = PTRS_PER_PTE;
module_param_cb(fault_pages, &upb_fault_ops, &fault_pages, 0644);
MODULE_PARM_DESC(fault_pages,
		 "Pages per device fault (hmm_range_fault() call) of UPB_READ: a power of two <= 4096 (default PTRS_PER_PTE, as hmm_dummy's HMM_DUMMY_FAULT_PAGES)");

/* Data structures */

/**
 * struct upb_devmem - the pool: system pages that the device pretends the
 *	CPU cannot reach (hmm_dummy's struct hmm_dummy_devmem, allocation part)
 * @npages: pool pages
 * @pages: the pool
 * @lock: protects @bitmap, @hint, @in_use, @alloc_failures, @clock,
 *	@block_stamp and @block_used
 * @bitmap: the allocated pool pages
 * @hint: where the next allocation starts looking
 * @in_use: number of allocated pool pages
 * @alloc_failures: number of allocations that found the pool full
 * @clock: bumped by every UPB_MIGRATE_TO
 * @block_stamp: per 512-page block, @clock of its last allocation
 * @block_used: per 512-page block, its allocated pages
 * @free_wq: woken when @in_use drops to 0
 *
 * @clock, @block_stamp and @block_used are hmm_dummy's eviction LRU. This
 * module never evicts to make room, but keeps the bookkeeping so that an
 * allocation does the same work as in hmm_dummy.
 */
struct upb_devmem {
	unsigned long npages;
	struct page **pages;
	spinlock_t lock;	/* protects the allocation state */
	unsigned long *bitmap;
	unsigned long hint;
	unsigned long in_use;
	unsigned long alloc_failures;
	u64 clock;
	u64 *block_stamp;
	unsigned int *block_used;
	wait_queue_head_t free_wq;
};

/**
 * struct upb_device - one device
 * @pgmap: its MEMORY_DEVICE_PRIVATE memory; @pgmap.owner is the device
 * @mem: the pool behind it
 * @pfn_first: pfn of device page 0
 * @region_pages: pages of the memory region (@mem.npages rounded up to a
 *	memory section); those beyond @mem.npages are never handed out
 * @to_device: pages migrated to the device
 * @from_device: pages migrated back
 * @cpu_faults: CPU faults that migrated pages back
 * @files_sem: protects @files
 * @files: the open files of the device (struct upb_file.node)
 * @cdev: the character device
 * @dev: its class device
 * @id: N of /dev/hmm_upstream_benchN
 */
struct upb_device {
	struct dev_pagemap pgmap;
	struct upb_devmem mem;
	unsigned long pfn_first;
	unsigned long region_pages;
	atomic_long_t to_device;
	atomic_long_t from_device;
	atomic_long_t cpu_faults;
	struct rw_semaphore files_sem;	/* protects @files */
	struct list_head files;
	struct cdev cdev;
	struct device *dev;
	unsigned int id;
};

/**
 * struct upb_file - one open file: a mirror of the opener's address space
 * @udev: the device
 * @notifier: interval notifier over the whole address space
 * @lock: serializes @pt against the invalidate callback
 * @pt: the device table: virtual page number -> struct page * of the system
 *	page or of this device's page (whose pool page an access reads), tagged
 *	%UPB_XA_TAG_WRITE if writable
 * @node: in @udev->files
 */
struct upb_file {
	struct upb_device *udev;
	struct mmu_interval_notifier notifier;
	struct mutex lock;	/* @pt vs. invalidations */
	struct xarray pt;
	struct list_head node;
};

/* Per call arrays of a migration: one allocation. */
struct upb_bufs {
	unsigned long *src;
	unsigned long *dst;
	struct page **pages;
	unsigned long *index;
};

/*
 * The timing counters of a device (the timing parameter), per CPU:
 * this_cpu_add(), no locked operation, since what the accounting costs
 * after a clock stops lands in the interval around it.
 * @m2r_total: ns in migrate_to_ram()
 * @m2r_core: ns in the core calls migrate_to_ram() makes (migrate_vma_*(),
 *	alloc_page_vma() and lock_page()), with the callbacks they make
 * @m2r_copy: ns in its copy loop
 * @m2r_table: ns in its device table erase
 * @m2r_clocks: clock pairs inside @m2r_core's intervals, and their own
 * @folio_free_ns: ns in the folio_free (6.12: page_free) callback,
 *	wherever it is called from
 * @folio_free_calls: its calls
 * @invalidate_ns: ns in the invalidate callback
 * @invalidate_calls: its calls
 */
struct upb_tcount {
	u64 m2r_total;
	u64 m2r_core;
	u64 m2r_copy;
	u64 m2r_table;
	u64 m2r_clocks;
	u64 folio_free_ns;
	u64 folio_free_calls;
	u64 invalidate_ns;
	u64 invalidate_calls;
};

static DEFINE_PER_CPU(struct upb_tcount[UPB_MAX_DEVICES], upb_tcounts);

#define upb_tcount_add(udev, field, v)	\
	this_cpu_add(upb_tcounts[(udev)->id].field, (v))

/* The sum over the CPUs of device @udev's counters. */
static void upb_tcount_read(const struct upb_device *udev,
			    struct upb_tcount *sum)
{
	int cpu;

	memset(sum, 0, sizeof(*sum));
	for_each_possible_cpu(cpu) {
		const struct upb_tcount *c =
			&per_cpu_ptr(&upb_tcounts, cpu)[0][udev->id];

		sum->m2r_total += READ_ONCE(c->m2r_total);
		sum->m2r_core += READ_ONCE(c->m2r_core);
		sum->m2r_copy += READ_ONCE(c->m2r_copy);
		sum->m2r_table += READ_ONCE(c->m2r_table);
		sum->m2r_clocks += READ_ONCE(c->m2r_clocks);
		sum->folio_free_ns += READ_ONCE(c->folio_free_ns);
		sum->folio_free_calls += READ_ONCE(c->folio_free_calls);
		sum->invalidate_ns += READ_ONCE(c->invalidate_ns);
		sum->invalidate_calls += READ_ONCE(c->invalidate_calls);
	}
}

/*
 * Timing (the timing parameter) of one operation: where its time went, as
 * struct upb_times, and the clock pairs inside the core intervals, each of
 * which adds about one ktime_get_ns() call to them (UPB_CALIBRATE measures
 * it). A NULL timer: timing off.
 */
struct upb_timer {
	struct upb_times t;
	u64 nclocks;
	u64 table_clocks;
};

static inline u64 upb_clock(const struct upb_timer *tm)
{
	return tm ? ktime_get_ns() : 0;
}

static inline u64 upb_since(const struct upb_timer *tm, u64 t0)
{
	return tm ? ktime_get_ns() - t0 : 0;
}

static const struct class upb_class = {
	.name = UPB_NAME,
};

static struct upb_device *upb_devices;
static unsigned int upb_ndevices;
static dev_t upb_devt;
static struct dentry *upb_debugfs;

/* Pool allocator: hmm_dummy_devmem_alloc() and hmm_dummy_devmem_free() */

/* The pool page of device page @index, NULL if there is none. */
static struct page *upb_devmem_page(struct upb_devmem *mem,
				    unsigned long index)
{
	if (!mem->pages || index >= mem->npages)
		return NULL;
	return mem->pages[index];
}

static long upb_devmem_alloc(struct upb_devmem *mem)
{
	unsigned long npages = mem->npages;
	unsigned long index;

	spin_lock(&mem->lock);
	index = find_next_zero_bit(mem->bitmap, npages, mem->hint);
	if (index >= npages) {
		index = find_first_zero_bit(mem->bitmap, mem->hint);
		if (index >= mem->hint) {
			mem->alloc_failures++;
			spin_unlock(&mem->lock);
			return -ENOSPC;
		}
	}
	__set_bit(index, mem->bitmap);
	mem->in_use++;
	mem->block_stamp[index / UPB_BLOCK_PAGES] = mem->clock;
	mem->block_used[index / UPB_BLOCK_PAGES]++;
	mem->hint = index + 1 < npages ? index + 1 : 0;
	spin_unlock(&mem->lock);
	return index;
}

/*
 * A naturally aligned run of UPB_PMD_PAGES free pool pages, for a PMD-sized
 * device folio (compound); its first index, or -ENOSPC if there is none.
 * The device pfns are as aligned as the indices: the region starts on a
 * memory section.
 */
static long upb_devmem_alloc_huge(struct upb_devmem *mem)
{
	unsigned long npages = mem->npages, nr = UPB_PMD_PAGES;
	unsigned long start, index;

	spin_lock(&mem->lock);
	start = ALIGN(mem->hint, nr);
	index = bitmap_find_next_zero_area(mem->bitmap, npages, start, nr, nr - 1);
	if (index + nr > npages)
		index = bitmap_find_next_zero_area(mem->bitmap, npages, 0, nr, nr - 1);
	/* not alloc_failures: the caller falls back to single pages */
	if (index + nr > npages) {
		spin_unlock(&mem->lock);
		return -ENOSPC;
	}
	bitmap_set(mem->bitmap, index, nr);
	mem->in_use += nr;
	mem->block_stamp[index / UPB_BLOCK_PAGES] = mem->clock;
	mem->block_used[index / UPB_BLOCK_PAGES] += nr;
	mem->hint = index + nr < npages ? index + nr : 0;
	spin_unlock(&mem->lock);
	return index;
}

static void upb_devmem_free(struct upb_devmem *mem, unsigned long index)
{
	bool idle = false;

	if (WARN_ON_ONCE(index >= mem->npages))
		return;
	spin_lock(&mem->lock);
	if (!WARN_ON_ONCE(!__test_and_clear_bit(index, mem->bitmap))) {
		idle = !--mem->in_use;
		mem->block_used[index / UPB_BLOCK_PAGES]--;
	}
	spin_unlock(&mem->lock);
	if (idle)
		wake_up(&mem->free_wq);
}

/* Copies: hmm_dummy_copy_to_device() and hmm_dummy_copy_from_device() */

static int upb_copy_to_device(struct upb_devmem *mem, struct page **src,
			      const unsigned long *dst, unsigned long npages)
{
	unsigned int delay = READ_ONCE(copy_delay_ms);
	struct page *page;
	unsigned long i;

	/* A slow device: the benchmarks' check of the core-time split. */
	if (delay)
		msleep(min(delay, 10000U));
	for (i = 0; i < npages; i++) {
		page = upb_devmem_page(mem, dst[i]);
		if (WARN_ON_ONCE(!page))
			return -EINVAL;
		if (src && src[i])
			copy_highpage(page, src[i]);
		else
			clear_highpage(page);
		cond_resched();
	}
	return 0;
}

static int upb_copy_from_device(struct upb_devmem *mem,
				const unsigned long *src, struct page **dst,
				unsigned long npages)
{
	unsigned int delay = READ_ONCE(copy_from_delay_ms);
	struct page *page;
	unsigned long i;

	/* A slow device: the benchmarks' check of the core-time split. */
	if (delay)
		msleep(min(delay, 10000U));
	for (i = 0; i < npages; i++) {
		page = upb_devmem_page(mem, src[i]);
		if (WARN_ON_ONCE(!page))
			return -EIO;
		copy_highpage(dst[i], page);
		cond_resched();
	}
	return 0;
}

/* Device pages */

static struct upb_device *upb_pgmap_device(struct dev_pagemap *pgmap)
{
	return container_of(pgmap, struct upb_device, pgmap);
}

static struct dev_pagemap *upb_page_pgmap(struct page *page)
{
#ifdef UPB_PAGE_FREE_API
	return page->pgmap;
#else
	return page_pgmap(page);
#endif
}

/* The pool index of a device page of @udev. */
static unsigned long upb_page_index(struct upb_device *udev, struct page *page)
{
	return page_to_pfn(page) - udev->pfn_first;
}

/*
 * Hand out pool pages @index.. as a device folio of @order (0, or
 * UPB_PMD_ORDER on 7.3): refcount 1, locked. Not page_folio(): a page
 * that was a tail of a large folio still points to its old head until
 * the init rewrites it.
 */
static struct page *upb_devpage_get(struct upb_device *udev,
				    unsigned long index, unsigned int order)
{
	struct page *page = pfn_to_page(udev->pfn_first + index);

#ifdef UPB_PAGE_FREE_API
	WARN_ON_ONCE(order);
	zone_device_page_init(page);
#else
	zone_device_folio_init((struct folio *)page, &udev->pgmap, order);
#endif
	return page;
}

/* The last reference to device pages went: their pool pages are free. */
static void upb_devpages_free(struct page *page, unsigned long nr)
{
	struct upb_device *udev = upb_pgmap_device(upb_page_pgmap(page));
	unsigned long index = upb_page_index(udev, page);
	bool on = READ_ONCE(timing);
	u64 t0 = on ? ktime_get_ns() : 0;
	unsigned long i;

	for (i = 0; i < nr; i++)
		upb_devmem_free(&udev->mem, index + i);
	if (on) {
		upb_tcount_add(udev, folio_free_ns, ktime_get_ns() - t0);
		upb_tcount_add(udev, folio_free_calls, 1);
	}
}

#ifdef UPB_PAGE_FREE_API
static void upb_page_free(struct page *page)
{
	upb_devpages_free(page, 1);
}
#else
static void upb_folio_free(struct folio *folio)
{
	upb_devpages_free(folio_page(folio, 0), folio_nr_pages(folio));
}
#endif

/*
 * Undo the destination pages of a migration that will not happen: unlock
 * and put them (a device page's last put frees its pool page), so that
 * migrate_vma_finalize() restores every source page.
 */
static void upb_drop_dst(unsigned long *dst, unsigned long npages)
{
	struct page *page;
	unsigned long i;

	for (i = 0; i < npages; i++) {
		page = migrate_pfn_to_page(dst[i]);
		if (!page)
			continue;
		unlock_page(page);
		put_page(page);
		dst[i] = 0;
	}
}

/*
 * Pages whose migration succeeded: after migrate_vma_pages(). A folio that
 * moved whole (MIGRATE_PFN_COMPOUND on both sides: the core clears the
 * source's flag if it split the folio instead) counts its UPB_PMD_PAGES
 * pages, and in *@ncomp if that is not NULL.
 */
static unsigned long upb_migrated(const struct migrate_vma *args,
				  unsigned long *ncomp)
{
	unsigned long i, n = 0;

	for (i = 0; i < args->npages; i++) {
		if (!(args->src[i] & MIGRATE_PFN_MIGRATE) || !args->dst[i])
			continue;
		if ((args->src[i] & MIGRATE_PFN_COMPOUND) &&
		    (args->dst[i] & MIGRATE_PFN_COMPOUND)) {
			n += UPB_PMD_PAGES;
			if (ncomp)
				(*ncomp)++;
		} else {
			n++;
		}
	}
	return n;
}

/*
 * Pages the core collected for migration (args->cpages counts a folio
 * collected whole once): before migrate_vma_pages(), which may split it.
 */
static unsigned long upb_collected(const struct migrate_vma *args)
{
	unsigned long i, n = 0;

	for (i = 0; i < args->npages; i++)
		if (args->src[i] & MIGRATE_PFN_MIGRATE)
			n += args->src[i] & MIGRATE_PFN_COMPOUND ?
			     min(UPB_PMD_PAGES, args->npages - i) : 1;
	return n;
}

/*
 * The migrate_vma entry that page @i of @args migrates by: its own, or,
 * when the core collected a PMD-sized folio whole, that of the folio's
 * first page (MIGRATE_PFN_COMPOUND; the others' entries are 0).
 */
static unsigned long upb_entry_of(const struct migrate_vma *args,
				  unsigned long i)
{
	unsigned long off = ((args->start >> PAGE_SHIFT) + i) & (UPB_PMD_PAGES - 1);

	if (!MIGRATE_PFN_COMPOUND || off > i)
		return i;
	return args->src[i - off] & MIGRATE_PFN_COMPOUND ? i - off : i;
}

/*
 * Does page @i of @args migrate (a destination was set for it)? If so,
 * *@dpage is its destination page (in a folio that moves whole, the
 * matching page of it) and *@write whether it stays writable.
 */
static bool upb_page_dst(const struct migrate_vma *args, unsigned long i,
			 struct page **dpage, bool *write)
{
	unsigned long h = upb_entry_of(args, i), d;

	if (!(args->src[h] & MIGRATE_PFN_MIGRATE))
		return false;
	d = args->dst[h] & MIGRATE_PFN_COMPOUND ? args->dst[h] : args->dst[i];
	*dpage = migrate_pfn_to_page(d);
	if (!*dpage)
		return false;
	if (d & MIGRATE_PFN_COMPOUND)
		*dpage = pfn_to_page(page_to_pfn(*dpage) + i - h);
	*write = d & MIGRATE_PFN_WRITE;
	return true;
}

/*
 * Not zeroed, as hmm_dummy's core batch: migrate_vma_setup() clears src[]
 * and the collection writes every dst[] entry (migrate_device_range() writes
 * every src[] entry, upb_evict() every dst[] entry), and pages[] and index[]
 * are written before they are read.
 */
static int upb_bufs_alloc(struct upb_bufs *b, unsigned long n, gfp_t gfp)
{
	void *p;

	p = kvmalloc_array(n, 3 * sizeof(unsigned long) + sizeof(struct page *),
			   gfp);
	if (!p)
		return -ENOMEM;
	b->src = p;
	b->dst = b->src + n;
	b->pages = (struct page **)(b->dst + n);
	b->index = (unsigned long *)(b->pages + n);
	return 0;
}

static void upb_bufs_free(struct upb_bufs *b)
{
	kvfree(b->src);
}

/* Device table */

/*
 * Erase the entries of virtual pages [@first, @last]; under @f->lock. If
 * @blockable, the xarray lock is dropped every PTRS_PER_PTE entries to
 * reschedule (the munmap of a large mirrored range), and the walk starts
 * again after the last entry erased. Not with xas_pause(): erasing the
 * last entry of a node frees it and leaves the state on the parent (or
 * higher), from which 6.12's xas_pause() (without 7.3's realignment of
 * the index) would skip entries of the next nodes, left in the table to
 * name pages that are freed.
 */
static void upb_table_erase_range(struct upb_file *f, unsigned long first,
				  unsigned long last, bool blockable)
{
	unsigned long index = first, n;
	void *entry;

	do {
		XA_STATE(xas, &f->pt, index);

		n = 0;
		xas_lock(&xas);
		xas_for_each(&xas, entry, last) {
			index = xas.xa_index;
			xas_store(&xas, NULL);
			if (blockable && ++n == PTRS_PER_PTE)
				break;
		}
		xas_unlock(&xas);
		if (n < PTRS_PER_PTE || index >= last)
			break;
		index++;
		cond_resched();
	} while (true);
}

/* What upb_table_update() does to the entries of the pages that migrate. */
enum upb_table_op {
	UPB_TABLE_ERASE,	/* erase the entry */
	UPB_TABLE_RDONLY,	/* drop its write permission */
	UPB_TABLE_MAP,		/* name the destination device page */
};

/*
 * The new table entry of a page that migrates to @dpage (@write: writable),
 * which is @entry now.
 */
static void *upb_table_entry(struct page *dpage, bool write, void *entry,
			     enum upb_table_op op)
{
	switch (op) {
	case UPB_TABLE_RDONLY:
		return xa_untag_pointer(entry);
	case UPB_TABLE_MAP:
		if (write)
			return xa_tag_pointer(dpage, UPB_XA_TAG_WRITE);
		return dpage;
	case UPB_TABLE_ERASE:
	default:
		return NULL;
	}
}

/*
 * The invalidate callback left our own migration alone (it only bumped the
 * sequence): update the existing entries of the pages that migrate (those
 * with a destination page), in every file of the device that mirrors the
 * migration's mm. UPB_TABLE_RDONLY before the copy to the device (the entry
 * still names the source page, locked and referenced until finalize, so
 * device reads stay right and device writes must fault and wait),
 * UPB_TABLE_MAP after migrate_vma_pages() to the device, UPB_TABLE_ERASE
 * before the copy back (so no device write is lost after the copy) or with
 * UPB_F_NOMAP.
 */
static void upb_table_update(struct upb_device *udev,
			     const struct migrate_vma *args,
			     enum upb_table_op op)
{
	unsigned long first = args->start >> PAGE_SHIFT;
	unsigned long last = first + args->npages - 1;
	struct upb_file *f;

	down_read(&udev->files_sem);
	list_for_each_entry(f, &udev->files, node) {
		XA_STATE(xas, &f->pt, first);
		unsigned long n = 0;
		void *entry;

		if (f->notifier.mm != args->vma->vm_mm)
			continue;
		mutex_lock(&f->lock);
		/* Only f->lock holders store into @pt. */
		if (xa_empty(&f->pt)) {
			mutex_unlock(&f->lock);
			continue;
		}
		xas_lock(&xas);
		xas_for_each(&xas, entry, last) {
			unsigned long index = xas.xa_index, i = index - first;
			struct page *dpage;
			bool write;

			/* Replaces or erases: never allocates. */
			if (upb_page_dst(args, i, &dpage, &write))
				xas_store(&xas, upb_table_entry(dpage, write,
								entry, op));
			if (!(++n % PTRS_PER_PTE)) {
				/* Not xas_pause(): see upb_table_erase_range(). */
				xas_set(&xas, index + 1);
				xas_unlock(&xas);
				cond_resched();
				xas_lock(&xas);
			}
		}
		xas_unlock(&xas);
		mutex_unlock(&f->lock);
	}
	up_read(&udev->files_sem);
}

static bool upb_invalidate(struct mmu_interval_notifier *mni,
			   const struct mmu_notifier_range *range,
			   unsigned long cur_seq)
{
	struct upb_file *f = container_of(mni, struct upb_file, notifier);
	bool on = READ_ONCE(timing);
	u64 t0 = on ? ktime_get_ns() : 0;

	if (mmu_notifier_range_blockable(range))
		mutex_lock(&f->lock);
	else if (!mutex_trylock(&f->lock))
		return false;
	/*
	 * Always, our own migrations too: a device access that sampled the
	 * sequence before must not commit what it found.
	 */
	mmu_interval_set_seq(mni, cur_seq);
	/* Our own migration: it updates the tables itself. */
	if (range->event != MMU_NOTIFY_MIGRATE || range->owner != f->udev)
		upb_table_erase_range(f, range->start >> PAGE_SHIFT,
				      (range->end - 1) >> PAGE_SHIFT,
				      mmu_notifier_range_blockable(range));
	mutex_unlock(&f->lock);
	if (on) {
		upb_tcount_add(f->udev, invalidate_ns, ktime_get_ns() - t0);
		upb_tcount_add(f->udev, invalidate_calls, 1);
	}
	return true;
}

static const struct mmu_interval_notifier_ops upb_mni_ops = {
	.invalidate = upb_invalidate,
};

/* Migration */

/*
 * Migrate the system pages of [@start, @end), one batch inside @vma, to the
 * device of @f. Return: 0, -ENOSPC when the pool ran full (the rest of the
 * call is left alone), or another error. With a timer @tm: the core calls'
 * time (with the callbacks inside them) into @tm->t.core, the rest into
 * its driver buckets.
 */
static int upb_to_device(struct upb_file *f, struct vm_area_struct *vma,
			 unsigned long start, unsigned long end,
			 struct upb_bufs *b, struct upb_migrate *cmd,
			 bool comp, struct upb_timer *tm)
{
	struct upb_device *udev = f->udev;
	struct upb_devmem *mem = &udev->mem;
	struct migrate_vma args = {
		.vma = vma,
		.start = start,
		.end = end,
		.src = b->src,
		.dst = b->dst,
		.pgmap_owner = udev,
		.flags = MIGRATE_VMA_SELECT_SYSTEM |
			 (comp ? MIGRATE_VMA_SELECT_COMPOUND : 0),
	};
	unsigned long i, j, nr, n = 0, ninit = 0, moved, ncomp = 0, collected;
	struct page *dpage, *spage;
	struct folio *sfolio;
	u64 t, tl, tcore = 0;
	bool full = false;
	long index;
	int ret;

	t = upb_clock(tm);
	ret = migrate_vma_setup(&args);
	if (tm) {
		tm->t.core += upb_since(tm, t);
		tm->nclocks++;
	}
	if (ret)
		return ret;
	if (!args.cpages)
		return 0;
	collected = upb_collected(&args);

	/*
	 * The allocation loop is the driver's, but for the page init. A folio
	 * collected whole (compound: its first entry has MIGRATE_PFN_COMPOUND,
	 * the other UPB_PMD_PAGES - 1 are 0) gets a device folio of its size,
	 * or, if the pool has no free aligned run, UPB_PMD_PAGES device pages
	 * (test_hmm's fallback), and migrate_vma_pages() splits it.
	 */
	tl = upb_clock(tm);
	for (i = 0, nr = 1; i < args.npages; i += nr) {
		unsigned long src = args.src[i];

		/* every PTRS_PER_PTE pages, or after a folio collected whole */
		if (i && (nr > 1 || !(i % PTRS_PER_PTE)))
			cond_resched();
		nr = 1;
		args.dst[i] = 0;
		if (!(src & MIGRATE_PFN_MIGRATE) || full)
			continue;
		/* NULL for a hole or the zero page: cleared. */
		spage = migrate_pfn_to_page(src);
		sfolio = spage ? page_folio(spage) : NULL;
		if (src & MIGRATE_PFN_COMPOUND) {
			nr = min(UPB_PMD_PAGES, args.npages - i);
			index = upb_devmem_alloc_huge(mem);
			if (index >= 0) {
				t = upb_clock(tm);
				dpage = upb_devpage_get(udev, index, UPB_PMD_ORDER);
				tcore += upb_since(tm, t);
				ninit++;
				args.dst[i] = migrate_pfn(page_to_pfn(dpage)) |
					      (src & MIGRATE_PFN_WRITE) |
					      MIGRATE_PFN_COMPOUND;
				for (j = 0; j < nr; j++, n++) {
					b->pages[n] = sfolio ? folio_page(sfolio, j) : NULL;
					b->index[n] = index + j;
				}
				continue;
			}
		}
		for (j = 0; j < nr; j++) {
			index = upb_devmem_alloc(mem);
			if (index < 0) {
				full = true;
				break;
			}
			t = upb_clock(tm);
			dpage = upb_devpage_get(udev, index, 0);
			tcore += upb_since(tm, t);
			args.dst[i + j] = migrate_pfn(page_to_pfn(dpage)) |
					  (src & MIGRATE_PFN_WRITE);
			b->pages[n] = nr == 1 || !sfolio ? spage : folio_page(sfolio, j);
			b->index[n] = index;
			n++;
			ninit++;
		}
		/*
		 * A folio collected whole migrates whole or not at all: the core
		 * would split a THP for a part of it, and would insert a page
		 * for every entry of a hole, with a destination or not.
		 */
		if (j < nr && nr > 1) {
			upb_drop_dst(&args.dst[i], j);
			n -= j;
		}
	}
	if (tm) {
		tm->t.devmem += upb_since(tm, tl) - tcore;
		tm->t.core += tcore;
		tm->nclocks += ninit;
	}

	/* No device write to a source page may follow its copy. */
	t = upb_clock(tm);
	upb_table_update(udev, &args, UPB_TABLE_RDONLY);
	if (tm) {
		tm->t.table += upb_since(tm, t);
		t = upb_clock(tm);
	}
	ret = upb_copy_to_device(mem, b->pages, b->index, n);
	if (tm)
		tm->t.copy += upb_since(tm, t);
	if (ret) {
		upb_drop_dst(args.dst, args.npages);
		migrate_vma_finalize(&args);
		return ret;
	}
	t = upb_clock(tm);
	migrate_vma_pages(&args);
	if (tm) {
		tm->t.core += upb_since(tm, t);
		tm->nclocks++;
	}
	moved = upb_migrated(&args, &ncomp);
	t = upb_clock(tm);
	upb_table_update(udev, &args, cmd->flags & UPB_F_NOMAP ?
			 UPB_TABLE_ERASE : UPB_TABLE_MAP);
	if (tm) {
		tm->t.table += upb_since(tm, t);
		t = upb_clock(tm);
	}
	migrate_vma_finalize(&args);
	if (tm) {
		tm->t.core += upb_since(tm, t);
		tm->nclocks++;
	}

	atomic_long_add(moved, &udev->to_device);
	cmd->npages += moved;
	cmd->ncompound += ncomp;
	/* cpages counts a folio collected whole once */
	cmd->nbusy += collected - moved;
	return full ? -ENOSPC : 0;
}

/* A THP for a device folio that comes back whole (7.3), as test_hmm's fault. */
static struct folio *upb_alloc_thp(struct vm_area_struct *vma,
				   unsigned long addr)
{
#ifdef UPB_PAGE_FREE_API
	return NULL;	/* 6.12: no large device folio comes back */
#else
	return vma_alloc_folio(GFP_HIGHUSER_MOVABLE | __GFP_NOWARN, UPB_PMD_ORDER,
			       vma, addr);
#endif
}

/*
 * Migrate this device's pages of [@start, @end) inside @vma back to system
 * memory. From a CPU fault, @fault_page is the faulting page (7.3: locked
 * by do_swap_page(); 6.12: collected with a trylock as the others); if it
 * cannot get a system page, nothing migrates and the return is -ENOMEM.
 * Other pages that get none stay on the device. Returns 0 or an error;
 * *@cpages counts the device pages collected (not the holes, which the
 * collection marks for migration too), *@moved those migrated. With a
 * timer @tm, as upb_to_device(); alloc_page_vma() and lock_page() are core.
 */
static int upb_to_ram(struct upb_device *udev, struct vm_area_struct *vma,
		      unsigned long start, unsigned long end,
		      struct page *fault_page, struct upb_bufs *b, bool comp,
		      unsigned long *cpages, unsigned long *moved,
		      struct upb_timer *tm)
{
	struct upb_devmem *mem = &udev->mem;
	struct migrate_vma args = {
		.vma = vma,
		.start = start,
		.end = end,
		.src = b->src,
		.dst = b->dst,
		.pgmap_owner = udev,
		.flags = MIGRATE_VMA_SELECT_DEVICE_PRIVATE |
			 (comp ? MIGRATE_VMA_SELECT_COMPOUND : 0),
		.fault_page = fault_page,
	};
	unsigned long i, j, nr, n = 0, index, addr;
	struct page *spage, *dpage;
	struct folio *dfolio;
	bool oom = false, hit;
	u64 t;
	int ret;

	*cpages = 0;
	*moved = 0;
	t = upb_clock(tm);
	ret = migrate_vma_setup(&args);
	if (tm) {
		tm->t.core += upb_since(tm, t);
		tm->nclocks++;
	}
	if (ret)
		return ret;
	if (!args.cpages)
		return 0;

	/*
	 * A device folio collected whole (compound) gets a THP, as test_hmm's
	 * fault; if none can be allocated, UPB_PMD_PAGES system pages, and
	 * migrate_vma_pages() splits the device folio.
	 */
	for (i = 0, nr = 1; i < args.npages && !oom; i += nr) {
		unsigned long src = args.src[i];

		/* every PTRS_PER_PTE pages, or after a folio collected whole */
		if (i && (nr > 1 || !(i % PTRS_PER_PTE)))
			cond_resched();
		nr = 1;
		args.dst[i] = 0;
		spage = migrate_pfn_to_page(src);
		if (!spage || !(src & MIGRATE_PFN_MIGRATE))
			continue;
		if (src & MIGRATE_PFN_COMPOUND)
			nr = min(UPB_PMD_PAGES, args.npages - i);
		*cpages += nr;
		/* pgmap_owner selects only this device's pages. */
		index = upb_page_index(udev, spage);
		if (WARN_ON_ONCE(index + nr > mem->npages))
			continue;
		addr = args.start + (i << PAGE_SHIFT);
		/* the fault page is in this folio (or is this page) */
		hit = fault_page && page_folio(fault_page) == page_folio(spage);
		if (nr > 1) {
			t = upb_clock(tm);
			dfolio = upb_alloc_thp(vma, addr);
			if (dfolio)
				folio_lock(dfolio);
			if (tm) {
				tm->t.core += upb_since(tm, t);
				tm->nclocks++;
			}
			if (dfolio) {
				args.dst[i] = migrate_pfn(folio_pfn(dfolio)) |
					      (src & MIGRATE_PFN_WRITE) |
					      MIGRATE_PFN_COMPOUND;
				for (j = 0; j < nr; j++, n++) {
					b->pages[n] = folio_page(dfolio, j);
					b->index[n] = index + j;
				}
				continue;
			}
		}
		for (j = 0; j < nr; j++) {
			t = upb_clock(tm);
			dpage = alloc_page_vma(GFP_HIGHUSER_MOVABLE, vma,
					       addr + (j << PAGE_SHIFT));
			if (dpage)
				lock_page(dpage);
			if (tm) {
				tm->t.core += upb_since(tm, t);
				tm->nclocks++;
			}
			if (!dpage) {
				/*
				 * migrate_vma_setup()'s kernel-doc wants a
				 * device -> system migration to move every
				 * page; like amdkfd and drm_pagemap, this one
				 * leaves the others on the device (a device
				 * folio whole: not split for a part of it):
				 * they come back at their own fault. Not the
				 * fault page.
				 */
				oom = hit;
				break;
			}
			args.dst[i + j] = migrate_pfn(page_to_pfn(dpage)) |
					  (src & MIGRATE_PFN_WRITE);
			b->pages[n] = dpage;
			b->index[n] = index + j;
			n++;
		}
		if (j < nr && nr > 1) {
			upb_drop_dst(&args.dst[i], j);
			n -= j;
		}
	}
	/* After the break, the rest of dst[] is 0 from the collection. */
	if (oom) {
		upb_drop_dst(args.dst, args.npages);
		migrate_vma_finalize(&args);
		return -ENOMEM;
	}

	/* Before the copy, so that no device write is lost after it. */
	t = upb_clock(tm);
	upb_table_update(udev, &args, UPB_TABLE_ERASE);
	if (tm) {
		tm->t.table += upb_since(tm, t);
		t = upb_clock(tm);
	}
	ret = upb_copy_from_device(mem, b->index, b->pages, n);
	if (tm)
		tm->t.copy += upb_since(tm, t);
	if (ret) {
		upb_drop_dst(args.dst, args.npages);
		migrate_vma_finalize(&args);
		return ret;
	}
	t = upb_clock(tm);
	migrate_vma_pages(&args);
	if (tm) {
		tm->t.core += upb_since(tm, t);
		tm->nclocks++;
	}
	*moved = upb_migrated(&args, NULL);
	/*
	 * Drops the last reference to the source device pages (folio_free),
	 * except the fault page's: do_swap_page() drops that one.
	 */
	t = upb_clock(tm);
	migrate_vma_finalize(&args);
	if (tm) {
		tm->t.core += upb_since(tm, t);
		tm->nclocks++;
	}

	atomic_long_add(*moved, &udev->from_device);
	return 0;
}

/*
 * CPU fault on a device page (dev_pagemap_ops.migrate_to_ram), called by
 * do_swap_page() under the mmap read lock with a reference on vmf->page
 * (7.3: locked too). amdkfd's window: the naturally aligned block of
 * window pages that holds the address, clipped to the VMA; every page of
 * this device in it comes back.
 */
static vm_fault_t upb_migrate_to_ram(struct vm_fault *vmf)
{
	struct upb_device *udev = upb_pgmap_device(upb_page_pgmap(vmf->page));
	struct vm_area_struct *vma = vmf->vma;
	unsigned long w = (unsigned long)READ_ONCE(window) << PAGE_SHIFT;
	unsigned long start, end, cpages, moved;
	struct upb_timer timer = {}, *tm = READ_ONCE(timing) ? &timer : NULL;
	u64 t0 = upb_clock(tm);
	struct upb_bufs b;
	int ret;

	start = max(ALIGN_DOWN(vmf->address, w), vma->vm_start);
	end = min(ALIGN(vmf->address + 1, w), vma->vm_end);
	if (upb_bufs_alloc(&b, (end - start) >> PAGE_SHIFT, GFP_KERNEL))
		return VM_FAULT_OOM;
	/*
	 * Always MIGRATE_VMA_SELECT_COMPOUND, as drm_pagemap and nouveau: a
	 * large device folio exists only if a migration made one.
	 */
	ret = upb_to_ram(udev, vma, start, end, vmf->page, &b,
			 !!MIGRATE_VMA_SELECT_COMPOUND, &cpages, &moved, tm);
	upb_bufs_free(&b);
	if (tm) {
		/* this fault's own clock pair is in its core time too */
		upb_tcount_add(udev, m2r_total, upb_since(tm, t0));
		upb_tcount_add(udev, m2r_core, timer.t.core);
		upb_tcount_add(udev, m2r_copy, timer.t.copy);
		upb_tcount_add(udev, m2r_table, timer.t.table);
		upb_tcount_add(udev, m2r_clocks, timer.nclocks + 1);
	}
	if (ret == -ENOMEM)
		return VM_FAULT_OOM;
	if (ret)
		return VM_FAULT_SIGBUS;
	if (moved)
		atomic_long_inc(&udev->cpu_faults);
	return 0;
}

#ifdef UPB_PAGE_FREE_API
static const struct dev_pagemap_ops upb_pgmap_ops = {
	.page_free = upb_page_free,
	.migrate_to_ram = upb_migrate_to_ram,
};
#else
static const struct dev_pagemap_ops upb_pgmap_ops = {
	.folio_free = upb_folio_free,
	.migrate_to_ram = upb_migrate_to_ram,
};
#endif

/* Device reads: UPB_READ, as hmm_dummy_copy() */

/*
 * Copy the mirrored pages from @addr to @end (page aligned, at most
 * UPB_ACCESS_PAGES pages) into @buf, as hmm_dummy_access(): under @f->lock,
 * so that an invalidation waits for the copy, look the entries up with one
 * xarray walk, stopping before the first missing one, then copy the pages
 * (a device page of this device: its pool page). Counts them in *@nsys
 * (system memory) and *@ndev (this device's memory). Not timed: the
 * driver's, as hmm_dummy_access() is, and ours_t has no clock there.
 *
 * Return: the bytes copied (> 0), -ENOENT when the entry at @addr must be
 * faulted first, or -EIO for an entry at @addr that names no pool page
 * (a bug: WARN).
 */
static long upb_access(struct upb_file *f, unsigned long addr,
		       unsigned long end, void *buf, u64 *nsys, u64 *ndev)
{
	XA_STATE(xas, &f->pt, addr >> PAGE_SHIFT);
	struct upb_device *udev = f->udev;
	struct page *pages[UPB_ACCESS_PAGES];
	unsigned long n = 0, want = (end - addr) >> PAGE_SHIFT, i;
	long ret = -ENOENT;
	struct page *page;
	void *entry;

	mutex_lock(&f->lock);
	rcu_read_lock();
	for (entry = xas_load(&xas); entry && !xas_retry(&xas, entry);
	     entry = xas_next(&xas)) {
		pages[n++] = xa_untag_pointer(entry);
		if (n == want)
			break;
	}
	rcu_read_unlock();
	/*
	 * The pages stay: the CPU side invalidates before it frees a page or
	 * migrates it, and the invalidation waits for @f->lock.
	 */
	for (i = 0; i < n; i++) {
		void *kaddr;

		page = pages[i];
		if (is_device_private_page(page)) {
			/* Only ours: see upb_fault() and UPB_TABLE_MAP. */
			page = upb_page_pgmap(page) != &udev->pgmap ? NULL :
			       upb_devmem_page(&udev->mem,
					       upb_page_index(udev, page));
			if (WARN_ON_ONCE(!page)) {
				ret = -EIO;
				break;
			}
			(*ndev)++;
		} else {
			(*nsys)++;
		}
		kaddr = kmap_local_page(page);
		copy_page(buf + (i << PAGE_SHIFT), kaddr);
		kunmap_local(kaddr);
	}
	mutex_unlock(&f->lock);
	return i ? i << PAGE_SHIFT : ret;
}

/*
 * The device table entry of what hmm_range_fault() found: the page, a
 * system page or (dev_private_owner: no other device's) one of this
 * device's pages, as test_hmm.
 */
static void *upb_pfn_entry(unsigned long hpfn, unsigned long addr)
{
	struct page *page;

	/*
	 * 7.3's hmm_vma_handle_absent_pmd() fills a device-private PMD's pfns
	 * from its first page whatever the range's start, so a fault that
	 * starts inside the PMD gets every pfn shifted. Our device folios are
	 * 512-aligned in pfn: take the page by the address. (Only with
	 * compound; an upstream bug, recorded (not yet reported) in
	 * results/2026-12-07-bench-thp.md.)
	 */
	if (hmm_pfn_to_map_order(hpfn) == UPB_PMD_ORDER &&
	    is_device_private_page(hmm_pfn_to_page(hpfn)))
		hpfn = (hpfn & ~(UPB_PMD_PAGES - 1)) |
		       ((addr >> PAGE_SHIFT) & (UPB_PMD_PAGES - 1));
	page = hmm_pfn_to_page(hpfn);

	/* A pfn without a page: nothing this module can read (a bug). */
	if (WARN_ON_ONCE(!page))
		return NULL;
	if (hpfn & HMM_PFN_WRITE)
		return xa_tag_pointer(page, UPB_XA_TAG_WRITE);
	return page;
}

/*
 * Fault [@addr, @end) in for the device and fill the table of @f, as
 * lib/test_hmm.c's dmirror_range_fault() and dmirror_do_fault(): one
 * hmm_range_fault() call under the notifier's sequence protocol, the table
 * stores under @f->lock once the sequence is known to hold, with node
 * allocations that do not reclaim (GFP_NOWAIT: reclaim could call our own
 * invalidate callback, which takes @f->lock; when they fail, a node is
 * allocated with GFP_KERNEL outside the lock and the fault starts again
 * from the sequence). Unlike test_hmm, the stores are one walk of the
 * xarray under one hold of its lock. The pfn array is allocated per call,
 * as hmm_mirror_fault() does internally. *@nfaulted counts the entries
 * that were missing and now are there, also when the call fails.
 *
 * With a timer @tm: the table stores and the fallback's node allocation
 * into @tm->t.table, the rest into @tm->t.core (the array, the mm
 * reference, the sequence protocol, the mmap lock and hmm_range_fault():
 * what hmm_mirror_fault() does, but for its table fill), with the
 * callbacks inside it; @tm->table_clocks counts the table intervals.
 *
 * Return: 0, -EBUSY when invalidations kept racing for a second, -EINTR
 * on a fatal signal, -ENODEV when the mm is gone, -ENOMEM, -EIO for a pfn
 * without a page (a bug: WARN), or another error of hmm_range_fault().
 */
static int upb_fault(struct upb_file *f, unsigned long addr,
		     unsigned long end, u64 *nfaulted, struct upb_timer *tm)
{
	struct mm_struct *mm = f->notifier.mm;
	unsigned long npages = (end - addr) >> PAGE_SHIFT;
	unsigned long timeout, i, n = 0;
	struct hmm_range range = {
		.notifier = &f->notifier,
		.start = addr,
		.end = end,
		.default_flags = HMM_PFN_REQ_FAULT,
		.dev_private_owner = f->udev,
	};
	XA_STATE(xas, &f->pt, addr >> PAGE_SHIFT);
	u64 t = upb_clock(tm);
	int ret = 0, err;
	bool more;

	range.hmm_pfns = kmalloc_array(npages, sizeof(*range.hmm_pfns),
				       GFP_KERNEL);
	if (!range.hmm_pfns)
		return -ENOMEM;
	if (!mmget_not_zero(mm)) {
		ret = -ENODEV;
		goto out_free;
	}
	timeout = jiffies + msecs_to_jiffies(HMM_RANGE_DEFAULT_TIMEOUT);
again:
	for (;;) {
		if (fatal_signal_pending(current)) {
			ret = -EINTR;
			goto out_put;
		}
		if (time_after(jiffies, timeout)) {
			ret = -EBUSY;
			goto out_put;
		}
		range.notifier_seq = mmu_interval_read_begin(range.notifier);
		ret = mmap_read_lock_killable(mm);
		if (ret)
			goto out_put;
		ret = hmm_range_fault(&range);
		mmap_read_unlock(mm);
		if (ret == -EBUSY)
			continue;
		if (ret)
			goto out_put;
		mutex_lock(&f->lock);
		if (!mmu_interval_read_retry(range.notifier,
					     range.notifier_seq))
			break;
		mutex_unlock(&f->lock);
	}

	if (tm) {
		tm->t.core += upb_since(tm, t);
		tm->nclocks++;
		t = upb_clock(tm);
	}
	/* nfaulted counts the entries that were missing, as ours. */
	xas_set(&xas, addr >> PAGE_SHIFT);
	i = 0;
	err = 0;
	do {
		xas_lock(&xas);
		for (; i < npages; i++) {
			void *entry = upb_pfn_entry(range.hmm_pfns[i],
						    addr + (i << PAGE_SHIFT));
			void *old;

			if (!entry) {
				err = -EIO;
				break;
			}
			old = xas_store(&xas, entry);
			if (xas_error(&xas))
				break;
			if (!old)
				n++;
			xas_next(&xas);
		}
		xas_unlock(&xas);
	} while (!err && xas_nomem(&xas, GFP_NOWAIT | __GFP_NOWARN));
	ret = err ?: xas_error(&xas);
	*nfaulted += n;
	n = 0;
	if (tm) {
		tm->t.table += upb_since(tm, t);
		tm->table_clocks++;
		t = upb_clock(tm);
	}
	mutex_unlock(&f->lock);
	/*
	 * No node without reclaim: one that may reclaim, outside the lock
	 * (reclaim may call our invalidate callback), then again from the
	 * sequence: the entries stored so far stay valid until an
	 * invalidation erases them.
	 */
	if (ret == -ENOMEM) {
		if (tm) {
			tm->t.core += upb_since(tm, t);
			tm->nclocks++;
			t = upb_clock(tm);
		}
		more = xas_nomem(&xas, GFP_KERNEL);
		if (tm) {
			tm->t.table += upb_since(tm, t);
			tm->table_clocks++;
			t = upb_clock(tm);
		}
		if (more)
			goto again;
	}
out_put:
	/* A node the fallback allocated and the new round did not use. */
	if (xas.xa_alloc) {
		xas_set(&xas, 0);
		xas_nomem(&xas, 0);
	}
	mmput(mm);
out_free:
	kfree(range.hmm_pfns);
	if (tm) {
		tm->t.core += upb_since(tm, t);
		tm->nclocks++;
	}
	return ret;
}

/*
 * UPB_READ: copy the mirrored range into the caller's buffer through a
 * UPB_ACCESS_PAGES bounce, faulting at a missing entry the rest of the
 * request, at most fault_pages pages, as hmm_dummy_copy() does with
 * hmm_mirror_fault(). A fault that lost its race with invalidations for a
 * second (-EBUSY) is retried until a signal.
 */
static int upb_read(struct upb_file *f, struct upb_rw *rw,
		    struct upb_timer *tm)
{
	const size_t bufsize = UPB_ACCESS_PAGES << PAGE_SHIFT;
	unsigned long addr = rw->addr, end = rw->addr + rw->size;
	unsigned long fmax = (unsigned long)READ_ONCE(fault_pages) << PAGE_SHIFT;
	void __user *uptr = u64_to_user_ptr(rw->ptr);
	void *buf;
	long done;
	int ret = 0;

	/* Page aligned: kmalloc() of a power of two, or vmalloc(). */
	buf = kvmalloc(bufsize, GFP_KERNEL);
	if (!buf)
		return -ENOMEM;
	while (addr < end) {
		size_t len = min_t(unsigned long, end - addr, bufsize);

		for (;;) {
			if (signal_pending(current)) {
				ret = -EINTR;
				goto out;
			}
			done = upb_access(f, addr, addr + len, buf, &rw->nsys,
					  &rw->ndev);
			if (done != -ENOENT)
				break;
			ret = upb_fault(f, addr, min(end, addr + fmax),
					&rw->nfaulted, tm);
			rw->nfault_calls++;
			if (ret && ret != -EBUSY)
				goto out;
			ret = 0;
			cond_resched();
		}
		if (done < 0) {
			ret = done;
			break;
		}
		if (copy_to_user(uptr, buf, done)) {
			ret = -EFAULT;
			break;
		}
		addr += done;
		uptr += done;
		cond_resched();
	}
out:
	kvfree(buf);
	return ret;
}

/* ioctls */

static int upb_check_range(u64 addr, u64 size)
{
	u64 end;

	if (!size || !PAGE_ALIGNED(addr) || !PAGE_ALIGNED(size) ||
	    check_add_overflow(addr, size, &end) || end > TASK_SIZE)
		return -EINVAL;
	return 0;
}

/*
 * Every page of [@start, @end) must be in an anonymous, not special VMA.
 * *@maxlen: the longest piece of the range inside one VMA.
 */
static int upb_check_vmas(struct mm_struct *mm, unsigned long start,
			  unsigned long end, unsigned long *maxlen)
{
	struct vm_area_struct *vma;
	unsigned long addr;

	*maxlen = 0;
	for (addr = start; addr < end; addr = vma->vm_end) {
		vma = vma_lookup(mm, addr);
		if (!vma)
			return -EFAULT;
		if (!vma_is_anonymous(vma) || (vma->vm_flags & VM_SPECIAL))
			return -EINVAL;
		*maxlen = max(*maxlen, min(end, vma->vm_end) - addr);
	}
	return 0;
}

static int upb_migrate(struct upb_file *f, struct upb_migrate *cmd,
		       bool to_device, struct upb_timer *tm)
{
	struct upb_device *udev = f->udev;
	struct mm_struct *mm = f->notifier.mm;
	unsigned long start = cmd->addr, end = cmd->addr + cmd->size;
	unsigned long batch = READ_ONCE(batch_pages);
	unsigned long addr, next, maxlen, cpages, moved, cap;
	bool comp = READ_ONCE(compound) || (cmd->flags & UPB_F_COMPOUND);
	struct vm_area_struct *vma;
	struct upb_bufs b;
	int ret;

	if (!mmget_not_zero(mm))
		return -ENODEV;
	ret = mmap_read_lock_killable(mm);
	if (ret)
		goto out_put;
	ret = upb_check_vmas(mm, start, end, &maxlen);
	if (ret)
		goto out_unlock;
	/*
	 * batch_pages=0: a VMA piece per migrate_vma_setup() call, as amdkfd,
	 * but in pieces of at most UPB_MAX_BATCH_PAGES. Buffers for the
	 * largest call, allocated once per call, as test_hmm and hmm_dummy's
	 * core.
	 */
	cap = (batch ?: UPB_MAX_BATCH_PAGES) << PAGE_SHIFT;
	ret = upb_bufs_alloc(&b, min(cap, maxlen) >> PAGE_SHIFT, GFP_KERNEL);
	if (ret)
		goto out_unlock;
	if (to_device) {
		spin_lock(&udev->mem.lock);
		udev->mem.clock++;
		spin_unlock(&udev->mem.lock);
	}

	for (addr = start; addr < end; addr = next) {
		vma = vma_lookup(mm, addr);
		if (!vma) {
			ret = -EFAULT;
			break;
		}
		next = min(end, vma->vm_end);
		if (batch)
			next = min(next, ALIGN(addr + 1, cap));
		else
			next = min(next, addr + cap);
		if (fatal_signal_pending(current)) {
			ret = -EINTR;
			break;
		}
		if (to_device) {
			ret = upb_to_device(f, vma, addr, next, &b, cmd, comp,
					    tm);
		} else {
			ret = upb_to_ram(udev, vma, addr, next, NULL, &b, comp,
					 &cpages, &moved, tm);
			cmd->npages += moved;
			cmd->nbusy += cpages - moved;
		}
		if (ret)
			break;
	}
	/* A full pool makes a partial migration, not an error. */
	if (ret == -ENOSPC)
		ret = 0;
	upb_bufs_free(&b);
out_unlock:
	mmap_read_unlock(mm);
out_put:
	mmput(mm);
	return ret;
}

static int upb_ioctl_migrate(struct upb_file *f, void __user *uarg,
			     bool to_device)
{
	struct upb_timer timer = {}, *tm = READ_ONCE(timing) ? &timer : NULL;
	struct upb_device *udev = f->udev;
	u64 t0, cb_ns = 0, cb_calls = 0;
	struct upb_tcount tc;
	struct upb_migrate cmd;
	int ret;

	if (copy_from_user(&cmd, uarg, sizeof(cmd)))
		return -EFAULT;
	t0 = ktime_get_ns();
	if (cmd.flags & ~(UPB_F_COMPOUND | UPB_F_NOMAP))
		return -EINVAL;
	if (!to_device && (cmd.flags & UPB_F_NOMAP))
		return -EINVAL;
	/* 6.12 has no MIGRATE_VMA_SELECT_COMPOUND */
	if ((cmd.flags & UPB_F_COMPOUND) && !MIGRATE_VMA_SELECT_COMPOUND)
		return -EOPNOTSUPP;
	ret = upb_check_range(cmd.addr, cmd.size);
	if (ret)
		return ret;
	if (current->mm != f->notifier.mm)
		return -EPERM;

	cmd.npages = 0;
	cmd.ncompound = 0;
	cmd.nbusy = 0;
	cmd.nclocks = 0;
	memset(&cmd.t, 0, sizeof(cmd.t));
	/*
	 * The callbacks the core calls meanwhile are this operation's (the
	 * benchmark runs one operation at a time).
	 */
	if (tm) {
		upb_tcount_read(udev, &tc);
		cb_ns = tc.invalidate_ns + tc.folio_free_ns;
		cb_calls = tc.invalidate_calls + tc.folio_free_calls;
	}
	ret = upb_migrate(f, &cmd, to_device, tm);
	if (ret)
		return ret;
	cmd.t.total = ktime_get_ns() - t0;
	if (tm) {
		upb_tcount_read(udev, &tc);
		cb_ns = tc.invalidate_ns + tc.folio_free_ns - cb_ns;
		cb_calls = tc.invalidate_calls + tc.folio_free_calls - cb_calls;
		cmd.t.callbacks = cb_ns;
		cmd.t.core = timer.t.core > cb_ns ? timer.t.core - cb_ns : 0;
		cmd.t.copy = timer.t.copy;
		cmd.t.devmem = timer.t.devmem;
		cmd.t.table = timer.t.table;
		cmd.nclocks = timer.nclocks + cb_calls;
	}
	if (copy_to_user(uarg, &cmd, sizeof(cmd)))
		return -EFAULT;
	return 0;
}

static int upb_ioctl_read(struct upb_file *f, void __user *uarg)
{
	struct upb_timer timer = {}, *tm = READ_ONCE(timing) ? &timer : NULL;
	struct upb_device *udev = f->udev;
	u64 t0, cb_ns = 0, cb_calls = 0;
	struct upb_tcount tc;
	struct upb_rw rw;
	int ret;

	if (copy_from_user(&rw, uarg, sizeof(rw)))
		return -EFAULT;
	t0 = ktime_get_ns();
	ret = upb_check_range(rw.addr, rw.size);
	if (ret)
		return ret;
	if (!access_ok(u64_to_user_ptr(rw.ptr), rw.size))
		return -EFAULT;
	if (current->mm != f->notifier.mm)
		return -EPERM;
	rw.nsys = 0;
	rw.ndev = 0;
	rw.nfaulted = 0;
	rw.nfault_calls = 0;
	rw.nclocks = 0;
	rw.table_clocks = 0;
	memset(&rw.t, 0, sizeof(rw.t));
	/* As upb_ioctl_migrate(): the callbacks meanwhile are ours. */
	if (tm) {
		upb_tcount_read(udev, &tc);
		cb_ns = tc.invalidate_ns + tc.folio_free_ns;
		cb_calls = tc.invalidate_calls + tc.folio_free_calls;
	}
	ret = upb_read(f, &rw, tm);
	if (ret)
		return ret;
	rw.t.total = ktime_get_ns() - t0;
	if (tm) {
		upb_tcount_read(udev, &tc);
		cb_ns = tc.invalidate_ns + tc.folio_free_ns - cb_ns;
		cb_calls = tc.invalidate_calls + tc.folio_free_calls - cb_calls;
		rw.t.callbacks = cb_ns;
		rw.t.core = timer.t.core > cb_ns ? timer.t.core - cb_ns : 0;
		rw.t.copy = timer.t.copy;
		rw.t.table = timer.t.table;
		rw.nclocks = timer.nclocks + cb_calls;
		rw.table_clocks = timer.table_clocks;
	}
	if (copy_to_user(uarg, &rw, sizeof(rw)))
		return -EFAULT;
	return 0;
}

/*
 * UPB_CEILING's pool pages: @n of them into @idx, handed out as
 * upb_devmem_alloc() does, but all under one hold of the lock, which checks
 * first that there are enough: a ceiling that loses a race with a migration
 * for the last free pages gets -ENOSPC and allocates nothing, and the pool
 * full event is not counted in @alloc_failures, which the benchmarks read
 * as the migrations' own. @n is at most UPB_COPY_BATCH.
 */
static int upb_devmem_alloc_n(struct upb_devmem *mem, unsigned long *idx,
			      unsigned long n)
{
	unsigned long npages = mem->npages;
	unsigned long i, index;

	spin_lock(&mem->lock);
	if (npages - mem->in_use < n) {
		spin_unlock(&mem->lock);
		return -ENOSPC;
	}
	for (i = 0; i < n; i++) {
		index = find_next_zero_bit(mem->bitmap, npages, mem->hint);
		if (index >= npages)
			index = find_first_zero_bit(mem->bitmap, mem->hint);
		__set_bit(index, mem->bitmap);
		mem->in_use++;
		mem->block_stamp[index / UPB_BLOCK_PAGES] = mem->clock;
		mem->block_used[index / UPB_BLOCK_PAGES]++;
		mem->hint = index + 1 < npages ? index + 1 : 0;
		idx[i] = index;
	}
	spin_unlock(&mem->lock);
	return 0;
}

/*
 * UPB_CEILING mode 0: hmm_dummy's copy loop from temporary system pages
 * into free pool pages, in batches of UPB_COPY_BATCH; only the copies are
 * timed.
 */
static int upb_ceiling(struct upb_device *udev, struct upb_ceiling *cmd)
{
	struct upb_devmem *mem = &udev->mem;
	unsigned long i, n, done, got = 0, avail;
	struct page **src;
	unsigned long *idx;
	u64 t0;
	int ret = 0;

	if (cmd->mode == 1)
		return -EOPNOTSUPP;
	if (cmd->mode || !cmd->npages || cmd->npages > mem->npages)
		return -EINVAL;
	n = cmd->npages;
	spin_lock(&mem->lock);
	avail = mem->npages - mem->in_use;
	spin_unlock(&mem->lock);
	if (n > avail)
		return -ENOSPC;

	src = kvcalloc(n, sizeof(*src), GFP_KERNEL);
	idx = kvcalloc(n, sizeof(*idx), GFP_KERNEL);
	if (!src || !idx) {
		ret = -ENOMEM;
		goto out;
	}
	for (i = 0; i < n; i++) {
		src[i] = alloc_page(GFP_HIGHUSER | __GFP_ZERO |
				    __GFP_RETRY_MAYFAIL | __GFP_NOWARN);
		if (!src[i]) {
			ret = -ENOMEM;
			goto out;
		}
		if (fatal_signal_pending(current)) {
			ret = -EINTR;
			goto out;
		}
		cond_resched();
	}
	for (got = 0; got < n; got += i) {
		i = min(n - got, UPB_COPY_BATCH);
		ret = upb_devmem_alloc_n(mem, idx + got, i);
		if (ret)
			goto out;
		cond_resched();
	}

	t0 = ktime_get_ns();
	for (done = 0; done < n; done += i) {
		i = min(n - done, UPB_COPY_BATCH);
		ret = upb_copy_to_device(mem, src + done, idx + done, i);
		if (ret)
			goto out;
	}
	cmd->ns = ktime_get_ns() - t0;

out:
	while (got)
		upb_devmem_free(mem, idx[--got]);
	if (src) {
		for (i = 0; i < n; i++)
			if (src[i])
				__free_page(src[i]);
	}
	kvfree(idx);
	kvfree(src);
	return ret;
}

static int upb_ioctl_ceiling(struct upb_file *f, void __user *uarg)
{
	struct upb_ceiling cmd;
	int ret;

	if (copy_from_user(&cmd, uarg, sizeof(cmd)))
		return -EFAULT;
	cmd.ns = 0;
	ret = upb_ceiling(f->udev, &cmd);
	if (ret)
		return ret;
	if (copy_to_user(uarg, &cmd, sizeof(cmd)))
		return -EFAULT;
	return 0;
}

static void upb_read_stats(struct upb_device *udev, struct upb_stats *st)
{
	struct upb_devmem *mem = &udev->mem;
	struct upb_tcount tc;

	memset(st, 0, sizeof(*st));
	spin_lock(&mem->lock);
	st->in_use = mem->in_use;
	st->alloc_failures = mem->alloc_failures;
	spin_unlock(&mem->lock);
	st->to_device = atomic_long_read(&udev->to_device);
	st->from_device = atomic_long_read(&udev->from_device);
	st->cpu_faults = atomic_long_read(&udev->cpu_faults);
	upb_tcount_read(udev, &tc);
	st->m2r_total = tc.m2r_total;
	st->m2r_core = tc.m2r_core;
	st->m2r_copy = tc.m2r_copy;
	st->m2r_table = tc.m2r_table;
	st->m2r_clocks = tc.m2r_clocks;
	st->folio_free_ns = tc.folio_free_ns;
	st->folio_free_calls = tc.folio_free_calls;
	st->invalidate_ns = tc.invalidate_ns;
	st->invalidate_calls = tc.invalidate_calls;
}

static int upb_ioctl_stats(struct upb_file *f, void __user *uarg)
{
	struct upb_stats st;

	upb_read_stats(f->udev, &st);
	if (copy_to_user(uarg, &st, sizeof(st)))
		return -EFAULT;
	return 0;
}

/*
 * UPB_CALIBRATE: the cost of a ktime_get_ns() pair, and of a pool
 * allocation and free, in picoseconds, each over @iters rounds (default
 * 100000, at most 10000000).
 */
static int upb_ioctl_calibrate(struct upb_file *f, void __user *uarg)
{
	struct upb_devmem *mem = &f->udev->mem;
	u64 i, j, n, t0, t1, best = U64_MAX;
	struct upb_calibrate cal;
	long index;

	if (copy_from_user(&cal, uarg, sizeof(cal)))
		return -EFAULT;
	if (!cal.iters)
		cal.iters = 100000;
	if (cal.iters > 10000000)
		return -EINVAL;
	/*
	 * In chunks, rescheduling between them outside the clock; the
	 * fastest chunk, so that another task's time never counts.
	 */
	for (i = 0; i < cal.iters; i += n) {
		n = min(cal.iters - i, 4096ULL);
		t0 = ktime_get_ns();
		for (j = 0; j < n; j++) {
			t1 = ktime_get_ns();
			t1 = ktime_get_ns();
		}
		best = min(best, div64_u64((ktime_get_ns() - t0) * 1000, n));
		cond_resched();
	}
	(void)t1;
	cal.ktime_pair_ps = best;
	t0 = ktime_get_ns();
	for (i = 0; i < cal.iters; i++) {
		index = upb_devmem_alloc(mem);
		if (index < 0)
			return -ENOSPC;
		upb_devmem_free(mem, index);
		if (!((i + 1) % 4096))
			cond_resched();
	}
	cal.alloc_free_pair_ps = div64_u64((ktime_get_ns() - t0) * 1000,
					   cal.iters);
	if (copy_to_user(uarg, &cal, sizeof(cal)))
		return -EFAULT;
	return 0;
}

/* File operations */

static int upb_fops_open(struct inode *inode, struct file *filp)
{
	struct upb_device *udev;
	struct upb_file *f;
	int ret;

	if (!current->mm)
		return -EINVAL;
	udev = container_of(inode->i_cdev, struct upb_device, cdev);
	f = kzalloc_obj(*f, GFP_KERNEL);
	if (!f)
		return -ENOMEM;
	f->udev = udev;
	mutex_init(&f->lock);
	/* Charged to the memcg, as ours' table directories. */
	xa_init_flags(&f->pt, XA_FLAGS_ACCOUNT);
	/* The whole address space, as test_hmm. */
	ret = mmu_interval_notifier_insert(&f->notifier, current->mm, 0,
					   ULONG_MAX & PAGE_MASK,
					   &upb_mni_ops);
	if (ret) {
		mutex_destroy(&f->lock);
		kfree(f);
		return ret;
	}
	down_write(&udev->files_sem);
	list_add(&f->node, &udev->files);
	up_write(&udev->files_sem);
	filp->private_data = f;
	return 0;
}

static int upb_fops_release(struct inode *inode, struct file *filp)
{
	struct upb_file *f = filp->private_data;
	struct upb_device *udev = f->udev;

	down_write(&udev->files_sem);
	list_del(&f->node);
	up_write(&udev->files_sem);
	/* Waits for running invalidate callbacks. */
	mmu_interval_notifier_remove(&f->notifier);
	xa_destroy(&f->pt);
	mutex_destroy(&f->lock);
	kfree(f);
	return 0;
}

static long upb_fops_unlocked_ioctl(struct file *filp, unsigned int cmd,
				    unsigned long arg)
{
	struct upb_file *f = filp->private_data;
	void __user *uarg = (void __user *)arg;

	switch (cmd) {
	case UPB_MIGRATE_TO:
		return upb_ioctl_migrate(f, uarg, true);
	case UPB_MIGRATE_BACK:
		return upb_ioctl_migrate(f, uarg, false);
	case UPB_CEILING:
		return upb_ioctl_ceiling(f, uarg);
	case UPB_STATS:
		return upb_ioctl_stats(f, uarg);
	case UPB_CALIBRATE:
		return upb_ioctl_calibrate(f, uarg);
	case UPB_READ:
		return upb_ioctl_read(f, uarg);
	case UPB_WRITE:
		return -EOPNOTSUPP;	/* no benchmark row writes */
	default:
		return -ENOTTY;
	}
}

static const struct file_operations upb_fops = {
	.owner = THIS_MODULE,
	.open = upb_fops_open,
	.release = upb_fops_release,
	.unlocked_ioctl = upb_fops_unlocked_ioctl,
	.compat_ioctl = compat_ptr_ioctl,
	.llseek = noop_llseek,
};

/* debugfs hmm_upstream_bench/deviceN: hmm_dummy's key names */

static int upb_stats_show(struct seq_file *m, void *unused)
{
	struct upb_device *udev = m->private;
	struct upb_stats st;

	upb_read_stats(udev, &st);
	seq_printf(m, "pages %lu\n", udev->mem.npages);
	seq_printf(m, "in_use %llu\n", st.in_use);
	seq_printf(m, "to_device %llu\n", st.to_device);
	seq_printf(m, "from_device %llu\n", st.from_device);
	seq_printf(m, "cpu_faults %llu\n", st.cpu_faults);
	seq_printf(m, "alloc_failures %llu\n", st.alloc_failures);
	seq_printf(m, "region_pages %lu\n", udev->region_pages);
	seq_printf(m, "m2r_total_ns %llu\n", st.m2r_total);
	seq_printf(m, "m2r_core_ns %llu\n", st.m2r_core);
	seq_printf(m, "m2r_copy_ns %llu\n", st.m2r_copy);
	seq_printf(m, "m2r_table_ns %llu\n", st.m2r_table);
	seq_printf(m, "m2r_clocks %llu\n", st.m2r_clocks);
	seq_printf(m, "folio_free_ns %llu\n", st.folio_free_ns);
	seq_printf(m, "folio_free_calls %llu\n", st.folio_free_calls);
	seq_printf(m, "invalidate_ns %llu\n", st.invalidate_ns);
	seq_printf(m, "invalidate_calls %llu\n", st.invalidate_calls);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(upb_stats);

/* Module init and exit */

static void upb_pool_free(struct upb_devmem *mem, unsigned long nr_pages)
{
	while (nr_pages--)
		__free_page(mem->pages[nr_pages]);
	kvfree(mem->pages);
	mem->pages = NULL;
	kvfree(mem->bitmap);
	mem->bitmap = NULL;
	kvfree(mem->block_stamp);
	mem->block_stamp = NULL;
	kvfree(mem->block_used);
	mem->block_used = NULL;
	mem->npages = 0;
}

/* The pool (hmm_dummy_devmem_init()), then the device memory in front of it. */
static int upb_devmem_init(struct upb_device *udev)
{
	struct upb_devmem *mem = &udev->mem;
	unsigned long npages, nblocks, i = 0;
	struct resource *res;
	void *ptr;
	int ret;

	npages = (unsigned long)devmem_mb * (SZ_1M / PAGE_SIZE);
	nblocks = DIV_ROUND_UP(npages, UPB_BLOCK_PAGES);
	mem->bitmap = kvcalloc(BITS_TO_LONGS(npages), sizeof(unsigned long),
			       GFP_KERNEL);
	mem->pages = kvmalloc_array(npages, sizeof(*mem->pages), GFP_KERNEL);
	mem->block_stamp = kvcalloc(nblocks, sizeof(*mem->block_stamp),
				    GFP_KERNEL);
	mem->block_used = kvcalloc(nblocks, sizeof(*mem->block_used),
				   GFP_KERNEL);
	if (!mem->bitmap || !mem->pages || !mem->block_stamp ||
	    !mem->block_used) {
		ret = -ENOMEM;
		goto err_pool;
	}
	for (i = 0; i < npages; i++) {
		/* A test module should fail to load rather than OOM kill. */
		mem->pages[i] = alloc_page(GFP_HIGHUSER | __GFP_RETRY_MAYFAIL |
					   __GFP_NOWARN);
		if (!mem->pages[i]) {
			ret = -ENOMEM;
			goto err_pool;
		}
		cond_resched();
	}
	mem->npages = npages;

	/* Section aligned: the pfns beyond npages are never handed out. */
	res = request_free_mem_region(&iomem_resource,
				      ALIGN(npages << PAGE_SHIFT,
					    1UL << SECTION_SIZE_BITS),
				      UPB_NAME);
	if (IS_ERR_OR_NULL(res)) {
		ret = res ? PTR_ERR(res) : -ENOMEM;
		goto err_pool;
	}
	udev->pgmap.type = MEMORY_DEVICE_PRIVATE;
	udev->pgmap.range.start = res->start;
	udev->pgmap.range.end = res->end;
	udev->pgmap.nr_range = 1;
	udev->pgmap.ops = &upb_pgmap_ops;
	udev->pgmap.owner = udev;
	ptr = memremap_pages(&udev->pgmap, numa_node_id());
	if (IS_ERR_OR_NULL(ptr)) {
		ret = ptr ? PTR_ERR(ptr) : -EFAULT;
		goto err_region;
	}
	udev->pfn_first = udev->pgmap.range.start >> PAGE_SHIFT;
	udev->region_pages = range_len(&udev->pgmap.range) >> PAGE_SHIFT;
	return 0;

err_region:
	release_mem_region(udev->pgmap.range.start,
			   range_len(&udev->pgmap.range));
err_pool:
	pr_err("device%u: no %u MiB of device memory: %d\n", udev->id,
	       devmem_mb, ret);
	upb_pool_free(mem, i);
	return ret;
}

/*
 * Migrate every device page in use back to system memory, as
 * dmirror_device_evict_chunk() does, in batches of UPB_EVICT_PAGES. Pages
 * that are busy (locked by a fault or a migration, or with extra
 * references) stay.
 */
static void upb_evict(struct upb_device *udev, struct upb_bufs *b)
{
	struct upb_devmem *mem = &udev->mem;
	unsigned long first, end, cend, nr, i, j, step, cnt, moved = 0;
	struct page *spage, *dpage;
	struct folio *dfolio;

	/*
	 * One run of allocated pool pages at a time, inside an aligned chunk
	 * of UPB_EVICT_PAGES (a PMD-sized device folio fills one chunk).
	 * migrate_device_range() takes the folio of every pfn it is given,
	 * and a free device page may still point to the head of a large
	 * folio freed before, whose order would make it skip the pages after
	 * it. No file is open, so nothing allocates meanwhile.
	 */
	for (first = 0; first < mem->npages; first = end) {
		cend = min(ALIGN(first + 1, UPB_EVICT_PAGES), mem->npages);
		spin_lock(&mem->lock);
		first = find_next_bit(mem->bitmap, cend, first);
		end = first < cend ? find_next_zero_bit(mem->bitmap, cend, first) : cend;
		spin_unlock(&mem->lock);
		if (first >= cend)
			continue;
		nr = end - first;
		migrate_device_range(b->src, udev->pfn_first + first, nr);
		memset(b->dst, 0, nr * sizeof(*b->dst));
		cnt = 0;
		for (i = 0; i < nr; i += step) {
			step = 1;
			spage = migrate_pfn_to_page(b->src[i]);
			if (!spage || !(b->src[i] & MIGRATE_PFN_MIGRATE))
				continue;
			if (b->src[i] & MIGRATE_PFN_COMPOUND) {
				/*
				 * No split here (split_folio() is not exported,
				 * and migrate_device_pages() does not split):
				 * the next round tries again.
				 */
				step = min(UPB_PMD_PAGES, nr - i);
				dfolio = folio_alloc(GFP_HIGHUSER_MOVABLE | __GFP_NOWARN |
						     __GFP_RETRY_MAYFAIL, UPB_PMD_ORDER);
				if (!dfolio)
					continue;
				folio_lock(dfolio);
				b->dst[i] = migrate_pfn(folio_pfn(dfolio)) |
					    (b->src[i] & MIGRATE_PFN_WRITE) |
					    MIGRATE_PFN_COMPOUND;
				for (j = 0; j < step; j++, cnt++) {
					b->pages[cnt] = folio_page(dfolio, j);
					b->index[cnt] = first + i + j;
				}
				continue;
			}
			dpage = alloc_page(GFP_HIGHUSER_MOVABLE | __GFP_NOFAIL);
			lock_page(dpage);
			b->dst[i] = migrate_pfn(page_to_pfn(dpage)) |
				    (b->src[i] & MIGRATE_PFN_WRITE);
			b->pages[cnt] = dpage;
			b->index[cnt] = first + i;
			cnt++;
		}
		if (upb_copy_from_device(mem, b->index, b->pages, cnt))
			upb_drop_dst(b->dst, nr);
		migrate_device_pages(b->src, b->dst, nr);
		for (i = 0; i < nr; i++)
			if ((b->src[i] & MIGRATE_PFN_MIGRATE) && b->dst[i])
				moved += (b->src[i] & MIGRATE_PFN_COMPOUND) &&
					 (b->dst[i] & MIGRATE_PFN_COMPOUND) ?
					 UPB_PMD_PAGES : 1;
		migrate_device_finalize(b->src, b->dst, nr);
		cond_resched();
	}
	atomic_long_add(moved, &udev->from_device);
}

static void upb_devmem_exit(struct upb_device *udev)
{
	struct upb_devmem *mem = &udev->mem;
	unsigned long round = 0;
	struct upb_bufs b;

	/*
	 * No file is open (they hold a module reference), but processes may
	 * still map device pages, and may be faulting or freeing them right
	 * now. memunmap_pages() waits for every device page to be freed, so
	 * evict them all first. A busy page (locked by a fault or a migration,
	 * or with an extra reference) stays: evict again after a bounded wait,
	 * until none is left, and warn if that takes long.
	 */
	upb_bufs_alloc(&b, UPB_EVICT_PAGES, GFP_KERNEL | __GFP_NOFAIL);
	for (;;) {
		upb_evict(udev, &b);
		if (wait_event_timeout(mem->free_wq, !READ_ONCE(mem->in_use),
				       HZ / 10))
			break;
		if (++round % UPB_EXIT_ROUNDS)
			continue;
		WARN_ONCE(1, "device%u: device pages still in use after %d s\n",
			  udev->id, UPB_EXIT_ROUNDS / 10);
		pr_warn("device%u: %lu device pages still in use: evicting again\n",
			udev->id, READ_ONCE(mem->in_use));
	}
	upb_bufs_free(&b);
	memunmap_pages(&udev->pgmap);
	release_mem_region(udev->pgmap.range.start,
			   range_len(&udev->pgmap.range));
	upb_pool_free(mem, mem->npages);
}

static int upb_device_init(struct upb_device *udev, unsigned int id)
{
	dev_t devt = MKDEV(MAJOR(upb_devt), id);
	struct device *dev;
	int ret;

	udev->id = id;
	spin_lock_init(&udev->mem.lock);
	init_waitqueue_head(&udev->mem.free_wq);
	init_rwsem(&udev->files_sem);
	INIT_LIST_HEAD(&udev->files);
	atomic_long_set(&udev->to_device, 0);
	atomic_long_set(&udev->from_device, 0);
	atomic_long_set(&udev->cpu_faults, 0);

	ret = upb_devmem_init(udev);
	if (ret)
		return ret;
	cdev_init(&udev->cdev, &upb_fops);
	udev->cdev.owner = THIS_MODULE;
	ret = cdev_add(&udev->cdev, devt, 1);
	if (ret)
		goto err_devmem;
	dev = device_create(&upb_class, NULL, devt, udev, UPB_NAME "%u", id);
	if (IS_ERR(dev)) {
		ret = PTR_ERR(dev);
		goto err_cdev;
	}
	udev->dev = dev;
	return 0;

err_cdev:
	cdev_del(&udev->cdev);
err_devmem:
	upb_devmem_exit(udev);
	return ret;
}

static void upb_device_exit(struct upb_device *udev)
{
	device_destroy(&upb_class, udev->cdev.dev);
	cdev_del(&udev->cdev);
	upb_devmem_exit(udev);
}

static void upb_debugfs_init(struct upb_device *udev)
{
	char name[16];

	snprintf(name, sizeof(name), "device%u", udev->id);
	debugfs_create_file(name, 0444, upb_debugfs, udev, &upb_stats_fops);
}

static int __init upb_init(void)
{
	unsigned int i;
	int ret;

	if (!ndevices || ndevices > UPB_MAX_DEVICES || !devmem_mb ||
	    devmem_mb > UPB_MAX_DEVMEM_MB)
		return -EINVAL;
	ret = alloc_chrdev_region(&upb_devt, 0, ndevices, UPB_NAME);
	if (ret)
		return ret;
	ret = class_register(&upb_class);
	if (ret)
		goto err_chrdev;
	upb_devices = kcalloc(ndevices, sizeof(*upb_devices), GFP_KERNEL);
	if (!upb_devices) {
		ret = -ENOMEM;
		goto err_class;
	}
	upb_debugfs = debugfs_create_dir(UPB_NAME, NULL);
	for (i = 0; i < ndevices; i++) {
		ret = upb_device_init(&upb_devices[i], i);
		if (ret)
			goto err_devices;
		upb_ndevices++;
		upb_debugfs_init(&upb_devices[i]);
	}
	pr_info("%u devices with %u MiB of device memory each (window %u, batch_pages %u)\n",
		ndevices, devmem_mb, READ_ONCE(window), READ_ONCE(batch_pages));
	return 0;

err_devices:
	debugfs_remove_recursive(upb_debugfs);
	while (upb_ndevices)
		upb_device_exit(&upb_devices[--upb_ndevices]);
	kfree(upb_devices);
err_class:
	class_unregister(&upb_class);
err_chrdev:
	unregister_chrdev_region(upb_devt, ndevices);
	return ret;
}

static void __exit upb_exit(void)
{
	/* Waits for the readers of the files. */
	debugfs_remove_recursive(upb_debugfs);
	while (upb_ndevices)
		upb_device_exit(&upb_devices[--upb_ndevices]);
	kfree(upb_devices);
	class_unregister(&upb_class);
	unregister_chrdev_region(upb_devt, ndevices);
}

module_init(upb_init);
module_exit(upb_exit);

MODULE_DESCRIPTION("Benchmark driver for upstream HMM (DEVICE_PRIVATE, migrate_vma)");
MODULE_LICENSE("GPL");
