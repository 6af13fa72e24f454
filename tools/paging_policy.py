#!/usr/bin/env python3
"""OSTEP-style predictions for the user program paging_policy's trace.

The program tests/user/tests/paging_policy.c plays a page reference trace
over anonymous memory with about K page frames left to it, under the
kernel's replacement policy (reclaim_policy=lru|fifo|clock on mmlab), and
prints one line per run:

    paging_policy: kernel=mmlab policy=fifo trace=hotscan frames=512 seed=1
    rounds=24 pages=1088 refs=4608 hash=... resident_min=... misses=...

This script regenerates the same trace (the same generator: splitmix64,
the same hash), computes what a textbook simulator predicts for it with K
frames -- FIFO, LRU, CLOCK (one use bit, a hand), OSTEP's CLOCK (a page
probed at random, --clockbits use counts, as OSTEP's paging-policy.py
does) and OPT (Belady) -- and prints the kernel's measured figures beside
the simulator's, at the resident counts the kernel actually gave.

    tools/paging_policy.py                          # the default trace, K = 512
    tools/paging_policy.py --frames 512 --cachesize 400 500 600
    tools/paging_policy.py --log /tmp/r/swap.log    # every paging_policy: line in it
    tools/paging_policy.py --dump > trace.txt       # for paging-policy.py -f trace.txt

Misses are counted as OSTEP counts them: every reference to a page not in
memory, first touches included (the program counts the same with
mincore(2) before each reference). docs/reclaim.md ("Replacement policies
for teaching") says why the kernel's figures are not the simulator's.
"""

import argparse
import heapq
import random
import re
import sys

MASK = (1 << 64) - 1


class SplitMix64:
    """splitmix64, as paging_policy.c's next_random."""

    def __init__(self, seed):
        self.state = seed & MASK

    def next(self):
        self.state = (self.state + 0x9E3779B97F4A7C15) & MASK
        z = self.state
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK
        return z ^ (z >> 31)


