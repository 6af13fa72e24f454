/* The values the gdb helpers (tools/gdb/mmlab/) need that DWARF does not
 * carry: #define constants. Structures, enums and array sizes the helpers
 * read by name from the debug information; this table gives them the
 * rest, by name, from the very image they debug, so a changed value can
 * never disagree with a copy in Python. gdb reads it from the ELF file, so
 * it works without a running machine too.
 *
 * Invariant: every name here is the C name of the constant; the helpers
 * fail with the missing name (tools/gdb/mmlab/constants.py) rather than
 * guess. */
#include "arch/x86_64/page.h"
#include "arch/x86_64/pgtable.h"
#include "kernel/sched.h"
#include "mm/mempolicy.h"
#include "mm/mm_types.h"
#include "mm/page.h"
#include "mm/vmalloc.h"

struct gdb_constant {
	const char *name;
	unsigned long value;
};

#define C(x) { #x, (unsigned long)(x) }

const struct gdb_constant gdb_constants[] __used = {
	/* the address space (arch/x86_64/page.h, page_types.h) */
	C(PAGE_SHIFT), C(PAGE_OFFSET), C(KERNEL_VMA), C(VMEMMAP_START),
	C(PMD_SHIFT), C(PUD_SHIFT), C(PGDIR_SHIFT), C(TASK_SIZE),
	C(VMALLOC_START), C(VMALLOC_END),
	/* page-table entries (arch/x86_64/pgtable.h) */
	C(_PAGE_PRESENT), C(_PAGE_RW), C(_PAGE_USER), C(_PAGE_PWT), C(_PAGE_PCD),
	C(_PAGE_ACCESSED), C(_PAGE_DIRTY), C(_PAGE_PSE), C(_PAGE_GLOBAL), C(_PAGE_NX),
	C(_PAGE_PROTNONE), C(PTE_PFN_MASK), C(PTRS_PER_TABLE),
	/* struct page (mm/page.h) */
	C(NODES_PGSHIFT), C(SECTION_SIZE_BITS), C(MAX_PHYSMEM_BITS),
	/* vm_flags (mm/mm_types.h) */
	C(VM_READ), C(VM_WRITE), C(VM_EXEC), C(VM_SHARED), C(VM_MAYREAD), C(VM_MAYWRITE),
	C(VM_MAYEXEC), C(VM_MAYSHARE), C(VM_GROWSDOWN), C(VM_LOCKED), C(VM_LOCKONFAULT),
	C(VM_SEQ_READ), C(VM_RAND_READ), C(VM_DONTCOPY), C(VM_ACCOUNT), C(VM_NORESERVE),
	C(VM_HUGETLB), C(VM_WIPEONFORK), C(VM_DONTDUMP), C(VM_HUGEPAGE), C(VM_NOHUGEPAGE),
	/* vm_struct flags (mm/vmalloc.h) */
	C(VM_IOREMAP), C(VM_ALLOC), C(VM_MAP), C(VM_USERMAP), C(VM_UNINITIALIZED),
	C(VM_NO_GUARD), C(VM_STACK),
	/* mempolicy mode flags (mm/mempolicy.h) */
	C(MPOL_F_STATIC_NODES), C(MPOL_F_RELATIVE_NODES), C(MPOL_F_NUMA_BALANCING),
	/* tasks (kernel/sched.h) */
	C(TASK_RUNNING), C(TASK_INTERRUPTIBLE), C(TASK_UNINTERRUPTIBLE), C(__TASK_STOPPED), C(TASK_DEAD),
	C(PF_IDLE), C(PF_KTHREAD), C(THREAD_SIZE),
};
const unsigned long nr_gdb_constants __used = ARRAY_SIZE(gdb_constants);
