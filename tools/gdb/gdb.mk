# The gdb helpers (tools/gdb/, docs/gdb.md). Included by the top Makefile.
#
# $(B)/kernel.elf-gdb.py: gdb's auto-load script for build/kernel.elf (gdb
# runs <objfile>-gdb.py when it opens the objfile from a path its
# auto-load safe-path trusts); it loads the helpers of this tree.
# GDB_CHECK: the scripted gdb session against a halted boot, a host
# program of make test (tools/gdb/gdb-check prints KTAP).
GDB_AUTOLOAD := $(B)/kernel.elf-gdb.py
GDB_CHECK := tools/gdb/gdb-check

$(GDB_AUTOLOAD): tools/gdb/gdb.mk
	@mkdir -p $(dir $@)
	$(say) GEN $@
	$(Q)printf '%s\n' '# Made by tools/gdb/gdb.mk: the mmlab gdb helpers of this tree.' \
		'import sys' 'sys.path.insert(0, "$(CURDIR)/tools/gdb")' 'import mmlab' 'mmlab.announce()' > $@

all: $(GDB_AUTOLOAD)
# The check boots the ISO and loads the helpers through the auto-load script.
$(GDB_CHECK): $(GDB_AUTOLOAD)
HOST_TESTS += $(GDB_CHECK)

.PHONY: gdb-check
#> gdb-check      the gdb check alone: the mm-* helpers against a halted boot (KTAP; docs/gdb.md)
gdb-check:
	@tools/deps.sh test
	@$(MAKE) -j$(JOBS) --no-print-directory $(B)/kernel.iso $(RUNNER) $(GDB_AUTOLOAD)
	@$(GDB_CHECK)
