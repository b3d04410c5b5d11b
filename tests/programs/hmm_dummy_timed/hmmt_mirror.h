/* SPDX-License-Identifier: GPL-2.0 */
/* Included by hmm_dummy_body.c right before hmm_dummy_ops. */
static int hmmt_update(struct hmm_mirror *mirror,
		       const struct hmm_event *event, bool blockable)
{
	u64 t0 = ktime_get_ns();
	int ret = hmm_dummy_update(mirror, event, blockable);

	hmmt_add(update, t0);
	return ret;
}
