/* Swap count continuations (Linux 6.1's add_swap_count_continuation,
 * swap_count_continued and free_swap_count_continuations, mm/swapfile.c):
 * a slot's count byte holds up to SWAP_MAP_MAX (62) references; past
 * that its COUNT_CONTINUED bit says the count goes on in continuation
 * pages, so that a page swapped out in a process that then forks a
 * hundred times has a slot that counts them all.
 *
 * The continuation pages of the slots of one page of swap_map (PAGE_SIZE
 * slots) are a list (si->cont_heads[offset / PAGE_SIZE]; Linux hangs it on
 * the vmalloc page of swap_map itself, page->lru), each page one byte per
 * slot at the slot's offset within its swap_map page. Read as digits:
 * swap_map's byte holds the lowest, 0..SWAP_MAP_MAX; each continuation
 * byte the next, 0..SWAP_CONT_MAX (127), in units of the product of
 * those below it, with COUNT_CONTINUED set while a higher digit is non-
 * zero. Adding 1 to a byte at its maximum carries (Linux: "think of how
 * you add 1 to 999"), subtracting 1 from 0 borrows ("subtract 1 from
 * 1000").
 *
 * A continuation page is allocated with no lock held (the caller's
 * gfp: GFP_ATOMIC from swap_duplicate, GFP_KERNEL from fork's retry, as
 * Linux's copy_pte_range) and added under swap_lock if still needed; the
 * pages stay until swapoff frees them (Linux's too). */
#include "mm/swapfile.h"
#include "mm/mm_inline.h"
#include "mm/page_alloc.h"
#include "mm/slab.h"

static unsigned long cont_heads_nr(const struct swap_info_struct *si)
{
	return (si->max + PAGE_SIZE - 1) / PAGE_SIZE;
}

int alloc_swap_count_heads(struct swap_info_struct *si)
{
	si->cont_heads = kcalloc(cont_heads_nr(si), sizeof(*si->cont_heads), GFP_KERNEL);
	return si->cont_heads ? 0 : -ENOMEM;
}

static struct list_head *cont_head(struct swap_info_struct *si, unsigned long offset)
{
	return &si->cont_heads[offset / PAGE_SIZE];
}

static unsigned char *cont_byte(struct page *page, unsigned long offset)
{
	return (unsigned char *)page_address(page) + offset % PAGE_SIZE;
}

static struct page *cont_next(struct list_head *head, struct page *page)
{
	struct list_head *n = page ? folio_lru(page)->next : head->next;
	return n == head ? NULL : lru_to_folio(n);
}

static struct page *cont_prev(struct list_head *head, struct page *page)
{
	struct list_head *p = folio_lru(page)->prev;
	return p == head ? NULL : lru_to_folio(p);
}

bool swap_count_continued_locked(struct swap_info_struct *si, unsigned long offset, unsigned char count)
{
	struct list_head *head = cont_head(si, offset);
	if (!head->next || list_empty(head))
		return false; /* no continuation yet: the caller adds one */
	struct page *page = cont_next(head, NULL);
	unsigned char *map = cont_byte(page, offset);
	if (count == SWAP_MAP_MAX) {
		/* The first carry out of swap_map's byte: the page's byte
		 * was never written for this slot. */
		*map = 1;
		return true;
	}
	if (count == (SWAP_MAP_MAX | COUNT_CONTINUED)) {
		/* Incrementing: past the digits at their maximum... */
		while (*map == (SWAP_CONT_MAX | COUNT_CONTINUED)) {
			page = cont_next(head, page);
			if (!page)
				return false; /* cannot be: a continued digit has a next */
			map = cont_byte(page, offset);
		}
		if (*map == SWAP_CONT_MAX) {
			page = cont_next(head, page);
			if (!page)
				return false; /* a page more is needed */
			map = cont_byte(page, offset);
			*map = 0; /* never written for this slot */
		}
		*map += 1;
		/* ...each digit below wraps to 0, continued. */
		while ((page = cont_prev(head, page)))
			*cont_byte(page, offset) = COUNT_CONTINUED;
		return true;
	}
	/* Decrementing from swap_map's COUNT_CONTINUED (its digit 0): the
	 * first non-zero digit lends one, each below becomes its maximum. */
	while (*map == COUNT_CONTINUED) {
		page = cont_next(head, page);
		if (!page)
			return false;
		map = cont_byte(page, offset);
	}
	*map -= 1;
	unsigned char higher = *map == 0 ? 0 : COUNT_CONTINUED;
	while ((page = cont_prev(head, page))) {
		*cont_byte(page, offset) = SWAP_CONT_MAX | higher;
		higher = COUNT_CONTINUED;
	}
	return higher == COUNT_CONTINUED;
}

int add_swap_count_continuation(swp_entry_t entry, gfp_t gfp)
{
	struct page *page = alloc_page(gfp);
	int ret = 0;
	spin_lock(&swap_lock);
	struct swap_info_struct *si = swp_swap_info(entry);
	if (!si)
		goto out; /* swapoff took it meanwhile: the caller's next try sees */
	unsigned long offset = swp_offset(entry);
	unsigned char count = si->swap_map[offset] & ~SWAP_HAS_CACHE;
	/* Another caller added the page meanwhile (Linux: "we need to avoid
	 * over-provisioning"). */
	if ((count & ~COUNT_CONTINUED) != SWAP_MAP_MAX)
		goto out;
	if (!page) {
		ret = -ENOMEM;
		goto out;
	}
	struct list_head *head = cont_head(si, offset);
	if (!head->next)
		INIT_LIST_HEAD(head);
	/* A page whose digit for this slot has room already: none needed. */
	for (struct page *p = cont_next(head, NULL); p; p = cont_next(head, p)) {
		if (!(count & COUNT_CONTINUED))
			goto out;
		count = *cont_byte(p, offset);
		if ((count & ~COUNT_CONTINUED) != SWAP_CONT_MAX)
			goto out;
	}
	list_add_tail(folio_lru(page), head);
	si->cont_pages++;
	page = NULL;
out:
	spin_unlock(&swap_lock);
	if (page)
		__free_page(page);
	return ret;
}

unsigned long swp_swapcount(swp_entry_t entry)
{
	unsigned long count = 0;
	spin_lock(&swap_lock);
	struct swap_info_struct *si = swp_swap_info(entry);
	if (si) {
		unsigned long offset = swp_offset(entry);
		unsigned char digit = si->swap_map[offset] & ~SWAP_HAS_CACHE;
		count = digit & ~COUNT_CONTINUED;
		struct list_head *head = cont_head(si, offset);
		unsigned long unit = SWAP_MAP_MAX + 1;
		for (struct page *p = head->next ? cont_next(head, NULL) : NULL; p && (digit & COUNT_CONTINUED);
		     p = cont_next(head, p)) {
			digit = *cont_byte(p, offset);
			count += (unsigned long)(digit & ~COUNT_CONTINUED) * unit;
			unit *= SWAP_CONT_MAX + 1;
		}
	}
	spin_unlock(&swap_lock);
	return count;
}

void free_swap_count_continuations(struct swap_info_struct *si)
{
	if (!si->cont_heads)
		return;
	for (unsigned long i = 0; i < cont_heads_nr(si); i++) {
		struct list_head *head = &si->cont_heads[i];
		if (!head->next)
			continue;
		while (!list_empty(head)) {
			struct page *page = lru_to_folio(head->next);
			list_del(folio_lru(page));
			folio_lru(page)->next = folio_lru(page)->prev = NULL;
			__free_page(page);
			si->cont_pages--;
		}
	}
	kfree(si->cont_heads);
	si->cont_heads = NULL;
}
