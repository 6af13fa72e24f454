# The gdb helpers (tools/gdb/, docs/gdb.md). Included by the top Makefile.
#
# $(B)/kernel.elf-gdb.py: gdb's auto-load script for build/kernel.elf (gdb
# runs <objfile>-gdb.py when it opens the objfile from a path its
# auto-load safe-path trusts); it loads the helpers of this tree.
GDB_AUTOLOAD := $(B)/kernel.elf-gdb.py

$(GDB_AUTOLOAD): tools/gdb/gdb.mk
	@mkdir -p $(dir $@)
	$(say) GEN $@
	$(Q)printf '%s\n' '# Made by tools/gdb/gdb.mk: the mmlab gdb helpers of this tree.' \
		'import sys' 'sys.path.insert(0, "$(CURDIR)/tools/gdb")' 'import mmlab' 'mmlab.announce()' > $@

all: $(GDB_AUTOLOAD)
