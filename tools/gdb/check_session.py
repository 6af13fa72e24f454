# The gdb side of the gdb check (gdb-check starts QEMU and gdb, then reports):
# runs inside `gdb -batch`, with the helpers auto-loaded with the ELF. It
# connects to QEMU's stub, lets the kernel run to debugger_stop (reached
# when gdb_target writes 'g' to /proc/sysrq-trigger, booted with
# debugger_facts), then runs every command and compares its output with
# the facts the kernel printed to the serial log right before the stop.
# Each command is one case; the results go to MMLAB_CHECK_RESULTS as JSON.
import json
import os
import re
import time
import traceback

import gdb

try:
    import mmlab  # loaded by build/kernel.elf-gdb.py, which put it on sys.path
except ImportError:
    raise gdb.GdbError("the helpers were not auto-loaded with build/kernel.elf")

REMOTE = os.environ["MMLAB_GDB_REMOTE"]
SERIAL = os.environ["MMLAB_SERIAL_LOG"]
RESULTS = os.environ["MMLAB_CHECK_RESULTS"]

results = []


def save():
    with open(RESULTS, "w") as f:
        json.dump(results, f, indent=1)


def run(cmd):
    return gdb.execute(cmd, to_string=True)


class Case:
    def __init__(self, name):
        self.name = name
        self.diag = []
        self.failed = False

    def expect(self, cond, msg):
        if not cond:
            self.failed = True
            self.diag.append(msg)
        return cond


def case(name):
    def wrap(fn):
        c = Case(name)
        try:
            fn(c)
        except Exception as e:  # a command that raised fails its case only
            c.failed = True
            c.diag.append("%s: %s" % (type(e).__name__, e))
            c.diag += traceback.format_exc().splitlines()[-6:]
        results.append({"name": name, "ok": not c.failed, "diag": c.diag})
        save()
        return fn
    return wrap


# ---- the stop -----------------------------------------------------------------

gdb.execute("set pagination off")
gdb.execute("set confirm off")
gdb.execute("target remote " + REMOTE)
gdb.execute("break debugger_stop")
gdb.execute("continue")
frame = gdb.selected_frame()
if frame.name() != "debugger_stop":
    raise gdb.GdbError("stopped in %s, not debugger_stop" % frame.name())


def read_facts():
    deadline = time.time() + 10
    while True:
        with open(SERIAL, errors="replace") as f:
            text = f.read().replace("\r", "")
        if "debugger: facts end" in text or time.time() > deadline:
            break
        time.sleep(0.1)
    start = text.find("debugger: facts begin")
    end = text.find("debugger: facts end")
    if start < 0 or end < 0:
        raise gdb.GdbError("the serial log has no facts (boot with debugger_facts)")
    return text[start:end].splitlines()


FACTS = read_facts()
(m,) = [re.match(r"debugger: stop cpu=(\d+) pid=(\d+) comm=(\S+)", l) for l in FACTS
        if l.startswith("debugger: stop ")]
STOP_CPU, PID, COMM = int(m.group(1)), int(m.group(2)), m.group(3)
# gdb's selected thread is the CPU that hit the breakpoint: the stop's.
gdb.execute("thread %d" % (STOP_CPU + 1), to_string=True)


def facts(prefix):
    return [l[len(prefix):].strip() for l in FACTS if l.startswith(prefix)]


def kv(line):
    return dict(re.findall(r"(\w+)=(\S+)", line))


PAGES = [kv(l) | {"kind": l.split()[0]} for l in facts("debugger: page ")]
WALKS = [kv(l) for l in facts("debugger: walk ")]


# ---- the cases ------------------------------------------------------------------

@case("help")
def _(c):
    for cmd in mmlab.COMMANDS:
        text = run("help " + cmd)
        c.expect(len(text.strip().splitlines()) >= 3 and cmd in text,
                 "help %s: %r" % (cmd, text[:200]))


