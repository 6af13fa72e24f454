#!/usr/bin/env python3
"""The table of `make bench-compare`: mmlab under each pte_reclaim mode
beside Linux 6.1, every figure in instructions (-icount shift=0, so a
guest ns is one instruction).

usage: bench_compare.py BENCH_DIR

Reads BENCH_DIR/compare-mmlab-{off,scan,refcount}.txt and
BENCH_DIR/compare-linux{,-noerms,-orig}.txt (the "bench: PROGRAM WHAT:
VALUE UNIT" lines of each boot, with the kernel's "Debug aids:" line or
init's "init: running on" line) and prints:

  1. every "ns" figure of the programs: mmlab off, scan, refcount, Linux 6.1
     as Debian boots it, and mmlab / Linux for off and refcount;
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
BENCH = re.compile(r"^bench: (\S+) (.*): (-?[0-9.]+) (\S+)\s*$")


def read(path):
    figures, about = {}, []
    with open(path, errors="replace") as f:
        for line in f:
            line = line.rstrip("\n")
            m = BENCH.match(line)
            if m:
                figures[(m.group(1), m.group(2))] = (float(m.group(3)), m.group(4))
            elif line.startswith(("Debug aids:", "pte_reclaim:", "init: running on")):
                about.append(line)
    return figures, about


def fmt(v):
    return "-" if v is None else f"{v:,.0f}"


def ratio(a, b):
    return "-" if a is None or not b else f"{a / b:.2f}x"


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
    # The rows: mmlab off's figures in its order, ns only (instructions).
    rows = [k for k, (v, unit) in runs["mmlab-off"][0].items() if unit == "ns"]
    rows += [k for k, (v, unit) in runs["linux"][0].items() if unit == "ns" and k not in rows]

    def get(run, key):
        v = runs[run][0].get(key)
        return v[0] if v else None

    print("mmlab beside Linux 6.1, in instructions (QEMU -icount shift=0, one TCG thread;")
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
        print(f"| {key[0]}: {key[1]} | " + " | ".join(fmt(v) for v in vals) +
              f" | {fmt(lin)} | {ratio(vals[0], lin)} | {ratio(vals[2], lin)} |")
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
