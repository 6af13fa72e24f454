# mm-slab: the slab caches (mm/slab_internal.h), as show_slabinfo prints them.
import gdb

from mmlab import utils


def caches():
    return list(utils.list_for_each_entry(utils.symbol("'mm/slab_common.c'::slab_caches"),
                                          "struct kmem_cache", "list"))


def cache_counts(s):
    inuse = partial = full = empty = 0
    node = s["node"]
    for nid in range(utils.array_len(node)):
        n = node[nid]
        inuse += int(n["nr_inuse"])
        partial += int(n["nr_partial"])
        full += int(n["nr_full"])
        empty += int(n["nr_empty"])
    return inuse, partial, full, empty


class MmSlab(gdb.Command):
    """Show the slab caches: mm-slab [NAME]

One line per cache on slab_caches: name, object size, objects in use and
in all slabs, objects per slab, pages per slab, slabs (partial/full/empty),
the columns of the kernel's show_slabinfo. With NAME, that cache's layout
and every slab of every node (head pfn, objects in use, list)."""

    def __init__(self):
        super().__init__("mm-slab", gdb.COMMAND_USER)

    def invoke(self, arg, from_tty):
        argv = gdb.string_to_argv(arg)
        gdb.write("%-17s %7s %17s %10s %12s  %s\n" % ("name", "objsize", "active/total objs",
                                                     "objperslab", "pagesperslab",
                                                     "slabs (partial/full/empty)"))
        for s in caches():
            name = utils.cstr(s["name"])
            if argv and name != argv[0]:
                continue
            inuse, partial, full, empty = cache_counts(s)
            slabs = partial + full + empty
            gdb.write("%-17s %7d %8d/%-8d %10d %12d  %5d (%d/%d/%d)%s\n" % (
                name, int(s["object_size"]), inuse, slabs * int(s["objects"]), int(s["objects"]),
                1 << int(s["order"]), slabs, partial, full, empty,
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


MmSlab()
