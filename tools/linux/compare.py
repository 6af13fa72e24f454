#!/usr/bin/env python3
"""Prints the user programs' results on mmlab and on Linux side by side, case
by case, from mmlab-runner's results.json (`make compare`).

usage: compare.py RESULTS.json MMLAB_TOPOLOGY:SUITE LINUX_TOPOLOGY:SUITE

Every program of either suite is one row: its name, then its result on each
kernel (ok, FAIL, SKIP, or "-" when that boot did not report it). Rows that
differ are marked '<>'. Exit status 0 if both boots passed, 1 otherwise
(the runner has already printed why)."""
import json
import sys

# Cases of mmlab's suites that are no program: KUnit's last case of every
# suite (tests/kunit.c: what the suite allocated came back).
NOT_PROGRAMS = {"free_pages_restored"}


def cases(results, spec):
    topo, suite = spec.split(":", 1)
    for t in results.get("topologies", []):
        if t["name"] == topo:
            for s in t.get("suites", []):
                if s["name"] == suite:
                    return t, [(c["name"], c["status"]) for c in s.get("cases", [])]
            return t, []
    return None, []


def main():
    if len(sys.argv) != 4:
        print(__doc__.split("\n\n")[1], file=sys.stderr)
        return 2
    with open(sys.argv[1]) as f:
        results = json.load(f)
    columns = []
    for spec in sys.argv[2:]:
        topo, got = cases(results, spec)
        verdict = topo["verdict"] if topo else "not run"
        columns.append((spec, verdict, dict(got), [n for n, _ in got]))
    names = []
    for _, _, _, order in columns:
        names += [n for n in order if n not in names and n not in NOT_PROGRAMS]
    show = {"pass": "ok", "fail": "FAIL", "skip": "SKIP"}
    width = max([len(n) for n in names] + [len("program")])
    kernels = ["mmlab", "Linux"]
    heads = ["%s %s (%s)" % (k, spec.replace(":", "/"), verdict)
             for k, (spec, verdict, _, _) in zip(kernels, columns)]
    cw = max(len(h) for h in heads) + 2
    print(("%-*s  %-*s%s" % (width, "program", cw, heads[0], heads[1])).rstrip())
    differ = 0
    for n in names:
        row = [show.get(col[2].get(n), col[2].get(n) or "-") for col in columns]
        mark = "" if row[0] == row[1] else "<>"
        differ += bool(mark)
        print(("%-*s  %-*s%-*s%s" % (width, n, cw, row[0], cw, row[1], mark)).rstrip())
    print("%d programs, %d with different results" % (len(names), differ))
    return 0 if all(v == "pass" for _, v, _, _ in columns) else 1


if __name__ == "__main__":
    sys.exit(main())
