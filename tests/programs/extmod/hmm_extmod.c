// SPDX-License-Identifier: GPL-2.0
/*
 * The smallest driver a packager's kernel must let a driver writer build out
 * of tree: it registers an HMM device at load and unregisters it at unload,
 * and links against the mirror and device-memory API, so modpost fails if
 * the headers package lacks a header or the kernel an export.
 */
#include <linux/module.h>
#include <linux/hmm_mirror.h>
#include <linux/hmm_migrate.h>

static int extmod_update(struct hmm_mirror *mirror,
			 const struct hmm_event *event, bool blockable)
{
	return 0;
}

static void extmod_release(struct hmm_mirror *mirror)
{
}

static void extmod_free(struct hmm_mirror *mirror)
{
}

static const struct hmm_device_ops extmod_ops = {
	.update = extmod_update,
	.release = extmod_release,
	.free = extmod_free,
};

static struct hmm_device extmod_device = {
	.name = "hmm_extmod",
	.ops = &extmod_ops,
};

/* Every exported entry point a driver uses, so that modpost resolves them. */
static void *const extmod_api[] __used = {
	hmm_mirror_register, hmm_mirror_unregister, hmm_mirror_fault,
	hmm_mirror_ref, hmm_mirror_unref, hmm_mirror_mm,
	hmm_devmem_register, hmm_devmem_unregister,
	hmm_migrate_to_device, hmm_migrate_back,
};

static int __init extmod_init(void)
{
	return hmm_device_register(&extmod_device);
}

static void __exit extmod_exit(void)
{
	hmm_device_unregister(&extmod_device);
}

module_init(extmod_init);
module_exit(extmod_exit);
MODULE_DESCRIPTION("Out-of-tree build check of the HMM driver API");
MODULE_LICENSE("GPL");
