# Host-side builds of the portable mm code: unit tests under ASan+UBSan
# (run by `make test` through the runner's --host) and native benchmarks.
# Included from the top-level Makefile, which defines HOSTCC, B, HOST_CFLAGS
# and SANITIZE.
#
#   make host-tests   build $(HOST_MM_TESTS) (and the runner's selftest)
#   make bench-host   build with -O2, no sanitizers; run; write
#                     $(B)/bench/host.txt and $(B)/bench/host.json
#
# BENCH_ARGS passes options to the benchmark (e.g. BENCH_ARGS='--runs 31');
# bench-host runs the page allocator's in 5 processes of 5 runs, each a
# new address-space layout (BENCH_ARGS='--processes 1' for one).

# The shadow headers (tests/host/include/) come first: they replace the
# hardware's headers under the same paths, so production code has no host
# conditionals.
HOST_MM_CFLAGS := $(HOST_CFLAGS) -Itests/host/include -I. -MMD -MP
HOST_MM_DIR := $(B)/host/mm

# The portable code under test and the shim standing in for the kernel.
# lib/string.c is not compiled: libc provides the same functions.
HOST_SHIM_SRCS := tests/host/shim.c tests/host/ktest.c
HOST_MEMBLOCK_SRCS := mm/memblock.c mm/numa.c kernel/topology.c
HOST_PAGE_ALLOC_SRCS := $(HOST_MEMBLOCK_SRCS) mm/page_alloc.c mm/fail_page_alloc.c mm/page_alloc_pcp.c \
	mm/page_alloc_checks.c mm/page_alloc_fallback.c mm/page_alloc_init.c mm/page_alloc_stats.c mm/shrinker.c \
	kernel/spinlock.c lib/ratelimit.c tests/host/mm_boot.c tests/host/host_reclaim.c
HOST_SLAB_SRCS := $(HOST_PAGE_ALLOC_SRCS) $(wildcard mm/slab.c mm/slab_common.c mm/kmalloc.c)

# A test is listed only when the code it tests exists, so the fragment works
# while mm/ grows.
HOST_MM_TESTS := $(B)/host/memblock_test
ifneq ($(wildcard mm/page_alloc.c),)
HOST_MM_TESTS += $(B)/host/page_alloc_test $(B)/host/page_alloc_checks_test $(B)/host/page_alloc_nodemask_test
HOST_MM_TESTS += $(B)/host/tiny_node_test $(B)/host/numa_layout_test
endif
ifneq ($(wildcard mm/slab.c),)
HOST_MM_TESTS += $(B)/host/slab_test $(B)/host/slab_node_fallback_test
endif
HOST_MM_TESTS += $(B)/host/vma_test
HOST_MM_TESTS += $(B)/host/vmalloc_tree_test
HOST_MM_TESTS += $(B)/host/interval_tree_test
HOST_MM_TESTS += $(B)/host/mempolicy_test
HOST_MM_TESTS += $(B)/host/clear_page_test
HOST_MM_TESTS += $(B)/host/vsprintf_test
HOST_MM_TESTS += $(B)/host/log2_test
HOST_MM_TESTS += $(B)/host/initramfs_test
HOST_MM_TESTS += $(B)/host/programs_test

# Objects: sanitized ones for the tests, plain -O2 ones for the benchmark.
# The tests have CONFIG_DEBUG_VM, as the kernel's test boots (DEBUG_VM=1):
# the page allocator's checks, which they test, are debug checks. The
# benchmark has not, as the kernel's benchmark boots (DEBUG_VM=0).
$(HOST_MM_DIR)/$(SANITIZE_NAME)/%.o: %.c tests/host/host.mk
	@mkdir -p $(dir $@)
	$(say) HOSTCC $<
	$(Q)$(HOSTCC) $(HOST_MM_CFLAGS) -DCONFIG_DEBUG_VM $(SANITIZE) -c $< -o $@

$(HOST_MM_DIR)/opt/%.o: %.c tests/host/host.mk
	@mkdir -p $(dir $@)
	$(say) HOSTCC $<
	$(Q)$(HOSTCC) $(HOST_MM_CFLAGS) -DNDEBUG $(if $(filter mm/% kernel/%,$<),$(HOST_KERNEL_CODEGEN)) -c $< -o $@

# The kernel's own files in the benchmark are compiled as the kernel
# compiles them where that decides the instructions: general registers only
# (the kernel has no SSE; on the host GCC would pair two 8-byte stores of a
# list head into one vector store, two instructions more each time), frame
# pointers kept. So the host times the kernel's instructions.
HOST_KERNEL_CODEGEN := -mgeneral-regs-only -fno-omit-frame-pointer -mno-omit-leaf-frame-pointer