def make_trace(kind, frames, rounds, seed):
    """(pages, hot, refs): the program's make_trace."""
    hot, scan = frames // 8, frames // 8
    nrefs = rounds * (2 * hot + scan)
    refs = []
    if kind == "hotscan":
        cold = 2 * frames
        pages = hot + cold
        for r in range(rounds):
            for half in range(2):
                refs.extend(range(hot))
                refs.extend(hot + (r * scan + j) % cold for j in range(half * scan // 2, (half + 1) * scan // 2))
    elif kind == "locality":
        pages = 2 * frames
        hot_pages = pages // 5
        rng = SplitMix64(seed)
        for _ in range(nrefs):
            # The draw order matters: the choice first, then the page.
            if rng.next() % 100 < 80:
                refs.append(rng.next() % hot_pages)
            else:
                refs.append(hot_pages + rng.next() % (pages - hot_pages))
        hot = 0
    else:
        raise ValueError("trace must be hotscan or locality")
    return pages, hot, refs


def trace_hash(refs):
    """FNV-1a over each page number as 4 little-endian bytes."""
    h = 0xCBF29CE484222325
    for p in refs:
        for b in range(4):
            h = ((h ^ ((p >> (8 * b)) & 0xFF)) * 0x100000001B3) & MASK
    return h


def fifo(refs, k):
    resident, queue, misses = set(), [], []
    head = 0
    for p in refs:
        if p in resident:
            misses.append(False)
            continue
        misses.append(True)
        if len(resident) == k:
            resident.discard(queue[head])
            head += 1
        resident.add(p)
        queue.append(p)
    return misses


def lru(refs, k):
    last = {}  # page -> time of its last use; an ordered dict is the LRU list
    misses = []
    for t, p in enumerate(refs):
        hit = p in last
        misses.append(not hit)
        if hit:
            del last[p]
        elif len(last) == k:
            del last[next(iter(last))]
        last[p] = t
    return misses


def clock(refs, k):
    """One use bit per frame and a hand: the frame under the hand with its
    bit set has it cleared and is passed; the first found clear is the
    victim, the new page takes its frame with the bit set and the hand moves
    past it (the bit a real MMU sets on the access that faulted it in)."""
    frame_of, frames, use = {}, [None] * k, [False] * k
    hand, used, misses = 0, 0, []
    for p in refs:
        f = frame_of.get(p)
        if f is not None:
            use[f] = True
            misses.append(False)
            continue
        misses.append(True)
        if used < k:
            f = used
            used += 1
        else:
            while use[hand]:
                use[hand] = False
                hand = (hand + 1) % k
            f = hand
            del frame_of[frames[f]]
            hand = (hand + 1) % k
        frames[f], use[f], frame_of[p] = p, True, f
    return misses


def ostep_clock(refs, k, clockbits, seed):
    """OSTEP's paging-policy.py CLOCK: a use count per page (set to 1 on a
    miss, raised by a hit up to clockbits); the victim search probes pages
    at random, lowering counts, until one is 0."""
    rng = random.Random(seed)
    memory, count, misses = [], {}, []
    for p in refs:
        if p in count:
            misses.append(False)
            if count[p] < clockbits:
                count[p] += 1
            continue
        misses.append(True)
        if len(memory) == k:
            while True:
                v = memory[int(rng.random() * len(memory))]
                if count[v] >= 1:
                    count[v] -= 1
                else:
                    memory.remove(v)
                    del count[v]
                    break
        memory.append(p)
        count[p] = 1
    return misses


def opt(refs, k):
    """Belady's: the victim is the page used again furthest in the future."""
    nxt = [0] * len(refs)
    seen = {}
    for t in range(len(refs) - 1, -1, -1):
        nxt[t] = seen.get(refs[t], len(refs))
        seen[refs[t]] = t
    resident, heap, misses = {}, [], []
    for t, p in enumerate(refs):
        hit = p in resident
        misses.append(not hit)
        if not hit and len(resident) == k:
            while True:
                neg_next, v = heapq.heappop(heap)
                if v in resident and resident[v] == -neg_next:
                    del resident[v]
                    break
        resident[p] = nxt[t]
        heapq.heappush(heap, (-nxt[t], p))
    return misses


def simulate(name, refs, k, args):
    if name == "FIFO":
        return fifo(refs, k)
    if name == "LRU":
        return lru(refs, k)
    if name == "CLOCK":
        return clock(refs, k)
    if name == "OSTEP-CLOCK":
        return ostep_clock(refs, k, args.clockbits, args.sim_seed)
    return opt(refs, k)


POLICIES = ["FIFO", "LRU", "CLOCK", "OSTEP-CLOCK", "OPT"]
KERNEL_TO_SIM = {"fifo": "FIFO", "lru": "LRU", "clock": "CLOCK", "mglru": "LRU"}


def counts(refs, hot, misses):
    total = sum(misses)
    hot_misses = sum(1 for p, m in zip(refs, misses) if m and p < hot)
    return total, hot_misses


def parse_runs(paths):
    runs = []
    for path in paths:
        with open(path, errors="replace") as f:
            for line in f:
                i = line.find("paging_policy: kernel=")
                if i < 0:
                    continue
                fields = dict(re.findall(r"(\w+)=(\S+)", line[i + len("paging_policy: "):]))
                runs.append(fields)
    return runs


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--trace", default="hotscan", choices=["hotscan", "locality"])
    ap.add_argument("--frames", type=int, default=512, help="K the program aims at (the trace's shape follows it)")
    ap.add_argument("--rounds", type=int, default=32)
    ap.add_argument("--seed", type=int, default=1, help="the locality trace's seed")
    ap.add_argument("--cachesize", type=int, nargs="*", help="frames to simulate (default: --frames)")
    ap.add_argument("--clockbits", type=int, default=2, help="OSTEP-CLOCK's use count limit (OSTEP's default 2)")
    ap.add_argument("--sim-seed", type=int, default=0, help="OSTEP-CLOCK's random probes' seed")
    ap.add_argument("--log", nargs="*", default=[], help="files holding paging_policy: lines (runner logs)")
    ap.add_argument("--dump", action="store_true", help="print the trace, one page a line, and stop")
    args = ap.parse_args()

    runs = parse_runs(args.log)
    if runs and not any(a.startswith("--trace") or a.startswith("--frames") or a.startswith("--rounds")
                        or a.startswith("--seed") for a in sys.argv[1:]):
        first = runs[0]
        args.trace, args.frames = first["trace"], int(first["frames"])
        args.rounds, args.seed = int(first["rounds"]), int(first["seed"])

    pages, hot, refs = make_trace(args.trace, args.frames, args.rounds, args.seed)
    if args.dump:
        sys.stdout.write("".join(f"{p}\n" for p in refs))
        return 0
    h = trace_hash(refs)
    print(f"trace {args.trace}: frames {args.frames}, rounds {args.rounds}, seed {args.seed}: "
          f"{pages} pages, {len(refs)} references, {hot} hot pages, hash {h:016x}")
    sizes = args.cachesize or [args.frames]
    print()
    print("simulator: misses (first touches included)" + (", hot-page misses in ()" if hot else ""))
    print(f"{'K':>6}" + "".join(f"{p:>16}" for p in POLICIES))
    for k in sizes:
        row = f"{k:>6}"
        for name in POLICIES:
            m, hm = counts(refs, hot, simulate(name, refs, k, args))
            row += f"{(f'{m} ({hm})' if hot else str(m)):>16}"
        print(row)

    if not runs:
        return 0
    print()
    print("measured (misses by mincore before each reference) beside the simulator's same policy"
          " at the kernel's mean and largest resident counts:")
    print(f"{'kernel':>7} {'policy':>7} {'K min/mean/max':>16} {'misses':>8} {'hot':>6} {'majflt':>7} "
          f"{'pswpin':>7} {'pswpout':>8} | {'sim@mean':>12} {'sim@max':>12}")
    status = 0
    for r in runs:
        key = (r["trace"], int(r["frames"]), int(r["rounds"]), int(r["seed"]))
        if key != (args.trace, args.frames, args.rounds, args.seed):
            print(f"  (a run of another trace left out: {r['trace']} frames={r['frames']} rounds={r['rounds']})")
            continue
        if int(r["hash"], 16) != h:
            print(f"  hash {r['hash']} of a run is not this trace's {h:016x}: the generators differ")
            status = 1
            continue
        name = KERNEL_TO_SIM.get(r["policy"], "LRU")
        sim = []
        for k in (int(r["resident_mean"]), int(r["resident_max"])):
            m, hm = counts(refs, hot, simulate(name, refs, max(k, 1), args))
            sim.append(f"{m} ({hm})" if hot else str(m))
        kk = f"{r['resident_min']}/{r['resident_mean']}/{r['resident_max']}"
        print(f"{r['kernel']:>7} {r['policy']:>7} {kk:>16} {r['misses']:>8} {r['hot_misses']:>6} {r['majflt']:>7} "
              f"{r['pswpin']:>7} {r['pswpout']:>8} | {sim[0]:>12} {sim[1]:>12}")
    return status


if __name__ == "__main__":
    sys.exit(main())
