#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""bench-stats.py [options] RAW.csv[.gz]...
bench-stats.py [--bootstrap B] [--seed S] --base BASE.csv[.gz]... SERIES.csv[.gz]...
bench-stats.py --selftest

Statistics of hmm-bench's raw CSVs (one line per sample, one file per boot,
as scripts/bench.sh extracts them: raw-NAME.csv), over boots, as Markdown
on stdout (Documentation/plans/issue19-fair-benchmarks.md, section 3.3).
Python 3 standard library only.

- Warm-up samples (warm=1) are dropped, and so are samples whose note says
  "partial" (a migration that did not move every page); notes with
  "check:" (a failed cpu_faults or in_use check) are listed as warnings.
- For each (row, backing, size) and each pair of implementations (A, B),
  ratios are oriented so that > 1 means A is better: A/B for throughput
  (a unit ending in "/s"), B/A for time and bytes (any other unit).
  - per boot: the median of A, the median of B and their ratio;
  - pooled estimate: exp(median of the paired log-ratios), a pair being A
    and B in the same (boot, rep): adjacent in time, so slow drifts of the
    host's load cancel;
  - 95 % interval: hierarchical bootstrap (--bootstrap, default 10000):
    resample the boots with replacement, then the pairs within each chosen
    boot with replacement; the 2.5 and 97.5 percentiles;
  - secondary: the ratio of the pooled medians, same bootstrap;
  - order effect: the pooled ratio of the pairs in which A ran first and of
    those in which it ran second; flagged when they differ by more than the
    width of the A/A interval of the same row and size;
  - verdict against a target (--target): "met" if the lower bound is at
    least the target, "not met" if the upper bound is below it, else
    "inconclusive".
- A/A line (--aa, default upstream_b:upstream): the same ratio between two
  workers of one implementation; its interval should contain 1.
