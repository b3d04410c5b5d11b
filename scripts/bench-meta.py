#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""bench-meta.py META.csv... : the metadata of device memory, per GiB.

Reads the CSVs of the guest suite "benchmeta" (tests/guest/suites/
benchmeta.sh, one file per boot, from scripts/bench.sh --meta), lines
    META,rep,side,devmem_mb,ndevices,pool_kb,drop_kb,back_kb
(newer files add memmap_kb,vmalloc_kb,slab_kb,percpu_kb: what the load
added to nr_memmap_pages, VmallocUsed, SUnreclaim and Percpu) and prints
Markdown, for two measures of the metadata: "counted", the sum of those
four counters (every allocation of either side's registration lands in
one of them, and nothing else the guest does moves them much), and
"MemFree", the MemFree drop minus the pool's pages (what issue 19 names;
it also moves with whatever else the guest does), and, in newer files,
"MemFree+pcp": the same with the per-CPU lists' free pages counted as
free (fpcp_drop_kb). For each:

- per side and size: the metadata, median and range over every
  measurement;
- per side: the slope of that metadata against the device memory, in KiB
  per GiB of device memory, by least squares with an intercept per boot
  (the fixed part: module, devices, drops out);
- "total": the ratio of the slopes, ours/upstream, with a 95% interval
  from a hierarchical bootstrap (boots, then repetitions within a boot;
  the two sides of a repetition stay together);
- "core": the same after taking the test drivers' pool arrays out of both
  slopes (DRIVER_B_PER_PAGE, from the code: they map a device index to
  the system page that fakes it, which a real device does not need), and
  issue 19's target (<= 1/8) decided on it, on "counted" when the files
  have it, and only with 3 boots or more;
- what the code says each side costs per GiB (ours: the reverse map, 16 B,
  and the memcg id, 2 B, per device page, and a spinlock per 512 pages;
  upstream: a 64-byte struct page per device page), and what unloading
  gave back (drop_kb - back_kb: a leak shows here).

