# Data for results/2026-12-05-review73-apply.py: fixes of the cold review (results/2026-12-05-review73.md)
# keyed by commit subject. SETS["7.3"] for hmm/base-7.3..(wip73/comb),
# SETS["6.12"] for hmm/base..(hmm/series). No old text names CONFIG_HMM
# (another helper renames it).

SET_FOR_BASE = {"hmm/base-7.3": "7.3", "hmm/base": "6.12"}

S_SECRET = "mm/hmm: do not let devices fault in memfd_secret() memory"
S_EVENTS = "mm/mmu_notifier: give every invalidation reason its own event"
S_ZAP = "mm: report zapping and MADV_FREE as MMU_NOTIFY_ZAP and MMU_NOTIFY_LAZY_FREE"
S_ZAP_NEW = "mm: report zap and MADV_FREE as MMU_NOTIFY_ZAP and MMU_NOTIFY_LAZY_FREE"
S_KSM = "mm: report KSM, uprobes and UFFDIO_MOVE page changes to mmu notifiers"
S_TRACE = "mm/mmu_notifier: add tracepoints for invalidations and release"
S_COCCI = "coccinelle: add the semantic patch that set precise mmu notifier events"
S_COCCI_NEW = "coccinelle: add a semantic patch that sets precise mmu notifier events"
S_TEST = "mm/mmu_notifier: add a test module and selftest for invalidation events"
S_DOC = "Documentation/mm: describe mmu notifier events and every call site"
S_PTKUNIT = "mm/hmm_pt: add KUnit tests for the device mirror page table"
S_FAULT = "mm/hmm: fill device mirrors from the CPU page table on device faults"
S_DUMMY = "char/hmm_dummy: add a dummy device driver that mirrors processes through HMM"
S_DUMMY_NEW = "char: hmm_dummy: add a test driver that mirrors processes through HMM"
S_DUMMYTESTS = "selftests/mm: add hmm_dummy tests"
S_DEVMEM = "mm/hmm: report a device's own memory in hmm_range_fault() and the mirror"
S_DMADIR = "selftests/mm: hmm_dummy: check the DMA direction of device mappings"
S_DMAFIX = "selftests/mm: hmm_dummy: find 7.3's DMA map tracepoints"
S_SPARETEST = "selftests/mm: hmm_dummy: test that a migration spares the device's mirror"
S_SPARETEST_NEW = "selftests/mm: hmm_dummy: test that migration spares the device's mirror"
S_SPARE = "mm/hmm: spare the migrating device's mirrors"
S_ACCT = "mm/hmm: account device-resident anonymous memory to its process and memcg"
S_ACCT_NEW = "mm/hmm: charge device-resident anonymous memory to its mm and memcg"
S_KEEP = "mm/hmm: let the mirror follow mmu_notifier_range_keep()"
S_EVICTTEST = "selftests/mm: hmm_dummy: test device memory eviction"
S_RWP = "selftests/mm: hmm_dummy: test userfaultfd read-write protection"

RST = "Documentation/mm/mmu_notifier_events.rst"

# ---------------------------------------------------------------- B4
B4_OLD = """Found by a review of the HMM mirror series, whose device faults go
through hmm_range_fault(): without this patch its test driver's read of
secret memory oopses in copy_page() and the task hangs in exit_mmap().
The hole has been there since memfd_secret() was introduced, which added
the GUP checks but none to hmm_range_fault().
"""
B4_NEW = """The hole has been there since memfd_secret() was introduced, which
added the checks to GUP but none to hmm_range_fault(). In-tree, a user
of a soft-RoCE device reaches it: an On-Demand Paging MR registered over
a memfd_secret() mapping is faulted in through hmm_range_fault(), and an
RDMA operation that rxe serves from that MR copies the secret page
through kmap_local_page() (rxe_odp.c). lib/test_hmm.c's
HMM_DMIRROR_READ does the same through memcpy_from_page() in
dmirror_do_read().
"""

