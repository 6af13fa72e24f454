# Included by the top Makefile.
# Hostile firmware tables (tools/hostile/): hostile_gen writes
# HOSTILE_COUNT cases (the first 39 are one of each class: SRAT, SLIT, MADT, NUMA layout, MCFG,
# each naming the field it damages) from HOSTILE_SEED into build/hostile/:
# a table file, a .topo (the machine, how the table gets there, the
# warnings the kernel must print) and the GRUB case files of
# build/hostile/hostile.iso (the kernel alone, booted with
# tools/hostile/grub.cfg). `make test` boots HOSTILE_COUNT of them beside
# the matrix; `make test-hostile` boots HOSTILE_LONG_COUNT alone.
HOSTILE_SEED ?= 1
HOSTILE_COUNT ?= 39
HOSTILE_LONG_COUNT ?= 360
HOSTILE := $(B)/hostile
$(B)/host/hostile_gen: tools/hostile/hostile_gen.c
	@mkdir -p $(dir $@)
	$(say) HOSTCC $@
	$(Q)$(HOSTCC) $(HOST_CFLAGS) -o $@ $<
# $(1): how many cases. Regenerated on every run (a few milliseconds, and
# the ISO takes a few seconds), so the seed and count are always the ones asked.
define hostile_prepare
	$(Q)rm -rf $(HOSTILE) && $(B)/host/hostile_gen --seed $(HOSTILE_SEED) --count $(1) \
		--out $(HOSTILE) --iso $(HOSTILE)/hostile.iso
	$(Q)mkdir -p $(HOSTILE)/iso/boot/grub && $(call iso_kernel,$(B)/kernel.elf,$(HOSTILE)/iso/boot/kernel.elf) && \
		cp tools/hostile/grub.cfg $(HOSTILE)/iso/boot/grub/grub.cfg
	$(Q)grub-mkrescue -o $(HOSTILE)/hostile.iso $(HOSTILE)/iso > $(HOSTILE)/grub-mkrescue.log 2>&1 || \
		{ cat $(HOSTILE)/grub-mkrescue.log; exit 1; }
endef
.PHONY: hostile-cases test-hostile
#> hostile-cases  write HOSTILE_COUNT hostile-firmware cases (build/hostile/), booted by make test
#> test-hostile   boot HOSTILE_LONG_COUNT hostile-firmware cases alone (HOSTILE_SEED=n)
hostile-cases: $(B)/kernel.elf $(B)/host/hostile_gen
	$(call hostile_prepare,$(HOSTILE_COUNT))
test-hostile:
	@tools/deps.sh test
	@$(MAKE) -j$(JOBS) --no-print-directory $(B)/kernel.elf $(B)/host/hostile_gen $(RUNNER)
	$(call hostile_prepare,$(HOSTILE_LONG_COUNT))
	@$(RUNNER) test --iso $(HOSTILE)/hostile.iso --topologies $(HOSTILE)/topologies --accel $(ACCEL) \
		--results $(B)/hostile-results --jobs $(JOBS)

