# mm-page: one page frame's struct page, decoded, and who owns it.
import gdb

from mmlab import utils
from mmlab.utils import MmlabError


def _free_block_head(pfn):
    """(head pfn, order) of the free buddy block pfn lies in, or None."""
    max_order = utils.array_len(utils.nodes()[0][1]["free_area"]) - 1 if utils.nodes() else 18
    for order in range(0, max_order + 1):
        head = pfn & ~((1 << order) - 1)
        if not utils.pfn_valid(head):
            break
        hp = utils.pfn_to_page(head).dereference()
        if utils.page_flag(hp, "buddy") and int(hp["private"]) >= order:
            return head, int(hp["private"])
    return None


def _compound_head(pfn):
    """(head pfn, order) of an allocation of order > 0 that pfn is a tail
    page of (PG_head with the order in private), or None."""
    for order in range(1, 19):
        head = pfn & ~((1 << order) - 1)
        if head == pfn or not utils.pfn_valid(head):
            continue
        hp = utils.pfn_to_page(head).dereference()
        if utils.page_flag(hp, "head") and int(hp["private"]) == order:
            return head, order
    return None


def _pcp_owner(page_addr, nid):
    for n, pgdat in utils.nodes():
        if n != nid:
            continue
        for cpu in utils.online_cpus():
            lists = pgdat["pcp"][cpu]["lists"]  # one per migrate type, then the THP order's
            for i in range(utils.array_len(lists)):
                for p in utils.list_for_each_entry(lists[i], "struct page", "lru"):
                    if int(p) == page_addr:
                        return cpu
    return None


def vmalloc_area_of_page(page_addr):
    """The struct vm_struct * whose pages[] holds the page, or None."""
    from mmlab import vmalloc
    for va, vm in vmalloc.busy_areas():
        if not vm:
            continue
        pages = vm["pages"]
        n = int(vm["nr_pages"])
        if not int(pages) or not n:
            continue
        import struct
        mem = bytes(gdb.selected_inferior().read_memory(int(pages), 8 * n))
        if page_addr in struct.unpack("<%dQ" % n, mem):
            return vm
    return None


def _file_mapping(p):
    """The address_space of a page in a file's page cache, else None: a
    mapping without PAGE_MAPPING_ANON (the kernel's in_page_cache)."""
    m = int(p["mapping"])
    if not m or m & 1:
        return None
    return gdb.Value(m).cast(gdb.lookup_type("struct address_space").pointer())


def owner(pfn):
    """A short description of who has the page: buddy, per-CPU list, slab,
    page table, hugetlb, THP, page cache, user, vmalloc, large kmalloc,
    reserved."""
    page = utils.pfn_to_page(pfn)
    p = page.dereference()
    flag = lambda n: utils.page_flag(p, n)
    mapcount = int(p["_mapcount"]) + 1
    if flag("bad"):
        return "bad page (taken out of circulation)"
    if flag("reserved"):
        return "reserved (never given to the buddy allocator)"
    if flag("buddy"):
        return "buddy: heads a free block of order %d" % int(p["private"])
    if flag("pcp"):
        cpu = _pcp_owner(int(page), utils.page_node(p))
        what = "a THP-order block" if int(p["private"]) else "free"
        return "per-CPU list: %s, on CPU %s's list of node %d" % (
            what, "?" if cpu is None else cpu, utils.page_node(p))
    if flag("slab"):
        head = p if int(p["objects"]) else (page - int(p["slab_pad"])).dereference()
        cache = head["slab_cache"]
        return "slab: cache %s, slab head pfn %#x, %d of %d objects in use" % (
            utils.cstr(cache["name"]), utils.page_to_pfn(head.address), int(head["inuse"]),
            int(head["objects"]))
    if flag("table"):
        return "page table: a PTE table, refcount %d (pt_refcount)" % int(p["pt_refcount"])
    if flag("hugetlb"):
        return "hugetlb: head of a pool page of order %d, mapcount %d" % (int(p["private"]), mapcount)
    if flag("hugetlb_tail"):
        return "hugetlb: tail page, head pfn %#x" % (pfn - int(p["private"]))
    if flag("large_kmalloc"):
        return "large kmalloc: order %d" % int(p["private"])
    if flag("anon_thp"):
        second = (page + 1).dereference()
        return "THP: head of a transparent huge page (order %d), mapcount %d (PMDs %d)" % (
            int(p["private"]), mapcount + int(second["compound_mapcount"]) + 1,
            int(second["compound_mapcount"]) + 1)
    if flag("anon_tail"):
        return "THP: tail page mapped by PTEs, head pfn %#x, mapcount %d" % (
            pfn - int(p["private"]), mapcount)
    if flag("shmem_thp") or flag("shmem_tail") or _file_mapping(p):
        head = (page - int(p["private"])).dereference() if flag("shmem_tail") else p
        mapping = _file_mapping(head)
        host = mapping["host"] if mapping is not None else None
        return "page cache: index %d of inode %s, mapcount %d%s" % (
            int(head["index"]) + (pfn - utils.page_to_pfn(head.address)),
            "?" if host is None or int(host) == 0 else int(host["i_ino"]), mapcount,
            " (a tmpfs huge page)" if flag("shmem_thp") or flag("shmem_tail") else "")
    if flag("head") and mapcount > 0:
        order = int(p["private"])
        hpage = utils.const("PMD_SHIFT") - utils.const("PAGE_SHIFT")
        if order == hpage:
            return "THP: head of a transparent huge page (order %d), mapcount %d" % (order, mapcount)
        return "user: head of an order-%d page, mapcount %d" % (order, mapcount)
    if mapcount > 0:
        return "user: mapped in user page tables, mapcount %d" % mapcount
    free = _free_block_head(pfn)
    if free and int(p["_refcount"]) == 0:
        return "buddy: inside the free block of order %d at pfn %#x" % (free[1], free[0])
    comp = _compound_head(pfn)
    if comp:
        hp = utils.pfn_to_page(comp[0]).dereference()
        what = "THP" if int(hp["_mapcount"]) >= 0 else "allocation"
        return "%s: tail page of the order-%d page at pfn %#x" % (what, comp[1], comp[0])
    vm = vmalloc_area_of_page(int(page))
    if vm is not None:
        return "vmalloc: a page of the area at %#x (%d pages, %s)" % (
            int(vm["addr"]), int(vm["nr_pages"]), utils.symbol_name(int(vm["caller"])))
    if int(p["_refcount"]) == 0:
        return "free (refcount 0, in no list)"
    return "kernel: allocated (refcount %d), no owner recorded" % int(p["_refcount"])