# patch 7's first paragraph has a broken line wrap
ZAP_WRAP_OLD = """zap_vma_range_batched() (so zap_vma_range()) and unmap_hugepage_range()
remove the entries
of a range that stays mapped: MADV_DONTNEED, truncation and hole
punching through unmap_mapping_range(), hugetlbfs truncation,
zap_vma_ptes(), TCP zerocopy receive and others. MADV_FREE only marks
pages clean and old so that reclaim may drop them later. All of them
tell secondary MMUs MMU_NOTIFY_CLEAR, the same as a COW break or a KSM
merge."""
ZAP_WRAP_NEW = """zap_vma_range_batched() (so zap_vma_range()) and unmap_hugepage_range()
remove the entries of a range that stays mapped: MADV_DONTNEED,
truncation and hole punching through unmap_mapping_range(), hugetlbfs
truncation, zap_vma_ptes(), TCP zerocopy receive and others. MADV_FREE
only marks pages clean and old so that reclaim may drop them later. All
of them tell secondary MMUs MMU_NOTIFY_CLEAR, the same as a COW break or
a KSM merge."""

# ---------------------------------------------------------------- H1 fix 1
H1_MSG_OLD = """The OOM reaper sent MMU_NOTIFY_UNMAP until its zap moved into
mm/memory.c as zap_vma_for_reaping(), which sends MMU_NOTIFY_CLEAR. It
removes the entries of the victim's VMAs, which stay until exit_mmap()
unmaps them and sends MMU_NOTIFY_UNMAP: that is a zap, so send
MMU_NOTIFY_ZAP. UNMAP would also make the listeners that tear per-range
state down on UNMAP only (hfi1, Xe SVM, amdxdna) do so, and take their
locks, inside the reaper's non-blocking invalidation, which 7.3 spares
them today.
"""
H1_MSG_NEW = """The OOM reaper, and process_mrelease(), which runs the same
__oom_reap_task_mm(), empty the victim's VMAs through
zap_vma_for_reaping(), which sends MMU_NOTIFY_CLEAR with a non-blocking
start. The VMAs stay until exit_mmap() unmaps them and sends
MMU_NOTIFY_UNMAP: this is a zap, so send MMU_NOTIFY_ZAP.

It must not be UNMAP, which __oom_reap_task_mm() sent before
zap_vma_for_reaping() existed: hfi1's tid_cover_invalidate() acts on
UNMAP only, and then takes a mutex without checking
mmu_notifier_range_blockable(). drm_gpusvm (Xe SVM) and amdxdna also
single out UNMAP, but they refuse every non-blocking invalidation before
they look at the event, so the reaper skips their ranges whatever it
sends. amdkfd takes a mutex in the reaper's invalidation for every event
but RELEASE; that does not depend on the event either.
"""

# ---------------------------------------------------------------- H1 fix 2 (rst)
RST_ROW22_OLD = """     - The OOM reaper (__oom_reap_task_mm(), non-blocking start). It empties
       the victim's VMAs, which stay until exit_mmap() unmaps them (UNMAP).
       ZAP keeps what 7.3's listeners do on a reap: those that tear
       per-range state down on UNMAP only (hfi1, Xe SVM, amdxdna) need not
       do it, and take their locks, in a non-blocking invalidation.
"""
RST_ROW22_NEW = """     - The OOM reaper and process_mrelease() (__oom_reap_task_mm(),
       non-blocking start). They empty the victim's VMAs, which stay until
       exit_mmap() unmaps them (UNMAP, #23). Not UNMAP: hfi1's
       tid_cover_invalidate() would take a mutex for it in a non-blocking
       invalidation. drm_gpusvm (Xe) and amdxdna refuse any non-blocking
       invalidation, whatever its event.
"""
RST_AMDXDNA_OLD = """drivers/accel/amdxdna/amdxdna_gem.c
  The interval notifier invalidates for every event; for UNMAP it also
  queues a work item that unregisters the notifier.
"""
RST_AMDXDNA_NEW = """drivers/accel/amdxdna/amdxdna_gem.c
  amdxdna_hmm_invalidate() refuses a non-blocking invalidation (returns
  false) before anything else. Otherwise it invalidates for every event,
  and for UNMAP it also queues a work item that unregisters the notifier.
"""
RST_XE_OLD = """drivers/gpu/drm/xe/xe_svm.c
  xe_svm_range_notifier_event_end() unmaps the GPU pages of every range
  for every event; for UNMAP it also queues the range for Xe's garbage
  collector. drm_gpusvm.c only documents that pattern. There is no owner
  filter.
"""
RST_XE_NEW = """drivers/gpu/drm/xe/xe_svm.c
  drm_gpusvm_notifier_invalidate() refuses a non-blocking invalidation
  before it calls the driver. xe_svm_range_notifier_event_end() unmaps
  the GPU pages of every range for every event; for UNMAP it also queues
  the range for Xe's garbage collector. drm_gpusvm.c only documents that
  pattern. There is no owner filter.
"""
RST_KFD_OLD = """  ``KFD_SVM_UNMAP_TRIGGER_MMU_NOTIFY`` for everything else, including
  PAGE_MIGRATE.
"""
RST_KFD_NEW = """  ``KFD_SVM_UNMAP_TRIGGER_MMU_NOTIFY`` for everything else, including
  PAGE_MIGRATE. For every event but RELEASE it takes prange->lock, a
  mutex, without checking mmu_notifier_range_blockable(), so it can sleep
  in the OOM reaper's non-blocking invalidation, whatever the event.
"""
# H2 (coverage line; no case checks the event at this site)
RST_COV_OLD = """* 22, the OOM reaper: needs an OOM kill of a registered process.
"""
RST_COV_NEW = """* 22, the OOM reaper: not covered yet. It can be reached without an OOM
  kill, through process_mrelease() on a registered process stopped in
  do_exit() (PTRACE_O_TRACEEXIT), but no case does that and checks the
  event.
"""
# M4 (rst)
RST_CLEAR_OLD = """Before this series most invalidations said ``MMU_NOTIFY_CLEAR``; now only
mremap() of hugetlb memory sends it. A listener"""
RST_CLEAR_NEW = """Most invalidations used to say ``MMU_NOTIFY_CLEAR``. Now only mremap() of
hugetlb memory (move_hugetlb_page_tables()) and the restore of a
device-exclusive entry on a CPU fault (remove_device_exclusive_entry())
send it. A listener"""

