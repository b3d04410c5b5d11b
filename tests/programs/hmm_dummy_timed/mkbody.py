#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
# mkbody.py HMM_DUMMY_C: print hmm_dummy_body.c for hmm_dummy_timed.c (see
# there): drivers/char/hmm_dummy.c with these renames, each of which must
# match exactly once (exit 1 otherwise, naming the one that did not).
import re
import sys

EDITS = [
    # hmm_dummy_timed.c defines it first, before its own includes
    ("\n#define pr_fmt(fmt) KBUILD_MODNAME \": \" fmt\n", "\n"),
    ("\t.alloc = hmm_dummy_devmem_alloc,\n", "\t.alloc = hmmt_devmem_alloc,\n"),
    ("\t.free = hmm_dummy_devmem_free,\n", "\t.free = hmmt_devmem_free,\n"),
    ("\t.copy_to_device = hmm_dummy_copy_to_device,\n",
     "\t.copy_to_device = hmmt_copy_to_device,\n"),
    ("\t.copy_from_device = hmm_dummy_copy_from_device,\n",
     "\t.copy_from_device = hmmt_copy_from_device,\n"),
    ("\t.update = hmm_dummy_update,\n", "\t.update = hmmt_update,\n"),
    ("ret = hmm_migrate_to_device(", "ret = hmmt_migrate_to_device("),
    ("ret = hmm_mirror_fault(", "ret = hmmt_mirror_fault("),
    ("\n\t.name = \"hmm_dummy\",\n", "\n\t.name = \"hmm_dummy_timed\",\n"),
    ("\"hmm_dummy_device%u\"", "\"hmm_dummy_timed_device%u\""),
    ("debugfs_create_dir(\"hmm_dummy\", NULL)",
     "debugfs_create_dir(\"hmm_dummy_timed\", NULL)"),
    ("\nmodule_init(hmm_dummy_init);\n", "\nmodule_init(hmmt_init);\n"),
    ("\nstatic const struct hmm_devmem_ops hmm_dummy_devmem_ops = {\n",
     "\n#include \"hmmt_devmem.h\"\n\nstatic const struct hmm_devmem_ops hmm_dummy_devmem_ops = {\n"),
    ("\nstatic const struct hmm_device_ops hmm_dummy_ops = {\n",
     "\n#include \"hmmt_mirror.h\"\n\nstatic const struct hmm_device_ops hmm_dummy_ops = {\n"),
]

src = open(sys.argv[1]).read()
for old, new in EDITS:
    n = src.count(old)
    if n != 1:
        sys.exit("mkbody.py: %r matches %d times in %s, not once" % (old, n, sys.argv[1]))
    src = src.replace(old, new)
# Nothing else may call the core's migration or device fault untimed
# (comments name them).
code = re.sub(r"/\*.*?\*/|//[^\n]*", "", src, flags=re.S)
for fn in ("hmm_migrate_to_device", "hmm_mirror_fault"):
    if re.search(r"\b%s\s*\(" % fn, code):
        sys.exit("mkbody.py: an untimed %s() call is left in %s" % (fn, sys.argv[1]))
sys.stdout.write(src)
