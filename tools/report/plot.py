#!/usr/bin/env python3
"""make report's drawing half: the figures and tables of docs/results/ from
what the benchmark targets wrote into build/bench/, measuring nothing.

usage: plot.py --bench BENCH_DIR --out OUT_DIR

Each figure is drawn from the files of the target that measured it (the
"bench: PROGRAM WHAT: VALUE UNIT" lines of the boots, the host benchmarks'
tables and host.json) and carries, on the PNG and in the Markdown, when and
where it was measured and at which commit (BENCH_DIR/report-meta.txt, which
tools/report/run.sh writes; without it the figure says so). A figure whose
files are missing is not drawn: OUT_DIR/index.md says why (the step's
status and reason from BENCH_DIR/report-steps.tsv when there is one).
Plain python3 and matplotlib, nothing else. Exit status 0 when every
figure was drawn, 1 when some were not (index.md is written either way)."""
import argparse
import json
import os
import re
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import matplotlib.ticker  # noqa: E402

# "bench: PROGRAM WHAT: VALUE UNIT" (a trailing "per THING" is part of the unit).
BENCH = re.compile(r"^bench: (\S+) (.*): (-?[0-9.]+) (\S+)(?: per \S+)?\s*$")
# Under -icount shift=0 a guest nanosecond is one instruction.
TO_INSTRUCTIONS = {"ns": 1.0, "us": 1e3, "s": 1e9}

MODES = [("mmlab-off", "mmlab off"), ("mmlab-scan", "mmlab scan"), ("mmlab-refcount", "mmlab refcount")]
COLOURS = {"mmlab off": "#4c72b0", "mmlab scan": "#55a868", "mmlab refcount": "#8172b2",
           "Linux 6.1": "#c44e52", "Linux 6.1, clear_page_orig": "#dd8452"}

HOW_ICOUNT = "guest instructions: QEMU -icount shift=0, one CPU, debug aids off"
HOW_NATIVE = "natively on this machine's CPU"


class Missing(Exception):
    """A figure's input is not there: the reason goes into index.md."""


def fmt(v, digits=0):
    if v is None:
        return "-"
    if abs(v) >= 1e10:
        return f"{v / 1e9:,.2f} G"
    if abs(v) >= 1e7:
        return f"{v / 1e6:,.1f} M"
    return f"{v:,.{digits}f}"


def ratio(a, b):
    if a is None or not b:
        return "-"
    return "<0.01x" if a / b < 0.01 else f"{a / b:.2f}x"


def md_table(head, rows):
    out = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    out += ["| " + " | ".join(str(c) for c in r) + " |" for r in rows]
    return "\n".join(out)


class Report:
    def __init__(self, bench, out):
        self.bench, self.out = bench, out
        self.meta = self.read_meta()
        self.steps = self.read_steps()
        self.sections = []

    def read_meta(self):
        meta = {}
        path = os.path.join(self.bench, "report-meta.txt")
        if os.path.exists(path):
            with open(path) as f:
                for line in f:
                    k, _, v = line.rstrip("\n").partition("=")
                    meta[k] = v
        meta.setdefault("date", "unknown (these outputs were not measured by make report)")
        for k in ("cpu", "cores", "commit"):
            meta.setdefault(k, "unknown")
        return meta

    def read_steps(self):
        steps = {}
        path = os.path.join(self.bench, "report-steps.tsv")
        if os.path.exists(path):
            with open(path) as f:
                head = f.readline().rstrip("\n").split("\t")
                for line in f:
                    row = dict(zip(head, line.rstrip("\n").split("\t")))
                    steps[row["key"]] = row
        return steps

    def path(self, name):
        return os.path.join(self.bench, name)

    def need(self, name, step):
        """The path of BENCH_DIR/name, or Missing with the step's word on it."""
        p = self.path(name)
        if os.path.exists(p) and os.path.getsize(p) > 0:
            return p
        s = self.steps.get(step)
        if s and s["status"] != "ok":
            raise Missing(f"`{name}` is missing or empty: step `{step}` {s['status']}: {s['reason']}")
        raise Missing(f"`{name}` is missing or empty (make report's step `{step}` writes it)")

    def commit(self):
        c = self.meta["commit"]
        return c + (" (with uncommitted changes)" if self.meta.get("dirty") == "yes" else "")

    def load(self, step):
        s = self.steps.get(step)
        if s:
            return f"load {s['load_start']} to {s['load_end']}"
        if "load_start" in self.meta:
            return f"load {self.meta['load_start']} at the start"
        return "load not recorded"

    def where(self, step):
        """When, where and at which commit: the PNG's footer and the Markdown's line."""
        m = self.meta
        return (f"mmlab {self.commit()}; measured {m['date']} on {m['cpu']}, {m['cores']} cores, "
                f"shared with other work ({self.load(step)})")

    def save(self, fig, name, step, how):
        fig.text(0.005, 0.005, f"{self.where(step)}\n{how}", fontsize=7, color="#555555",
                 va="bottom", ha="left")
        fig.savefig(os.path.join(self.out, name), dpi=110)
        plt.close(fig)

    def section(self, title, step, fn):
        try:
            sec = fn()
        except Missing as e:
            sec = {"missing": str(e)}
        except (OSError, ValueError, KeyError, IndexError, TypeError, ZeroDivisionError, AttributeError) as e:
            # An output in a shape this script does not know: said, not hidden.
            plt.close("all")
            sec = {"missing": f"its input could not be read ({type(e).__name__}: {e})"}
        sec["title"], sec["step"] = title, step
        self.sections.append(sec)

    def step_line(self, step):
        s = self.steps.get(step)
        if not s:
            return ""
        t = int(s["seconds"])
        return f" Step `{step}`: {s['status']}, {t // 60} min {t % 60:02d} s."


