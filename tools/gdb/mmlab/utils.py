# What every mmlab gdb helper shares: types and symbols looked up by name,
# the #define constants the kernel exports (kernel/gdb_constants.c), per-CPU
# variables, lists and red-black trees, CPUs and nodes, struct pages, and
# memory reads. Nothing here knows an offset or a value: a changed struct
# makes a lookup fail with the name that is missing.
import gdb


class MmlabError(gdb.GdbError):
    pass


_types = {}


def lookup_type(name):
    """The gdb.Type of a C type name ("struct page", "pg_data_t"), cached
    until a new objfile is loaded."""
    t = _types.get(name)
    if t is None:
        try:
            t = gdb.lookup_type(name)
        except gdb.error as e:
            raise MmlabError("mmlab: no type %s in the symbols (%s)" % (name, e))
        _types[name] = t
    return t


def symbol(expr):
    """A global or static variable by C expression: "node_data",
    "'mm/vmalloc.c'::busy_list"."""
    try:
        return gdb.parse_and_eval(expr)
    except gdb.error as e:
        raise MmlabError("mmlab: cannot read %s (%s)" % (expr, e))


def array_len(value):
    """Elements of an array value, from its type (no sizeof copies)."""
    lo, hi = value.type.strip_typedefs().range()
    return hi - lo + 1


def field_offset(type_, name):
    for f in type_.strip_typedefs().fields():
        if f.name == name:
            return f.bitpos // 8
        if f.name is None:  # an anonymous struct or union: look inside
            try:
                return f.bitpos // 8 + field_offset(f.type, name)
            except MmlabError:
                pass
    raise MmlabError("mmlab: %s has no field %s" % (type_, name))


def container_of(ptr, type_name, member):
    t = lookup_type(type_name)
    addr = int(ptr) - field_offset(t, member)
    return gdb.Value(addr).cast(t.pointer())


def list_for_each_entry(head, type_name, member):
    """Each entry of a struct list_head list (head is the list_head value
    or pointer); stops with an error on a list that does not come back."""
    if head.type.code != gdb.TYPE_CODE_PTR:
        head = head.address
    node = head["next"]
    seen = 0
    while int(node) != int(head):
        if int(node) == 0:
            raise MmlabError("mmlab: list at %#x is broken (NULL next)" % int(head))
        yield container_of(node, type_name, member)
        node = node["next"]
        seen += 1
        if seen > 10000000:
            raise MmlabError("mmlab: list at %#x does not come back" % int(head))


def rb_inorder(root, type_name, member):
    """Entries of a struct rb_root in order (lib/rbtree.h)."""
    out = []
    stack = []
    node = root["rb_node"]
    while stack or int(node):
        while int(node):
            stack.append(node)
            node = node["rb_left"]
        node = stack.pop()
        out.append(container_of(node, type_name, member))
        node = node["rb_right"]
    return out


# ---- the constants the kernel exports -------------------------------------

_constants = None


def constants():
    global _constants
    if _constants is None:
        table = symbol("gdb_constants")
        n = int(symbol("nr_gdb_constants"))
        _constants = {}
        for i in range(n):
            _constants[table[i]["name"].string()] = int(table[i]["value"])
    return _constants


def const(name):
    c = constants()
    if name not in c:
        raise MmlabError("mmlab: the kernel exports no constant %s (kernel/gdb_constants.c)" % name)
    return c[name]


def enum_value(name):
    """An enumerator by name (enum pageflags' PG_slab, MPOL_BIND)."""
    return int(symbol(name))


def enum_names(type_name, prefix=""):
    """{value: name} of an enum type, the prefix taken off the names."""
    t = lookup_type(type_name)
    return {int(f.enumval): f.name[len(prefix):] if f.name.startswith(prefix) else f.name
            for f in t.fields()}


def invalidate(event=None):
    global _constants
    _types.clear()
    _constants = None


gdb.events.new_objfile.connect(invalidate)


# ---- memory ----------------------------------------------------------------

def read_u64(addr):
    return int(gdb.Value(addr).cast(lookup_type("unsigned long").pointer()).dereference())