@case("mm_buddy")
def _(c):
    want = {l.split(",")[0]: l.split()[4:] for l in FACTS if l.startswith("Node ") and ", zone" in l}
    got = {l.split(",")[0]: l.split()[4:] for l in run("mm-buddy -v").splitlines()
           if l.startswith("Node ")}
    c.expect(want and got == want, "mm-buddy %s, the kernel's buddyinfo %s" % (got, want))
    out = run("mm-buddy -v")
    c.expect("lists checked" in out and "nr_free says" not in out and "no free block" not in out,
             "mm-buddy -v found inconsistent lists:\n" + out)
    # Per migrate type: the kernel's /proc/pagetypeinfo free counts.
    want = {tuple(l.split()[:6]): l.split()[6:] for l in facts("debugger: pagetypeinfo ")
            if l.startswith("Node ") and ", type" in l}
    got = {tuple(l.split()[:6]): l.split()[6:] for l in run("mm-buddy -t").splitlines()
           if l.startswith("Node ") and ", type" in l}
    c.expect(want and got == want, "mm-buddy -t %s, the kernel's pagetypeinfo %s" % (got, want))


@case("mm_pcp")
def _(c):
    want = {(int(d["node"]), int(d["cpu"])): (int(d["count"]), int(d["high"]), int(d["batch"]))
            for d in map(kv, facts("debugger: pcp "))}
    got = {}
    for l in run("mm-pcp").splitlines():
        m = re.match(r"node (\d+) cpu (\d+): count (\d+) high (\d+) batch (\d+) \(list holds (\d+)\)", l)
        if m:
            v = list(map(int, m.groups()))
            got[(v[0], v[1])] = (v[2], v[3], v[4])
            c.expect(v[2] == v[5], "node %d cpu %d: count %d but the list holds %d" % (v[0], v[1], v[2], v[5]))
            t = re.search(r"THP-order blocks (\d+) \(list holds (\d+)\)", l)
            c.expect(t and t.group(1) == t.group(2), "node %d cpu %d: THP-order list: %s" % (v[0], v[1], l))
    c.expect(want and got == want, "mm-pcp %s, the kernel %s" % (got, want))


@case("mm_slab")
def _(c):
    def rows(lines):
        out = {}
        for l in lines:
            f = l.split()
            if len(f) >= 7 and f[1].isdigit():
                out[f[0]] = " ".join(f[1:])
        return out
    want = rows(facts("slabinfo: "))
    got = rows(run("mm-slab").splitlines())
    c.expect(want and got == want, "mm-slab %s\nthe kernel's show_slabinfo %s" % (got, want))
    name = next(iter(want))
    detail = run("mm-slab " + name)
    c.expect("size" in detail, "mm-slab %s: %s" % (name, detail))


@case("mm_vmalloc")
def _(c):
    want = [" ".join(l.split()) for l in facts("debugger: vmallocinfo ")]
    got = [" ".join(l.split()) for l in run("mm-vmalloc").splitlines() if l.startswith("0x")]
    c.expect(want and got == want, "mm-vmalloc:\n%s\nthe kernel's /proc/vmallocinfo:\n%s" % (
        "\n".join(got), "\n".join(want)))


@case("mm_rcu")
def _(c):
    (line,) = [l for l in FACTS if l.startswith("rcu: ")]
    m = re.match(r"rcu: (\d+) grace periods, (\d+) callbacks queued, (\d+) invoked, (\d+) pending", line)
    gps, queued, invoked, pending = map(int, m.groups())
    out = run("mm-rcu -v")
    m1 = re.search(r"(\d+) grace periods completed, .* (\d+) callbacks queued", out)
    m2 = re.search(r"(\d+) callbacks pending \(queued - invoked\), (\d+) in the lists", out)
    c.expect(m1 and m2, "mm-rcu printed:\n" + out)
    c.expect((int(m1.group(1)), int(m1.group(2)), int(m2.group(1))) == (gps, queued, pending),
             "mm-rcu: %s / %s; the kernel: %s" % (m1.group(0), m2.group(0), line))
    c.expect(int(m2.group(2)) == pending, "callbacks in the lists %s, pending %d" % (m2.group(2), pending))