def bench_file(path):
    """{(program, what): (value, unit)} and the lines that say what ran."""
    figures, about = {}, []
    with open(path, errors="replace") as f:
        for line in f:
            line = line.rstrip("\n")
            m = BENCH.match(line)
            if m:
                figures[(m.group(1), m.group(2))] = (float(m.group(3)), m.group(4))
            elif line.startswith(("Debug aids:", "init: running on", "Spinlocks:")):
                about.append(line)
    return figures, about


def instructions(figures, prog, what):
    v = figures.get((prog, what))
    if not v or v[1] not in TO_INSTRUCTIONS:
        return None
    return v[0] * TO_INSTRUCTIONS[v[1]]


def short(v):
    """A bar's label: three or four digits."""
    if abs(v) >= 1e9:
        return f"{v / 1e9:.2f} G"
    if abs(v) >= 1e6:
        return f"{v / 1e6:.2f} M"
    if abs(v) >= 1e5:
        return f"{v / 1e3:.0f} k"
    return f"{v:,.0f}"


def plain_axis(ax):
    ax.yaxis.set_major_formatter(matplotlib.ticker.FuncFormatter(lambda v, _: short(v)))


def bar_labels(ax, bars, values):
    for b, v in zip(bars, values):
        if v is not None:
            ax.annotate(short(v), (b.get_x() + b.get_width() / 2, b.get_height()), ha="center",
                        va="bottom", fontsize=7, xytext=(0, 2), textcoords="offset points")


# --- the figures -----------------------------------------------------------

def fig_vmpte(r):
    runs = MODES + [("linux", "Linux 6.1")]
    data = {}
    for name, label in runs:
        data[label] = bench_file(r.need(f"compare-{name}.txt", "compare"))[0]
    series = {}
    for label, figs in data.items():
        pts = sorted((int(re.match(r"VmPTE at chunk (\d+)", w).group(1)), v)
                     for (p, w), (v, u) in figs.items()
                     if p == "pte_table_growth_full" and w.startswith("VmPTE at chunk"))
        before = figs.get(("pte_table_growth_full", "VmPTE before"))
        if before:
            pts.insert(0, (0, before[0]))
        if len(pts) < 2:
            raise Missing(f"{label}: no `VmPTE at chunk` lines of pte_table_growth_full in compare-*.txt")
        series[label] = pts
    fig, ax = plt.subplots(figsize=(8, 4.8))
    styles = {"mmlab off": "-", "mmlab scan": "--", "mmlab refcount": ":", "Linux 6.1": "-."}
    for label, pts in series.items():
        ax.plot([c for c, _ in pts], [v / 1024 for _, v in pts], styles[label], label=label,
                color=COLOURS[label], linewidth=2 if label != "mmlab refcount" else 2.5)
    # The end values, written at the right: the lines of two kernels
    # that keep their tables lie on each other, as do those that free them.
    groups = []
    for label, pts in sorted(series.items(), key=lambda kv: kv[1][-1][1]):
        if groups and pts[-1][1] <= groups[-1][0] * 1.02 + 64:
            groups[-1][1].append(label)
        else:
            groups.append((pts[-1][1], [label]))
    for kb, labels in groups:
        ax.annotate(", ".join(f"{l} {series[l][-1][1]:,.0f} kB" for l in labels),
                    (series[labels[0]][-1][0], kb / 1024), xytext=(-6, 8), textcoords="offset points",
                    ha="right", fontsize=8)
    top = max(pts[-1][1] for pts in series.values()) / 1024
    ax.set_ylim(-0.05 * top, top * 1.15)
    ax.set_xlabel("2 MiB chunks written, then given back with MADV_DONTNEED (of 25,600: 50 GiB)")
    ax.xaxis.set_major_formatter(matplotlib.ticker.FuncFormatter(lambda v, _: f"{v:,.0f}"))
    ax.set_ylabel("VmPTE (MiB)")
    ax.set_title("PTE tables left behind by the 2021 series' workload")
    ax.grid(alpha=0.3)
    ax.legend()
    fig.tight_layout(rect=(0, 0.07, 1, 1))
    r.save(fig, "vmpte.png", "compare", "VmPTE read from /proc/self/status along the loop; "
           "the same static binary on every kernel, 'single' machine (one CPU, 512 MiB)")
    rows = []
    for label, figs in data.items():
        g = lambda w: figs.get(("pte_table_growth_full", w), (None,))[0]  # noqa: E731
        rows.append([label, fmt(g("VmPTE before")) + " kB", fmt(g("VmPTE after")) + " kB",
                     fmt(g("VmPTE after munmap")) + " kB",
                     fmt(instructions(figs, "pte_table_growth_full", "time")),
                     fmt(instructions(figs, "pte_table_growth_full", "munmap of 50 GiB"))])
    end = {label: pts[-1][1] for label, pts in series.items()}
    sentence = (f"Writing and discarding 50 GiB chunk by chunk leaves {fmt(end['Linux 6.1'])} kB of empty "
                f"page tables on Linux 6.1 and {fmt(end['mmlab off'])} kB on mmlab with reclaim off, while "
                f"mmlab's scan and refcount modes end at {fmt(end['mmlab scan'])} and "
                f"{fmt(end['mmlab refcount'])} kB: they free each table once it is empty.")
    return {"png": "vmpte.png", "sentence": sentence, "how": HOW_ICOUNT + " (the instruction columns)",
            "table": md_table(["kernel", "VmPTE before", "VmPTE after the loop", "after munmap",
                               "whole loop (instructions)", "munmap of the 50 GiB (instructions)"], rows),
            "sources": "compare-mmlab-{off,scan,refcount}.txt, compare-linux.txt (`make bench-compare`)"}