# ---------------------------------------------------------------- H1 fix 4
KDOC_ZAP_OLD = """ * unmap_hugepage_range() for hugetlb), and the OOM reaper, whose
 * non-blocking invalidation empties a victim's VMAs that exit_mmap() later
 * unmaps with @MMU_NOTIFY_UNMAP. All access must stop before
 * invalidate_range_start() returns: as for @MMU_NOTIFY_UNMAP, pages and swap
"""
KDOC_ZAP_NEW = """ * unmap_hugepage_range() for hugetlb), and the OOM reaper and
 * process_mrelease(), whose non-blocking invalidation empties a victim's
 * VMAs that exit_mmap() later unmaps with @MMU_NOTIFY_UNMAP. All access
 * must stop before invalidate_range_start() returns: as for
 * @MMU_NOTIFY_UNMAP, pages and swap
"""

# ---------------------------------------------------------------- H3
H3_LIST_OLD = """  MADV_HWPOISON -> hwpoison, a NUMA balancing scan -> prot_numa, a uprobe
"""
H3_LIST_NEW = """  MADV_HWPOISON -> hwpoison, MADV_HWPOISON of a private hugetlb page ->
  hwpoison for the whole huge page (try_to_unmap_poisoned_hugetlb_one()),
  the first write to a PMD-mapped huge zero page -> cow for the whole
  2 MiB (do_huge_zero_wp_pmd()), UFFDIO_RWPROTECT of anonymous and of
  hugetlb memory -> uffd_rwp (read-write protection takes reads away
  too, so uffd_wp, which keeps them, would be too weak), a NUMA
  balancing scan -> prot_numa, a uprobe
"""
H3_FAKE_OLD = """requires both checks to reject it.
"""
H3_FAKE_NEW = """requires both checks to reject it.

huge_zero_cow, hugetlb_hwpoison, uffd_rwp and hugetlb_uffd_rwp require
the event this series sends at their call sites (cow, hwpoison,
uffd_rwp), so a kernel that sends another event there fails them.
huge_zero_cow reads /proc/kpageflags to see that the huge
zero page is mapped and that the write installed a THP, and skips when
the write fell back to a small page. hugetlb_hwpoison poisons a hugetlb
page of its own; that page leaves the pool for good.

Three cases read the previous patch's tracepoints in a trace instance
of their own (mmn_trace: mprotect(), munmap() and the release at exit).
Each traced range_start has its range_end with the same event and
range, and the listener received what was traced. register_twice checks
that a file registers once (EBUSY) and that an unknown ioctl fails with
ENOTTY.
"""
H3_SKIP_OLD = """The cases skip what the system cannot do (no THP, swap, second node,
KSM, hugetlb pages, userfaultfd feature, memory failure, NUMA balancing,
uprobe events) and put back"""
H3_SKIP_NEW = """The cases skip what the system cannot do (no THP, swap, second node,
KSM, hugetlb pages, userfaultfd feature (read-write protection
included), memory failure, NUMA balancing, uprobe events, tracefs,
/proc/kpageflags) and put back"""