- Core-time split check (hmm-bench -T, row split_check): listed apart,
  not compared; if one failed, no ROW_core (or ROW_coretab) target gets a
  verdict ("split check failed"), nor if a boot with such samples lacks a
  passing check of both timed workers in both legs ("split check
  missing"). The check injects its delay into the migration copies: it
  does not exercise the device-fault rows' split.
- Fraction of the in-kernel ceiling: migrate_to_dev / ceiling_copy_page
  (and dev_read_* / ceiling_read), paired by (boot, rep), with the same
  interval; flagged if the interval lies above 1.

- Only the migrate group's samples are paired. The other groups' samples
  (memcpy, inval, sys: one process at a time, no pairs) serve --base.

With --base (repeatable; the other files are then the series kernel's):
series kernel against base kernel, for every (row, impl, backing, size)
that both kernels' files have, any group (issue 19's row 10: the
no-device rows sys_*, munmap none, and upstream's own rows):
  - oriented so that > 1 means the series kernel is better (throughput
    series/base, time base/series);
  - per pair: series-N's median against base-N's (boots named KIND-N by
    scripts/bench.sh --base, a pair run back to back in random order);
  - estimate [95 % interval]: the geometric mean of the per-pair ratios,
    paired t interval (pairs - 1 degrees of freedom), p of the paired t
    test;
  - verdict only for row 10's rows (sys_*, munmap none, upstream's
    migrate_to_dev, migrate_back_seq, dev_read1): "series worse" or
    "series better" if the p-value, Holm-adjusted over those rows, is
    below 0.05, else "no difference shown"; the other rows descriptive;
  - controls (memcpy_user cpu, ceiling_copy_page kernel: code the series
    does not change): a warning if one differs (Holm over the controls);
  - secondary: the ratio of the pooled medians with an unpaired
    hierarchical bootstrap interval (too narrow with few boots).
  Under QEMU TCG the placement of the code alone moves some rows by
  up to 21 % (scripts/build/layout-pad.sh): the intervals hold for the two
  builds compared, not for the code; see Documentation/benchmarks.md.

Options:
  --bootstrap B        bootstrap resamples (default 10000)
  --seed S             seed of the bootstrap (default 1: the same output
                       for the same input)
  --pair A:B           the pairs to compare (repeatable; default
                       ours:upstream, ours:test_hmm, ours:upstream_w1,
                       ours_w1:upstream_w1, ours_ad:upstream_w1, and for
                       hmm-bench -T's timed workers ours_t:upstream_t,
                       ours_t_w1:upstream_t_w1, ours_t_ad:upstream_t_w1
                       and the overheads of the clocks ours_t:ours and
                       upstream_t:upstream; with hmm-bench -B thp's
                       compound workers ours:upstream_c,
                       ours_t:upstream_t_c, upstream_c:upstream and
                       upstream_t_c:upstream_t; IMPL_w1 is IMPL at a CPU-fault
                       window of one page, IMPL_ad ours with the adaptive
                       window, sparse_touch only; ROW_core rows are the
                       same work per second of core time)
  --aa A:B             the A/A pair (default upstream_b:upstream; "none")
  --target ROW[@MINKIB][:A:B]=X   a target ratio for ROW (at sizes of at
                       least MINKIB KiB), for the pair A:B (default
                       ours:upstream); repeatable; replaces the defaults
                       migrate_to_dev@64=1.2, migrate_back_seq=1.0,
                       sparse_touch@2048:ours:upstream_w1=1.0 and
                       sparse_touch@2048:ours_ad:upstream_w1=1.0,
                       migrate_to_dev_core@64:ours_t:upstream_t=1.2,
                       migrate_back_seq_core:ours_t:upstream_t=1.0,
                       sparse_touch_core@2048:ours_t_ad:upstream_t_w1=1.0 and
                       dev_read1_coretab:ours_t:upstream_t=1.0, and
                       against upstream_c (THP moved whole)
                       migrate_to_dev@64:ours:upstream_c=1.2,
                       migrate_back_seq:ours:upstream_c=1.0,
                       migrate_to_dev_core@64:ours_t:upstream_t_c=1.2,
                       migrate_back_seq_core:ours_t:upstream_t_c=1.0 (the
                       verdicts ask the lower bound to reach the target:
                       "met" shows A at least as good, not merely "not
                       shown worse")
  --selftest           check the statistics on synthetic data and exit
"""

import csv
import gzip
import io
import math
import random
import sys

RAW_COLUMNS = ("boot,seed,rep,pos,warm,group,row,impl,backing,size_kib,nops,unit,"
               "value,npages,nfaults,core_ns,copy_ns,devmem_ns,table_ns,cb_ns,"
               "total_ns,note").split(",")
DEFAULT_PAIRS = [("ours", "upstream"), ("ours", "test_hmm"), ("ours", "upstream_w1"),
                 ("ours_w1", "upstream_w1"), ("ours_ad", "upstream_w1"),
                 ("ours_t", "upstream_t"), ("ours_t_w1", "upstream_t_w1"),
                 ("ours_t_ad", "upstream_t_w1"), ("ours_t", "ours"),
                 ("upstream_t", "upstream"), ("ours", "upstream_c"),
                 ("ours_t", "upstream_t_c"), ("upstream_c", "upstream"),
                 ("upstream_t_c", "upstream_t")]
DEFAULT_AA = ("upstream_b", "upstream")
DEFAULT_TARGETS = [("migrate_to_dev", 64, ("ours", "upstream"), 1.2),
                   ("migrate_back_seq", 0, ("ours", "upstream"), 1.0),
                   ("sparse_touch", 2048, ("ours", "upstream_w1"), 1.0),
                   ("sparse_touch", 2048, ("ours_ad", "upstream_w1"), 1.0),
                   ("migrate_to_dev_core", 64, ("ours_t", "upstream_t"), 1.2),
                   ("migrate_back_seq_core", 0, ("ours_t", "upstream_t"), 1.0),
                   ("sparse_touch_core", 2048, ("ours_t_ad", "upstream_t_w1"), 1.0),
                   ("dev_read1_coretab", 0, ("ours_t", "upstream_t"), 1.0),
                   ("migrate_to_dev", 64, ("ours", "upstream_c"), 1.2),
                   ("migrate_back_seq", 0, ("ours", "upstream_c"), 1.0),
                   ("migrate_to_dev_core", 64, ("ours_t", "upstream_t_c"), 1.2),
                   ("migrate_back_seq_core", 0, ("ours_t", "upstream_t_c"), 1.0)]
CEILINGS = {"migrate_to_dev": "ceiling_copy_page",
            "dev_read_first": "ceiling_read", "dev_read_second": "ceiling_read"}
CEILING_IMPL = "kernel"


def higher_is_better(unit):
    return unit.endswith("/s")


def median(xs):
    s = sorted(xs)
    n = len(s)
    if not n:
        return float("nan")
    return s[n // 2] if n % 2 else (s[n // 2 - 1] + s[n // 2]) / 2


def percentile(sorted_xs, p):
    """Linear interpolation between closest ranks (numpy's default)."""
    if not sorted_xs:
        return float("nan")
    k = (len(sorted_xs) - 1) * p / 100.0
    f = math.floor(k)
    c = min(f + 1, len(sorted_xs) - 1)
    return sorted_xs[f] + (sorted_xs[c] - sorted_xs[f]) * (k - f)


def fmt_size(kib):
    if kib == 0:
        return "-"
    if kib % (1024 * 1024) == 0:
        return "%dG" % (kib // (1024 * 1024))
    if kib % 1024 == 0:
        return "%dM" % (kib // 1024)
    return "%dK" % kib


def fmt_r(x):
    if x != x:
        return "n/a"
    return "%.3f" % x if x < 10 else "%.1f" % x


class Data:
    """The samples of the raw CSVs, after dropping warm-up and partial ones."""

    def __init__(self):
        # (row, backing, size_kib) -> impl -> boot -> rep -> (value, pos)
        self.samples = {}
        self.units = {}
        self.groups = {}         # (row, backing, size_kib) -> hmm-bench group
        self.boots = []          # in input order
        self.seeds = {}          # boot -> seed
        self.files = []          # (name, boots, lines)
        self.warm = 0
        self.partial = {}        # (row, impl, size) -> count
        self.checks = []         # notes of failed checks
        self.split = []          # hmm-bench -T's split_check samples
        self.warnings = []

    def add_file(self, name, text):
        reader = csv.DictReader(io.StringIO(text))
        if reader.fieldnames is None or any(c not in reader.fieldnames for c in
                                             ("boot", "rep", "pos", "warm", "row", "impl",
                                              "backing", "size_kib", "unit", "value")):
            raise ValueError("%s: not an hmm-bench raw CSV (header: %s)"
                             % (name, ",".join(reader.fieldnames or [])))
        taken = set(self.boots)
        rename = {}
        nlines = 0
        fboots = []
        for r in reader:
            nlines += 1
            boot = r["boot"]
            if boot not in rename:
                # the same boot name in two files: keep them apart
                b = boot if boot not in taken else "%s:%s" % (name, boot)
                rename[boot] = b
                self.boots.append(b)
                fboots.append(b)
                self.seeds[b] = r.get("seed", "")
            boot = rename[boot]
            if r["warm"].strip() == "1":
                self.warm += 1
                continue
            note = r.get("note", "") or ""
            key = (r["row"], r["backing"], int(r["size_kib"]))
            if "check:" in note:
                self.checks.append("%s rep %s: %s %s %s: %s" % (
                    boot, r["rep"], r["row"], r["impl"], fmt_size(key[2]), note))
            if r["row"] == "split_check":
                self.split.append((boot, r["impl"], r["value"], note))
                continue
            if "partial" in note:
                pk = (r["row"], r["impl"], key[2])
                self.partial[pk] = self.partial.get(pk, 0) + 1
                continue
            try:
                v = float(r["value"])
            except ValueError:
                self.warnings.append("%s: bad value %r (%s %s)" % (name, r["value"], r["row"],
                                                                   r["impl"]))
                continue
            rep = int(r["rep"])
            byboot = self.samples.setdefault(key, {}).setdefault(r["impl"], {}).setdefault(boot, {})
            if rep in byboot:
                self.warnings.append("%s: %s %s %s rep %d twice: the first kept"
                                     % (boot, r["row"], r["impl"], fmt_size(key[2]), rep))
                continue
            byboot[rep] = (v, int(r["pos"]))
            self.units[key] = r["unit"]
            self.groups[key] = r.get("group") or "migrate"
        self.files.append((name, fboots, nlines))

    def impls(self, key):
        return self.samples.get(key, {})


class Pairs:
    """Paired samples of A and B: per boot, a list of (log-ratio, a, b, a_first)."""

    def __init__(self, data, key, a, b, a_row=None, b_row=None, orient=None):
        ka = key if a_row is None else (a_row, key[1], key[2])
        kb = key if b_row is None else (b_row, key[1], key[2])
        sa = data.impls(ka).get(a, {})
        sb = data.impls(kb).get(b, {})
        hib = higher_is_better(data.units.get(ka, "")) if orient is None else orient
        self.hib = hib
        self.by_boot = {}
        self.med = {}           # boot -> (median a, median b)
        self.bad = 0
        for boot in data.boots:
            if boot not in sa or boot not in sb:
                continue
            ps = []
            for rep, (va, pa) in sorted(sa[boot].items()):
                if rep not in sb[boot]:
                    continue
                vb, pb = sb[boot][rep]
                if va <= 0 or vb <= 0:
                    self.bad += 1
                    continue
                lr = math.log(va / vb) if hib else math.log(vb / va)
                ps.append((lr, va, vb, pa < pb))
            if ps:
                self.by_boot[boot] = ps
                self.med[boot] = (median([v for v, _ in sa[boot].values()]),
                                  median([v for v, _ in sb[boot].values()]))

    def n(self):
        return len(self.by_boot), sum(len(p) for p in self.by_boot.values())

    def orient(self, ma, mb):
        if ma <= 0 or mb <= 0:
            return float("nan")
        return ma / mb if self.hib else mb / ma

    def per_boot(self):
        return [(boot, self.orient(*self.med[boot])) for boot in self.by_boot]

    def per_boot_medians(self):
        return [(boot, self.med[boot][0], self.med[boot][1], self.orient(*self.med[boot]))
                for boot in self.by_boot]

    def estimate(self):
        allp = [p for ps in self.by_boot.values() for p in ps]
        return (math.exp(median([p[0] for p in allp])),
                self.orient(median([p[1] for p in allp]), median([p[2] for p in allp])))

    def order(self):
        allp = [p for ps in self.by_boot.values() for p in ps]
        first = [p[0] for p in allp if p[3]]
        second = [p[0] for p in allp if not p[3]]
        return (math.exp(median(first)) if first else float("nan"),
                math.exp(median(second)) if second else float("nan"),
                len(first), len(second))

    def bootstrap(self, nboot, rng):
        """95 % intervals of the pooled estimate and of the ratio of medians."""
        boots = list(self.by_boot.values())
        if not boots:
            nan = float("nan")
            return (nan, nan), (nan, nan)
        rnd = rng.random
        nb = len(boots)
        est, mr = [], []
        for _ in range(nboot):
            ls, xa, xb = [], [], []
            for _ in range(nb):
                ps = boots[int(rnd() * nb)]
                n = len(ps)
                for _ in range(n):
                    p = ps[int(rnd() * n)]
                    ls.append(p[0])
                    xa.append(p[1])
                    xb.append(p[2])
            est.append(median(ls))
            mr.append(self.orient(median(xa), median(xb)))
        est.sort()
        mr = sorted(x for x in mr if x == x)
        return ((math.exp(percentile(est, 2.5)), math.exp(percentile(est, 97.5))),
                (percentile(mr, 2.5), percentile(mr, 97.5)))


def split_gate(data, key):
    """Why a ROW_core row gets no verdict: a split check failed, or a boot
    with ROW_core samples lacks a passing one of both timed workers and
    both legs; None if none."""
    if any(n for _, _, _, n in data.split):
        return "split check failed"
    ok = {(b, i) for b, i, _, n in data.split if not n}
    # every timed worker with samples of the row (IMPL_w1 and IMPL_ad are
    # passes of IMPL), in each of its boots
    need = set()
    for impl, boots in data.samples.get(key, {}).items():
        w = impl[:-3] if impl.endswith(("_w1", "_ad")) else impl
        need.update((boot, w) for boot in boots)
    for boot, w in need:
        for leg in ("_to", "_back"):
            if (boot, w + leg) not in ok:
                return "split check missing"
    return None


def verdict(lo, hi, target):
    if target is None:
        return "-"
    if lo >= target:
        return "met"
    if hi < target:
        return "not met"
    return "inconclusive"


def find_target(targets, row, kib, pair):
    t = None
    for trow, minkib, tpair, x in targets:
        if trow == row and kib >= minkib and tpair == pair:
            t = x
    return t


def analyse(data, pairs, aa, targets, nboot, seed):
    """The results, as dicts, for report() and the self-test."""
    rng = random.Random(seed)
    out = {"ratios": [], "aa": [], "ceiling": [], "warnings": list(data.warnings)}
    # Only the migrate group pairs implementations in one (boot, rep); the
    # other groups' samples are for comparing kernels (--base).
    keys = sorted((k for k in data.samples if data.groups.get(k, "migrate") == "migrate"),
                  key=lambda k: (k[0], k[1], k[2]))
    aa_width = {}
    if aa:
        for key in keys:
            pr = Pairs(data, key, aa[0], aa[1])
            nb, npairs = pr.n()
            if not npairs:
                continue
            (lo, hi), _ = pr.bootstrap(nboot, rng)
            est, _ = pr.estimate()
            aa_width[key] = hi / lo if lo > 0 else float("inf")
            out["aa"].append({"key": key, "a": aa[0], "b": aa[1], "est": est, "lo": lo, "hi": hi,
                              "per_boot": pr.per_boot(), "n": (nb, npairs),
                              "contains1": lo <= 1 <= hi})
    for key in keys:
        for a, b in pairs:
            pr = Pairs(data, key, a, b)
            nb, npairs = pr.n()
            if not npairs:
                continue
            (lo, hi), (mlo, mhi) = pr.bootstrap(nboot, rng)
            est, mest = pr.estimate()
            first, second, nf, ns = pr.order()
            t = find_target(targets, key[0], key[2], (a, b))
            order_flag = False
            if key in aa_width and first == first and second == second:
                d = max(first / second, second / first)
                order_flag = d > aa_width[key]
            out["ratios"].append({
                "key": key, "a": a, "b": b, "est": est, "lo": lo, "hi": hi,
                "mest": mest, "mlo": mlo, "mhi": mhi, "per_boot": pr.per_boot(),
                "medians": pr.per_boot_medians(), "unit": data.units.get(key, ""),
                "n": (nb, npairs), "first": first, "second": second, "nfirst": nf,
                "nsecond": ns, "order_flag": order_flag, "target": t,
                "verdict": (split_gate(data, key) if key[0].endswith(("_core", "_coretab")) and
                            t is not None and split_gate(data, key)
                            else verdict(lo, hi, t)), "hib": pr.hib})
            if order_flag:
                out["warnings"].append(
                    "order effect: %s %s %s %s/%s: %s when %s ran first, %s when second, "
                    "more apart than the A/A interval's width (x%.3f)"
                    % (key[0], key[1], fmt_size(key[2]), a, b, fmt_r(first), a,
                       fmt_r(second), aa_width[key]))
            if pr.bad:
                out["warnings"].append("%s %s %s %s/%s: %d pairs with a value <= 0 left out"
                                       % (key[0], key[1], fmt_size(key[2]), a, b, pr.bad))
    # fractions of the ceiling: throughput of impl / throughput of the ceiling
    for key in keys:
        crow = CEILINGS.get(key[0])
        if not crow or (crow, key[1], key[2]) not in data.samples:
            continue
        for impl in sorted(data.impls(key)):
            pr = Pairs(data, key, impl, CEILING_IMPL, b_row=crow, orient=True)
            nb, npairs = pr.n()
            if not npairs:
                continue
            (lo, hi), _ = pr.bootstrap(nboot, rng)
            est, _ = pr.estimate()
            above = lo > 1
            out["ceiling"].append({"key": key, "impl": impl, "ceiling": crow, "est": est,
                                   "lo": lo, "hi": hi, "per_boot": pr.per_boot(),
                                   "n": (nb, npairs), "above": above})
            if above:
                out["warnings"].append("%s %s %s: %s is above %s beyond its interval "
                                       "(%s [%s, %s]): something is wrong with this run"
                                       % (key[0], key[1], fmt_size(key[2]), impl, crow,
                                          fmt_r(est), fmt_r(lo), fmt_r(hi)))
    for aa_row in out["aa"]:
        if not aa_row["contains1"]:
            k = aa_row["key"]
            out["warnings"].append("A/A %s %s %s: the interval [%s, %s] does not contain 1: "
                                   "the noise floor is higher than the intervals say"
                                   % (k[0], k[1], fmt_size(k[2]), fmt_r(aa_row["lo"]),
                                      fmt_r(aa_row["hi"])))
    if len(data.boots) < 3:
        out["warnings"].append("only %d boot(s): the intervals do not cover boot-to-boot "
                               "variance (use --boots >= 3)" % len(data.boots))
    out["warnings"].extend("failed check: " + c for c in data.checks)
    return out


def write_warnings(w, warnings):
    """The report's last section, for both modes."""
    w.write("\n## Warnings\n\n")
    if warnings:
        for x in warnings:
            w.write("- %s\n" % x)
    else:
        w.write("None.\n")


def report(data, res, nboot, seed, w=sys.stdout):
    def pb(lst):
        return " ".join(fmt_r(r) for _, r in lst)

    w.write("# hmm-bench statistics\n\n")
    w.write("Inputs (scripts/bench-stats.py, bootstrap %d resamples, seed %d):\n\n"
            % (nboot, seed))
    for name, boots, nlines in data.files:
        w.write("- `%s`: %d samples, boot(s) %s\n" % (
            name, nlines, ", ".join("%s (seed %s)" % (b, data.seeds.get(b, "?")) for b in boots)))
    w.write("\n%d boots; %d warm-up samples dropped; %d partial samples left out%s.\n"
            % (len(data.boots), data.warm, sum(data.partial.values()),
               "" if not data.partial else " (" + ", ".join(
                   "%s %s %s: %d" % (r, i, fmt_size(s), n)
                   for (r, i, s), n in sorted(data.partial.items())) + ")"))
    w.write("\nRatio > 1: A is better (throughput A/B, time and bytes B/A). Estimate: "
            "exp(median of the paired log-ratios), pairs = A and B in the same (boot, rep); "
            "[95 % interval]: hierarchical bootstrap (boots, then pairs within each boot). "
            "Per boot: ratio of the boot's medians. n: boots x pairs. Medians: ratio of the "
            "pooled medians [interval]. Order: the estimate over the pairs in which A ran "
            "first / second (! = further apart than the A/A interval is wide).\n\n")
    w.write("## Ratios\n\n")
    w.write("| row | bk | size | A | B | ratio [95 % CI] | per boot | n | medians [95 % CI] "
            "| order A 1st / 2nd | target | verdict |\n")
    w.write("|---|---|---|---|---|---|---|---|---|---|---|---|\n")
    for r in res["ratios"]:
        k = r["key"]
        w.write("| %s | %s | %s | %s | %s | **%s** [%s, %s] | %s | %dx%d | %s [%s, %s] "
                "| %s / %s%s | %s | %s |\n" % (
                    k[0], k[1], fmt_size(k[2]), r["a"], r["b"], fmt_r(r["est"]),
                    fmt_r(r["lo"]), fmt_r(r["hi"]), pb(r["per_boot"]), r["n"][0], r["n"][1],
                    fmt_r(r["mest"]), fmt_r(r["mlo"]), fmt_r(r["mhi"]), fmt_r(r["first"]),
                    fmt_r(r["second"]), " !" if r["order_flag"] else "",
                    "-" if r["target"] is None else ">= %g" % r["target"], r["verdict"]))
    if not res["ratios"]:
        w.write("| (no pair of implementations with common samples) |||||||||||\n")
    if res["ratios"]:
        w.write("\n### Per boot\n\n")
        w.write("| row | bk | size | A | B | boot | median A | median B | unit | ratio |\n")
        w.write("|---|---|---|---|---|---|---|---|---|---|\n")
        for r in res["ratios"]:
            k = r["key"]
            for boot, ma, mb, x in r["medians"]:
                w.write("| %s | %s | %s | %s | %s | %s | %.4g | %.4g | %s | %s |\n" % (
                    k[0], k[1], fmt_size(k[2]), r["a"], r["b"], boot, ma, mb, r["unit"],
                    fmt_r(x)))
    w.write("\n## A/A control\n\n")
    if res["aa"]:
        w.write("Two workers of the same implementation: the interval should contain 1; "
                "its width is the noise floor of every ratio above.\n\n")
        w.write("| row | bk | size | A | B | ratio [95 % CI] | per boot | n | contains 1 |\n")
        w.write("|---|---|---|---|---|---|---|---|---|\n")
        for r in res["aa"]:
            k = r["key"]
            w.write("| %s | %s | %s | %s | %s | %s [%s, %s] | %s | %dx%d | %s |\n" % (
                k[0], k[1], fmt_size(k[2]), r["a"], r["b"], fmt_r(r["est"]), fmt_r(r["lo"]),
                fmt_r(r["hi"]), pb(r["per_boot"]), r["n"][0], r["n"][1],
                "yes" if r["contains1"] else "**NO**"))
        ok = sum(1 for r in res["aa"] if r["contains1"])
        w.write("\n%d of %d A/A intervals contain 1.\n" % (ok, len(res["aa"])))
    else:
        w.write("No A/A samples (hmm-bench -A).\n")
    w.write("\n## Fraction of the in-kernel ceiling\n\n")
    if res["ceiling"]:
        w.write("Throughput of the row / throughput of the in-kernel copy of as many pages "
                "(same boot and rep); must not exceed 1 beyond its interval.\n\n")
        w.write("| row | bk | size | impl | ceiling | fraction [95 % CI] | per boot | n |\n")
        w.write("|---|---|---|---|---|---|---|---|\n")
        for r in res["ceiling"]:
            k = r["key"]
            w.write("| %s | %s | %s | %s | %s | %s [%s, %s]%s | %s | %dx%d |\n" % (
                k[0], k[1], fmt_size(k[2]), r["impl"], r["ceiling"], fmt_r(r["est"]),
                fmt_r(r["lo"]), fmt_r(r["hi"]), " **ABOVE**" if r["above"] else "",
                pb(r["per_boot"]), r["n"][0], r["n"][1]))
    else:
        w.write("No ceiling rows (hmm_upstream_bench's UPB_CEILING).\n")
    if data.split:
        w.write("\n## Core-time split check\n\n")
        w.write("hmm-bench -T: core time with the driver's copy delayed by 50 ms per copy / "
                "without, for a 4 MiB migration (IMPL_to) and for the CPU faults of one touch "
                "per 2 MiB block after it (IMPL_back); a check fails if the delay did not show "
                "in the copy bucket or end to end, or moved the core time by a quarter of it.\n\n")
        w.write("| boot | impl | core ratio | check |\n|---|---|---|---|\n")
        for boot, impl, v, note in data.split:
            w.write("| %s | %s | %s | %s |\n" % (boot, impl, v, note or "ok"))
    write_warnings(w, res["warnings"])


# --- series kernel against base kernel (--base) -------------------------------

# Rows the series cannot change: their series/base interval should contain
# 1, and its width is the boot-to-boot noise floor of the comparison.
CONTROLS = {("memcpy_user", "cpu"): "user-space memcpy, no system call",
            ("ceiling_copy_page", "kernel"): "copy_page() in hmm_upstream_bench"}


def boot_values(data, key, impl):
    """The samples of (key, impl), one list per boot, in boot order."""
    by = data.impls(key).get(impl, {})
    return [(b, [v for v, _ in by[b].values()]) for b in data.boots if b in by and by[b]]


def pair_no(boot):
    """base-3 and series-3 are the third pair of boots: 3; else None."""
    tail = boot.rsplit(":", 1)[-1].rsplit("-", 1)
    return tail[1] if len(tail) == 2 and tail[1].isdigit() else None


def _betacf(a, b, x):
    """Continued fraction of the incomplete beta function (modified Lentz)."""
    tiny = 1e-300
    qab, qap, qam = a + b, a + 1, a - 1
    c, d = 1.0, 1 - qab * x / qap
    d = 1 / (d if abs(d) > tiny else tiny)
    h = d
    for m in range(1, 300):
        m2 = 2 * m
        aa = m * (b - m) * x / ((qam + m2) * (a + m2))
        d = 1 + aa * d
        d = 1 / (d if abs(d) > tiny else tiny)
        c = 1 + aa / c
        c = c if abs(c) > tiny else tiny
        h *= d * c
        aa = -(a + m) * (qab + m) * x / ((a + m2) * (qap + m2))
        d = 1 + aa * d
        d = 1 / (d if abs(d) > tiny else tiny)
        c = 1 + aa / c
        c = c if abs(c) > tiny else tiny
        de = d * c
        h *= de
        if abs(de - 1) < 1e-14:
            break
    return h


def betai(a, b, x):
    """The regularized incomplete beta function I_x(a, b)."""
    if x <= 0:
        return 0.0
    if x >= 1:
        return 1.0
    lbt = (math.lgamma(a + b) - math.lgamma(a) - math.lgamma(b) + a * math.log(x) +
           b * math.log(1 - x))
    if x < (a + 1) / (a + b + 2):
        return math.exp(lbt) * _betacf(a, b, x) / a
    return 1 - math.exp(lbt) * _betacf(b, a, 1 - x) / b


def t_two_sided(t, df):
    """P(|T| >= |t|) for Student's t with df degrees of freedom."""
    return betai(df / 2.0, 0.5, df / (df + t * t))


def t_quantile(q, df):
    """The q quantile (q > 0.5) of Student's t, by bisection."""
    lo, hi = 0.0, 1e4
    for _ in range(200):
        mid = (lo + hi) / 2
        if 1 - t_two_sided(mid, df) / 2 < q:
            lo = mid
        else:
            hi = mid
    return (lo + hi) / 2


def holm(ps):
    """Holm's step-down adjustment of the p-values ps (a list, None kept)."""
    idx = sorted((p, i) for i, p in enumerate(ps) if p is not None)
    adj = [None] * len(ps)
    m, run = len(idx), 0.0
    for k, (p, i) in enumerate(idx):
        run = max(run, min(1.0, (m - k) * p))
        adj[i] = run
    return adj


# The rows issue 19's row 10 asks a verdict of: the no-device rows and
# upstream's own main rows. The others are shown, without a verdict.
VERDICT_ROWS = {("sys_pagefault", "none"), ("sys_mmap_munmap", "none"), ("sys_fork", "none"),
                ("munmap", "none"), ("migrate_to_dev", "upstream"),
                ("migrate_back_seq", "upstream"), ("dev_read1", "upstream")}


def cross(base, ser, nboot, seed):
    """series against base for every (row, impl) both have, oriented > 1 =
    series better: the paired t interval over the pairs of boots, Holm's
    adjustment over the rows with a verdict and over the controls, and an
    unpaired hierarchical bootstrap as a secondary interval."""
    rng = random.Random(seed)
    rnd = rng.random
    out = {"rows": [], "warnings": list(base.warnings) + list(ser.warnings)}

    def resample(boots):
        xs = []
        nb = len(boots)
        for _ in range(nb):
            vs = boots[int(rnd() * nb)]
            n = len(vs)
            xs.extend(vs[int(rnd() * n)] for _ in range(n))
        return median(xs)

    def pair_map(d, kind):
        m, dup = {}, set()
        for b in d.boots:
            n = pair_no(b)
            if n is None:
                continue
            if n in m:
                dup.add(n)
            m[n] = b
        if dup:
            out["warnings"].append("%s boots with the same pair number %s (boots from several "
                                   "runs?): no pairs, no paired interval" % (kind, ", ".join(
                                       sorted(dup))))
            return {}
        return m
    bpair, spair = pair_map(base, "base"), pair_map(ser, "series")
    # the migrate group: the same workers on both kernels?
    wk = [set(i for k in d.samples if d.groups.get(k) == "migrate" for i in d.samples[k])
          for d in (base, ser)]
    if wk[0] and wk[1] and wk[0] != wk[1]:
        out["warnings"].append("the migrate group ran other workers on the two kernels (base %s, "
                               "series %s): its rows' neighbours differ (hmm-bench -i)"
                               % (",".join(sorted(wk[0])), ",".join(sorted(wk[1]))))

    keys = sorted(set(base.samples) & set(ser.samples), key=lambda k: (k[0], k[1], k[2]))
    for key in keys:
        unit = ser.units.get(key, "")
        if base.units.get(key, "") != unit:
            out["warnings"].append("%s %s: unit %s on the base, %s on the series: not compared"
                                   % (key[0], fmt_size(key[2]), base.units.get(key), unit))
            continue
        hib = higher_is_better(unit)
        for impl in sorted(set(base.impls(key)) & set(ser.impls(key))):
            bb, sb = boot_values(base, key, impl), boot_values(ser, key, impl)
            if not bb or not sb:
                continue

            def orient(ms, mbase):
                if ms <= 0 or mbase <= 0:
                    return float("nan")
                return ms / mbase if hib else mbase / ms
            nan = float("nan")
            mb = median([v for _, vs in bb for v in vs])
            ms = median([v for _, vs in sb for v in vs])
            bvs, svs = [vs for _, vs in bb], [vs for _, vs in sb]
            rs = sorted(x for x in (orient(resample(svs), resample(bvs)) for _ in range(nboot))
                        if x == x)
            blo, bhi = (percentile(rs, 2.5), percentile(rs, 97.5)) if rs else (nan, nan)
            bmed, smed = dict(bb), dict(sb)
            pairs = []
            for n in sorted(set(bpair) & set(spair), key=int):
                bv, sv = bmed.get(bpair[n]), smed.get(spair[n])
                if bv and sv:
                    x = orient(median(sv), median(bv))
                    if x == x:
                        pairs.append((n, x))
            est, lo, hi, p = nan, nan, nan, None
            if len(pairs) >= 2:
                ls = [math.log(x) for _, x in pairs]
                k = len(ls)
                mean = sum(ls) / k
                sd = math.sqrt(sum((x - mean) ** 2 for x in ls) / (k - 1))
                se = sd / math.sqrt(k)
                tq = t_quantile(0.975, k - 1)
                est, lo, hi = math.exp(mean), math.exp(mean - tq * se), math.exp(mean + tq * se)
                # identical per-pair ratios: no spread, no test (1 when all are 1)
                p = t_two_sided(mean / se, k - 1) if se > 0 else (None if mean else 1.0)
            ctl = CONTROLS.get((key[0], impl))
            out["rows"].append({
                "key": key, "impl": impl, "group": ser.groups.get(key, "migrate"),
                "unit": unit, "hib": hib, "base": mb, "series": ms,
                "pooled": orient(ms, mb), "blo": blo, "bhi": bhi, "pairs": pairs,
                "est": est, "lo": lo, "hi": hi, "p": p,
                "n": (len(bb), sum(len(x) for x in bvs), len(sb), sum(len(x) for x in svs)),
                "control": ctl, "judged": (key[0], impl) in VERDICT_ROWS, "verdict": "-",
                "padj": None})
    for what in ("judged", "control"):
        rows = [r for r in out["rows"] if r[what]]
        for r, a in zip(rows, holm([r["p"] for r in rows])):
            r["padj"] = a
            if what == "control":
                if a is not None and a < 0.05:
                    k = r["key"]
                    out["warnings"].append(
                        "control %s %s %s (%s): %s [%s, %s], Holm-adjusted p %.3g: the series "
                        "cannot change it, so the boots differ by more than the intervals say"
                        % (k[0], r["impl"], fmt_size(k[2]), r["control"], fmt_r(r["est"]),
                           fmt_r(r["lo"]), fmt_r(r["hi"]), a))
                continue
            if a is None:
                r["verdict"] = ("n/a (fewer than 2 pairs)" if len(r["pairs"]) < 2 else
                                "n/a (every pair the same ratio)")
            elif a < 0.05:
                r["verdict"] = "series worse" if r["est"] < 1 else "series better"
            elif not r["lo"] <= 1 <= r["hi"]:
                # the 95 % interval is unadjusted, the verdict is not
                r["verdict"] = "no difference shown after Holm"
            else:
                r["verdict"] = "no difference shown"
    for name, d in (("base", base), ("series", ser)):
        if len(d.boots) < 5:
            out["warnings"].append("only %d %s boot(s): with fewer than 5 pairs the paired "
                                   "intervals are wide (t with %d degrees of freedom)"
                                   % (len(d.boots), name, max(len(d.boots) - 1, 0)))
        out["warnings"].extend("failed check (%s): %s" % (name, c) for c in d.checks)
    return out


def cross_report(base, ser, res, nboot, seed, w=sys.stdout):
    def pc(x):
        return "%+.1f %%" % ((x - 1) * 100) if x == x else "n/a"

    w.write("# hmm-bench: series kernel against base kernel\n\n")
    w.write("Inputs (scripts/bench-stats.py --base, bootstrap %d resamples, seed %d):\n\n"
            % (nboot, seed))
    for kind, d in (("base", base), ("series", ser)):
        for name, boots, nlines in d.files:
            w.write("- %s: `%s`: %d samples, boot(s) %s\n" % (kind, name, nlines,
                                                             ", ".join(boots)))
    w.write("\n\"series vs base\" > 1: the series kernel is better (throughput series/base, "
            "time base/series). Per pair: that ratio of the medians of series-N and base-N "
            "(a pair of boots run back to back, in random order; warm-ups dropped). "
            "Estimate [95 % interval]: the geometric mean of the per-pair ratios with the "
            "paired t interval (pairs - 1 degrees of freedom): boot-to-boot noise is in it. "
            "p: paired t test of log(ratio) = 0. Verdict, only for the rows issue 19's row 10 "
            "names (sys_*, munmap none, upstream's migrate_to_dev, migrate_back_seq and "
            "dev_read1): \"series worse\" or \"series better\" if the p-value, Holm-adjusted "
            "over those rows, is below 0.05, else \"no difference shown\" (\"after Holm\" when "
            "the unadjusted 95 % interval excludes 1); the other rows are descriptive. Controls are rows the series cannot change (Holm over the "
            "controls: a warning if one differs). Secondary: the ratio of the pooled medians "
            "with an unpaired hierarchical bootstrap interval (each kernel on its own: boots, "
            "then samples); with few boots it is too narrow, read it as descriptive. n: base "
            "boots x samples / series boots x samples. A verdict is about these two builds: "
            "under QEMU TCG moving the code alone moves some rows by up to 21 % (a base "
            "kernel against itself with NOPs added, scripts/build/layout-pad.sh), which no "
            "interval over boots contains; compare with such a run before reading a "
            "verdict as the series' code.\n\n")
    w.write("| group | row | impl | bk | size | unit | base | series | series vs base "
            "[95 % CI] | per pair | p (Holm) | verdict | pooled [bootstrap] | n |\n")
    w.write("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n")
    for r in res["rows"]:
        k = r["key"]
        ptxt = "-" if r["p"] is None else "%.2g" % r["p"]
        if r["padj"] is not None:
            ptxt += " (%.2g)" % r["padj"]
        w.write("| %s | %s%s | %s | %s | %s | %s | %.4g | %.4g | **%s** [%s, %s] | %s | %s "
                "| %s | %s [%s, %s] | %dx%d / %dx%d |\n" % (
                    r["group"], k[0], " (control)" if r["control"] else "", r["impl"], k[1],
                    fmt_size(k[2]), r["unit"], r["base"], r["series"], fmt_r(r["est"]),
                    fmt_r(r["lo"]), fmt_r(r["hi"]),
                    " ".join("%s:%s" % (n, fmt_r(x)) for n, x in r["pairs"]) or "-", ptxt,
                    r["verdict"] + (" (%s .. %s)" % (pc(r["lo"]), pc(r["hi"]))
                                    if r["verdict"] == "no difference shown" else
                                    " (unadjusted p %.2g)" % r["p"]
                                    if r["verdict"].endswith("after Holm") else ""),
                    fmt_r(r["pooled"]), fmt_r(r["blo"]), fmt_r(r["bhi"]),
                    r["n"][0], r["n"][1], r["n"][2], r["n"][3]))
    if not res["rows"]:
        w.write("| (no row in both kernels' samples) ||||||||||||||\n")
    ctl = [r for r in res["rows"] if r["control"]]
    w.write("\n%d of %d control intervals contain 1 (unadjusted; %d without an interval).\n"
            % (sum(1 for r in ctl if r["lo"] <= 1 <= r["hi"]), len(ctl),
               sum(1 for r in ctl if r["lo"] != r["lo"])))
    judged = [r for r in res["rows"] if r["judged"]]
    w.write("%d rows with a verdict: %d series worse, %d series better, %d no difference "
            "shown.\n" % (len(judged), sum(r["verdict"] == "series worse" for r in judged),
                          sum(r["verdict"] == "series better" for r in judged),
                          sum(r["verdict"].startswith("no difference shown") for r in judged)))
    write_warnings(w, res["warnings"])


def read_input(path):
    if path.endswith(".gz"):
        with gzip.open(path, "rt", newline="") as f:
            return f.read()
    with open(path, newline="") as f:
        return f.read()


# --- self-test ----------------------------------------------------------------

def synth(boots=3, reps=12, sizes=(64, 1024, 4096), seed=7, ratio=1.5, boot_sd=0.15,
          sample_sd=0.05, per_boot_ratio=None, order_bias=0.0, extra=None):
    """A raw CSV (text) of a synthetic run: ours is ratio x faster than
    upstream (throughput), upstream_b is upstream again (A/A), test_hmm half
    as fast, the ceiling 4x upstream; a time row "lat" (us) where ours takes
    1/ratio of upstream's time. Every boot has its own speed (boot_sd), every
    sample its noise (sample_sd). per_boot_ratio: ours/upstream per boot
    instead of ratio. order_bias: ours slower by that fraction when it runs
    first. Warm-up samples (wild values) and partial samples (wild values)
    are mixed in."""
    rng = random.Random(seed)
    out = io.StringIO()
    wr = csv.writer(out, lineterminator="\n")
    wr.writerow(RAW_COLUMNS)
    impls = ["ours", "upstream", "upstream_b", "test_hmm"]
    base = {"ours": ratio, "upstream": 1.0, "upstream_b": 1.0, "test_hmm": 0.5}
    for bi in range(boots):
        boot = "series-%d" % (bi + 1)
        bf = math.exp(rng.gauss(0, boot_sd))
        for rep in range(0, reps + 1):
            warm = rep == 0
            for kib in sizes:
                order = impls[:]
                rng.shuffle(order)
                for pos, impl in enumerate(order):
                    f = base[impl]
                    if impl == "ours" and per_boot_ratio:
                        f = per_boot_ratio[bi]
                    if impl == "ours" and pos == 0:
                        f *= 1 - order_bias
                    v = 200.0 * f * bf * math.exp(rng.gauss(0, sample_sd))
                    if warm:
                        v *= 100
                    note = ""
                    if not warm and rep == 3 and impl == "upstream":
                        v, note = v * 1000, "partial: 1000 of 1024 pages"
                    wr.writerow([boot, seed, rep, pos, int(warm), "migrate", "migrate_to_dev",
                                 impl, "4k", kib, 1, "MiB/s", "%.6g" % v, 1024, "", "", "", "",
                                 "", "", "", note])
                    t = 50.0 / f * bf * math.exp(rng.gauss(0, sample_sd))
                    wr.writerow([boot, seed, rep, pos, int(warm), "migrate", "lat", impl, "4k",
                                 kib, 1, "us", "%.6g" % t, "", "", "", "", "", "", "", "", ""])
                c = 800.0 * bf * math.exp(rng.gauss(0, sample_sd))
                wr.writerow([boot, seed, rep, len(order), int(warm), "migrate",
                             "ceiling_copy_page", "kernel", "4k", kib, 1, "MiB/s", "%.6g" % c,
                             "", "", "", "", "", "", "", "", ""])
    if extra:
        for row in extra:
            wr.writerow(row)
    return out.getvalue()


def selftest():
    nboot = 2000
    fails = 0

    def check(cond, what):
        nonlocal fails
        print("%s %s" % ("ok  " if cond else "FAIL", what))
        if not cond:
            fails += 1

    def run(text, targets=DEFAULT_TARGETS, pairs=DEFAULT_PAIRS, aa=DEFAULT_AA):
        d = Data()
        d.add_file("synthetic.csv", text)
        return d, analyse(d, pairs, aa, targets, nboot, 1)

    def get(res, part, row, kib, a=None, b=None, impl=None):
        for r in res[part]:
            if r["key"] == (row, "4k", kib) and (a is None or r["a"] == a) and \
               (b is None or r["b"] == b) and (impl is None or r["impl"] == impl):
                return r
        return None

    # 1. a known 1.5x ratio, recovered; boot speeds cancel in the pairs
    d, res = run(synth())
    r = get(res, "ratios", "migrate_to_dev", 1024, "ours", "upstream")
    check(abs(r["est"] - 1.5) < 0.05, "1.5x ratio recovered: %.3f" % r["est"])
    check(r["lo"] <= 1.5 <= r["hi"] and r["lo"] > 1.35,
          "its interval [%.3f, %.3f] contains 1.5 and excludes 1.35" % (r["lo"], r["hi"]))
    check(abs(r["mest"] - 1.5) < 0.15, "ratio of pooled medians near 1.5: %.3f" % r["mest"])
    check(r["n"] == (3, 33), "3 boots x 33 pairs (warm-up and rep 3's partial samples "
          "left out): %s" % (r["n"],))
    check(r["verdict"] == "met", "target 1.2 met: %s" % r["verdict"])
    check(d.warm > 0 and sum(d.partial.values()) == 9,
          "warm-up dropped (%d), partial samples left out (%d)" % (d.warm,
                                                                   sum(d.partial.values())))
    # 2. the A/A interval contains 1
    a = get(res, "aa", "migrate_to_dev", 1024)
    check(a is not None and a["contains1"] and a["hi"] / a["lo"] < 1.2,
          "A/A interval [%.3f, %.3f] contains 1 and is narrow" % (a["lo"], a["hi"]))
    check(all(x["contains1"] for x in res["aa"]), "every A/A interval contains 1")
    # 3. time rows: lower is better, so ours at 1/1.5 of the time is 1.5x
    t = get(res, "ratios", "lat", 64, "ours", "upstream")
    check(abs(t["est"] - 1.5) < 0.05 and not t["hib"],
          "time row oriented (B/A): %.3f for ours at 1/1.5 of the time" % t["est"])
    th = get(res, "ratios", "migrate_to_dev", 4096, "ours", "test_hmm")
    check(abs(th["est"] - 3.0) < 0.1, "ours/test_hmm 3x: %.3f" % th["est"])
    # 4. ceiling fraction: upstream at 1/4 of the ceiling
    c = get(res, "ceiling", "migrate_to_dev", 64, impl="upstream")
    check(abs(c["est"] - 0.25) < 0.01 and not c["above"],
          "ceiling fraction 0.25 recovered: %.3f" % c["est"])
    # 5. not met, and inconclusive
    _, res2 = run(synth(), targets=[("migrate_to_dev", 0, ("ours", "upstream"), 2.0)])
    r2 = get(res2, "ratios", "migrate_to_dev", 64, "ours", "upstream")
    check(r2["verdict"] == "not met", "target 2.0 not met: %s" % r2["verdict"])
    _, res3 = run(synth(ratio=1.2, sample_sd=0.3, seed=11),
                  targets=[("migrate_to_dev", 0, ("ours", "upstream"), 1.2)])
    r3 = get(res3, "ratios", "migrate_to_dev", 1024, "ours", "upstream")
    check(r3["verdict"] == "inconclusive",
          "a 1.2x ratio in noise against target 1.2: %s [%.3f, %.3f]"
          % (r3["verdict"], r3["lo"], r3["hi"]))
    # 6. the interval covers boot-to-boot variance of the ratio itself
    _, res4 = run(synth(per_boot_ratio=(1.3, 1.5, 1.7), sample_sd=0.02))
    r4 = get(res4, "ratios", "migrate_to_dev", 1024, "ours", "upstream")
    check(r4["lo"] < 1.4 and r4["hi"] > 1.6,
          "boots at 1.3/1.5/1.7: interval [%.3f, %.3f] spans the boots" % (r4["lo"], r4["hi"]))
    # 7. an order effect beyond the A/A width is flagged
    _, res5 = run(synth(order_bias=0.3, sample_sd=0.02))
    r5 = get(res5, "ratios", "migrate_to_dev", 1024, "ours", "upstream")
    check(r5["order_flag"] and any(w.startswith("order effect") for w in res5["warnings"]),
          "order effect flagged: %.3f first vs %.3f second" % (r5["first"], r5["second"]))
    check(not r["order_flag"], "no order effect flagged without one")
    # 8. above the ceiling is flagged; failed checks are listed
    extra = []
    for bi in range(3):
        for rep in range(1, 13):
            extra.append(["series-%d" % (bi + 1), 7, rep, 0, 0, "migrate", "migrate_to_dev",
                          "fast", "4k", 64, 1, "MiB/s", "2000", "", "", "", "", "", "", "",
                          "", "check:in_use=3 after munmap" if rep == 2 else ""])
    _, res6 = run(synth(extra=extra))
    c6 = get(res6, "ceiling", "migrate_to_dev", 64, impl="fast")
    check(c6["above"] and any("above ceiling_copy_page" in w for w in res6["warnings"]),
          "a row faster than the ceiling is flagged (%.2f)" % c6["est"])
    check(sum("failed check" in w for w in res6["warnings"]) == 3, "failed checks listed")
    # 9. the report renders; fewer than 3 boots is warned about
    d7, res7 = run(synth(boots=2))
    out = io.StringIO()
    report(d7, res7, nboot, 1, out)
    txt = out.getvalue()
    check("## Ratios" in txt and "| migrate_to_dev | 4k | 1M | ours | upstream |" in txt,
          "Markdown report rendered")
    check(any("only 2 boot(s)" in w for w in res7["warnings"]), "2 boots: warned")
    # 10. the same boot name in two files stays two boots
    d8 = Data()
    d8.add_file("a.csv", synth(boots=1))
    d8.add_file("b.csv", synth(boots=1, seed=8))
    check(len(d8.boots) == 2, "same boot name in two files: 2 boots (%s)" % d8.boots)
    # 11. --base: series against base kernel, unpaired
    def ksynth(kind, slow=1.0, faster=1.0, ctl=1.0, boots=3, seed=3, boot_sd=0.01):
        ours = kind == "series"
        """sys_fork (us, series slow x the time), sys_pagefault (MiB/s,
        series faster x), memcpy_user cpu (control, x ctl), munmap ours
        (series only) and test_hmm (inval group, unpaired)."""
        rng = random.Random(seed)
        out = io.StringIO()
        wr = csv.writer(out, lineterminator="\n")
        wr.writerow(RAW_COLUMNS)
        for bi in range(boots):
            boot = "%s-%d" % (kind, bi + 1)
            bf = math.exp(rng.gauss(0, boot_sd))
            for rep in range(-1, 12):
                def line(group, row, impl, unit, v):
                    wr.writerow([boot, seed, max(rep, 0), 0, int(rep < 0), group, row, impl,
                                 "4k", 65536, 20, unit, "%.6g" % (v * (50 if rep < 0 else 1)),
                                 "", "", "", "", "", "", "", "", ""])
                e = lambda: bf * math.exp(rng.gauss(0, 0.02))
                line("sys", "sys_fork", "none", "us/fork", 4000.0 * slow * e())
                line("sys", "sys_pagefault", "none", "MiB/s", 90.0 * faster / e())
                line("memcpy", "memcpy_user", "cpu", "MiB/s", 400.0 * ctl / e())
                v = 500.0 * e()  # drawn on both kernels: the same draws follow
                if ours:
                    line("inval", "munmap", "ours", "us", v)
                line("inval", "munmap", "test_hmm", "us", 900.0 * e())
        return out.getvalue()

    def xrun(btext, stext):
        b, sd = Data(), Data()
        b.add_file("base.csv", btext)
        sd.add_file("series.csv", stext)
        return b, sd, cross(b, sd, nboot, 1)

    def xget(res, row, impl):
        return next((r for r in res["rows"] if r["key"][0] == row and r["impl"] == impl), None)

    b, sd, xr = xrun(ksynth("base"), ksynth("series", seed=3))
    check(all(abs(r["est"] - 1) < 1e-9 and abs(r["pooled"] - 1) < 1e-9 for r in xr["rows"]),
          "--base: identical samples give 1 (%s)" % ", ".join(fmt_r(r["est"]) for r in xr["rows"]))
    for bsd, lim in ((0.03, 176), (0.10, 176)):
        cover = 0
        for k in range(200):
            b1, s1 = Data(), Data()
            b1.add_file("b.csv", ksynth("base", seed=1000 + k, boot_sd=bsd))
            s1.add_file("s.csv", ksynth("series", seed=5000 + k, boot_sd=bsd))
            r = xget(cross(b1, s1, 20, k), "sys_fork", "none")
            cover += r["lo"] <= 1 <= r["hi"]
        check(cover >= lim, "--base: the same kernel twice, 3 pairs, %d %% boot noise: %d of 200 "
              "paired intervals contain 1 (at least %d)" % (bsd * 100, cover, lim))
    b, sd, xr = xrun(ksynth("base"), ksynth("series", seed=4))
    check(xget(xr, "munmap", "test_hmm") and not xget(xr, "munmap", "ours"),
          "--base: rows of one kernel only are left out")
    check(not any("other workers" in w for w in xr["warnings"]),
          "--base: no migrate group, no workers warning")
    f0 = xget(xr, "sys_fork", "none")
    check(f0 and [n for n, _ in f0["pairs"]] == ["1", "2", "3"] and f0["n"] == (3, 36, 3, 36),
          "--base: 3 pairs, warm-ups dropped: %s %s" % (f0 and f0["pairs"], f0 and f0["n"]))
    check(f0["judged"] and not xget(xr, "munmap", "test_hmm")["judged"] and
          xget(xr, "munmap", "test_hmm")["verdict"] == "-",
          "--base: verdicts only for row 10's rows")
    check(not any(x["key"][0] == "munmap" for x in analyse(sd, DEFAULT_PAIRS, DEFAULT_AA,
                                                           DEFAULT_TARGETS, 200, 1)["ratios"]),
          "the inval group's ours and test_hmm are not paired")
    _, _, xr2 = xrun(ksynth("base"), ksynth("series", slow=1.2, faster=1.2, seed=4))
    f = xget(xr2, "sys_fork", "none")
    check(abs(f["est"] - 1 / 1.2) < 0.04 and f["verdict"] == "series worse",
          "--base: series fork 1.2x the time: %.3f [%.3f, %.3f] %s"
          % (f["est"], f["lo"], f["hi"], f["verdict"]))
    pf = xget(xr2, "sys_pagefault", "none")
    check(abs(pf["est"] - 1.2) < 0.05 and pf["verdict"] == "series better",
          "--base: series page faults 1.2x the throughput: %.3f %s" % (pf["est"], pf["verdict"]))
    _, _, xr3 = xrun(ksynth("base"), ksynth("series", ctl=1.3, seed=4))
    check(any(w.startswith("control memcpy_user") for w in xr3["warnings"]),
          "--base: a control outside 1 is warned about")
    check(not any(w.startswith("control") for w in xr2["warnings"]),
          "--base: no control warning without a change")
    _, _, xr4 = xrun(ksynth("base", boot_sd=0.3, boots=6),
                     ksynth("series", slow=1.1, seed=4, boot_sd=0.3, boots=6))
    f4 = xget(xr4, "sys_fork", "none")
    check(f4["verdict"] == "no difference shown" and f4["lo"] < 0.9 and f4["hi"] > 1,
          "--base: 10 %% in 30 %% boot noise is not shown: [%.3f, %.3f]" % (f4["lo"], f4["hi"]))
    b5, s5 = Data(), Data()
    b5.add_file("b1.csv", ksynth("base", boots=1))
    b5.add_file("b2.csv", ksynth("base", boots=1, seed=9))
    s5.add_file("s.csv", ksynth("series", boots=1))
    xr5 = cross(b5, s5, 100, 1)
    check(any("same pair number 1" in w for w in xr5["warnings"]) and
          xget(xr5, "sys_fork", "none")["verdict"].startswith("n/a"),
          "--base: two base-1 boots: warned, no pairs, no verdict")
    out = io.StringIO()
    cross_report(b, sd, xr, nboot, 1, out)
    check("| sys | sys_fork | none |" in out.getvalue() and "control intervals contain 1"
          in out.getvalue(), "--base: report rendered")
    check(abs(t_quantile(0.975, 2) - 4.303) < 0.001 and abs(t_two_sided(2.0, 10) - 0.0734) < 1e-4
          and holm([0.01, 0.04, None, 0.03]) == [0.03, 0.06, None, 0.06],
          "t quantile, t p-value and Holm's adjustment")
    print("selftest: %s" % ("PASS" if not fails else "%d FAILED" % fails))
    return 1 if fails else 0


def usage_error(msg):
    """A usage error exits 2, as the repository's scripts do."""
    sys.stderr.write("bench-stats.py: %s (see --help)\n" % msg)
    sys.exit(2)


def parse_pair(s, opt):
    p = s.split(":")
    if len(p) != 2 or not all(p):
        usage_error("%s %s: A:B expected" % (opt, s))
    return tuple(p)


def parse_target(s):
    try:
        lhs, x = s.split("=")
        parts = lhs.split(":")
        row, pair = parts[0], ("ours", "upstream")
        if len(parts) == 3:
            pair = (parts[1], parts[2])
        elif len(parts) != 1:
            raise ValueError
        minkib = 0
        if "@" in row:
            row, m = row.split("@")
            minkib = int(m)
        return (row, minkib, pair, float(x))
    except ValueError:
        usage_error("--target %s: ROW[@MINKIB][:A:B]=X expected" % s)


def main(argv):
    nboot, seed, pairs, aa, targets, files, bases = 10000, 1, [], DEFAULT_AA, None, [], []
    i = 0
    while i < len(argv):
        a = argv[i]

        def arg():
            if i + 1 >= len(argv):
                usage_error("%s needs an argument" % a)
            return argv[i + 1]
        if a in ("-h", "--help"):
            print(__doc__)
            return 0
        if a == "--selftest":
            return selftest()
        if a in ("--bootstrap", "--seed"):
            try:
                v = int(arg())
            except ValueError:
                usage_error("%s %s: a number" % (a, arg()))
            if a == "--bootstrap":
                nboot = v
            else:
                seed = v
            i += 1
        elif a == "--pair":
            pairs.append(parse_pair(arg(), a))
            i += 1
        elif a == "--aa":
            aa = None if arg() == "none" else parse_pair(arg(), a)
            i += 1
        elif a == "--target":
            targets = (targets or []) + [parse_target(arg())]
            i += 1
        elif a == "--base":
            bases.append(arg())
            i += 1
        elif a.startswith("-"):
            usage_error("unknown option %s" % a)
        else:
            files.append(a)
        i += 1
    if not files:
        usage_error("no RAW.csv given")
    if nboot < 100:
        usage_error("--bootstrap %d: at least 100" % nboot)
    if bases and (pairs or targets is not None or aa != DEFAULT_AA):
        usage_error("--base compares kernels: no --pair, --target or --aa with it")
    data, base = Data(), Data()
    for d, fs in ((data, files), (base, bases)):
        for f in fs:
            try:
                d.add_file(f, read_input(f))
            except (OSError, ValueError) as e:
                sys.stderr.write("bench-stats.py: %s\n" % e)
                return 1
    if bases:
        cross_report(base, data, cross(base, data, nboot, seed), nboot, seed)
        return 0
    res = analyse(data, pairs or DEFAULT_PAIRS, aa,
                  DEFAULT_TARGETS if targets is None else targets, nboot, seed)
    report(data, res, nboot, seed)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
