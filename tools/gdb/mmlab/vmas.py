# mm-vmas: a process's VMAs (mm/mm_types.h) with their NUMA policies.
import gdb

from mmlab import utils
from mmlab.utils import MmlabError

VM_FLAG_NAMES = ("READ", "WRITE", "EXEC", "SHARED", "MAYREAD", "MAYWRITE", "MAYEXEC", "MAYSHARE",
                 "GROWSDOWN", "LOCKED", "LOCKONFAULT", "SEQ_READ", "RAND_READ", "DONTCOPY",
                 "ACCOUNT", "NORESERVE", "HUGETLB", "WIPEONFORK", "DONTDUMP", "HUGEPAGE",
                 "NOHUGEPAGE")


def vm_flags_str(flags):
    return " ".join(n.lower() for n in VM_FLAG_NAMES if flags & utils.const("VM_" + n))


def node_list(bits):
    out, n = [], 0
    while n < 64:
        if bits >> n & 1:
            e = n
            while e + 1 < 64 and bits >> (e + 1) & 1:
                e += 1
            out.append("%d-%d" % (n, e) if e > n else "%d" % n)
            n = e
        n += 1
    return ",".join(out)


def policy_str(pol):
    """A struct mempolicy * as numa_maps prints it (mm/mempolicy.c's
    mpol_to_str, with the kernel's own names for the modes)."""
    c = utils.const
    modes = utils.symbol("'mm/mempolicy.c'::policy_modes")
    if not int(pol):
        return modes[utils.enum_value("MPOL_DEFAULT")].string()
    p = pol.dereference()
    mode, flags = int(p["mode"]), int(p["flags"])
    s = modes[mode].string()
    mode_flags = c("MPOL_F_STATIC_NODES") | c("MPOL_F_RELATIVE_NODES") | c("MPOL_F_NUMA_BALANCING")
    if flags & mode_flags:
        s += "="
        if flags & c("MPOL_F_STATIC_NODES"):
            s += "static"
        elif flags & c("MPOL_F_RELATIVE_NODES"):
            s += "relative"
        if flags & c("MPOL_F_NUMA_BALANCING"):
            if (flags & mode_flags) & ((flags & mode_flags) - 1):
                s += "|"
            s += "balancing"
    bits = 0 if mode == utils.enum_value("MPOL_LOCAL") else int(p["nodes"]["bits"][0])
    if bits:
        s += ":" + node_list(bits)
    return s


def vmas(mm):
    return utils.rb_inorder(mm["mm_rb"], "struct vm_area_struct", "vm_rb")


def perms(flags):
    c = utils.const
    return "%s%s%s%s" % ("r" if flags & c("VM_READ") else "-", "w" if flags & c("VM_WRITE") else "-",
                         "x" if flags & c("VM_EXEC") else "-", "s" if flags & c("VM_MAYSHARE") else "p")


class MmVmas(gdb.Command):
    """Show a process's VMAs with their policies: mm-vmas [PID]

PID's mm (default: the task on gdb's selected CPU), one line per VMA in
address order: start-end, permissions as /proc/<pid>/maps prints them,
size, the NUMA policy numa_maps shows (the VMA's own, else the task's,
marked "(task)"), its home node, whether it has an anon_vma, and the
vm_flags by name. Ends with map_count and the mm's counters."""

    def __init__(self):
        super().__init__("mm-vmas", gdb.COMMAND_USER)

    def invoke(self, arg, from_tty):
        argv = gdb.string_to_argv(arg)
        if argv:
            from mmlab.pgtable import mm_of_pid
            task, mm = mm_of_pid(int(argv[0]))
        else:
            task = utils.current_task()
            mm = task["mm"]
            if not int(mm):
                raise MmlabError("mm-vmas: the current task is a kernel thread: give a PID")
        gdb.write("pid %d (%s) mm %#x pgd %#x\n" % (int(task["pid"]), utils.cstr(task["comm"]),
                                                   int(mm), int(mm["pgd"])))
        for v in vmas(mm):
            vma = v.dereference()
            flags = int(vma["vm_flags"])
            pol = vma["vm_policy"]
            if int(pol):
                pstr = policy_str(pol)
            else:
                pstr = policy_str(task["mempolicy"]) + (" (task)" if int(task["mempolicy"]) else "")
            home = ""
            the_pol = pol if int(pol) else task["mempolicy"]
            if int(the_pol) and int(the_pol["home_node"]) >= 0:
                home = " home=%d" % int(the_pol["home_node"])
            gdb.write("%012x-%012x %s %8dK %-16s%s%s  %s\n" % (
                int(vma["vm_start"]), int(vma["vm_end"]), perms(flags),
                (int(vma["vm_end"]) - int(vma["vm_start"])) >> 10, pstr, home,
                " anon_vma" if int(vma["anon_vma"]) else "", vm_flags_str(flags)))
        rss = mm["rss_stat"][0]
        gdb.write("map_count %d total_vm %d pages rss %d pages pgtables %d bytes nr_ptes %d\n" % (
            int(mm["map_count"]), int(mm["total_vm"]), int(rss), int(mm["pgtables_bytes"]),
            int(mm["nr_ptes"])))


MmVmas()
