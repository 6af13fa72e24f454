/* kswapd, one reclaim thread per node with memory (mm/kswapd.c). */
#ifndef MM_KSWAPD_H
#define MM_KSWAPD_H

#include "mm/gfp.h"

typedef struct pglist_data pg_data_t;

/* Linux's MAX_RECLAIM_RETRIES: reclaim passes without progress before
 * the slow path gives up (should_reclaim_retry) and kswapd leaves a node
 * alone (kswapd_failures). */
#define MAX_RECLAIM_RETRIES 16

/* An allocation found pgdat below its low watermark (Linux's
 * wakeup_kswapd): kswapd wakes unless the node is balanced (above high)
 * or hopeless. */
void wakeup_kswapd(pg_data_t *pgdat, gfp_t gfp, unsigned int order);

/* What a node's kswapd has done, for tests and reports. */
struct kswapd_stats {
	unsigned long wakeups, runs, sleeps;
	int failures;
	bool running;
	bool asleep; /* waiting for a wakeup, none on its way */
};
void kswapd_stats(int nid, struct kswapd_stats *st);

#endif
