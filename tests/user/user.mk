# User-space test and benchmark programs (tests/user/), built twice from the
# same sources: for mmlab (static ELF64 executables on our own tiny C
# library, carried on the ISO as multiboot2 modules) and for the host Linux
# with its glibc, so that behaviour can be compared side by side.
# Included from the top-level Makefile, which defines B, CC, HOSTCC,
# HOST_CFLAGS, CROSS_COMPILE, Q and say.
#
#   USER_TEST_NAMES, USER_CRASH_NAMES, USER_BENCH_NAMES   the programs, by kind
#   USER_ELFS        $(B)/user/<name>.elf        (mmlab builds)
#   USER_LINUX_BINS  $(B)/user-linux/<name>      (host glibc builds)
#   USER_HOST_TESTS  $(B)/host/user-linux-runner (runs the Linux test and
#                    crash builds, prints KTAP suite "user_linux"; for the
#                    runner's --host)
#   make user-programs       builds USER_ELFS and USER_LINUX_BINS
#   make bench-user-linux    runs the Linux bench builds with --bench, figures
#                            in $(B)/bench/user-linux.txt
#   make user-elfs-on-host   runs the mmlab builds on the host Linux through
#                            the runner (a test of our C library; fails
#                            pte_table_growth by design: it asserts mmlab's
#                            VmPTE, which Linux with CONFIG_PT_RECLAIM frees)

USER_DIR := tests/user

# Programs: tests/user/tests/<name>.c (exit 0 pass, 77 skip, else fail),
# tests/user/crash/<name>.c (must be killed by a fault),
# tests/user/bench/<name>.c (run with --bench; "bench: what: value unit"),
# tests/user/demo/<name>.c (run at boot by `make run`),
# tests/user/aux/<name>.c (started by in-kernel tests: tests/process_test.c).
USER_TEST_NAMES := mmap_basic munmap_partial mprotect_split madvise_advice brk_sbrk \
	efault procfs syscall_misc pte_table_growth libc_basic arch_prctl getrandom tty_stat readlink_self iov_errors auxv avx_state
USER_CRASH_NAMES := null_write readonly_write nx_exec unmapped_write
USER_BENCH_NAMES := multi_fault mmap_munmap pte_table_growth_full
USER_DEMO_NAMES := mm_tour
USER_AUX_NAMES := exit_with spin
USER_NAMES := $(USER_TEST_NAMES) $(USER_CRASH_NAMES) $(USER_BENCH_NAMES) $(USER_DEMO_NAMES) \
	$(USER_AUX_NAMES)

# A program's source is found by looking in each kind's folder; a name must
# be in exactly one of them (else which one is built would be an accident).
USER_KIND_DIRS := tests crash bench demo aux
user_srcs = $(wildcard $(patsubst %,$(USER_DIR)/%/$(1).c,$(USER_KIND_DIRS)))
user_src = $(firstword $(call user_srcs,$(1)))
$(foreach n,$(USER_NAMES),$(if $(call user_src,$(n)),,\
	$(error tests/user: no $(n).c in any of $(USER_KIND_DIRS)))$(if $(word 2,$(call user_srcs,$(n))),\
	$(error tests/user: $(n).c is in more than one folder: $(call user_srcs,$(n)))))

USER_ELFS := $(patsubst %,$(B)/user/%.elf,$(USER_NAMES))
USER_LINUX_BINS := $(patsubst %,$(B)/user-linux/%,$(USER_NAMES))
USER_HOST_TESTS := $(B)/host/user-linux-runner

# The mmlab build: freestanding, our headers first, then the compiler's
# (stdint.h, stddef.h, stdarg.h, stdbool.h, limits.h via ours); static
# non-PIE at ld's default 0x400000; no TLS, so no stack protector.
# -fno-tree-loop-distribute-patterns keeps memset/memcpy from calling
# themselves. -MD, not -MMD: our headers are system headers here.
USER_CFLAGS := -std=gnu11 -O2 -g -Wall -Wextra -Werror -Wmissing-prototypes -Wmissing-declarations \
	-ffreestanding -nostdinc -isystem $(USER_DIR)/include \
	-isystem $(shell $(CC) -print-file-name=include) -D__mmlab__ \
	-fno-pie -fno-stack-protector -fno-tree-loop-distribute-patterns \
	-ffunction-sections -fdata-sections -I$(USER_DIR)/common -MD -MP
