# mm/: memory management.
# Linked into the kernel: adding a file here is the one deliberate step that
# builds it in (the top Makefile refuses a source file that no list names).
KERNEL_SRCS += \
	mm/change_protection.c \
	mm/clear_page.c \
	mm/clear_page_sysctl.c \
	mm/fail_page_alloc.c \
	mm/fault.c \
	mm/filemap.c \
	mm/gup.c \
	mm/huge_memory.c \
	mm/hugetlb.c \
	mm/hugetlb_cmdline.c \
	mm/hugetlb_vma.c \
	mm/interval_tree.c \
	mm/kernel_map.c \
	mm/kmalloc.c \
	mm/madvise.c \
	mm/mempolicy.c \
	mm/mempolicy_nodes.c \
	mm/migrate.c \
	mm/mlock.c \
	mm/msync.c \
	mm/memblock.c \
	mm/memory.c \
	mm/mincore.c \
	mm/mm_init.c \
	mm/mmap.c \
	mm/mmu_context.c \
	mm/mmu_gather.c \
	mm/mprotect.c \
	mm/mremap.c \
	mm/numa.c \
	mm/page_alloc.c \
	mm/page_alloc_checks.c \
	mm/page_alloc_init.c \
	mm/page_alloc_pcp.c \
	mm/page_alloc_stats.c \
	mm/page_owner_map.c \
	mm/page_owner_map_console.c \
	mm/pagewalk.c \
	mm/pgtable.c \
	mm/process_vm_access.c \
	mm/pt_reclaim.c \
	mm/rmap.c \
	mm/shmem.c \
	mm/pte_ref.c \
	mm/shrinker.c \
	mm/slab.c \
	mm/slab_common.c \
	mm/teardown.c \
	mm/truncate.c \
	mm/util.c \
	mm/vmalloc.c \
	mm/vmap_area.c \
	mm/vma.c \
	mm/vmstat.c
