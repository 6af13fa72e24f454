# mm-buddy and mm-pcp: the page allocator's free lists (mm/page_alloc.h).
import gdb

from mmlab import utils
from mmlab.utils import MmlabError


def buddy_counts(pgdat):
    fa = pgdat["free_area"]
    return [int(fa[o]["nr_free"]) for o in range(utils.array_len(fa))]


class MmBuddy(gdb.Command):
    """Show the buddy free lists per node and order: mm-buddy [-v] [-t] [NODE]

One line per node with memory in /proc/buddyinfo's form (free blocks of
each order 0..MAX_PAGE_ORDER, the buddy lists only), then the node's free
pages, managed pages and watermarks. -v also walks every free list and
checks its length against nr_free and that each block heads with PG_buddy
and its order in private. -t counts the blocks of each migrate type's
lists, one line per node and type in /proc/pagetypeinfo's form ("Free
pages count per migrate type at order"; more than 100000 shown as
>100000, as Linux's)."""

    def __init__(self):
        super().__init__("mm-buddy", gdb.COMMAND_USER)

    def invoke(self, arg, from_tty):
        argv = gdb.string_to_argv(arg)
        verbose = "-v" in argv
        by_type = "-t" in argv
        argv = [a for a in argv if a not in ("-v", "-t")]
        want = int(argv[0]) if argv else None
        for nid, pgdat in utils.nodes():
            if want is not None and nid != want:
                continue
            if not int(pgdat["node_present_pages"]):
                continue
            counts = buddy_counts(pgdat)
            gdb.write("Node %d, zone %8s %s\n" % (nid, "Normal", " ".join("%6d" % n for n in counts)))
        if by_type:
            names = gdb.parse_and_eval("migratetype_names")
            for nid, pgdat in utils.nodes():
                if (want is not None and nid != want) or not int(pgdat["node_present_pages"]):
                    continue
                fa = pgdat["free_area"]
                for mt in range(utils.array_len(names)):
                    cells = []
                    for o in range(utils.array_len(fa)):
                        n = 0
                        for _ in utils.list_for_each_entry(fa[o]["free_list"][mt], "struct page", "lru"):
                            n += 1
                            if n >= 100000:
                                break
                        cells.append("%s%6d" % (">" if n >= 100000 else "", n))
                    gdb.write("Node %4d, zone %8s, type %12s %s\n" % (
                        nid, "Normal", utils.cstr(names[mt]), " ".join(cells)))
        for nid, pgdat in utils.nodes():
            if want is not None and nid != want:
                continue
            counts = buddy_counts(pgdat)
            pages = sum(n << o for o, n in enumerate(counts))
            wm = pgdat["watermark"]
            gdb.write("node %d: %d free pages in the buddy lists (nr_free %d), managed %d, "
                      "watermarks min %d low %d high %d, bad %d\n" % (
                          nid, pages, int(pgdat["nr_free"]), int(pgdat["managed_pages"]),
                          int(wm[0]), int(wm[1]), int(wm[2]), int(pgdat["nr_bad_pages"])))
            if verbose:
                for o in range(len(counts)):
                    n = 0
                    lists = pgdat["free_area"][o]["free_list"]
                    for mt in range(utils.array_len(lists)):
                        for p in utils.list_for_each_entry(lists[mt], "struct page", "lru"):
                            n += 1
                            pd = p.dereference()
                            if not utils.page_flag(pd, "buddy") or int(pd["private"]) != o:
                                gdb.write("  order %d type %d: pfn %#x is no free block of this order\n" % (
                                    o, mt, utils.page_to_pfn(p)))
                    if n != counts[o]:
                        gdb.write("  order %d: the list holds %d blocks, nr_free says %d\n" % (
                            o, n, counts[o]))
                gdb.write("  lists checked\n")


class MmPcp(gdb.Command):
    """Show the per-CPU page lists: mm-pcp [NODE]

For each node and online CPU, the per_cpu_pages of that pair: count (pages
in the order-0 lists, one per migrate type), high, batch, and the length
of those lists walked (which must equal count); then the THP-order list's
blocks, counted and walked."""

    def __init__(self):
        super().__init__("mm-pcp", gdb.COMMAND_USER)

    def invoke(self, arg, from_tty):
        argv = gdb.string_to_argv(arg)
        want = int(argv[0]) if argv else None
        for nid, pgdat in utils.nodes():
            if want is not None and nid != want:
                continue
            for cpu in utils.online_cpus():
                pcp = pgdat["pcp"][cpu]
                lists = pcp["lists"]
                nlists = utils.array_len(lists)
                walked = sum(1 for i in range(nlists - 1)
                             for _ in utils.list_for_each_entry(lists[i], "struct page", "lru"))
                thp = sum(1 for _ in utils.list_for_each_entry(lists[nlists - 1], "struct page", "lru"))
                gdb.write("node %d cpu %d: count %d high %d batch %d (list holds %d); "
                          "THP-order blocks %d (list holds %d)\n" % (
                              nid, cpu, int(pcp["count"]), int(pcp["high"]), int(pcp["batch"]), walked,
                              int(pcp["thp_count"]), thp))


MmBuddy()
MmPcp()