host_san_objs = $(patsubst %.c,$(HOST_MM_DIR)/$(SANITIZE_NAME)/%.o,$(1))
host_opt_objs = $(patsubst %.c,$(HOST_MM_DIR)/opt/%.o,$(1))

# What each test program links besides its own tests/host/<name>.c and the
# shim: one pattern rule below links them all.
memblock_test_SRCS := $(HOST_MEMBLOCK_SRCS)
PAGE_ALLOC_HARNESS_SRCS := tests/host/page_alloc_harness.c tests/host/mm_check.c $(HOST_PAGE_ALLOC_SRCS)
page_alloc_test_SRCS := $(PAGE_ALLOC_HARNESS_SRCS)
page_alloc_checks_test_SRCS := $(PAGE_ALLOC_HARNESS_SRCS)
page_alloc_nodemask_test_SRCS := $(PAGE_ALLOC_HARNESS_SRCS)
tiny_node_test_SRCS := $(PAGE_ALLOC_HARNESS_SRCS)
numa_layout_test_SRCS := tests/host/mm_check.c $(HOST_PAGE_ALLOC_SRCS)
slab_test_SRCS := tests/host/slab_harness.c tests/host/mm_check.c $(HOST_SLAB_SRCS)
slab_node_fallback_test_SRCS := $(slab_test_SRCS)
# The VMA layer with mm/memory.c, the mmu_gather and kmalloc stubbed out.
HOST_VMA_SRCS := lib/rbtree.c kernel/spinlock.c mm/vma.c mm/interval_tree.c mm/rmap.c mm/mmap.c mm/mprotect.c mm/madvise.c
vma_test_SRCS := tests/host/vma_random.c tests/host/vma_rbtree.c tests/host/vma_stubs.c tests/host/vma_shmem_stubs.c \
	$(HOST_VMA_SRCS) $(HOST_MEMBLOCK_SRCS)

# The portable half of the NUMA policies (user copies stubbed in the test).
mempolicy_test_SRCS := mm/mempolicy_nodes.c $(HOST_MEMBLOCK_SRCS)

# The huge-page clearing policy, with recording stand-ins for the assembly
# routines (the test defines them: the .asm is not linked).
clear_page_test_SRCS := mm/clear_page.c $(HOST_MEMBLOCK_SRCS)

# The kernel's vsnprintf: the test includes lib/vsprintf.c itself, under
# other names, beside the C library's (the shim it links wants the NUMA
# model).
vsprintf_test_SRCS := $(HOST_MEMBLOCK_SRCS)

# get_order and order_base_2 (lib/getorder.h, lib/log2.h): headers only
# (the shim it links wants the NUMA model).
log2_test_SRCS := $(HOST_MEMBLOCK_SRCS)

# The vmalloc area's free-range tree (mm/vmap_area.c): portable, no stubs.
vmalloc_tree_test_SRCS := mm/vmap_area.c lib/rbtree.c $(HOST_MEMBLOCK_SRCS)

# The VMA interval tree (mm/interval_tree.c, a file's i_mmap); the test
# defines the rwsem calls its i_mmap half names (and never makes).
interval_tree_test_SRCS := mm/interval_tree.c lib/rbtree.c $(HOST_MEMBLOCK_SRCS)

# The initramfs unpacker (fs/initramfs.c) against a fake of fs/init.h's
# helpers (tests/host/fake_init_fs.c), on archives written at build time
# by Debian's cpio and by tools/gen_init_cpio.c (tests/host/
# initramfs_fixture.sh: C bytes in $(B)/host; GEN_INIT_CPIO is
# tools/initramfs/initramfs.mk's).
INITRAMFS_FIXTURE := $(B)/host/initramfs_fixture.c
initramfs_test_SRCS := fs/initramfs.c tests/host/fake_init_fs.c $(INITRAMFS_FIXTURE) $(HOST_MEMBLOCK_SRCS)
$(INITRAMFS_FIXTURE): tests/host/initramfs_fixture.sh $(GEN_INIT_CPIO)
	@mkdir -p $(dir $@)
	$(say) CPIO $@
	$(Q)$< $@ $(GEN_INIT_CPIO)

# The registry of user programs and its manifest parser (fs/programs.c).
programs_test_SRCS := fs/programs.c $(HOST_MEMBLOCK_SRCS)

.SECONDEXPANSION:
$(HOST_MM_TESTS): $(B)/host/%: $$(call host_san_objs,tests/host/$$*.c $$($$*_SRCS) $$(HOST_SHIM_SRCS)) \
		$(SANITIZE_STAMP)
	$(say) LINK $@
	$(Q)$(HOSTCC) $(SANITIZE) -o $@ $(filter-out $(SANITIZE_STAMP),$^)

