/* PROVISIONAL skeleton (see mm/pte_ref.h): the series' patch 03 stubs, so
 * that the users of the interface build and behave as Linux 6.1 until the
 * refcount lands. */
#include "mm/pte_ref.h"
#include "mm/pgtable.h"

void pte_ref_init(struct page *pte, pmd_t *pmd, int count)
{
	(void)pte, (void)pmd, (void)count;
}

pmd_t *pte_to_pmd(pte_t *pte)
{
	return virt_to_page(pte)->pmd;
}

void pte_update_pmd(pmd_t old_pmd, pmd_t *new_pmd)
{
	pfn_to_page(pmd_pfn(old_pmd))->pmd = new_pmd;
}

void pte_get_many(pmd_t *pmd, unsigned int nr)
{
	(void)pmd, (void)nr;
}

bool pte_get_unless_zero(pmd_t *pmd)
{
	(void)pmd;
	return true;
}

enum pte_tryget_type pte_try_get(pmd_t *pmd)
{
	pmd_t val = pmdp_get(pmd);
	if (pmd_none(val))
		return TRYGET_FAILED_NONE;
	if (pmd_trans_huge(val))
		return TRYGET_FAILED_HUGE_PMD;
	return TRYGET_SUCCESSED;
}

pte_t *pte_tryget_map(struct mm_struct *mm, pmd_t *pmd, unsigned long address)
{
	(void)mm;
	if (pte_try_get(pmd))
		return NULL;
	return pte_offset_map(pmd, address);
}

pte_t *pte_tryget_map_lock(struct mm_struct *mm, pmd_t *pmd, unsigned long address,
			   spinlock_t **ptlp)
{
	if (pte_try_get(pmd))
		return NULL;
	return pte_offset_map_lock(mm, pmd, address, ptlp);
}

void pte_put_many(struct mm_struct *mm, pmd_t *pmd, unsigned long addr, unsigned int nr)
{
	(void)mm, (void)pmd, (void)addr, (void)nr;
}

void free_user_pte_table(struct mm_struct *mm, pmd_t *pmd, unsigned long addr,
			 struct mmu_gather *tlb)
{
	(void)mm, (void)pmd, (void)addr, (void)tlb;
}

unsigned long pte_ref_verify(struct mm_struct *mm)
{
	(void)mm;
	return 0;
}