# ---------------------------------------------------------------- H4
H4_OLD = """Such an entry
names no page and must not be DMA mapped (hmm_dma_map_pfn()); only a
caller whose dev_private_owner owns an HMM devmem can get one. A
recorded fault covers every page from the first one that needs it to the
end of the walk (hmm_record_fault(), run later by hmm_do_fault()). With
an owner set, the walk now stops before the next page in the owner's
device memory, which would otherwise be migrated back for nothing.
"""
H4_NEW = """Such an entry
names no page: only a caller whose dev_private_owner owns an HMM devmem
can get one, and the bits below its flags are a device page index, not
a pfn. hmm_pfn_to_page() returns NULL for it, and
hmm_pfn_to_devmem_index() gives the index.

A recorded fault covers every page from the first one that needs it to
the end of the walk (hmm_record_fault(), run later by hmm_do_fault()).
With an owner set, the walk now stops before the next page in the
owner's device memory, which would otherwise be migrated back for
nothing.

hmm_dma_map_pfn() must not map such an entry. Without a check it would
DMA map the system page whose pfn equals the device page index, and with
CONFIG_PCI_P2PDMA pci_p2pdma_state() would dereference the NULL page.
It now returns DMA_MAPPING_ERROR for an HMM_PFN_DEVMEM entry and leaves
the entry as it is. It checks before its HMM_PFN_DMA_MAPPED shortcut,
because that flag is carried from input to output: an entry whose page
was mapped before it moved to the device would otherwise get back the
address of the system page the data left. hmm_dma_unmap_pfn() still
removes that old mapping. Callers that never set dev_private_owner to an
HMM devmem owner see no change.
"""
H4_CREDIT_OLD = """write-protecting matter.

Based on the HMM v12 design"""
H4_CREDIT_NEW = """write-protecting matter.

Tests: a KUnit suite, hmm_dma (in hmm_mirror_test.ko), maps a system
page through hmm_dma_map_pfn() on a KUnit device behind dma-direct. It
then checks that an HMM_PFN_DEVMEM entry is not mapped and leaves
nothing to unmap, and that an entry still carrying HMM_PFN_DMA_MAPPED
from before its page moved gets DMA_MAPPING_ERROR while
hmm_dma_unmap_pfn() removes the old mapping; without the check in
hmm_dma_map_pfn() both expectations of DMA_MAPPING_ERROR fail. The
device page numbers are pfns of pages the test owns, so a wrong mapping
touches nothing else. hmm_pt_test_pfn_flags checks that HMM_PFN_FLAGS
masks HMM_PFN_DEVMEM off, that the order still reads back, and that
hmm_pfn_to_page() is NULL for a device entry.

Based on the HMM v12 design"""

# ---------------------------------------------------------------- B1
B1_BODY = """The DMA mirror (device 1) maps a page DMA_TO_DEVICE while the device may
only read it and DMA_BIDIRECTIONAL once it may write it: a write to a
page first mapped for reading gets a new mapping. Every mapping must be
unmapped with the direction it was mapped with, which DMA-API debugging
checks only when it is built in.

dma_direction checks both through the DMA API's map and unmap
tracepoints, dma:dma_map_phys and dma:dma_unmap_phys
(include/trace/events/dma.h; dma_map_page_attrs() traces them since the
DMA API maps physical addresses), or dma:dma_map_page and
dma:dma_unmap_page on kernels that still have those; their lines have
the same format. It works in a trace instance of its own, with the
phases marked through trace_marker: the device reads pages, writes the
same pages, writes fresh pages, and munmap() unmaps everything. It
counts the mappings of each phase by direction, and matches every unmap
with its map. It skips on device 0 (pfn entries, no DMA) and without
either pair of tracepoints.

write_file() writes the tracefs files; the migration tests use it too."""

