#!/usr/bin/env python3
"""make report-check (and make test, as a host program): tools/report/plot.py
run on a small fixed input (tools/report/fixture/: benchmark outputs in the
shape the targets write them, with the record make report keeps), then
what it wrote is checked: every PNG there and a PNG, index.md naming the
commit, date and machine of the record on every figure, every table
filled; and with one boot's output taken away and its step recorded as
skipped, the figures it fed are reported as not drawn, with the reason,
while the others still are. Output is KTAP (suite "report"); exit status
0 only when every check passed.

usage: check.py FIXTURE_DIR WORK_DIR"""
import os
import shutil
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
PNGS = ["vmpte.png", "instructions.png", "clear_page.png", "placement.png", "page_alloc.png",
        "vmalloc.png", "fork.png"]
# What index.md must hold: a row of every table (the fixture's own
# figures), the hot pair's sentence with the floor model's time, and how
# the page allocator's runs were made.
TABLE_ROWS = ["| mmlab off | 24 kB | 102,624 kB |", "| `multi_fault`: time per fault | 1,557 |",
              "| orig |", "| bind, home node | 0 | 2048 |", "| order-0 alloc+free, per-CPU list (hot) |",
              "| 64 KiB | 11,667 |", "| fork+exit+wait4 with 1024 MiB touched |",
              "the per-CPU list's own operations alone, a model without the lookups that choose the list, "
              "take 7.1 ns", "15 runs in 3 processes"]

results = []


def case(name, ok, why=""):
    results.append((name, ok, why))


def plot(bench, out):
    return subprocess.run([sys.executable, os.path.join(HERE, "plot.py"), "--bench", bench, "--out", out],
                          stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)


def main():
    fixture, work = sys.argv[1], sys.argv[2]
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    meta = dict(l.rstrip("\n").split("=", 1) for l in open(os.path.join(fixture, "report-meta.txt")))

    out = os.path.join(work, "full")
    p = plot(fixture, out)
    case("plot_exits_0_on_full_input", p.returncode == 0, p.stdout[-500:])
    bad = []
    for png in PNGS:
        path = os.path.join(out, png)
        if not os.path.exists(path):
            bad.append(f"{png} missing")
            continue
        with open(path, "rb") as f:
            head = f.read(8)
        if head != b"\x89PNG\r\n\x1a\n" or os.path.getsize(path) < 10000:
            bad.append(f"{png} is not a drawn PNG ({os.path.getsize(path)} bytes)")
    case("every_png_written", not bad, "; ".join(bad))
    index = os.path.join(out, "index.md")
    md = open(index).read() if os.path.exists(index) else ""
    case("index_written", bool(md), index)
    for what in ("commit", "date", "cpu"):
        case(f"index_names_{what}", meta[what] in md, f"{meta[what]!r} not in index.md")
    per_figure = md.count(f"mmlab {meta['commit']}; measured {meta['date']} on {meta['cpu']}")
    case("every_figure_says_when_where_commit", per_figure == len(PNGS) + 1,
         f"{per_figure} figure lines name the commit, date and CPU, {len(PNGS) + 1} wanted")
    case("every_png_in_index", all(f"]({png})" in md for png in PNGS), "a PNG is not linked")
    missing_rows = [r for r in TABLE_ROWS if r not in md]
    case("every_table_filled", not missing_rows, f"rows not found: {missing_rows}")
    case("nothing_reported_missing", "Not drawn" not in md, "index.md reports a figure not drawn")
    case("load_is_said", "shared" in md and meta["load_start"] in md, "the load is not in index.md")

    # One Linux boot's output gone, its step skipped: said, not dropped.
    part = os.path.join(work, "bench-partial")
    shutil.copytree(fixture, part)
    os.remove(os.path.join(part, "compare-linux.txt"))
    steps = os.path.join(part, "report-steps.tsv")
    lines = open(steps).read().splitlines()
    with open(steps, "w") as f:
        for l in lines:
            cols = l.split("\t")
            if cols[0] == "compare":
                cols[1], cols[6] = "skipped", "the Linux 6.1 guest could not be built (no network)"
            f.write("\t".join(cols) + "\n")
    out2 = os.path.join(work, "partial")
    p = plot(part, out2)
    case("plot_exits_1_when_a_figure_is_missing", p.returncode == 1, f"exit status {p.returncode}")
    md2 = open(os.path.join(out2, "index.md")).read() if os.path.exists(os.path.join(out2, "index.md")) else ""
    case("missing_figures_say_why", md2.count("**Not drawn**") == 2 and md2.count("no network") >= 2,
         "the two compare figures should be 'Not drawn' with the step's reason")
    case("other_figures_still_drawn", all(os.path.exists(os.path.join(out2, p)) for p in PNGS[2:]),
         "a figure without Linux's compare output was not drawn")

    fails = sum(not ok for _, ok, _ in results)
    print("KTAP version 1\n1..1")
    print(f"    KTAP version 1\n    # Subtest: report\n    1..{len(results)}")
    for i, (name, ok, why) in enumerate(results, 1):
        if not ok:
            print(f"    # {name}: " + " / ".join(l for l in why.splitlines() if l.strip()))
        print(f"    {'ok' if ok else 'not ok'} {i} {name}")
    print(f"# report: pass:{len(results) - fails} fail:{fails} skip:0 total:{len(results)}")
    print(f"{'not ok' if fails else 'ok'} 1 report")
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main())