USER_LDFLAGS := -static -nostdlib -no-pie -Wl,--gc-sections -Wl,-z,max-page-size=0x1000 \
	-Wl,-z,noexecstack -Wl,--build-id=none
USER_OBJ := $(B)/user/obj
USER_LIB_OBJS := $(patsubst $(USER_DIR)/%,$(USER_OBJ)/%.o,$(basename $(wildcard $(USER_DIR)/lib/*.c $(USER_DIR)/lib/*.S)))
USER_CHECK_OBJ := $(USER_OBJ)/common/check.o

$(USER_OBJ)/%.o: $(USER_DIR)/%.c
	@mkdir -p $(dir $@)
	$(say) CC-USER $<
	$(Q)$(CC) $(USER_CFLAGS) -c $< -o $@

$(USER_OBJ)/%.o: $(USER_DIR)/%.S
	@mkdir -p $(dir $@)
	$(say) AS-USER $<
	$(Q)$(CC) $(USER_CFLAGS) -c $< -o $@

# The Linux build: the same sources against glibc.
USER_LINUX_CFLAGS := $(HOST_CFLAGS) -D_GNU_SOURCE -I$(USER_DIR)/common -MMD -MP

# crt0 first, so _start opens .text; libgcc for whatever gcc calls out to.
define user_program_rules
$(B)/user/$(1).elf: $(USER_OBJ)/$(patsubst $(USER_DIR)/%.c,%.o,$(call user_src,$(1))) $(USER_LIB_OBJS) $(USER_CHECK_OBJ)
	$$(say) LD-USER $$@
	$$(Q)$$(CC) $$(USER_LDFLAGS) -o $$@ $(USER_OBJ)/lib/crt0.o $$(filter-out %/crt0.o,$$^) -lgcc
$(B)/user-linux/$(1): $(call user_src,$(1)) $(USER_DIR)/common/check.c
	@mkdir -p $$(dir $$@)
	$$(say) HOSTCC $$@
	$$(Q)$$(HOSTCC) $$(USER_LINUX_CFLAGS) -o $$@ $$(filter %.c,$$^)
endef
$(foreach n,$(USER_NAMES),$(eval $(call user_program_rules,$(n))))

# The runner finds the programs in ../user-linux next to itself.
$(USER_HOST_TESTS): $(USER_DIR)/linux_runner.c $(USER_LINUX_BINS)
	@mkdir -p $(dir $@)
	$(say) HOSTCC $@
	$(Q)$(HOSTCC) $(HOST_CFLAGS) -D_GNU_SOURCE \
		-DUSER_TEST_NAMES='"$(USER_TEST_NAMES)"' -DUSER_CRASH_NAMES='"$(USER_CRASH_NAMES)"' \
		-o $@ $(USER_DIR)/linux_runner.c

.PHONY: user-programs bench-user-linux user-elfs-on-host
user-programs: $(USER_ELFS) $(USER_LINUX_BINS)

bench-user-linux: $(patsubst %,$(B)/user-linux/%,$(USER_BENCH_NAMES))
	@mkdir -p $(B)/bench
	@for p in $(USER_BENCH_NAMES); do \
		echo "== $$p (host Linux, native)"; \
		$(B)/user-linux/$$p --bench || echo "bench: $$p: FAILED (exit $$?)"; \
	done 2>&1 | tee $(B)/bench/user-linux.txt

user-elfs-on-host: $(USER_HOST_TESTS) $(USER_ELFS)
	$(USER_HOST_TESTS) --dir $(B)/user --suffix .elf --suite user_elf_on_linux

-include $(wildcard $(USER_OBJ)/*/*.d $(B)/user-linux/*.d)