# ---------------------------------------------------------------- M5
M5_KSM_OLD = """(move_pages_ptes(),
batched since 6.12, and move_pages_huge_pmd()). All of them tell secondary
MMUs MMU_NOTIFY_CLEAR."""
M5_KSM_NEW = """(move_pages_ptes(),
which moves a batch of PTEs, and move_pages_huge_pmd()). All of them
tell secondary MMUs MMU_NOTIFY_CLEAR."""
M5_TRACE_OLD = """Built in the x86_64
guest test kernel; that configuration has no tracing yet, so the events
are not exercised at run time by the series' tests.
"""
M5_TRACE_NEW = """The
selftest added later in this series checks the tracepoints against what
a listener receives (mmn_trace cases).
"""
M5_KEEP_OLD = """An earlier attempt at this, with the helper
still answering KEEP_READ for LAZY_FREE, let the mirror keep a device
entry for a device page that MADV_FREE had just freed: after a CPU write
refilled the range, device reads returned the freed page (another
process's data, once reused). Our fuzzer caught that as data mismatches;
migrate_lazy_free_mirror now checks it directly: migrate, read through
the device, MADV_FREE, write from the CPU, and read through the device
again, which must show the CPU's data.
"""
M5_KEEP_NEW = """A listener that kept read
access across LAZY_FREE would keep an entry for a device page that
MADV_FREE has just freed, and after a CPU write refills the range,
device reads would return the freed page (another process's data, once
reused). mmu_notifier_range_keep() therefore says KEEP_NONE for
LAZY_FREE, and migrate_lazy_free_mirror checks the mirror's side:
migrate, read through the device, MADV_FREE, write from the CPU, and
read through the device again, which must show the CPU's data.
"""
M5_SPARE1_OLD = """do
the same with 6.12's interval notifiers."""
M5_SPARE1_NEW = """do
the same on top of mmu_interval_notifier."""
M5_SPARE2_OLD = """Tested: in the x86_64 guest, hmm_dummy_tests (the next patch adds the
cases for this; every other case still passes), finj and fuzz, with a
clean kernel log. A device read right after migrating a range the device
had read faults no page instead of every page. In one boot each, against
lib/test_hmm.c (which maps its new device pages itself), that read's
throughput went from 0.38-0.49x to 0.72-0.93x test_hmm's (4 and 64 MiB).
"""
M5_SPARE2_NEW = """Tested: x86_64 under QEMU, hmm_dummy_tests (the next patch adds the
cases for this; every other case passes), with a clean kernel log. A
device read right after migrating a range the device had read faults no
page instead of every page. Measured on the 6.12 version of this code
under QEMU TCG, one boot each, against lib/test_hmm.c (which maps its
new device pages itself), that read's throughput went from 0.38-0.49x
to 0.72-0.93x test_hmm's (4 and 64 MiB).
"""
M5_RWP_OLD = """UFFDIO_RWPROTECT, new in 7.3) revokes reads too: a protected page is a
PROT_NONE entry with the uffd bit, and every access must raise a
userfault. The port carries the bit through the HMM entries and rebuilds
PROT_NONE wherever a PTE is made again from one, but nothing tested it.
Five cases,"""
M5_RWP_NEW = """UFFDIO_RWPROTECT) revokes reads too: a protected page is a PROT_NONE
entry with the uffd bit, and every access must raise a userfault. The
HMM entry carries the uffd bit, and every path that makes a PTE again
from an entry (CPU fault, fork(), an undone migration, UFFDIO_MOVE)
rebuilds PROT_NONE. hmm_range_fault() reports nothing for a protected
entry in the caller's own device memory. Test each of those paths in
five cases,"""
M5_DT_OLD = """category when /dev/hmm_dummy_device00 exists.

Based on the HMM v12 design by Jérôme Glisse.

test_hmm_dummy.sh loads hmm_dummy the way test_hmm.sh loads test_hmm,
and fails if hmm_dummy cannot be unloaded afterwards: a leaked mirror
keeps the module busy.
"""
M5_DT_NEW = """category when /dev/hmm_dummy_device00 exists.

test_hmm_dummy.sh loads hmm_dummy the way test_hmm.sh loads test_hmm,
and fails if hmm_dummy cannot be unloaded afterwards: a leaked mirror
keeps the module busy.

Based on the HMM v12 design by Jérôme Glisse.
"""
M5_EV_OLD = """pool must be empty at the end.

- evict_exact:"""
M5_EV_NEW = """pool must be empty at the end.
- evict_exact:"""

