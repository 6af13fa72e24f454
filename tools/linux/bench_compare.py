#!/usr/bin/env python3
"""The table of `make bench-compare`: mmlab under each pte_reclaim mode
beside Linux 6.1, every figure in instructions (-icount shift=0, so a
guest ns is one instruction).

usage: bench_compare.py BENCH_DIR

Reads BENCH_DIR/compare-mmlab-{off,scan,refcount}.txt and
BENCH_DIR/compare-linux{,-noerms,-orig}.txt (the "bench: PROGRAM WHAT:
VALUE UNIT" lines of each boot, with the kernel's "Debug aids:" line or
init's "init: running on" line) and prints:

  1. every figure of the programs in instructions (their ns, us and s) or
     in kB: mmlab off, scan, refcount, Linux 6.1 as Debian boots it, and
     mmlab / Linux for off and refcount (instructions only);
  2. the per-fault figure again, against Linux booted with each way of
     clearing a 4 KiB page, one of them the routine whose instruction
     count mmlab's clear matches (see CLEARS).

A figure missing from a boot is printed as "-" and the script exits 1, so
a boot that failed never makes a quiet table."""
import os
import re
import sys

MODES = ["off", "scan", "refcount"]
LINUX = [
    ("linux", "as booted: clear_page_erms, REP STOSB (QEMU counts 4,096 iterations)"),
    ("linux-noerms", "clearcpuid=erms: clear_page_rep, REP STOSQ (512 iterations)"),
    ("linux-orig", "clearcpuid=erms,rep_good: clear_page_orig, 64 loops of 8 MOVs "
     "(11 instructions a loop, as mmlab's memset for __GFP_ZERO)"),
]
# "bench: PROGRAM WHAT: VALUE UNIT", or "... VALUE UNIT per THING"
# (mempolicy_fault's), whose "per THING" joins WHAT.
BENCH = re.compile(r"^bench: (\S+) (.*): (-?[0-9.]+) (\S+)( per \S+)?\s*$")
# Units turned into instructions (a guest ns is one under -icount shift=0),
# and units shown as they are; other lines (counts, rates) are not rows.
TO_INSTRUCTIONS = {"ns": 1.0, "us": 1e3, "s": 1e9}
AS_IS = {"kB"}
# Of the kB lines, the ones that say what a design leaves behind (the
# others repeat them or say where a run started).
KB_ROWS = re.compile(r"VmPTE (after|left by the rounds)$")


def read(path):
    figures, about = {}, []
    with open(path, errors="replace") as f:
        for line in f:
            line = line.rstrip("\n")
            m = BENCH.match(line)
            key = m and (m.group(1), m.group(2) + (m.group(5) or ""))
            if m and m.group(4) in TO_INSTRUCTIONS:
                figures[key] = (float(m.group(3)) * TO_INSTRUCTIONS[m.group(4)], "")
            elif m and m.group(4) in AS_IS and KB_ROWS.search(key[1]):
                figures[key] = (float(m.group(3)), m.group(4))
            elif line.startswith(("Debug aids:", "Spinlocks:", "pte_reclaim:", "init: running on")):
                about.append(line)
    return figures, about


def fmt(v, unit=""):
    if v is None:
        return "-"
    if unit:
        return f"{v:,.0f} {unit}"
    for scale, suffix in ((1e9, " G"), (1e6, " M")):
        if abs(v) >= 10 * scale:
            return f"{v / scale:,.2f}{suffix}"
    return f"{v:,.0f}"


def ratio(a, b):
    if a is None or not b:
        return "-"
    return "<0.01x" if a / b < 0.01 else f"{a / b:.2f}x"


def main():
    d = sys.argv[1]
    runs, missing = {}, False
    for name in [f"mmlab-{m}" for m in MODES] + [n for n, _ in LINUX]:
        path = os.path.join(d, f"compare-{name}.txt")
        if not os.path.exists(path):
            print(f"bench_compare: {path}: missing", file=sys.stderr)
            missing = True
            runs[name] = ({}, [])
        else:
            runs[name] = read(path)
    # The rows: mmlab off's figures in its order, then any only Linux has.
    rows = list(runs["mmlab-off"][0])
    rows += [k for k in runs["linux"][0] if k not in rows]
    unit = {k: u for run in runs.values() for k, (v, u) in run[0].items()}

    def get(run, key):
        v = runs[run][0].get(key)
        return v[0] if v else None

    print("mmlab beside Linux 6.1, in instructions unless a unit is given (QEMU -icount")
    print("shift=0, one TCG thread, a guest ns is an instruction;")
    print("machine 'single': q35, one CPU, 512 MiB, no SRAT/SLIT; mmlab's bench kernel)")
    for name in ["mmlab-off", "linux"]:
        for line in runs[name][1]:
            if not line.startswith("pte_reclaim:"):
                print(f"  {name.split('-')[0]}: {line}")
    print()
    head = "| figure | mmlab off | scan | refcount | Linux 6.1 | off / Linux | refcount / Linux |"
    print(head)
    print("|" + "---|" * (head.count("|") - 1))
    for key in rows:
        vals = [get(f"mmlab-{m}", key) for m in MODES]
        lin = get("linux", key)
        missing |= any(v is None for v in vals) or lin is None
        u = unit[key]
        what = f"{key[0]}: {key[1]}"
        cells = [fmt(v, u) for v in vals + [lin]]
        ratios = ["-", "-"] if u else [ratio(vals[0], lin), ratio(vals[2], lin)]
        print(f"| {what} | " + " | ".join(cells + ratios) + " |")
    print()
    key = ("multi_fault", "time per fault")
    print("The fault path with the clearing of the 4 KiB page held equal: multi_fault per fault,")
    print("mmlab (memset: 64 loops of 8 MOVs, 11 instructions a loop) against Linux 6.1 booted")
    print("with each of its clear_page routines:")
    print()
    head = "| Linux 6.1 clearing with | Linux | mmlab off / Linux | scan / Linux | refcount / Linux |"
    print(head)
    print("|" + "---|" * (head.count("|") - 1))
    for name, what in LINUX:
        lin = get(name, key)
        missing |= lin is None
        print(f"| {what} | {fmt(lin)} | " +
              " | ".join(ratio(get(f"mmlab-{m}", key), lin) for m in MODES) + " |")
    return 1 if missing else 0


if __name__ == "__main__":
    sys.exit(main())
