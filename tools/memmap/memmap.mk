# A picture of physical memory (tools/memmap/, docs/memmap.md). Included by
# the top Makefile.
#
# make memmap boots a machine (TOPOLOGY, default: default) with the
# command-line word page_owner_map and no boot program: the kernel prints
# the page-owner map as coloured text and then the file
# /proc/mmlab/page_owner_map run-length encoded; memmap.py cuts it out of
# the serial log and draws build/memmap.png. make tour does the same with
# page_owner_map=tour and the demo programs: a map after boot and after
# each program, one PNG each in build/memmap/.
MEMMAP_SELFTEST := tools/memmap/memmap-selftest
HOST_TESTS += $(MEMMAP_SELFTEST)

.PHONY: memmap tour
#> memmap         the map of page owners after boot, on the console and as build/memmap.png
memmap:
	@tools/deps.sh run
	@$(MAKE) -j$(JOBS) --no-print-directory $(B)/kernel.iso $(RUNNER)
	@$(RUNNER) run $(RUNNER_ARGS) --cmdline 'page_owner_map run=none' $(or $(TOPOLOGY),default) \
		> $(B)/memmap.log; rc=$$?; grep -v '^memmap-rle:' $(B)/memmap.log; \
	python3 tools/memmap/memmap.py $(B)/memmap.log -o $(B)/memmap.png && exit $$rc

#> tour           the map after boot and after each demo program (page_owner_map=tour), PNGs in build/memmap/
tour:
	@tools/deps.sh run
	@$(MAKE) -j$(JOBS) --no-print-directory $(B)/kernel.iso $(RUNNER)
	@$(RUNNER) run $(RUNNER_ARGS) --cmdline 'page_owner_map=tour $(if $(RUN),run=$(RUN))' \
		$(or $(TOPOLOGY),default) > $(B)/tour.log; rc=$$?; grep -v '^memmap-rle:' $(B)/tour.log; \
	python3 tools/memmap/memmap.py $(B)/tour.log --out-dir $(B)/memmap && exit $$rc
