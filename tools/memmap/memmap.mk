# A picture of physical memory (tools/memmap/, docs/memmap.md). Included by
# the top Makefile.
#
# make memmap boots a machine (TOPOLOGY, default: default) with the
# command-line word page_owner_map and no boot program: the kernel prints
# the page-owner map as coloured text and then the file
# /proc/mmlab/page_owner_map run-length encoded; memmap.py cuts it out of
# the serial log and draws build/memmap.png. make tour does the same at
# each step of a tour (below), one PNG each in build/memmap/.
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

#> tour           pictures of memory after boot and at each tour step (or after each RUN= program), PNGs in build/memmap/
# The steps (tests/user/aux/tour_*.c, each printing the map while it holds
# what it made): the 2021 PTE-table workload in each pte_reclaim mode (a
# boot per mode), a THP-heavy program and a fragmented node. RUN=a,b
# instead: one boot, the map after boot and after each program.
TOUR_STEPS := off:tour_pte_tables,tour_thp,tour_fragment scan:tour_pte_tables refcount:tour_pte_tables
tour:
	@tools/deps.sh run
	@$(MAKE) -j$(JOBS) --no-print-directory $(B)/kernel.iso $(RUNNER)
	@rc=0; rm -f $(B)/tour.log; \
	if [ -n "$(RUN)" ]; then \
		$(RUNNER) run $(RUNNER_ARGS) --cmdline 'page_owner_map=tour run=$(RUN)' \
			$(or $(TOPOLOGY),default) > $(B)/tour.log || rc=$$?; \
	else for step in $(TOUR_STEPS); do \
		mode=$${step%%:*}; programs=$${step#*:}; \
		words="pte_reclaim=$$mode run=$$programs"; [ $$mode = off ] && words="page_owner_map $$words"; \
		echo "tour: booting with $$words"; \
		$(RUNNER) run $(RUNNER_ARGS) --cmdline "$$words" $(or $(TOPOLOGY),default) >> $(B)/tour.log || rc=$$?; \
	done; fi; \
	grep -v '^memmap-rle:' $(B)/tour.log; \
	python3 tools/memmap/memmap.py $(B)/tour.log --out-dir $(B)/memmap && exit $$rc
