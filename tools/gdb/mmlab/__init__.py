# mmlab's gdb helpers: commands named mm-* that read the kernel's own
# structures by name from its debug information (docs/gdb.md). Importing
# the package registers every command.
from mmlab import utils, page, pgtable, buddy, slab, vmas, vmalloc, rcu, tasks  # noqa: F401

COMMANDS = ("mm-page", "mm-walk", "mm-ptdump", "mm-buddy", "mm-pcp", "mm-slab", "mm-vmas",
            "mm-vmalloc", "mm-rcu", "mm-ps")


def announce():
    import gdb
    gdb.write("mmlab: gdb helpers loaded: %s (help <command>)\n" % " ".join(COMMANDS))
