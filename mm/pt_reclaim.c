/* The mode switch (mm/pt_reclaim.h). PROVISIONAL skeleton: the scan design,
 * the command-line option and the sysctl come with issue 11. */
#include "mm/pt_reclaim.h"
#include "kernel/types.h"

enum pte_reclaim_mode pte_reclaim_mode = PTE_RECLAIM_REFCOUNT;

const char *pte_reclaim_mode_name(enum pte_reclaim_mode mode)
{
	switch (mode) {
	case PTE_RECLAIM_OFF:
		return "off";
	case PTE_RECLAIM_SCAN:
		return "scan";
	case PTE_RECLAIM_REFCOUNT:
		return "refcount";
	}
	return "?";
}

int pte_reclaim_set_mode(enum pte_reclaim_mode mode)
{
	pte_reclaim_mode = mode; /* PROVISIONAL: no -EBUSY check yet */
	return 0;
}