def fig_instructions(r):
    runs = MODES + [("linux", "Linux 6.1"), ("linux-orig", "Linux 6.1, clear_page_orig")]
    data = {label: bench_file(r.need(f"compare-{name}.txt", "compare"))[0] for name, label in runs}
    metrics = [("multi_fault", "time per fault", "per page fault"),
               ("multi_fault", "MADV_DONTNEED per page", "per page MADV_DONTNEED'd"),
               ("mmap_munmap", "mmap+munmap 4 KiB, untouched", "per mmap+munmap, 4 KiB untouched"),
               ("mmap_munmap", "mmap+touch+munmap 4 KiB", "per mmap+write+munmap, 4 KiB")]
    fig, axes = plt.subplots(1, len(metrics), figsize=(13, 4.6))
    rows = []
    for ax, (prog, what, title) in zip(axes, metrics):
        labels = [l for l in data if instructions(data[l], prog, what) is not None]
        if not any(l == "Linux 6.1" for l in labels) or len(labels) < 4:
            raise Missing(f"`{prog}: {what}` is missing from some compare-*.txt")
        vals = [instructions(data[l], prog, what) for l in labels]
        bars = ax.bar(range(len(labels)), vals, color=[COLOURS[l] for l in labels])
        bar_labels(ax, bars, vals)
        ax.set_xticks(range(len(labels)))
        ax.set_xticklabels([l.replace("mmlab ", "").replace("Linux 6.1, clear_page_orig", "Linux\norig")
                            .replace("Linux 6.1", "Linux") for l in labels], fontsize=8)
        ax.set_title(title, fontsize=9)
        ax.margins(y=0.15)
        plain_axis(ax)
        row = {l: instructions(data[l], prog, what) for l in data}
        rows.append([f"`{prog}`: {what}"] + [fmt(row[l]) for l in data] +
                    [ratio(row["mmlab refcount"], row["Linux 6.1"])])
    axes[0].set_ylabel("instructions")
    fig.suptitle("Instructions per operation: mmlab in each pte_reclaim mode beside Linux 6.1")
    fig.tight_layout(rect=(0, 0.08, 1, 1))
    r.save(fig, "instructions.png", "compare", HOW_ICOUNT + "; 'orig': Linux booted with "
           "clearcpuid=erms,rep_good, clearing a 4 KiB page with 11-instruction loops as mmlab does")
    off = instructions(data["mmlab off"], "multi_fault", "time per fault")
    ref = instructions(data["mmlab refcount"], "multi_fault", "time per fault")
    lin = instructions(data["Linux 6.1"], "multi_fault", "time per fault")
    orig = instructions(data["Linux 6.1, clear_page_orig"], "multi_fault", "time per fault")
    sentence = (f"A page fault costs mmlab {fmt(off)} instructions with reclaim off and {fmt(ref)} with "
                f"refcounted tables ({(ref / off - 1) * 100:+.1f}%), against Linux 6.1's {fmt(lin)}, "
                f"or {fmt(orig)} when Linux clears the page with the same kind of loop as mmlab.")
    return {"png": "instructions.png", "sentence": sentence, "how": HOW_ICOUNT,
            "table": md_table(["figure (instructions)"] + list(data) + ["refcount / Linux"], rows),
            "sources": "compare-*.txt (`make bench-compare`)"}


def read_clear_page(path):
    routines, extents, workload = {}, [], []
    section = None
    about = {"cpu": "", "runs": "?"}
    with open(path) as f:
        for line in f:
            line = line.rstrip("\n")
            if line.startswith("bench_clear_page:"):
                about["cpu"] = re.sub(r"\s+", " ", line[len("bench_clear_page:"):]).strip()
            m = re.match(r"^== routines: .* of (\d+) runs", line)
            if m:
                about["runs"] = m.group(1)
            if line.startswith("== "):
                section = line[3:].split(":")[0]
                continue
            if section == "routines" and line.startswith("method"):
                extents = re.split(r"\s{2,}", line.strip())[1:]
            elif section == "routines" and line.strip():
                name = line.split()[0]
                vals = re.findall(r"([0-9.]+) \[([0-9.]+)-([0-9.]+)\]", line)
                if vals:
                    routines[name] = [tuple(float(x) for x in v) for v in vals]
            elif section and section.startswith("workload"):
                m = re.match(r"^\s+(.+?)\s{2,}([0-9.]+) \[([0-9.]+)-([0-9.]+)\]\s*(.*)$", line)
                if m:
                    workload.append((m.group(1), float(m.group(2)), float(m.group(3)),
                                     float(m.group(4)), m.group(5).strip()))
    return extents, routines, workload, about


