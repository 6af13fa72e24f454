/* Swap entries in page tables (Linux's include/linux/swapops.h): the
 * architecture's PTE form (arch/x86_64/pgtable.h: Linux's x86_64 layout)
 * to and from the swp_entry_t that names a slot (mm/swapfile.h). */
#ifndef MM_SWAPOPS_H
#define MM_SWAPOPS_H

#include "arch/x86_64/pgtable.h"
#include "mm/swapfile.h"

static inline swp_entry_t pte_to_swp_entry(pte_t pte) { return swp_entry(__swp_type(pte), __swp_offset(pte)); }
static inline pte_t swp_entry_to_pte(swp_entry_t entry) { return __swp_entry(swp_type(entry), swp_offset(entry)); }

#endif