The drivers' own pool arrays are the same on both sides (hmm_upstream_bench
copies hmm_dummy's allocator), so they raise both slopes by the same
amount; the difference of the slopes is the cores' difference.
"""
import csv
import random
import statistics
import sys

PAGES_PER_GIB = 262144
BOOT_ITER = 4000
# hmm_dummy's and hmm_upstream_bench's pool arrays (the same code): pages[]
# (8 B), the bitmap (1 bit), block_stamp (u64) and block_used (u32) per
# 512-page block
DRIVER_B_PER_PAGE = 8 + 1 / 8 + (8 + 4) / 512
DRIVER_KB_PER_GIB = DRIVER_B_PER_PAGE * PAGES_PER_GIB / 1024


def read(paths):
    rows = []
    for b, path in enumerate(paths):
        with open(path, newline='') as f:
            for r in csv.reader(f):
                if not r or r[0] != 'META':
                    continue
                try:
                    rep, side = int(r[1]), r[2]
                    mb, ndev, pool, drop, back = (int(x) for x in r[3:8])
                    extra = [int(x) for x in r[8:12]]
                    fpcp = int(r[12]) if len(r) > 12 else None
                except ValueError:
                    continue
                row = {'boot': b, 'rep': rep, 'side': side,
                       'gib': mb * ndev / 1024.0, 'MemFree': drop - pool,
                       'leak': drop - back}
                if len(extra) == 4:
                    row['counted'] = sum(extra)
                    row['parts'] = extra
                if fpcp is not None:
                    row['MemFree+pcp'] = fpcp - pool
                row['gib_boot'] = b
                rows.append(row)
    return rows


def slope(points):
    """Least-squares slope of (group, x, y) points with an intercept per
    group (x and y centred within each group); None if x does not vary."""
    groups = {}
    for g, x, y in points:
        groups.setdefault(g, []).append((x, y))
    sxy = sxx = 0.0
    for pts in groups.values():
        mx = sum(p[0] for p in pts) / len(pts)
        my = sum(p[1] for p in pts) / len(pts)
        sxx += sum((p[0] - mx) ** 2 for p in pts)
        sxy += sum((p[0] - mx) * (p[1] - my) for p in pts)
    if sxx == 0:
        return None
    return sxy / sxx


def slopes(rows, key):
    out = {}
    for side in ('ours', 'upstream'):
        out[side] = slope([(r['gib_boot'], r['gib'], r[key])
                           for r in rows if r['side'] == side])
    return out


def bootstrap(rows, rng, key):
    boots = sorted({r['boot'] for r in rows})
    reps = {b: sorted({r['rep'] for r in rows if r['boot'] == b}) for b in boots}
    by = {}
    for r in rows:
        by.setdefault((r['boot'], r['rep']), []).append(r)
    res = {'ours': [], 'upstream': [], 'ratio': [], 'core': [], 'dropped': 0}
    for _ in range(BOOT_ITER):
        sample = []
        for i, b in enumerate(rng.choice(boots) for _ in boots):
            for rep in (rng.choice(reps[b]) for _ in reps[b]):
                sample.extend(dict(r, gib_boot=i) for r in by[(b, rep)])
        s = slopes(sample, key)
        if s['ours'] is None or s['upstream'] is None or \
                s['upstream'] - DRIVER_KB_PER_GIB <= 0:
            res['dropped'] += 1
            continue
        res['ours'].append(s['ours'])
        res['upstream'].append(s['upstream'])
        res['ratio'].append(s['ours'] / s['upstream'])
        res['core'].append((s['ours'] - DRIVER_KB_PER_GIB) /
                           (s['upstream'] - DRIVER_KB_PER_GIB))
    return res


def interval(v):
    v = sorted(v)
    if not v:
        return (float('nan'), float('nan'))
    return (v[int(0.025 * (len(v) - 1))], v[int(0.975 * (len(v) - 1))])


def main(argv):
    if len(argv) < 2 or argv[1] in ('-h', '--help'):
        print(__doc__)
        return 0 if len(argv) >= 2 else 2
    rows = read(argv[1:])
    if not rows:
        print('bench-meta: no META lines in ' + ' '.join(argv[1:]), file=sys.stderr)
        return 1
    nboots = len({r['boot'] for r in rows})
    keys = ['counted'] if all('counted' in r for r in rows) else []
    keys += ['MemFree+pcp'] if all('MemFree+pcp' in r for r in rows) else []
    keys += ['MemFree']
    print('# Device-memory metadata per GiB, measured\n')
    print('%d measurements from %d boot(s): %s.\n' % (len(rows), nboots, ', '.join(argv[1:])))
    verdict_key = keys[0]
    code = {'ours': '18 B/page + 4 B/512 pages = 4.5 MiB (core) + the pool arrays',
            'upstream': '64 B struct page = 16 MiB (core) + the pool arrays'}
    for key in keys:
        print('## %s: metadata per size (KiB)\n' % key)
        print('| side | device memory (GiB) | n | median | min | max |')
        print('|---|---|---|---|---|---|')
        for side in ('ours', 'upstream'):
            for gib in sorted({r['gib'] for r in rows if r['side'] == side}):
                v = [r[key] for r in rows if r['side'] == side and r['gib'] == gib]
                print('| %s | %.3g | %d | %d | %d | %d |' % (
                    side, gib, len(v), statistics.median(v), min(v), max(v)))
        s = slopes(rows, key)
        if s['ours'] is None or s['upstream'] is None:
            print('\nOne size only: no slope.')
            return 1
        bs = bootstrap(rows, random.Random(1), key)
        print('\n%s, per GiB of device memory (slope over the sizes):\n' % key)
        print('| | KiB per GiB | 95% interval | bytes per 4 KiB device page | from the code |')
        print('|---|---|---|---|---|')
        for side in ('ours', 'upstream'):
            lo, hi = interval(bs[side])
            print('| %s | %.0f | [%.0f, %.0f] | %.1f | %s |' % (
                side, s[side], lo, hi, s[side] * 1024 / PAGES_PER_GIB, code[side]))
        r = s['ours'] / s['upstream']
        lo, hi = interval(bs['ratio'])
        d = s['upstream'] - s['ours']
        print('\n%s, total: ours/upstream **%.3f** [%.3f, %.3f]; upstream - ours: %.0f KiB per GiB'
              ' = %.1f B per page.' % (key, r, lo, hi, d, d * 1024 / PAGES_PER_GIB))
        co, cu = s['ours'] - DRIVER_KB_PER_GIB, s['upstream'] - DRIVER_KB_PER_GIB
        clo, chi = interval(bs['core'])
        print('\n%s, core (without the test drivers\' pool arrays, %.3f B per page = %.0f KiB'
              ' per GiB on each side): ours %.0f KiB per GiB (%.1f B per page), upstream %.0f'
              ' (%.1f B per page); ours/upstream **%.3f** [%.3f, %.3f] (1/%.1f).' % (
                  key, DRIVER_B_PER_PAGE, DRIVER_KB_PER_GIB, co, co * 1024 / PAGES_PER_GIB,
                  cu, cu * 1024 / PAGES_PER_GIB, co / cu, clo, chi, cu / co if co > 0 else 0))
        if bs['dropped']:
            print('\n(%d of %d bootstrap draws had no slope and were dropped.)' % (
                bs['dropped'], BOOT_ITER))
        if key == verdict_key:
            if nboots < 3:
                verdict, why = 'no verdict', 'fewer than 3 boots'
            elif clo != clo:
                verdict, why = 'no verdict', 'no interval'
            elif chi <= 0.125:
                verdict, why = 'met', 'the whole interval below 0.125'
            elif clo > 0.125:
                verdict, why = 'missed', 'the whole interval above 0.125'
            else:
                verdict, why = 'inconclusive', 'the interval straddles 0.125'
            print('\nTarget (issue 19), on %s, core: ours <= 1/8 of upstream\'s: **%s** (%s).\n' % (
                key, verdict, why))
        else:
            print()
    if 'counted' in keys:
        print('## counted, by counter (median KiB at the largest size)\n')
        print('| side | GiB | nr_memmap_pages | VmallocUsed | SUnreclaim | Percpu |')
        print('|---|---|---|---|---|---|')
        for side in ('ours', 'upstream'):
            gib = max(r['gib'] for r in rows if r['side'] == side)
            parts = [r['parts'] for r in rows if r['side'] == side and r['gib'] == gib]
            print('| %s | %.3g | %s |' % (side, gib, ' | '.join(
                '%d' % statistics.median(p[i] for p in parts) for i in range(4))))
    print('\nUnload gave back all but (median KiB of MemFree): %s.' % ', '.join(
        '%s %d' % (side, statistics.median(r['leak'] for r in rows if r['side'] == side))
        for side in ('ours', 'upstream')))
    print('\nThe total slopes include the test drivers\' pool arrays, the same code on both'
          ' sides; the core lines take them out by the bytes the code allocates.')
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv))