def fig_clear(r):
    extents, routines, workload, about = read_clear_page(r.need("host-clear-page.txt", "host"))
    if not routines or not workload:
        raise Missing("host-clear-page.txt holds no routines table or no workload lines")
    base = next((w for w in workload if w[0].startswith("baseline")), None)
    fig, (a1, a2) = plt.subplots(1, 2, figsize=(14, 5), gridspec_kw={"width_ratios": [3, 2]})
    n = len(routines)
    width = 0.8 / n
    for i, (name, vals) in enumerate(routines.items()):
        xs = [j + (i - (n - 1) / 2) * width for j in range(len(vals))]
        med = [v[0] for v in vals]
        err = [[v[0] - v[1] for v in vals], [v[2] - v[0] for v in vals]]
        a1.bar(xs, med, width, yerr=err, label=name, capsize=1.5, error_kw={"elinewidth": 0.6})
    if base:
        a1.axhline(base[1], color="black", linestyle="--", linewidth=1,
                   label=f"baseline: erms per 4 KiB page, 1 GiB cold ({base[1]:.1f})")
    a1.set_xticks(range(len(extents)))
    a1.set_xticklabels(extents, fontsize=8, rotation=20)
    a1.set_ylabel("GB/s (median, bars min-max)")
    a1.set_title("Each routine, by extent cleared per call", fontsize=10)
    a1.legend(fontsize=7, ncol=2)
    labels = [w[0].replace("clear_page=", "") for w in workload]
    meds = [w[1] for w in workload]
    bars = a2.barh(range(len(workload)), meds,
                   xerr=[[w[1] - w[2] for w in workload], [w[3] - w[1] for w in workload]],
                   color=["#333333" if w[0].startswith("baseline") else "#4c72b0" for w in workload])
    for b, w in zip(bars, workload):
        a2.annotate(f"{w[1]:.1f}", (w[3], b.get_y() + b.get_height() / 2), va="center",
                    fontsize=7, xytext=(3, 0), textcoords="offset points")
    if base:
        a2.axvline(base[1], color="black", linestyle="--", linewidth=1)
    a2.set_yticks(range(len(workload)))
    a2.set_yticklabels(labels, fontsize=7)
    a2.invert_yaxis()
    a2.set_xlabel("GB/s")
    a2.set_title("The series' workload: 1 GiB of 2 MiB pages, cold", fontsize=10)
    fig.suptitle("Clearing speed per method and extent (the kernel's own routines, run natively)")
    fig.tight_layout(rect=(0, 0.07, 1, 1))
    r.save(fig, "clear_page.png", "host", HOW_NATIVE + f": tests/host/bench_clear_page, median of "
           f"{about['runs']} runs; the dashed line is clear_page_erms on each 4 KiB page")
    head = ["method"] + extents
    rows = [[name] + [f"{v[0]:.1f}" for v in vals] for name, vals in routines.items()]
    wrows = [[w[0], f"{w[1]:.1f}", f"{w[2]:.1f}-{w[3]:.1f}", w[4] or "-"] for w in workload]
    best = max((w for w in workload if not w[0].startswith("baseline")), key=lambda w: w[1])
    sentence = (f"Clearing 1 GiB of 2 MiB pages cold, the fastest way here is {best[0]} at {best[1]:.1f} GB/s"
                + (f" against {base[1]:.1f} GB/s for clear_page_erms page by page "
                   f"({(best[1] / base[1] - 1) * 100:+.0f}%)" if base else "")
                + "; which method wins depends on how much is cleared at once and on the memory.")
    table = (md_table(head, rows) + "\n\nGB/s, median [min-max], the series' workload:\n\n"
             + md_table(["how", "GB/s", "min-max", "note"], wrows))
    how = HOW_NATIVE + f", median of {about['runs']} runs, wall-clock time" + \
        (f" (CPUID: {about['cpu']})" if about["cpu"] else "")
    return {"png": "clear_page.png", "sentence": sentence, "how": how, "table": table,
            "sources": "host-clear-page.txt (`make bench-host`)"}


def placement(path):
    figs, rows, home = {}, {}, None
    with open(path, errors="replace") as f:
        for line in f:
            m = re.match(r"^bench: mempolicy_fault placement, (.*): ((?:N\d+=\d+ ?)+) pages", line)
            if m:
                rows[m.group(1)] = {int(a): int(b) for a, b in re.findall(r"N(\d+)=(\d+)", m.group(2))}
            m = re.match(r"^bench: mempolicy_fault home node: (\d+)", line)
            if m:
                home = int(m.group(1))
    figs = bench_file(path)[0]
    return rows, home, figs


