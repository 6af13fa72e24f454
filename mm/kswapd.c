/* kswapd (Linux 6.1's mm/vmscan.c kswapd, balance_pgdat,
 * kswapd_try_to_sleep, wakeup_kswapd) and the watermarks' sysctls: one
 * thread per node with memory, woken by the page allocator's slow path
 * when an allocation finds the node below its low watermark, reclaiming
 * (shrink_node) until the node is above high again, then sleeping.
 *
 * With nothing to reclaim it must not spin: as Linux's, a pass that
 * reclaims nothing counts a failure (pgdat->kswapd_failures), and after
 * MAX_RECLAIM_RETRIES of them the node is hopeless: kswapd sleeps and
 * wakeup_kswapd leaves it asleep, until a reclaim makes progress again
 * (shrink_node resets the count, as Linux's) or frees bring the node
 * back above its high watermark (the per-CPU lists' batch frees reset
 * it: mm/page_alloc_pcp.c; Linux waits for a reclaim that progresses).
 *
 * Locking: the per-node state below is written by wakeup_kswapd (any
 * CPU, any context that allocates) with plain stores of single words
 * and read by its thread; a wakeup missed between kswapd's last check
 * and its sleep is made up by the next allocation that finds the node
 * low, as in Linux. The threads are made on the boot CPU (Linux binds
 * each to its node's CPUs). */
#include "kernel/psi.h"
#include "kernel/init.h"
#include "kernel/printk.h"
#include "kernel/sched.h"
#include "kernel/sched_mm.h"
#include "kernel/sysctl.h"
#include "kernel/wait.h"
#include "mm/compaction.h"
#include "mm/kswapd.h"
#include "mm/page_alloc.h"
#include "mm/vmscan.h"

struct kswapd_state {
	wait_queue_head_t wait;
	struct task_struct *task;
	int order;           /* the largest order a waker asked for */
	bool woken;
	unsigned long wakeups; /* times wakeup_kswapd woke it */
	unsigned long runs;    /* balance_pgdat passes */
	unsigned long sleeps;  /* times it went to sleep */
};

static struct kswapd_state kswapd_state[MAX_NUMNODES];

/* Linux's pgdat_balanced: free above the high watermark for order. */
static bool pgdat_balanced(pg_data_t *pgdat, int order)
{
	return node_watermark_ok(pgdat, (unsigned int)order, pgdat->watermark[WMARK_HIGH]);
}

/* Linux's balance_pgdat: shrink_node at falling priority until the node
 * is balanced; a pass that reclaimed nothing is a failure. */
static void balance_pgdat(pg_data_t *pgdat, int order)
{
	struct kswapd_state *ks = &kswapd_state[pgdat->node_id];
	struct scan_control sc = {
		.gfp_mask = GFP_KERNEL,
		.order = order,
		.priority = DEF_PRIORITY,
		.may_swap = true,
		.kswapd = true,
		.policy = reclaim_policy,
	};
	unsigned long pflags;
	ks->runs++;
	/* Linux's balance_pgdat marks kswapd's reclaim a memory stall: the
	 * CPU it runs on does no productive work meanwhile. */
	psi_memstall_enter(&pflags);
	do {
		if (pgdat_balanced(pgdat, order))
			break;
		unsigned long before = sc.nr_reclaimed, high = pgdat->watermark[WMARK_HIGH];
		/* Linux's kswapd_shrink_node: the high watermark's worth. */
		sc.nr_to_reclaim = high > SWAP_CLUSTER_MAX ? high : SWAP_CLUSTER_MAX;
		shrink_node(pgdat, &sc);
		cond_resched();
		if (sc.nr_reclaimed == before)
			sc.priority--;
	} while (sc.priority >= 1);
	psi_memstall_leave(&pflags);
	if (!sc.nr_reclaimed)
		pgdat->kswapd_failures++;
}

/* Linux's prepare_kswapd_sleep: balanced, or hopeless. */
static bool prepare_kswapd_sleep(pg_data_t *pgdat, int order)
{
	return pgdat->kswapd_failures >= MAX_RECLAIM_RETRIES || pgdat_balanced(pgdat, order);
}

