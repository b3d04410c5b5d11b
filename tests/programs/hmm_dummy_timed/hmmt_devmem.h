/* SPDX-License-Identifier: GPL-2.0 */
/* Included by hmm_dummy_body.c right before hmm_dummy_devmem_ops. */
static long hmmt_devmem_alloc(struct hmm_devmem *devmem)
{
	u64 t0 = ktime_get_ns();
	long ret = hmm_dummy_devmem_alloc(devmem);

	hmmt_add(alloc, t0);
	return ret;
}

static void hmmt_devmem_free(struct hmm_devmem *devmem, unsigned long index)
{
	u64 t0 = ktime_get_ns();

	hmm_dummy_devmem_free(devmem, index);
	hmmt_add(free, t0);
}

static int hmmt_copy_to_device(struct hmm_devmem *devmem, struct page **src,
			       const unsigned long *dst, unsigned long npages)
{
	u64 t0 = ktime_get_ns();
	int ret = hmm_dummy_copy_to_device(devmem, src, dst, npages);

	hmmt_add(copy_to, t0);
	return ret;
}

static int hmmt_copy_from_device(struct hmm_devmem *devmem,
				 const unsigned long *src, struct page **dst,
				 unsigned long npages)
{
	unsigned int delay = READ_ONCE(copy_from_delay_ms);
	u64 t0 = ktime_get_ns();
	int ret;

	/* A slow device, inside the driver's clock. */
	if (delay)
		msleep(min(delay, 10000U));
	ret = hmm_dummy_copy_from_device(devmem, src, dst, npages);
	hmmt_add(copy_from, t0);
	return ret;
}
