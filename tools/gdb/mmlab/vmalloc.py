# mm-vmalloc: the busy vmalloc areas (mm/vmalloc.c's busy_list), as
# /proc/vmallocinfo prints them.
import gdb

from mmlab import utils


def busy_areas():
    """(struct vmap_area *, struct vm_struct * or None) in address order;
    an area without a vm_struct is a vm_map_ram one."""
    out = []
    for va in utils.list_for_each_entry(utils.symbol("'mm/vmalloc.c'::busy_list"),
                                        "struct vmap_area", "list"):
        vm = va["vm"]
        out.append((va, vm if int(vm) else None))
    return out


class MmVmalloc(gdb.Command):
    """Show the vmalloc areas: mm-vmalloc

One line per busy area, /proc/vmallocinfo's columns: start-end (with the
guard page), size, the caller, pages=N, the kind (ioremap vmalloc vmap
user, vpages when pages[] is itself vmalloc'd) and the pages per node
(N<n>=count, read from each page's struct page); vm_map_ram areas without
a vm_struct as "vm_map_ram". Ends with the count and the pages mapped."""

    def __init__(self):
        super().__init__("mm-vmalloc", gdb.COMMAND_USER)

    def invoke(self, arg, from_tty):
        c = utils.const
        total_pages = 0
        n = 0
        for va, vm in busy_areas():
            n += 1
            if vm is None:
                size = int(va["va_end"]) - int(va["va_start"])
                gdb.write("%#x-%#x %7d vm_map_ram\n" % (int(va["va_start"]), int(va["va_end"]), size))
                continue
            flags = int(vm["flags"])
            if flags & c("VM_UNINITIALIZED"):
                continue
            addr, size = int(vm["addr"]), int(vm["size"])
            line = "%#x-%#x %7d" % (addr, addr + size, size)
            if int(vm["caller"]):
                line += " " + utils.symbol_name(int(vm["caller"]))
            nr = int(vm["nr_pages"])
            total_pages += nr
            if nr:
                line += " pages=%d" % nr
            for word, name in (("ioremap", "VM_IOREMAP"), ("vmalloc", "VM_ALLOC"), ("vmap", "VM_MAP"),
                               ("user", "VM_USERMAP")):
                if flags & c(name):
                    line += " " + word
            pages = int(vm["pages"])
            if c("VMALLOC_START") <= pages < c("VMALLOC_END"):
                line += " vpages"
            if nr and flags & c("VM_ALLOC"):
                import struct
                ptrs = struct.unpack("<%dQ" % nr, bytes(gdb.selected_inferior().read_memory(pages, 8 * nr)))
                counts = {}
                for p in ptrs:
                    nid = utils.page_node(gdb.Value(p).cast(utils.page_type().pointer()).dereference())
                    counts[nid] = counts.get(nid, 0) + 1
                for nid in sorted(counts):
                    line += " N%d=%d" % (nid, counts[nid])
            gdb.write(line + "\n")
        gdb.write("%d areas, %d pages\n" % (n, total_pages))


MmVmalloc()
