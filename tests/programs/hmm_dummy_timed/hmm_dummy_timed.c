// SPDX-License-Identifier: GPL-2.0
/*
 * hmm_dummy_timed: the series' hmm_dummy with clocks around its device
 * memory and mirror callbacks and around its call of
 * hmm_migrate_to_device(), for the core-time split of the HMM benchmarks
 * (issue 19, slice 2; tests/programs/hmm-bench.c -T). Measuring apparatus,
 * not part of the posted series.
 *
 * scripts/build/build-bench.sh makes hmm_dummy_body.c from the kernel tree's
 * drivers/char/hmm_dummy.c with a few renames, each of which must match
 * exactly once: the callbacks in the two ops tables and the
 * hmm_migrate_to_device() call point at the timed wrappers of
 * hmmt_devmem.h and hmmt_mirror.h (included right before the tables), and
 * the class, the devices (/dev/hmm_dummy_timed_deviceNM), the debugfs
 * directory (hmm_dummy_timed/) and module_init() get their own names, so
 * that it loads beside hmm_dummy. Nothing else of the driver changes.
 *
 * debugfs hmm_dummy_timed/timing: "KEY_ns N" and "KEY_calls N" for KEY in
 * migrate (hmm_migrate_to_device(), callbacks included), alloc, free,
 * copy_to, copy_from and update, cumulative since the load, for both
 * devices. A callback's clock pair adds about one ktime_get_ns() call to the
 * core time computed as migrate_ns minus the callbacks, or as a CPU fault's
 * time minus them: hmm-bench subtracts KEY_calls times the cost of one call
 * (hmm_upstream_bench's UPB_CALIBRATE), as it does on upstream's side.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/atomic.h>
#include <linux/debugfs.h>
#include <linux/init.h>
#include <linux/ktime.h>
#include <linux/seq_file.h>

/* One thing timed: nanoseconds and calls. */
struct hmmt_bucket {
	atomic64_t ns;
	atomic64_t calls;
};

static struct {
	struct hmmt_bucket migrate;
	struct hmmt_bucket alloc;
	struct hmmt_bucket free;
	struct hmmt_bucket copy_to;
	struct hmmt_bucket copy_from;
	struct hmmt_bucket update;
} hmmt;

static inline void hmmt_add(struct hmmt_bucket *b, u64 t0)
{
	atomic64_add(ktime_get_ns() - t0, &b->ns);
	atomic64_inc(&b->calls);
}

/* The driver's one call of the core's migration, with its clock. */
#define hmmt_migrate_to_device(...) ({				\
	u64 __t0 = ktime_get_ns();				\
	__auto_type __r = hmm_migrate_to_device(__VA_ARGS__);	\
	hmmt_add(&hmmt.migrate, __t0);				\
	__r; })

static int __init hmmt_init(void);

#include "hmm_dummy_body.c"

static int hmmt_show(struct seq_file *m, void *unused)
{
	static const struct {
		const char *key;
		struct hmmt_bucket *b;
	} k[] = {
		{ "migrate", &hmmt.migrate },
		{ "alloc", &hmmt.alloc },
		{ "free", &hmmt.free },
		{ "copy_to", &hmmt.copy_to },
		{ "copy_from", &hmmt.copy_from },
		{ "update", &hmmt.update },
	};
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(k); i++) {
		seq_printf(m, "%s_ns %lld\n", k[i].key, atomic64_read(&k[i].b->ns));
		seq_printf(m, "%s_calls %lld\n", k[i].key,
			   atomic64_read(&k[i].b->calls));
	}
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(hmmt);

static int __init hmmt_init(void)
{
	int ret = hmm_dummy_init();

	/* Removed with the directory, by hmm_dummy_exit(). */
	if (!ret)
		debugfs_create_file("timing", 0444, hmm_dummy_debugfs, NULL,
				    &hmmt_fops);
	return ret;
}
