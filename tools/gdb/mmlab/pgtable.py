# mm-walk and mm-ptdump: x86_64 4-level page tables read from memory, as
# the hardware (and mm/pgtable.h's pgd_offset .. pte_offset_map) walks them.
import gdb

from mmlab import utils
from mmlab.utils import MmlabError

LEVELS = ("pgd", "pud", "pmd", "pte")


def _shift(level):
    return utils.const({"pgd": "PGDIR_SHIFT", "pud": "PUD_SHIFT", "pmd": "PMD_SHIFT",
                        "pte": "PAGE_SHIFT"}[level])


def entry_bits(e):
    """The x86 bits of an entry by their kernel names, shortest first."""
    c = utils.const
    names = [("present", "_PAGE_PRESENT"), ("rw", "_PAGE_RW"), ("user", "_PAGE_USER"),
             ("pwt", "_PAGE_PWT"), ("pcd", "_PAGE_PCD"), ("accessed", "_PAGE_ACCESSED"),
             ("dirty", "_PAGE_DIRTY"), ("pse", "_PAGE_PSE"), ("global", "_PAGE_GLOBAL"),
             ("nx", "_PAGE_NX")]
    return [n for n, k in names if e & c(k)]


def canonical(addr):
    return addr | (0xffff << 48) if addr >> 47 & 1 else addr


class Walk:
    """levels: (level, index, entry address, entry value); pfn: the page
    mapped (None if the walk stopped); size: the bytes the leaf maps;
    pte_table: the pfn of the PTE table passed (None if none); stopped: why
    the walk ended early."""

    def __init__(self):
        self.levels = []
        self.pfn = None
        self.size = None
        self.pte_table = None
        self.stopped = None


def walk(pgd_addr, addr):
    c = utils.const
    w = Walk()
    table = pgd_addr
    mask = c("PTE_PFN_MASK")
    for level in LEVELS:
        index = addr >> _shift(level) & (c("PTRS_PER_TABLE") - 1)
        eaddr = table + 8 * index
        e = utils.read_u64(eaddr)
        w.levels.append((level, index, eaddr, e))
        if e == 0:
            w.stopped = "%s entry none" % level
            return w
        # _PAGE_PSE keeps a PROT_NONE huge PMD present; in a PTE, bit 7
        # marks a migration entry, which is not present.
        if not e & (c("_PAGE_PRESENT") | c("_PAGE_PROTNONE") | (c("_PAGE_PSE") if level != "pte" else 0)):
            w.stopped = "%s entry not present" % level
            return w
        leaf = level == "pte" or (level in ("pud", "pmd") and e & c("_PAGE_PSE"))
        if leaf:
            size = 1 << _shift(level)
            w.size = size
            w.pfn = ((e & mask) >> c("PAGE_SHIFT")) + ((addr & (size - 1)) >> c("PAGE_SHIFT"))
            return w
        if level == "pmd":
            w.pte_table = (e & mask) >> c("PAGE_SHIFT")
        table = utils.phys_to_virt(e & mask)
    return w


def mm_of_pid(pid):
    task = utils.find_task(pid)
    mm = task["mm"]
    if not int(mm):
        raise MmlabError("mmlab: pid %d has no mm" % pid)
    return task, mm


def pgd_for(pid, addr=0):
    """The PGD to walk (a kernel address): pid's mm's, else the one the
    selected CPU uses now (CR3, which QEMU's stub gives gdb as $cr3), else
    the current task's mm (or the kernel's swapper_pg_dir for a kernel
    address)."""
    if pid is not None:
        return int(mm_of_pid(pid)[1]["pgd"])
    try:
        cr3 = int(gdb.parse_and_eval("$cr3"))
    except gdb.error:
        cr3 = 0
    if cr3:
        return utils.phys_to_virt(cr3 & utils.const("PTE_PFN_MASK"))
    if addr >> 47:
        return int(utils.symbol("swapper_pg_dir").address)
    task = utils.current_task()
    if not int(task["mm"]):
        raise MmlabError("mmlab: CPU %d runs %s, a kernel thread: give a PID for a user address"
                         % (utils.selected_cpu(), utils.cstr(task["comm"])))
    return int(task["mm"]["pgd"])


def describe_walk(pgd_addr, addr, title):
    c = utils.const
    w = walk(pgd_addr, addr)
    out = [title]
    for level, index, eaddr, e in w.levels:
        line = "  %-3s[%3d] @%#x = %#018x" % (level, index, eaddr, e)
        if e:
            line += "  " + " ".join(entry_bits(e))
            pfn = (e & c("PTE_PFN_MASK")) >> c("PAGE_SHIFT")
            if level == "pmd" and w.pte_table is not None:
                tp = utils.pfn_to_page(pfn).dereference()
                line += "  -> PTE table pfn %#x (pt_refcount %d)" % (pfn, int(tp["pt_refcount"]))
            elif (level, index, eaddr, e) == w.levels[-1] and w.pfn is not None:
                line += "  -> %s page pfn %#x" % ({"pte": "4K", "pmd": "2M", "pud": "1G"}[level], pfn)
            else:
                line += "  -> table pfn %#x" % pfn
        out.append(line)
    if w.pfn is None:
        out.append("  not mapped: %s" % w.stopped)
        return out
    out.append("  maps %#x to pfn %#x (phys %#x)" % (
        addr, w.pfn, (w.pfn << c("PAGE_SHIFT")) | (addr & ((1 << c("PAGE_SHIFT")) - 1))))
    if utils.pfn_valid(w.pfn):
        from mmlab import page
        out += ["  " + l for l in page.page_summary(w.pfn)]
    return out