def fig_placement(r):
    mm, home, mfigs = placement(r.need("mempolicy.txt", "mempolicy"))
    li, lhome, _ = placement(r.need("mempolicy-linux.txt", "mempolicy"))
    if not mm or not li:
        raise Missing("no `placement` lines in mempolicy.txt or mempolicy-linux.txt")
    policies = [p for p in mm if p in li] + [p for p in mm if p not in li] + [p for p in li if p not in mm]
    nodes = sorted({n for d in (mm, li) for row in d.values() for n in row})
    fig, axes = plt.subplots(1, 2, figsize=(11, 0.5 * len(policies) + 2.2), sharey=True)
    for ax, (label, d) in zip(axes, (("mmlab", mm), ("Linux 6.1", li))):
        grid = []
        for p in policies:
            row = d.get(p)
            total = sum(row.values()) if row else 0
            grid.append([(row.get(n, 0) / total) if total else float("nan") for n in nodes])
        ax.imshow(grid, cmap="Blues", vmin=0, vmax=1, aspect="auto")
        for i, p in enumerate(policies):
            for j, n in enumerate(nodes):
                row = d.get(p)
                txt = str(row.get(n, 0)) if row else "-"
                ax.text(j, i, txt, ha="center", va="center", fontsize=8,
                        color="white" if row and grid[i][j] > 0.6 else "black")
        ax.set_xticks(range(len(nodes)))
        ax.set_xticklabels([f"node {n}" for n in nodes])
        ax.set_yticks(range(len(policies)))
        ax.set_yticklabels(policies, fontsize=8)
        ax.set_title(label)
    fig.suptitle(f"Where each policy's pages land (faulted from node 0's CPU; home node {home})")
    fig.tight_layout(rect=(0, 0.09, 1, 1))
    r.save(fig, "placement.png", "mempolicy", "pages per node by move_pages, 'default' machine: "
           "4 nodes in a ring (distances 20 and 30); mmlab under -icount, Linux 6.1 under plain TCG")
    head = ["policy"] + [f"mmlab N{n}" for n in nodes] + [f"Linux 6.1 N{n}" for n in nodes] + \
        ["mmlab instructions per fault"]
    rows = []
    for p in policies:
        a, b = mm.get(p, {}), li.get(p, {})
        cost = instructions(mfigs, "mempolicy_fault", p)
        rows.append([p] + [a.get(n, "-") for n in nodes] + [b.get(n, "-") for n in nodes] + [fmt(cost)])
    hb = mm.get("bind, home node", {})
    hb_frac = (hb.get(home, 0) / sum(hb.values()) * 100) if hb and home is not None else None
    both = [p for p in policies if p in mm and p in li]
    differ = [p for p in both if mm[p] != li[p]]
    agree = ("the two kernels place the pages of every policy both have alike" if not differ else
             "the kernels differ on " + ", ".join(differ))
    only = [p for p in policies if p not in li]
    if only:
        agree += f" (Linux 6.1 has no {', '.join(only)}" + \
            (": a Linux 6.9 policy)" if only == ["weighted interleave"] else ")")
    sentence = (f"With home node {home} set, `bind` over all nodes puts "
                f"{hb_frac:.0f}% of mmlab's pages on node {home} instead of the faulting CPU's node; "
                f"{agree}." if hb_frac is not None else f"Placement per policy; {agree}.")
    return {"png": "placement.png", "sentence": sentence,
            "how": "pages counted per node (not a speed); mmlab's instructions per fault under -icount",
            "table": md_table(head, rows),
            "sources": "mempolicy.txt, mempolicy-linux.txt (`make bench-mempolicy`)"}


def fig_page_alloc(r):
    with open(r.need("host.json", "host")) as f:
        data = json.load(f)
    figs = data["figures"]
    icount = {}
    p = r.path("host-icount.txt")
    if os.path.exists(p):
        with open(p) as f:
            for line in f:
                # figure, mmlab, then the models' and the peer's columns
                # (floor, tree, tree+lock; older files: tree alone)
                parts = line.split()
                if len(parts) >= 3 and parts[0] != "figure":
                    icount[parts[0]] = tuple(parts[1:])
    clock = "wall-clock time"
    p = r.path("host.txt")
    if os.path.exists(p):
        with open(p) as f:
            for line in f:
                if line.startswith("CPU:") and "," in line:
                    clock = line.strip().split("; ")[-1]
    fig, ax = plt.subplots(figsize=(10, 0.55 * len(figs) + 1.8))
    ys = range(len(figs))
    mm = [x["median"] for x in figs]
    nv = [x["naive"]["median"] for x in figs]
    b1 = ax.barh([y - 0.2 for y in ys], mm, 0.4, label="mmlab's buddy allocator", color="#4c72b0",
                 xerr=[[x["median"] - x["min"] for x in figs], [x["max"] - x["median"] for x in figs]])
    ax.barh([y + 0.2 for y in ys], nv, 0.4, label="naive baseline: one global list of 4 KiB pages",
            color="#bbbbbb")
    for b, x in zip(b1, figs):
        ax.annotate(f"{x['median']:.1f}", (x["max"], b.get_y() + b.get_height() / 2), va="center",
                    fontsize=7, xytext=(3, 0), textcoords="offset points")
    ax.set_yticks(list(ys))
    ax.set_yticklabels([x["name"] for x in figs], fontsize=8)
    ax.invert_yaxis()
    ax.set_xscale("log")
    # Plain numbers on the log axis (1, 2, 5, 10, 20, 50, ...), not powers of ten.
    ax.xaxis.set_major_locator(matplotlib.ticker.LogLocator(subs=(1.0, 2.0, 5.0)))
    ax.xaxis.set_major_formatter(matplotlib.ticker.FuncFormatter(lambda v, _: f"{v:g}"))
    ax.xaxis.set_minor_formatter(matplotlib.ticker.NullFormatter())
    ax.set_xlabel("ns per alloc+free pair (median, bars min-max; log scale)")
    ax.set_title("The page allocator beside the naive baseline")
    ax.legend(fontsize=8, loc="lower right")
    fig.tight_layout(rect=(0, 0.1, 1, 1))
    runs = f"{data.get('runs')} runs" + (f" in {data['processes']} processes" if data.get("processes", 1) > 1 else "")
    r.save(fig, "page_alloc.png", "host", HOW_NATIVE + f": tests/host/bench_page_alloc, {runs}, "
           f"{clock}; mm/page_alloc.c built as the kernel builds it")
    head = ["figure", "naive (ns)", "mmlab (ns)", "min-max", "mmlab / naive"]
    if icount:
        head += ["instructions per pair (callgrind)"]
    rows = []
    for x in figs:
        row = [x["name"], f"{x['naive']['median']:.1f}", f"{x['median']:.1f}", f"{x['min']:.1f}-{x['max']:.1f}",
               f"{x['ratio_to_naive']:.2f}x"]
        if icount:
            row.append(icount.get(x["key"], ("-",))[0])
        rows.append(row)
    hot = figs[0]
    blocks = [x["median"] for x in figs if x["key"] in ("order9_pair", "order9_split_pair", "order18_pair")]
    floor = hot.get("floor")
    sentence = (f"The hot order-0 pair takes {hot['median']:.1f} ns, {hot['ratio_to_naive']:.1f} times a "
                "bare list pop and push" +
                (f" (the per-CPU list's own operations alone, a model without the lookups that choose "
                 f"the list, take {floor['median']:.1f} ns)" if floor else "") +
                (f"; what the list cannot give at all, a contiguous 2 MiB or 1 GiB block, takes "
                 f"{min(blocks):.1f} to {max(blocks):.1f} ns" if blocks else "") + ".")
    return {"png": "page_alloc.png", "sentence": sentence,
            "how": HOW_NATIVE + f", {runs}, {clock}" +
                   ("; instructions per pair by callgrind (`make bench-icount`)" if icount else ""),
            "table": md_table(head, rows),
            "sources": "host.json (`make bench-host`)" + (", host-icount.txt (`make bench-icount`)"
                                                         if icount else "")}


