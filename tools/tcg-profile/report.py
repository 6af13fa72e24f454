#!/usr/bin/env python3
"""Folds tb_count's per-block counts into guest instructions per kernel
function (symbols of the kernel ELF, from nm) and prints the heaviest.
User-space blocks (below the kernel half) count as "[user]".

usage: report.py COUNTS ELF [--top N]"""
import bisect
import subprocess
import sys


def symbols(elf):
    out = subprocess.run(["nm", "-n", "--defined-only", elf], capture_output=True, text=True, check=True).stdout
    addrs, names = [], []
    for line in out.splitlines():
        parts = line.split()
        if len(parts) == 3 and parts[1] in "tTwW":
            addrs.append(int(parts[0], 16))
            names.append(parts[2])
    return addrs, names


def main():
    args = sys.argv[1:]
    top = 40
    if "--top" in args:
        i = args.index("--top")
        top = int(args[i + 1])
        del args[i:i + 2]
    counts, elf = args
    addrs, names = symbols(elf)
    per = {}
    calls = {}
    total = 0
    for line in open(counts):
        vaddr, n, insns = line.split()
        vaddr, n, insns = int(vaddr, 16), int(n), int(insns)
        if vaddr < 1 << 63:
            name = "[user]"
        else:
            i = bisect.bisect_right(addrs, vaddr) - 1
            name = names[i] if i >= 0 else "[kernel ?]"
            if i >= 0 and addrs[i] == vaddr:  # a block at the entry: a call
                calls[name] = calls.get(name, 0) + n
        per[name] = per.get(name, 0) + n * insns
        total += n * insns
    print("%14s %6s %11s %9s  %s" % ("instructions", "share", "calls", "per call", "function"))
    for name, v in sorted(per.items(), key=lambda kv: -kv[1])[:top]:
        c = calls.get(name, 0)
        print("%14d %5.1f%% %11s %9s  %s" % (v, 100.0 * v / total, c or "", "%.0f" % (v / c) if c else "", name))
    print("%14d %5.1f%%  total" % (total, 100.0))


if __name__ == "__main__":
    main()
