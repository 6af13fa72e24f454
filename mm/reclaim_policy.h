/* Which page replacement policy reclaim follows, chosen at boot with
 * reclaim_policy=lru|fifo|clock (mm/reclaim_policy.c) and shown read-only
 * in /proc/sys/vm/reclaim_policy. The choice is made in one place,
 * folio_check_references in mm/vmscan.c, where the three stand side by
 * side; docs/reclaim.md ("Replacement policies for teaching") compares
 * them with OSTEP's simulator (tools/paging_policy.py). */
#ifndef MM_RECLAIM_POLICY_H
#define MM_RECLAIM_POLICY_H

enum reclaim_policy {
	/* Linux 6.1's two lists: a page referenced on two looks is
	 * activated, once is kept (PG_referenced), never is reclaimed. */
	RECLAIM_POLICY_LRU,
	/* First in, first out: the inactive list's tail is the oldest page
	 * to enter the LRU, and it goes, referenced or not. */
	RECLAIM_POLICY_FIFO,
	/* Second chance: the inactive list is the clock's face, its tail
	 * the hand; a referenced page has its accessed bits cleared and
	 * moves behind the hand, the first one found unreferenced goes. */
	RECLAIM_POLICY_CLOCK,
	NR_RECLAIM_POLICIES
};

/* The policy booted (default RECLAIM_POLICY_LRU); fixed once the command
 * line is parsed. */
extern enum reclaim_policy reclaim_policy;

/* "lru", "fifo" or "clock". */
const char *reclaim_policy_name(enum reclaim_policy policy);

#endif