# M4 code comments
MIRROR_OLD = " * hmm_mirror_fault() uses the 6.12 interval-notifier sequence protocol (see\n"
MIRROR_NEW = " * hmm_mirror_fault() uses the interval notifier sequence protocol (see\n"
KUNITCFG_OLD = "# The KUnit tests of mm/ that the HMM series adds, in QEMU:\n"
KUNITCFG_NEW = "# KUnit tests of HMM (hmm_pt, the mirror), in QEMU:\n"

SETS = {
"7.3": {
  "msg": [
    {"subject": S_SECRET, "repl": [(B4_OLD, B4_NEW)]},
    {"subject": S_ZAP, "new_subject": S_ZAP_NEW, "repl": [(ZAP_WRAP_OLD, ZAP_WRAP_NEW), (H1_MSG_OLD, H1_MSG_NEW)]},
    {"subject": S_TEST, "repl": [(H3_LIST_OLD, H3_LIST_NEW), (H3_FAKE_OLD, H3_FAKE_NEW),
                                 (H3_SKIP_OLD, H3_SKIP_NEW)]},
    {"subject": S_DEVMEM, "repl": [(H4_OLD, H4_NEW), (H4_CREDIT_OLD, H4_CREDIT_NEW)]},
    {"subject": S_KSM, "repl": [(M5_KSM_OLD, M5_KSM_NEW)]},
    {"subject": S_TRACE, "repl": [(M5_TRACE_OLD, M5_TRACE_NEW)]},
    {"subject": S_COCCI, "new_subject": S_COCCI_NEW, "repl": []},
    {"subject": S_DUMMY, "new_subject": S_DUMMY_NEW, "repl": []},
    {"subject": S_DUMMYTESTS, "repl": [(M5_DT_OLD, M5_DT_NEW)]},
    {"subject": S_SPARETEST, "new_subject": S_SPARETEST_NEW, "repl": []},
    {"subject": S_SPARE, "repl": [(M5_SPARE1_OLD, M5_SPARE1_NEW), (M5_SPARE2_OLD, M5_SPARE2_NEW)]},
    {"subject": S_ACCT, "new_subject": S_ACCT_NEW, "repl": []},
    {"subject": S_KEEP, "repl": [(M5_KEEP_OLD, M5_KEEP_NEW)]},
    {"subject": S_EVICTTEST, "repl": [(M5_EV_OLD, M5_EV_NEW)]},
    {"subject": S_RWP, "repl": [(M5_RWP_OLD, M5_RWP_NEW)]},
  ],
  "files": [
    {"path": RST, "old": RST_ROW22_OLD, "new": RST_ROW22_NEW, "first": S_DOC},
    {"path": RST, "old": RST_AMDXDNA_OLD, "new": RST_AMDXDNA_NEW, "first": S_DOC},
    {"path": RST, "old": RST_XE_OLD, "new": RST_XE_NEW, "first": S_DOC},
    {"path": RST, "old": RST_KFD_OLD, "new": RST_KFD_NEW, "first": S_DOC},
    {"path": RST, "old": RST_COV_OLD, "new": RST_COV_NEW, "first": S_DOC},
    {"path": RST, "old": RST_CLEAR_OLD, "new": RST_CLEAR_NEW, "first": S_DOC},
    {"path": "include/linux/mmu_notifier.h", "old": KDOC_ZAP_OLD, "new": KDOC_ZAP_NEW,
     "first": S_EVENTS},
    {"path": "mm/hmm_mirror.c", "old": MIRROR_OLD, "new": MIRROR_NEW, "first": S_FAULT},
    {"path": "mm/.kunitconfig", "old": KUNITCFG_OLD, "new": KUNITCFG_NEW, "first": S_PTKUNIT},
  ],
  "folds": [
    {"fixup": S_DMAFIX, "into": S_DMADIR, "body": B1_BODY},
  ],
},
}