static int kswapd(void *arg)
{
	pg_data_t *pgdat = arg;
	struct kswapd_state *ks = &kswapd_state[pgdat->node_id];
	/* The reclaimer's own allocations take the reserve and never
	 * reclaim (Linux's PF_MEMALLOC | PF_KSWAPD). */
	memalloc_flags_save(PF_MEMALLOC | PF_KSWAPD);
	for (;;) {
		int order = __atomic_exchange_n(&ks->order, 0, __ATOMIC_ACQ_REL);
		if (prepare_kswapd_sleep(pgdat, order)) {
			/* Linux's kswapd_try_to_sleep: the memory is freed, now
			 * compact it for the order that was asked for. */
			wakeup_kcompactd(pgdat, order);
			ks->sleeps++;
			wait_event(ks->wait, READ_ONCE(ks->woken));
			WRITE_ONCE(ks->woken, false);
			order = __atomic_exchange_n(&ks->order, 0, __ATOMIC_ACQ_REL);
		}
		balance_pgdat(pgdat, order);
		cond_resched();
	}
	return 0;
}

void wakeup_kswapd(pg_data_t *pgdat, gfp_t gfp, unsigned int order)
{
	(void)gfp;
	struct kswapd_state *ks = &kswapd_state[pgdat->node_id];
	if (!pgdat->managed_pages || !ks->task)
		return;
	if (READ_ONCE(ks->order) < (int)order)
		WRITE_ONCE(ks->order, (int)order);
	if (!waitqueue_active(&ks->wait))
		return; /* awake already */
	if (pgdat_balanced(pgdat, (int)order)) {
		/* Above high again by frees: no longer hopeless. */
		pgdat->kswapd_failures = 0;
		return;
	}
	if (pgdat->kswapd_failures >= MAX_RECLAIM_RETRIES)
		return; /* hopeless: left to direct reclaim */
	/* Woken once until it runs, however many ask meanwhile. */
	if (__atomic_exchange_n(&ks->woken, true, __ATOMIC_ACQ_REL))
		return;
	ks->wakeups++;
	wake_up(&ks->wait);
}

void kswapd_stats(int nid, struct kswapd_stats *st)
{
	struct kswapd_state *ks = &kswapd_state[nid];
	st->wakeups = READ_ONCE(ks->wakeups);
	st->runs = READ_ONCE(ks->runs);
	st->sleeps = READ_ONCE(ks->sleeps);
	st->failures = NODE_DATA(nid) ? READ_ONCE(NODE_DATA(nid)->kswapd_failures) : 0;
	st->running = ks->task != NULL;
	st->asleep = waitqueue_active(&ks->wait) && !READ_ONCE(ks->woken);
}

/* Linux's kswapd_run for every node with memory, at boot. */
static int kswapd_init(void)
{
	for (int nid = 0; nid < MAX_NUMNODES; nid++) {
		pg_data_t *pgdat = NODE_DATA(nid);
		if (!pgdat || !pgdat->managed_pages)
			continue;
		struct kswapd_state *ks = &kswapd_state[nid];
		init_waitqueue_head(&ks->wait);
		ks->task = kthread_create(kswapd, pgdat, "kswapd%d", nid);
		if (!ks->task) {
			pr_err("Failed to start kswapd on node %d\n", nid);
			continue;
		}
		wake_up_process(ks->task);
	}
	return 0;
}
late_initcall(kswapd_init);

/* /proc/sys/vm/min_free_kbytes and watermark_scale_factor: read as
 * integers, written through the setters that compute the watermarks
 * again (Linux's min_free_kbytes_sysctl_handler and
 * watermark_scale_factor_sysctl_handler). */
static int watermark_sysctl(const struct ctl_table *table, bool write, struct seq_buf *m, const char *buf,
			    size_t len, int (*set)(int))
{
	if (!write)
		return proc_dointvec_minmax(table, write, m, buf, len);
	int v = *(int *)table->data;
	struct ctl_table t = *table;
	t.data = &v;
	int err = proc_dointvec_minmax(&t, true, m, buf, len);
	return err ? err : set(v);
}

static int min_free_kbytes_handler(const struct ctl_table *table, bool write, struct seq_buf *m,
				   const char *buf, size_t len)
{
	return watermark_sysctl(table, write, m, buf, len, min_free_kbytes_write);
}

static int watermark_scale_factor_handler(const struct ctl_table *table, bool write, struct seq_buf *m,
					  const char *buf, size_t len)
{
	return watermark_sysctl(table, write, m, buf, len, watermark_scale_factor_write);
}

static const int three_thousand = 3000;
SYSCTL_ENTRY(proc_sys_vm_dir, min_free_kbytes, .data = &min_free_kbytes, .maxlen = sizeof(int),
	     .proc_handler = min_free_kbytes_handler, .extra1 = SYSCTL_ZERO);
SYSCTL_ENTRY(proc_sys_vm_dir, watermark_scale_factor, .data = &watermark_scale_factor, .maxlen = sizeof(int),
	     .proc_handler = watermark_scale_factor_handler, .extra1 = SYSCTL_ONE, .extra2 = &three_thousand);