@case("mm_ps")
def _(c):
    (d,) = [kv(l) for l in facts("debugger: task ")]
    out = run("mm-ps")
    row = [l.split() for l in out.splitlines() if l.split()[:1] == [d["pid"]]]
    c.expect(len(row) == 1, "mm-ps has no line for pid %s:\n%s" % (d["pid"], out))
    if row:
        r = row[0]
        c.expect(r[1] == d["tgid"] and r[2] == d["comm"] and r[5] == d["cpu"] and
                 int(r[7], 16) == int(d["mm"], 16),
                 "mm-ps: %s; the kernel: %s" % (" ".join(r), d))
    c.expect(re.search(r"cpu %d: current %s \(pid %d\)" % (STOP_CPU, COMM, PID), out),
             "mm-ps does not show %s on CPU %d:\n%s" % (COMM, STOP_CPU, out))


@case("mm_vmas")
def _(c):
    maps = {}
    for l in facts("debugger: maps "):
        f = l.split()
        maps[f[0]] = f[1]
    pols = {l.split()[0].lstrip("0") or "0": l.split()[1] for l in facts("debugger: numa_maps ")}
    got = {}
    for l in run("mm-vmas %d" % PID).splitlines():
        m = re.match(r"([0-9a-f]{12})-([0-9a-f]{12}) (\S{4}) +\d+K (\S+)", l)
        if m:
            start, end = m.group(1).lstrip("0"), m.group(2).lstrip("0")
            got["%08x-%08x" % (int(start, 16), int(end, 16))] = (m.group(3), m.group(4), start)
    c.expect(len(maps) > 3 and set(got) == set(maps), "VMAs: mm-vmas %s, maps %s" % (sorted(got), sorted(maps)))
    for rng, (perm, pol, start) in got.items():
        c.expect(maps.get(rng) == perm, "%s: mm-vmas says %s, maps %s" % (rng, perm, maps.get(rng)))
        c.expect(pols.get(start) == pol, "%s: mm-vmas policy %s, numa_maps %s" % (rng, pol, pols.get(start)))


OWNER = {"slab": "slab:", "pgtable": "page table:", "vmalloc": "vmalloc:", "buddy": "buddy:",
         "pcp": "per-CPU list:", "user": "user:", "thp": "THP:", "hugetlb": "hugetlb:",
         "pagecache": "page cache:"}


def parse_page(out):
    m = re.search(r"pfn (0x[0-9a-f]+).*\n  flags (0x[0-9a-f]+): (.*)\n  node (\d+)  refcount (-?\d+)  "
                  r"mapcount (-?\d+).*\n.*\n  owner: (.*)", out)
    if not m:
        return None
    return {"pfn": int(m.group(1), 16), "flags": int(m.group(2), 16), "names": m.group(3).split(),
            "node": int(m.group(4)), "refcount": int(m.group(5)), "mapcount": int(m.group(6)),
            "owner": m.group(7)}


@case("mm_page")
def _(c):
    kinds = set()
    for d in PAGES:
        kinds.add(d["kind"])
        out = run("mm-page -p %s" % d["pfn"])
        p = parse_page(out)
        if not c.expect(p, "mm-page -p %s printed:\n%s" % (d["pfn"], out)):
            continue
        want = (int(d["pfn"], 16), int(d["flags"], 16), int(d["node"]), int(d["refcount"]), int(d["mapcount"]))
        got = (p["pfn"], p["flags"], p["node"], p["refcount"], p["mapcount"])
        c.expect(got == want, "%s page: mm-page (pfn, flags, node, refcount, mapcount) %s, the kernel %s"
                 % (d["kind"], got, want))
        c.expect(p["owner"].startswith(OWNER[d["kind"]]), "%s page %s: owner %r" % (d["kind"], d["pfn"], p["owner"]))
        names = set(mmlab.utils.decode_page_flags(int(d["flags"], 16)))
        c.expect(set(p["names"]) == names or (not names and p["names"] == ["(none)"]),
                 "%s page: flags decoded %s, expected %s" % (d["kind"], p["names"], names))
        # The same page reached by its address: kernel pages directly, user
        # pages through the process's page tables.
        by_addr = run("mm-page -a %s%s" % (d["va"], " %d" % PID if d["kind"] in ("user", "thp", "hugetlb", "pagecache") else ""))
        pa = parse_page(by_addr)
        c.expect(pa and pa["pfn"] == int(d["pfn"], 16), "mm-page -a %s: %s" % (d["va"], by_addr[:200]))
    c.expect({"slab", "pgtable", "vmalloc", "buddy", "user", "thp", "pagecache"} <= kinds,
             "the kernel printed pages of kinds %s only" % sorted(kinds))


