// SPDX-License-Identifier: GPL-2.0
/*
 * hmm_dummy_timed: the series' hmm_dummy with clocks around its device
 * memory and mirror callbacks and around its calls of
 * hmm_migrate_to_device() and hmm_mirror_fault(), for the core-time split
 * of the HMM benchmarks (issue 19, slices 2 and 3;
 * tests/programs/hmm-bench.c -T). Measuring apparatus, not part of the
 * posted series.
 *
 * scripts/build/build-bench.sh makes hmm_dummy_body.c from the kernel tree's
 * drivers/char/hmm_dummy.c with a few renames, each of which must match
 * exactly once: the callbacks in the two ops tables and the
 * hmm_migrate_to_device() and hmm_mirror_fault() calls point at the timed
 * wrappers of
 * hmmt_devmem.h and hmmt_mirror.h (included right before the tables), and
 * the class, the devices (/dev/hmm_dummy_timed_deviceNM), the debugfs
 * directory (hmm_dummy_timed/) and module_init() get their own names, so
 * that it loads beside hmm_dummy. Nothing else of the driver changes.
 *
 * debugfs hmm_dummy_timed/timing: "KEY_ns N" and "KEY_calls N" for KEY in
 * migrate (hmm_migrate_to_device(), callbacks included), alloc, free,
 * copy_to, copy_from, update and fault (hmm_mirror_fault(), the ->update()
 * callbacks it makes included), cumulative since the load, for both
 * devices. The counters are per CPU (this_cpu_add(), no locked operation:
 * what the accounting costs after a clock stops lands in the enclosing
 * interval). Each clock pair adds about one ktime_get_ns() call to the
 * interval around it (the core time, computed as migrate_ns minus the
 * callbacks, or as a CPU fault's time minus them): hmm-bench subtracts the
 * pairs times the cost of one call (hmm_upstream_bench's UPB_CALIBRATE), as
 * it does on upstream's side.
 *
 * Parameter copy_from_delay_ms (0644, default 0): ->copy_from_device()
 * sleeps this long first (at most 10 s), inside its clock: hmm-bench's check
 * that the driver's time does not leak into the core time of CPU faults
 * (hmm_dummy has debugfs deviceN_copy_delay_ms for the other direction).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/debugfs.h>
#include <linux/delay.h>
#include <linux/init.h>
#include <linux/ktime.h>
#include <linux/moduleparam.h>
#include <linux/percpu.h>
#include <linux/seq_file.h>

static unsigned int copy_from_delay_ms;
module_param(copy_from_delay_ms, uint, 0644);
MODULE_PARM_DESC(copy_from_delay_ms,
		 "->copy_from_device() sleeps this long first (at most 10 s): a slow device (default 0)");

/* One thing timed: nanoseconds and calls. */
struct hmmt_bucket {
	u64 ns;
	u64 calls;
};

struct hmmt_counters {
	struct hmmt_bucket migrate;
	struct hmmt_bucket alloc;
	struct hmmt_bucket free;
	struct hmmt_bucket copy_to;
	struct hmmt_bucket copy_from;
	struct hmmt_bucket update;
	struct hmmt_bucket fault;
};

static DEFINE_PER_CPU(struct hmmt_counters, hmmt_pcpu);

/* Stop the clock started at @t0 and count it in bucket @b. */
#define hmmt_add(b, t0) do {					\
	u64 __d = ktime_get_ns() - (t0);			\
								\
	this_cpu_add(hmmt_pcpu.b.ns, __d);			\
	this_cpu_inc(hmmt_pcpu.b.calls);			\
} while (0)

/* The driver's one call of the core's migration, with its clock. */
#define hmmt_migrate_to_device(...) ({				\
	u64 __t0 = ktime_get_ns();				\
	__auto_type __r = hmm_migrate_to_device(__VA_ARGS__);	\
	hmmt_add(migrate, __t0);				\
	__r; })

/* The driver's one call of the core's device fault, with its clock. */
#define hmmt_mirror_fault(...) ({				\
	u64 __t0 = ktime_get_ns();				\
	__auto_type __r = hmm_mirror_fault(__VA_ARGS__);	\
	hmmt_add(fault, __t0);					\
	__r; })

static int __init hmmt_init(void);

#include "hmm_dummy_body.c"

static int hmmt_show(struct seq_file *m, void *unused)
{
	static const char * const key[] = {
		"migrate", "alloc", "free", "copy_to", "copy_from", "update",
		"fault",
	};
	struct hmmt_bucket sum[ARRAY_SIZE(key)] = {};
	unsigned int i;
	int cpu;

	static_assert(sizeof(struct hmmt_counters) == sizeof(sum));
	for_each_possible_cpu(cpu) {
		const struct hmmt_bucket *b =
			(const void *)per_cpu_ptr(&hmmt_pcpu, cpu);

		for (i = 0; i < ARRAY_SIZE(key); i++) {
			sum[i].ns += READ_ONCE(b[i].ns);
			sum[i].calls += READ_ONCE(b[i].calls);
		}
	}
	for (i = 0; i < ARRAY_SIZE(key); i++) {
		seq_printf(m, "%s_ns %llu\n", key[i], sum[i].ns);
		seq_printf(m, "%s_calls %llu\n", key[i], sum[i].calls);
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