def fig_vmalloc(r):
    host = []
    with open(r.need("host-vmalloc.txt", "host")) as f:
        for line in f:
            m = re.match(r"^\s*(\d+)\s+([0-9.]+) ns\s+([0-9.]+) ns\s+([0-9.]+)x", line)
            if m:
                host.append((int(m.group(1)), float(m.group(2)), float(m.group(3))))
    vm, kv, flushes = {}, {}, []
    with open(r.need("kernel-default.txt", "inkernel")) as f:
        for line in f:
            m = re.match(r"^\s+vmalloc\+vfree (\S+ \S+)\s+(\d+) ns per pair", line)
            if m:
                vm[m.group(1)] = int(m.group(2))
            m = re.match(r"^\s+kvmalloc\+kvfree (\S+ \S+)\s+(\d+) ns per pair, (\d+) by kmalloc, (\d+) by vmalloc",
                         line)
            if m:
                kv[m.group(1)] = (int(m.group(2)), int(m.group(3)), int(m.group(4)))
            m = re.match(r"^\s+1,000 vmalloc\(4 KiB\)\+vfree, (.*?):\s+(\d+) TLB flushes,\s+(\d+) ns per pair", line)
            if m:
                flushes.append((m.group(1), int(m.group(2)), int(m.group(3))))
    if not host or not vm:
        raise Missing("no range-allocator rows in host-vmalloc.txt or no vmalloc lines in kernel-default.txt")
    fig, (a1, a2) = plt.subplots(1, 2, figsize=(12, 4.6))
    xs = range(len(host))
    a1.bar([x - 0.2 for x in xs], [h[1] for h in host], 0.4, label="augmented rb-tree (mmlab, Linux 5.2+)",
           color="#4c72b0")
    a1.bar([x + 0.2 for x in xs], [h[2] for h in host], 0.4, label="linked-list first fit", color="#bbbbbb")
    a1.set_xticks(list(xs))
    a1.set_xticklabels([f"{h[0]:,} live areas" for h in host])
    a1.set_yscale("log")
    a1.set_ylabel("ns per alloc+free (log), natively")
    a1.set_title("Finding a free range, natively", fontsize=10)
    a1.legend(fontsize=8)
    sizes = list(vm)
    xs = range(len(sizes))
    a2.bar([x - 0.2 for x in xs], [vm[s] for s in sizes], 0.4, label="vmalloc + vfree", color="#55a868")
    if kv:
        a2.bar([x + 0.2 for x in xs], [kv.get(s, (0,))[0] for s in sizes], 0.4, label="kvmalloc + kvfree",
               color="#dd8452")
        for x, s in zip(xs, sizes):
            if s in kv:
                path = "kmalloc" if kv[s][1] and not kv[s][2] else "vmalloc" if kv[s][2] and not kv[s][1] else "both"
                a2.annotate(path, (x + 0.2, kv[s][0]), ha="center", va="bottom", fontsize=7,
                            xytext=(0, 2), textcoords="offset points")
    a2.set_xticks(list(xs))
    a2.set_xticklabels(sizes)
    a2.set_yscale("log")
    a2.set_ylabel("instructions per pair (log), -icount")
    a2.set_title("In the kernel ('default', 4 CPUs; kvmalloc's allocator above its bar)", fontsize=10)
    a2.legend(fontsize=8)
    fig.tight_layout(rect=(0, 0.09, 1, 1))
    r.save(fig, "vmalloc.png", "inkernel", "left: " + HOW_NATIVE + " (tests/host/vmalloc_bench, median of 9); "
           "right: guest instructions under -icount shift=0, median of 9 runs, debug aids off")
    t1 = md_table(["live areas", "augmented tree (ns)", "linked-list first fit (ns)", "list / tree"],
                  [[f"{h[0]:,}", f"{h[1]:,.1f}", f"{h[2]:,.1f}", f"{h[2] / h[1]:.1f}x"] for h in host])
    t2 = md_table(["size", "vmalloc + vfree", "kvmalloc + kvfree", "kvmalloc served by"],
                  [[s, fmt(vm[s]), fmt(kv[s][0]) if s in kv else "-",
                    (f"kmalloc {kv[s][1]}, vmalloc {kv[s][2]}" if s in kv else "-")] for s in sizes])
    t3 = md_table(["1,000 vmalloc(4 KiB) + vfree", "TLB flushes", "instructions per pair"],
                  [[f[0], f[1], fmt(f[2])] for f in flushes]) if flushes else ""
    big = host[-1]
    served = {s: ("kmalloc" if kv[s][1] and not kv[s][2] else "vmalloc" if kv[s][2] and not kv[s][1]
                  else "both") for s in kv}
    largest = sizes[-1]
    sentence = (f"With {big[0]:,} live areas the tree finds a free range in {big[1]:,.0f} ns where a list "
                f"walk takes {big[2]:,.0f} ns; in the kernel, kvmalloc tries kmalloc first"
                + (f", which on this freshly booted machine served every size up to {largest} "
                   f"({fmt(kv[largest][0])} instructions a pair, against vmalloc's {fmt(vm[largest])}): "
                   "the vmalloc fallback is for when contiguous memory runs out"
                   if kv and all(v == "kmalloc" for v in served.values()) and largest in kv else "")
                + ".")
    return {"png": "vmalloc.png", "sentence": sentence,
            "how": "the range allocator natively; vmalloc and kvmalloc in the kernel in instructions (-icount)",
            "table": t1 + "\n\nIn the kernel (instructions per pair):\n\n" + t2 + ("\n\n" + t3 if t3 else ""),
            "sources": "host-vmalloc.txt (`make bench-host`), kernel-default.txt "
                       "(`make bench-inkernel ICOUNT=1 BENCH_TOPOLOGIES=default`)"}