# ---------------------------------------------------------------- 6.12
# The 6.12 series differs: the OOM reaper keeps MMU_NOTIFY_UNMAP there (its
# messages say so and are right), the memfd_secret() fix is a mirror patch
# without Fixes:/Cc: stable, the event selftest has no hugetlb_hwpoison,
# huge_zero_cow or RWP cases, and there is no DMA tracepoint fixup to fold.
H3_612_FAKE_NEW = """requires both checks to reject it.

Three cases read the previous patch's tracepoints in a trace instance
of their own (mmn_trace: mprotect(), munmap() and the release at exit).
Each traced range_start has its range_end with the same event and
range, and the listener received what was traced. register_twice checks
that a file registers once (EBUSY) and that an unknown ioctl fails with
ENOTTY.
"""
H3_612_SKIP_NEW = """The cases skip what the system cannot do (no THP, swap, second node,
KSM, hugetlb pages, userfaultfd feature, memory failure, NUMA balancing,
uprobe events, tracefs) and put back"""
M5_612_SPARE2_NEW = """Tested: x86_64 under QEMU, hmm_dummy_tests (the next patch adds the
cases for this; every other case passes), with a clean kernel log. A
device read right after migrating a range the device had read faults no
page instead of every page. Under QEMU TCG, one boot each, against
lib/test_hmm.c (which maps its new device pages itself), that read's
throughput went from 0.38-0.49x to 0.72-0.93x test_hmm's (4 and 64 MiB).
"""
RST_612_COV_OLD = """* 29, the OOM reaper: needs an OOM kill of a registered process.
"""
RST_612_COV_NEW = """* 29, the OOM reaper: not covered yet. It can be reached without an OOM
  kill, through process_mrelease() on a registered process stopped in
  do_exit() (PTRACE_O_TRACEEXIT), but no case does that and checks the
  event.
"""
RST_612_CLEAR_OLD = """Before this series most invalidations said ``MMU_NOTIFY_CLEAR``; now only
mremap() of hugetlb memory sends it. A listener outside the tree that acts only on
``MMU_NOTIFY_CLEAR`` and ``MMU_NOTIFY_UNMAP`` and ignores every other value
"""
RST_612_CLEAR_NEW = """Most invalidations used to say ``MMU_NOTIFY_CLEAR``. Now only mremap() of
hugetlb memory (move_hugetlb_page_tables()) sends it. A listener outside
the tree that acts only on ``MMU_NOTIFY_CLEAR`` and ``MMU_NOTIFY_UNMAP``
and ignores every other value
"""

SETS["6.12"] = {
  "msg": [
    {"subject": S_ZAP, "new_subject": S_ZAP_NEW, "repl": []},
    {"subject": S_TEST, "repl": [(H3_FAKE_OLD, H3_612_FAKE_NEW), (H3_SKIP_OLD, H3_612_SKIP_NEW)]},
    {"subject": S_TRACE, "repl": [(M5_TRACE_OLD, M5_TRACE_NEW)]},
    {"subject": S_COCCI, "new_subject": S_COCCI_NEW, "repl": []},
    {"subject": S_DUMMY, "new_subject": S_DUMMY_NEW, "repl": []},
    {"subject": S_DUMMYTESTS, "repl": [(M5_DT_OLD, M5_DT_NEW)]},
    {"subject": S_SPARETEST, "new_subject": S_SPARETEST_NEW, "repl": []},
    {"subject": S_SPARE, "repl": [(M5_SPARE1_OLD, M5_SPARE1_NEW), (M5_SPARE2_OLD, M5_612_SPARE2_NEW)]},
    {"subject": S_ACCT, "new_subject": S_ACCT_NEW, "repl": []},
    {"subject": S_KEEP, "repl": [(M5_KEEP_OLD, M5_KEEP_NEW)]},
    {"subject": S_EVICTTEST, "repl": [(M5_EV_OLD, M5_EV_NEW)]},
  ],
  "files": [
    {"path": RST, "old": RST_KFD_OLD, "new": RST_KFD_NEW, "first": S_DOC},
    {"path": RST, "old": RST_612_COV_OLD, "new": RST_612_COV_NEW, "first": S_DOC},
    {"path": RST, "old": RST_612_CLEAR_OLD, "new": RST_612_CLEAR_NEW, "first": S_DOC},
    {"path": "mm/hmm_mirror.c", "old": MIRROR_OLD, "new": MIRROR_NEW,
     "first": "mm/hmm: let devices mirror a process address space"},
    {"path": "mm/.kunitconfig", "old": KUNITCFG_OLD, "new": KUNITCFG_NEW},
  ],
  "folds": [],
}