# The page allocator's peer, measured in the same runs when its source is at
# hand: cloudwu/buddy, a tree over the arena (tests/host/bench_peer_tree.c).
# It carries no license, so it is not in this repository; name a checkout:
#   git clone https://github.com/cloudwu/buddy ../cloudwu-buddy  # e405df7
#   make bench-host CLOUDWU_BUDDY=../cloudwu-buddy
# Its buddy.c is built as its own Makefile would, with -O2 -DNDEBUG (its
# asserts off, as ours are). Without CLOUDWU_BUDDY the tree's column is "-".
CLOUDWU_BUDDY ?=
BENCH_PEER_STAMP := $(B)/host/bench-peer
ifneq ($(CLOUDWU_BUDDY),)
BENCH_PEER_OBJS := $(HOST_MM_DIR)/opt/tests/host/bench_peer_tree.o $(HOST_MM_DIR)/peer/cloudwu_buddy.o
$(HOST_MM_DIR)/peer/cloudwu_buddy.o: $(CLOUDWU_BUDDY)/buddy.c $(BENCH_PEER_STAMP)
	@mkdir -p $(dir $@)
	$(say) HOSTCC $<
	$(Q)$(HOSTCC) -O2 -DNDEBUG -c $< -o $@
endif
$(BENCH_PEER_STAMP): FORCE
	@mkdir -p $(dir $@)
	@echo '$(abspath $(CLOUDWU_BUDDY))' | cmp -s - $@ 2>/dev/null || echo '$(abspath $(CLOUDWU_BUDDY))' > $@

$(B)/host/bench_page_alloc: $(call host_opt_objs,tests/host/bench_page_alloc.c tests/host/bench_floor.c \
		$(HOST_PAGE_ALLOC_SRCS) tests/host/shim.c) \
		$(BENCH_PEER_OBJS) $(BENCH_PEER_STAMP)
	$(say) LINK $@
	$(Q)$(HOSTCC) -o $@ $(filter-out $(BENCH_PEER_STAMP),$^)

# The vmalloc area's range allocator against a linked-list first fit.
$(B)/host/vmalloc_bench: $(call host_opt_objs,tests/host/vmalloc_bench.c mm/vmap_area.c lib/rbtree.c)
	$(say) LINK $@
	$(Q)$(HOSTCC) -o $@ $^

# The page clearing routines and policy, natively: the kernel's own
# assembly, assembled again for the host.
$(HOST_MM_DIR)/opt/%.o: %.asm
	@mkdir -p $(dir $@)
	$(say) NASM $<
	$(Q)$(NASM) -f elf64 -o $@ $<

$(B)/host/bench_clear_page: $(call host_opt_objs,tests/host/bench_clear_page.c mm/clear_page.c arch/x86_64/cacheinfo.c \
		tests/host/shim.c $(HOST_MEMBLOCK_SRCS)) $(HOST_MM_DIR)/opt/arch/x86_64/clear_page.o
	$(say) LINK $@
	$(Q)$(HOSTCC) -o $@ $^

.PHONY: host-tests bench-host
#> host-tests     build the host tests of the portable mm code and the runner's self-test
host-tests: $(HOST_MM_TESTS) $(B)/host/runner-selftest

#> bench-icount   the page allocator's figures in instructions per pair, counted by callgrind
#>                (deterministic on a loaded machine; the hot pair's floor model beside it;
#>                CLOUDWU_BUDDY=... for the tree's columns, alone and locked;
#>                build/bench/host-icount.txt)
.PHONY: bench-icount
bench-icount: $(B)/host/bench_page_alloc
	@tools/deps.sh bench
	@mkdir -p $(B)/bench
	tools/bench-icount.sh $(B)/host/bench_page_alloc $(ICOUNT_FIGURES) | tee $(B)/bench/host-icount.txt

#> bench-host     the host-native benchmarks: page allocator, vmalloc ranges, page clearing
bench-host: $(B)/host/bench_page_alloc $(B)/host/vmalloc_bench $(B)/host/bench_clear_page
	@mkdir -p $(B)/bench
	$(B)/host/bench_clear_page --text $(B)/bench/host-clear-page.txt $(CLEAR_BENCH_ARGS)
	$(B)/host/bench_page_alloc --text $(B)/bench/host.txt --json $(B)/bench/host.json --processes 5 --runs 5 \
		$(BENCH_ARGS)
	$(B)/host/vmalloc_bench --text $(B)/bench/host-vmalloc.txt

-include $(shell find $(HOST_MM_DIR) -name '*.d' 2>/dev/null)