def read_table(addr):
    """The 512 entries of a page-table page at a kernel address, in one
    read of the target's memory."""
    import struct
    mem = gdb.selected_inferior().read_memory(addr, 8 * const("PTRS_PER_TABLE"))
    return struct.unpack("<%dQ" % const("PTRS_PER_TABLE"), bytes(mem))


def phys_to_virt(phys):
    return phys + const("PAGE_OFFSET")


def symbol_name(addr):
    """"function+0xoff/0xsize" for a code address, as the kernel prints a
    caller (ksym_lookup), or the bare address."""
    try:
        block = gdb.block_for_pc(addr)
    except RuntimeError:
        block = None
    # The outermost function (the one the symbol table names), not a
    # function inlined into it: the block just inside the file's static one.
    while block and block.superblock and not block.superblock.is_static:
        block = block.superblock
    if block and block.function:
        return "%s+%#x/%#x" % (block.function.name, addr - block.start, block.end - block.start)
    return "%#x" % addr


# ---- CPUs, per-CPU variables, nodes ---------------------------------------

def online_cpus():
    bits = int(symbol("cpu_online_mask")["bits"])
    return [c for c in range(64) if bits >> c & 1]


def per_cpu(var_name, cpu):
    """The value of per-CPU variable var_name on cpu (Linux's per_cpu):
    its template address plus __per_cpu_offset[cpu]."""
    var = symbol(var_name)
    offset = int(symbol("__per_cpu_offset")[cpu])
    addr = (int(var.address) + offset) & 0xffffffffffffffff
    return gdb.Value(addr).cast(var.type.pointer()).dereference()


def selected_cpu():
    """The CPU of gdb's selected thread: QEMU's gdb stub numbers its vCPUs
    from thread 1."""
    th = gdb.selected_thread()
    return th.num - 1 if th else 0


def current_task(cpu=None):
    return per_cpu("current_task", selected_cpu() if cpu is None else cpu)


def nodes():
    """(nid, pg_data_t *) of every node with a pg_data_t."""
    node_data = symbol("node_data")
    return [(nid, node_data[nid]) for nid in range(array_len(node_data)) if int(node_data[nid])]


# ---- struct page ----------------------------------------------------------

def page_type():
    return lookup_type("struct page")


def vmemmap():
    return gdb.Value(const("VMEMMAP_START")).cast(page_type().pointer())


def pfn_to_page(pfn):
    return vmemmap() + pfn


def page_to_pfn(page):
    return (int(page) - const("VMEMMAP_START")) // page_type().sizeof


def pfn_valid(pfn):
    shift = const("SECTION_SIZE_BITS") - const("PAGE_SHIFT")
    present = symbol("mem_section_present")
    s = pfn >> shift
    if s >= array_len(present) * 8:
        return False
    return bool(int(present[s // 8]) >> (s % 8) & 1)


def page_flag_names():
    return enum_names("enum pageflags", "PG_")


def page_flag(page, name):
    return bool(int(page["flags"]) >> enum_value("PG_" + name) & 1)


def page_node(page):
    return int(page["flags"]) >> const("NODES_PGSHIFT")


def page_flags_value(page):
    return int(page["flags"]) & ((1 << const("NODES_PGSHIFT")) - 1)


def decode_page_flags(value):
    names = page_flag_names()
    return [names.get(b, "bit%d" % b) for b in range(const("NODES_PGSHIFT")) if value >> b & 1]


def cstr(value):
    """A char array or pointer as a str; bytes that are not UTF-8 (memory
    read before it was set up) are replaced, not fatal."""
    return value.string(errors="replace")


def parse_int(arg):
    return int(gdb.parse_and_eval(arg)) & 0xffffffffffffffff


def find_task(pid):
    """The struct task_struct * of a pid from the pid table (kernel/pid.c)."""
    for t in all_user_tasks():
        if int(t["pid"]) == pid:
            return t
    raise MmlabError("mmlab: no task with pid %d in the pid table" % pid)


def all_user_tasks():
    table = symbol("'kernel/pid.c'::pid_hash")
    if not int(symbol("'kernel/pid.c'::pid_hash_ready")):
        return []
    tasks = []
    for i in range(array_len(table)):
        tasks += list(list_for_each_entry(table[i], "struct task_struct", "pid_node"))
    return sorted(tasks, key=lambda t: int(t["pid"]))
