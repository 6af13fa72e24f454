# mm-slab: the slab caches (mm/slab_internal.h), as show_slabinfo prints them.
import gdb

from mmlab import utils


def caches():
    return list(utils.list_for_each_entry(utils.symbol("'mm/slab_common.c'::slab_caches"),
                                          "struct kmem_cache", "list"))


def cache_counts(s):
    """Objects in use and slabs (partial, full, empty, CPU) of a cache, as
    cache_objects_in_use and show_slabinfo count them: the objects on the
    CPUs' free lists are counted in their nodes' nr_inuse, and taken off."""
    inuse = partial = full = empty = cpu = 0
    node = s["node"]
    for nid in range(utils.array_len(node)):
        n = node[nid]
        inuse += int(n["nr_inuse"])
        partial += int(n["nr_partial"])
        full += int(n["nr_full"])
        empty += int(n["nr_empty"])
    cpu_free = 0
    for _, _, f in frozen_slabs(s):
        cpu_free += int(f["nr_free"])
        cpu += 1
    return max(inuse - cpu_free, 0), partial, full, empty, cpu


def frozen_slabs(s):
    """(cpu, which, struct frozen_slab) of every slab frozen for a CPU:
    its CPU slab ("slab") and its free slab ("free_slab")."""
    cpu_slab = s["cpu_slab"]
    for i in range(utils.array_len(cpu_slab)):
        for which in ("slab", "free_slab"):
            f = cpu_slab[i][which]
            if int(f["page"]) != 0:
                yield i, which, f


class MmSlab(gdb.Command):
    """Show the slab caches: mm-slab [NAME]

One line per cache on slab_caches: name, object size, objects in use and
in all slabs, objects per slab, pages per slab, slabs (partial/full/empty/
cpu), the columns of the kernel's show_slabinfo. With NAME, that cache's
layout, every slab of every node (head pfn, objects in use, list) and
every CPU's slab (frozen for that CPU, on no list)."""

    def __init__(self):
        super().__init__("mm-slab", gdb.COMMAND_USER)

    def invoke(self, arg, from_tty):
        argv = gdb.string_to_argv(arg)
        gdb.write("%-17s %7s %17s %10s %12s  %s\n" % ("name", "objsize", "active/total objs",
                                                     "objperslab", "pagesperslab",
                                                     "slabs (partial/full/empty/cpu)"))
        for s in caches():
            name = utils.cstr(s["name"])
            if argv and name != argv[0]:
                continue
            inuse, partial, full, empty, cpu = cache_counts(s)
            slabs = partial + full + empty + cpu
            gdb.write("%-17s %7d %8d/%-8d %10d %12d  %5d (%d/%d/%d/%d)%s\n" % (
                name, int(s["object_size"]), inuse, slabs * int(s["objects"]), int(s["objects"]),
                1 << int(s["order"]), slabs, partial, full, empty, cpu,
                " destroyed, leaked" if bool(s["dead"]) else ""))
            if argv:
                gdb.write("  size %d align %d free pointer at %d order %d flags %#x%s\n" % (
                    int(s["size"]), int(s["align"]), int(s["offset"]), int(s["order"]),
                    int(s["flags"]), " boot cache" if bool(s["boot"]) else ""))
                node = s["node"]
                for nid in range(utils.array_len(node)):
                    for lst in ("partial", "full", "empty"):
                        for head in utils.list_for_each_entry(node[nid][lst], "struct page",
                                                              "slab_list"):
                            gdb.write("  node %d %-7s slab pfn %#x: %d/%d in use\n" % (
                                nid, lst, utils.page_to_pfn(head), int(head["inuse"]),
                                int(head["objects"])))
                for i, which, f in frozen_slabs(s):
                    head = f["page"].dereference()
                    gdb.write("  node %d cpu %d %-9s slab pfn %#x: %d/%d in use\n" % (
                        int(f["node"]), i, which, utils.page_to_pfn(f["page"]),
                        int(head["inuse"]) - int(f["nr_free"]), int(head["objects"])))


MmSlab()