def page_summary(pfn):
    """The lines mm-page prints for a pfn."""
    if not utils.pfn_valid(pfn):
        raise MmlabError("mm-page: pfn %#x has no struct page (pfn_valid is false)" % pfn)
    page = utils.pfn_to_page(pfn)
    p = page.dereference()
    flags = utils.page_flags_value(p)
    out = []
    out.append("page %#x pfn %#x phys %#x direct map %#x" % (
        int(page), pfn, pfn << utils.const("PAGE_SHIFT"),
        utils.phys_to_virt(pfn << utils.const("PAGE_SHIFT"))))
    out.append("  flags %#x: %s" % (flags, " ".join(utils.decode_page_flags(flags)) or "(none)"))
    out.append("  node %d  refcount %d  mapcount %d (_mapcount %d)  private %#x" % (
        utils.page_node(p), int(p["_refcount"]), int(p["_mapcount"]) + 1, int(p["_mapcount"]),
        int(p["private"])))
    order = None
    if utils.page_flag(p, "buddy") or utils.page_flag(p, "head") or utils.page_flag(p, "hugetlb"):
        order = int(p["private"])
    out.append("  order %s" % ("-" if order is None else order))
    out.append("  owner: %s" % owner(pfn))
    if int(p["freed_by"]):
        out.append("  last freed by %s" % utils.symbol_name(int(p["freed_by"])))
    return out


def address_to_pfn(addr, pid=None):
    """The pfn behind a kernel or user address: the direct map and the
    kernel image by arithmetic, a struct page in the vmemmap by its index,
    anything else by walking the page tables (the task's, or the kernel's)."""
    c = utils.const
    if c("VMEMMAP_START") <= addr < c("VMEMMAP_START") + (utils.page_type().sizeof << (c("MAX_PHYSMEM_BITS") - c("PAGE_SHIFT"))):
        return (addr - c("VMEMMAP_START")) // utils.page_type().sizeof
    if pid is None:
        if c("PAGE_OFFSET") <= addr < c("PAGE_OFFSET") + (1 << c("MAX_PHYSMEM_BITS")):
            return (addr - c("PAGE_OFFSET")) >> c("PAGE_SHIFT")
        if addr >= c("KERNEL_VMA"):
            return (addr - c("KERNEL_VMA")) >> c("PAGE_SHIFT")
    from mmlab import pgtable
    walk = pgtable.walk(pgtable.pgd_for(pid, addr), addr)
    if walk.pfn is None:
        raise MmlabError("mm-page: %#x is not mapped (%s)" % (addr, walk.stopped))
    return walk.pfn


class MmPage(gdb.Command):
    """Show the struct page of a page frame: mm-page [-p|-a] VALUE [PID]

VALUE is a pfn (a number below the direct map) or an address: a direct-map
or kernel-image address, a struct page pointer (the vmemmap), a vmalloc
address, or with PID a user address of that process (walked in its page
tables). -p forces a pfn, -a an address. Prints the flags decoded, the
refcount, the map count (Linux's page_mapcount: _mapcount + 1), the node,
the order (a free block's, a compound head's) and the owner: buddy free
block, per-CPU list, slab (and cache), page table (and pt_refcount),
hugetlb, THP, user page, vmalloc area, large kmalloc or reserved."""

    def __init__(self):
        super().__init__("mm-page", gdb.COMMAND_USER)

    def invoke(self, arg, from_tty):
        argv = gdb.string_to_argv(arg)
        mode = None
        if argv and argv[0] in ("-p", "-a"):
            mode = argv.pop(0)
        if not argv:
            raise MmlabError("usage: mm-page [-p|-a] PFN|ADDRESS [PID]")
        value = utils.parse_int(argv[0])
        pid = int(argv[1]) if len(argv) > 1 else None
        if mode == "-p" or (mode is None and pid is None and value < utils.const("PAGE_OFFSET")):
            pfn = value
        else:
            pfn = address_to_pfn(value, pid)
        gdb.write("\n".join(page_summary(pfn)) + "\n")


MmPage()
