/* The page clearing routines of arch/x86_64/clear_page.asm (see there for
 * what each does). The cached ones take a plain pointer; the uncached ones
 * (movnt, clzero) take struct incoherent_addr, the series' __incoherent
 * address space as a type, so that memory they wrote cannot be handed
 * anywhere else without saying so (mm/clear_page.h has the rules). */
#ifndef ARCH_X86_64_CLEAR_PAGE_H
#define ARCH_X86_64_CLEAR_PAGE_H

/* A destination of uncached stores, not yet fenced. One pointer in a
 * struct: passed in a register like the pointer itself (System V ABI). */
struct incoherent_addr {
	void *addr_;
};
static inline struct incoherent_addr incoherent_addr(void *p) { return (struct incoherent_addr){ p }; }

void clear_page_orig(void *page);
void clear_page_rep(void *page);
void clear_page_erms(void *page);
void clear_pages_orig(void *addr, unsigned long npages);
void clear_pages_rep(void *addr, unsigned long npages);
void clear_pages_erms(void *addr, unsigned long npages);

void clear_page_movnt(struct incoherent_addr page);
void clear_page_clzero(struct incoherent_addr page);
void clear_pages_movnt(struct incoherent_addr addr, unsigned long npages);
void clear_pages_clzero(struct incoherent_addr addr, unsigned long npages);

/* SFENCE. */
void clear_page_sfence(void);

#endif