class MmWalk(gdb.Command):
    """Walk the page tables for an address: mm-walk ADDRESS [PID]

Walks ADDRESS through the PGD of PID's mm (default: the page tables gdb's
selected CPU uses now, its CR3). Prints each level's index, the entry's address and value
and its bits (present rw user accessed dirty pse global nx), the PTE
table's refcount (pt_refcount: entries + walkers, pte_reclaim=refcount),
and the final page as mm-page prints it."""

    def __init__(self):
        super().__init__("mm-walk", gdb.COMMAND_USER)

    def invoke(self, arg, from_tty):
        argv = gdb.string_to_argv(arg)
        if not argv:
            raise MmlabError("usage: mm-walk ADDRESS [PID]")
        addr = utils.parse_int(argv[0])
        pid = int(argv[1]) if len(argv) > 1 else None
        pgd = pgd_for(pid, addr)
        who = ("pid %d" % pid) if pid is not None else "CPU %d's page tables" % utils.selected_cpu()
        gdb.write("\n".join(describe_walk(pgd, addr, "mm-walk %#x in %s (pgd %#x)" % (addr, who, pgd)))
                  + "\n")


def leaves(pgd_addr, start, end):
    """Every present leaf entry in [start, end): (va, size, level, entry)."""
    c = utils.const
    mask = c("PTE_PFN_MASK")
    present = c("_PAGE_PRESENT") | c("_PAGE_PROTNONE")

    def rec(table, level_i, base):
        level = LEVELS[level_i]
        shift = _shift(level)
        entries = utils.read_table(table)
        for i, e in enumerate(entries):
            va = canonical(base + (i << shift))
            if va + (1 << shift) <= start or va >= end or not e:
                continue
            if not e & (present | (c("_PAGE_PSE") if level != "pte" else 0)):
                continue
            if level == "pte" or (level in ("pud", "pmd") and e & c("_PAGE_PSE")):
                yield va, 1 << shift, level, e
            else:
                yield from rec(utils.phys_to_virt(e & mask), level_i + 1, base + (i << shift))

    yield from rec(pgd_addr, 0, 0)


def fold(pgd_addr, start, end):
    """Leaves folded into ranges: consecutive in virtual addresses, of one
    level and the same protection, and physically contiguous. The accessed
    and dirty bits, which the CPU sets as it goes, do not split a range
    (nor does Linux's ptdump show them)."""
    c = utils.const
    mask = c("PTE_PFN_MASK")
    ranges = []
    for va, size, level, e in leaves(pgd_addr, start, end):
        attrs = e & ~mask & ~(c("_PAGE_ACCESSED") | c("_PAGE_DIRTY"))
        phys = e & mask
        if ranges:
            r = ranges[-1]
            if r["end"] == va and r["level"] == level and r["attrs"] == attrs and \
                    r["phys"] + (r["end"] - r["start"]) == phys:
                r["end"] += size
                continue
        ranges.append({"start": va, "end": va + size, "level": level, "attrs": attrs, "phys": phys})
    return ranges


def size_str(n):
    for unit, shift in (("G", 30), ("M", 20), ("K", 10)):
        if n >= 1 << shift and n % (1 << shift) == 0:
            return "%d%s" % (n >> shift, unit)
    return "%dB" % n


class MmPtdump(gdb.Command):
    """Dump a whole address space, folded: mm-ptdump [PID] [--kernel]

Every present mapping of PID's user half (default: the page tables gdb's
selected CPU uses now, its CR3), or with --kernel the kernel half of the
kernel's own swapper_pg_dir,
one line per range of entries that are contiguous in virtual and physical
addresses, at one level and with the same bits (accessed and dirty
aside): start-end, size, level (pte 4K, pmd 2M, pud 1G), bits, first pfn.
Ends with the number of ranges and the total mapped."""

    def __init__(self):
        super().__init__("mm-ptdump", gdb.COMMAND_USER)

    def invoke(self, arg, from_tty):
        argv = gdb.string_to_argv(arg)
        kernel = "--kernel" in argv
        argv = [a for a in argv if a != "--kernel"]
        pid = int(argv[0]) if argv else None
        c = utils.const
        if kernel:
            pgd = int(utils.symbol("swapper_pg_dir").address)
            start, end = 0xffff800000000000, 0xffffffffffffffff
        else:
            pgd = pgd_for(pid, 0)
            start, end = 0, c("TASK_SIZE")
        total = 0
        ranges = fold(pgd, start, end)
        gdb.write("%-18s %-18s %7s %-4s %-30s %s\n" % ("start", "end", "size", "lvl", "bits", "pfn"))
        for r in ranges:
            n = r["end"] - r["start"]
            total += n
            gdb.write("%#018x %#018x %7s %-4s %-30s %#x\n" % (
                r["start"], r["end"], size_str(n), r["level"], " ".join(entry_bits(r["attrs"])),
                r["phys"] >> c("PAGE_SHIFT")))
        gdb.write("%d ranges, %d KiB mapped\n" % (len(ranges), total >> 10))


MmWalk()
MmPtdump()
