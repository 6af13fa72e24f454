# tests/: the KUnit framework, the in-kernel suites and the in-kernel benchmarks.
# Linked into the kernel: adding a file here is the one deliberate step that
# builds it in (the top Makefile refuses a source file that no list names).
KERNEL_SRCS += \
	tests/acpi_test.c \
	tests/bench_mm.c \
	tests/bench_smp.c \
	tests/clear_page_test.c \
	tests/cmdline_test.c \
	tests/cpu_test.c \
	tests/elf_test.c \
	tests/entry_test.c \
	tests/expect.c \
	tests/file_test.c \
	tests/futex_test.c \
	tests/gup_test.c \
	tests/hugetlb_cmdline_test.c \
	tests/hugetlb_test.c \
	tests/init_test.c \
	tests/kernel_map_test.c \
	tests/kunit.c \
	tests/kunit_boot.c \
	tests/kunit_selftest.c \
	tests/memmap_test.c \
	tests/memory_test.c \
	tests/mm_smp_test.c \
	tests/mempolicy_test.c \
	tests/mmap_test.c \
	tests/mremap_test.c \
	tests/multiboot2_test.c \
	tests/overcommit_test.c \
	tests/page_alloc_smp_test.c \
	tests/page_alloc_test.c \
	tests/page_owner_map_test.c \
	tests/pgtable_test.c \
	tests/pt_reclaim_test.c \
	tests/printk_test.c \
	tests/process_test.c \
	tests/procfs_test.c \
	tests/pte_ref_test.c \
	tests/random_test.c \
	tests/ratelimit_test.c \
	tests/rcu_test.c \
	tests/sched_test.c \
	tests/thp_test.c \
	tests/thread_test.c \
	tests/slab_misuse_test.c \
	tests/slab_test.c \
	tests/smp_test.c \
	tests/string_test.c \
	tests/test_cpu.c \
	tests/test_mm.c \
	tests/topology_test.c \
	tests/user_test.c \
	tests/walkers_test.c \
	tests/vmalloc_bench.c \
	tests/vmalloc_gfp_test.c \
	tests/vmalloc_test.c