def fig_fork(r):
    runs = MODES + [("linux", "Linux 6.1"), ("linux-orig", "Linux 6.1, clear_page_orig")]
    data = {label: bench_file(r.need(f"fork-{name}.txt", "fork"))[0] for name, label in runs}
    # The forks by size, then the copy-on-write fault.
    keys = sorted((k for k in data["mmlab off"] if k[0] == "fork_cost"),
                  key=lambda k: (k[1].startswith("copy-on-write"),
                                 int(re.search(r"(\d+) MiB", k[1]).group(1)) if "MiB" in k[1] else 0))
    if not keys:
        raise Missing("no fork_cost lines in fork-mmlab-off.txt")
    fig, axes = plt.subplots(1, len(keys), figsize=(3.3 * len(keys), 4.6))
    rows = []
    for ax, key in zip(axes, keys):
        labels = [l for l in data if instructions(data[l], *key) is not None]
        vals = [instructions(data[l], *key) for l in labels]
        bars = ax.bar(range(len(labels)), vals, color=[COLOURS[l] for l in labels])
        bar_labels(ax, bars, vals)
        ax.set_xticks(range(len(labels)))
        ax.set_xticklabels([l.replace("mmlab ", "").replace("Linux 6.1, clear_page_orig", "Linux\norig")
                            .replace("Linux 6.1", "Linux") for l in labels], fontsize=8)
        ax.set_title(key[1].replace("fork+exit+wait4 with", "fork+exit+wait4,"), fontsize=9)
        ax.margins(y=0.15)
        plain_axis(ax)
        row = {l: instructions(data[l], *key) for l in data}
        rows.append([key[1]] + [fmt(row[l]) for l in data] + [ratio(row["mmlab refcount"], row["Linux 6.1"]),
                                                              ratio(row["mmlab refcount"],
                                                                    row["Linux 6.1, clear_page_orig"])])
    axes[0].set_ylabel("instructions")
    fig.suptitle("fork and copy-on-write: mmlab in each pte_reclaim mode beside Linux 6.1")
    fig.tight_layout(rect=(0, 0.08, 1, 1))
    r.save(fig, "fork.png", "fork", HOW_ICOUNT + "; 'single-4g' machine (one CPU, 4 GiB); 'orig': Linux "
           "with clearcpuid=erms,rep_good (unrolled clear and copy, as mmlab's)")
    big = [k for k in keys if "1024 MiB" in k[1]]
    cow = [k for k in keys if "copy-on-write" in k[1]]
    parts = []
    if big:
        parts.append(f"forking a process with 1 GiB touched costs mmlab "
                     f"{ratio(instructions(data['mmlab off'], *big[0]), instructions(data['Linux 6.1'], *big[0]))}"
                     " of Linux 6.1's instructions")
    if cow:
        parts.append(f"a copy-on-write fault "
                     f"{ratio(instructions(data['mmlab off'], *cow[0]), instructions(data['Linux 6.1'], *cow[0]))}"
                     f" ({ratio(instructions(data['mmlab off'], *cow[0]), instructions(data['Linux 6.1, clear_page_orig'], *cow[0]))}"
                     " against Linux copying with an unrolled loop as mmlab does)")
    sentence = ("With reclaim off, " + " and ".join(parts) + ".") if parts else "fork costs in instructions."
    return {"png": "fork.png", "sentence": sentence, "how": HOW_ICOUNT,
            "table": md_table(["figure (instructions)"] + list(data) + ["refcount / Linux", "refcount / Linux orig"],
                              rows),
            "sources": "fork-*.txt (`make bench-fork`)"}


