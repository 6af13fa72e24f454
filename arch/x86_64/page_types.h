/* The sizes of x86_64 4-level paging (Linux's asm/page_types.h): what a
 * page, a PMD, a PUD and a PGD entry cover. Pure constants, shared by the
 * kernel and the host builds; where memory sits (arch/x86_64/page.h) is the
 * part the host build replaces. */
#ifndef ARCH_X86_64_PAGE_TYPES_H
#define ARCH_X86_64_PAGE_TYPES_H

#define PAGE_SHIFT 12
#define PAGE_SIZE (1ul << PAGE_SHIFT)
#define PAGE_MASK (~(PAGE_SIZE - 1))
#define PMD_SHIFT 21
#define PMD_SIZE (1ul << PMD_SHIFT)
#define PUD_SHIFT 30
#define PUD_SIZE (1ul << PUD_SHIFT)
#define PGDIR_SHIFT 39
#define PGDIR_SIZE (1ul << PGDIR_SHIFT)
#define PMD_MASK (~(PMD_SIZE - 1))
#define PUD_MASK (~(PUD_SIZE - 1))
#define PGDIR_MASK (~(PGDIR_SIZE - 1))

#endif