@case("mm_walk")
def _(c):
    pfn_of = {int(d["va"], 16): int(d["pfn"], 16) for d in PAGES}
    c.expect(WALKS, "no walk facts")
    for d in WALKS:
        va = int(d["va"], 16)
        out = run("mm-walk %#x %d" % (va, PID))
        got = {m.group(1): int(m.group(2), 16) for m in re.finditer(r"^  (p\w\w)\[ *\d+\] @\S+ = (0x[0-9a-f]+)", out, re.M)}
        for level in ("pgd", "pud", "pmd", "pte"):
            want = int(d[level], 16)
            c.expect(got.get(level, 0) == want, "walk %#x: %s %#x, the kernel %#x" % (va, level, got.get(level, 0), want))
        rc = int(d["pte_table_refcount"])
        if rc >= 0:
            m = re.search(r"pt_refcount (-?\d+)", out)
            c.expect(m and int(m.group(1)) == rc, "walk %#x: pt_refcount %s, the kernel %d" % (va, m and m.group(1), rc))
        m = re.search(r"maps 0x[0-9a-f]+ to pfn (0x[0-9a-f]+)", out)
        c.expect(m and int(m.group(1), 16) == pfn_of.get(va), "walk %#x ends at %s, the kernel's page is %s" % (
            va, m and m.group(1), pfn_of.get(va) and hex(pfn_of[va])))


@case("mm_ptdump")
def _(c):
    out = run("mm-ptdump %d" % PID)
    ranges = []
    for l in out.splitlines():
        f = l.split()
        if len(f) >= 5 and f[0].startswith("0x") and f[1].startswith("0x"):
            ranges.append((int(f[0], 16), int(f[1], 16), int(f[-1], 16)))
    m = re.search(r"(\d+) ranges, (\d+) KiB mapped", out)
    want_kb = 0
    for l in facts("debugger: numa_maps "):
        # Every mapped page, anonymous or a file's: the per-node counts.
        k = re.search(r"kernelpagesize_kB=(\d+)", l)
        if k:
            want_kb += sum(int(n) for n in re.findall(r" N\d+=(\d+)", l)) * int(k.group(1))
    c.expect(m and int(m.group(2)) == want_kb, "mm-ptdump maps %s KiB, numa_maps counts %d KiB" % (
        m and m.group(2), want_kb))
    c.expect(m and int(m.group(1)) < want_kb // 4, "nothing was folded: %s" % (m and m.group(0)))
    for d in PAGES:
        if d["kind"] not in ("user", "thp", "hugetlb", "pagecache"):
            continue
        va = int(d["va"], 16)
        hit = [r for r in ranges if r[0] <= va < r[1]]
        c.expect(hit and hit[0][2] + ((va - hit[0][0]) >> 12) == int(d["pfn"], 16),
                 "mm-ptdump: %#x should map pfn %s: %s" % (va, d["pfn"], hit))


# Let the kernel go on: gdb_target resumes and exits, and QEMU with it
# (gdb-check checks how it ended).
gdb.execute("delete")
try:
    gdb.execute("continue")
except gdb.error:
    pass