def table_migrate(r):
    lines = []
    with open(r.need("migrate.txt", "migrate")) as f:
        lines = [l.rstrip("\n")[len("bench: "):] for l in f if l.startswith("bench: ")]
    if not lines:
        raise Missing("no bench lines in migrate.txt")
    return {"png": None,
            "sentence": "Moving pages into a node that can hold all, half or none of them: what migrate_pages "
                        "returns and what it costs (ns are instructions here).",
            "how": "guest instructions: QEMU -icount shift=0, 'default' (4 CPUs on one TCG thread), debug aids off",
            "table": "\n".join("    " + l for l in lines),
            "sources": "migrate.txt (`make bench-migrate`)"}


FIGURES = [
    ("PTE tables left behind along the seed workload", "compare", fig_vmpte),
    ("Instructions per fault, per MADV_DONTNEED'd page, per mmap+munmap", "compare", fig_instructions),
    ("Clearing speed per method and extent", "host", fig_clear),
    ("Placement per node for each policy, with the home node", "mempolicy", fig_placement),
    ("The page allocator beside the naive baseline", "host", fig_page_alloc),
    ("vmalloc and kvmalloc", "inkernel", fig_vmalloc),
    ("fork+exit+wait4 and the copy-on-write fault", "fork", fig_fork),
    ("Migration into a node that cannot hold the pages (table)", "migrate", table_migrate),
]


def write_index(r):
    m = dict(r.meta)
    if r.steps:
        # The drawing is itself make report's last step: the record's end
        # is written after it, so the last measured step's is used.
        last = list(r.steps.values())[-1]
        m.setdefault("load_end", last["load_end"])
        total = sum(int(s["seconds"]) for s in r.steps.values())
        m["took"] = f"; the steps below took {total // 60} min {total % 60:02d} s in all"
    out = ["# Results: every figure, measured again", "",
           "Written by `make report` (tools/report/): each benchmark target run again on one machine, "
           "then drawn from its outputs in `build/bench/` (`make report-plots` draws again without "
           "measuring). Under each figure: one sentence for a slide, how it was measured, the table it "
           "was drawn from.", "",
           f"- Measured: {m['date']}{m.get('took', '')}",
           f"- Machine: {m['cpu']}, {m['cores']} cores; host kernel {m.get('host_kernel', 'unknown')}; "
           f"{m.get('qemu', 'QEMU version unknown')}",
           f"- mmlab commit: {r.commit()}",
           f"- Load: the machine was shared with other engineers' builds and QEMU boots while this ran "
           f"(1-minute load average {m.get('load_start', '?')} at the start, {m.get('load_end', '?')} at "
           "the end, on 2 cores; each step's below). Figures in instructions (QEMU `-icount shift=0`) do not "
           "move with the load; figures in ns or GB/s, measured natively, do.", ""]
    if r.steps:
        out += ["## The steps", "",
                md_table(["step", "what", "status", "time", "load (start, end)", "reason"],
                         [[s["key"], s["what"], s["status"], f"{int(s['seconds']) // 60} min "
                           f"{int(s['seconds']) % 60:02d} s", f"{s['load_start']}, {s['load_end']}",
                           s["reason"] or "-"] for s in r.steps.values()]), ""]
    out += ["## The figures", ""]
    for i, s in enumerate(r.sections, 1):
        out.append(f"{i}. [{s['title']}](#{i}-" + re.sub(r"[^a-z0-9 _-]", "", s["title"].lower())
                   .replace(" ", "-") + ")" + (" - not drawn" if "missing" in s else ""))
    out.append("")
    for i, s in enumerate(r.sections, 1):
        out += [f"## {i}. {s['title']}", ""]
        if "missing" in s:
            out += [f"**Not drawn**: {s['missing']}", ""]
            continue
        if s["png"]:
            out += [f"![{s['title']}]({s['png']})", ""]
        out += [s["sentence"], "",
                f"*{r.where(s['step'])}. How: {s['how']}. From `build/bench/`: {s['sources']}."
                f"{r.step_line(s['step'])}*", "", s["table"], ""]
    out += ["## Not part of `make report`", "",
            "Results the docs hold that this report does not measure again: the user programs on the "
            "host's own Linux (`make bench-user-linux`), the huge-page VM creation check (`make bench-hugetlb`, "
            "a check, not a speed), `pte_multi_fault` on four CPUs per mode (`make bench-pte`), the in-kernel "
            "benchmarks on `pci-hole-6g` (`make bench`), Linux on each NUMA layout (`make compare-layouts`), "
            "and the tree allocator's column (`CLOUDWU_BUDDY=`, a checkout without a license).", ""]
    with open(os.path.join(r.out, "index.md"), "w") as f:
        f.write("\n".join(out))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--bench", required=True, help="the benchmarks' outputs (build/bench)")
    ap.add_argument("--out", required=True, help="where the PNGs and index.md go (docs/results)")
    a = ap.parse_args()
    os.makedirs(a.out, exist_ok=True)
    r = Report(a.bench, a.out)
    plt.rcParams.update({"font.size": 9})
    for title, step, fn in FIGURES:
        r.section(title, step, lambda fn=fn: fn(r))
    write_index(r)
    missing = [s for s in r.sections if "missing" in s]
    for s in r.sections:
        print(f"  {'-' if 'missing' in s else '+'} {s['title']}: "
              + (s["missing"] if "missing" in s else (s["png"] or "table")))
    print(f"report: {len(r.sections) - len(missing)} of {len(r.sections)} figures in {a.out}/ "
          f"(index.md), measured at {r.commit()}")
    return 1 if missing else 0


if __name__ == "__main__":
    sys.exit(main())
