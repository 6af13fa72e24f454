/* kcompactd, compaction's per-node thread, and compaction's files (Linux
 * 6.1's mm/compaction.c: kcompactd, kcompactd_do_work,
 * proactive_compact_node, wakeup_kcompactd; sysctl_compaction_handler
 * and the node's compact attribute, drivers/base/node.c there).
 *
 * kcompactd sleeps until woken for an order (wakeup_kcompactd: kswapd
 * when it goes to sleep on a node it balanced, the allocator's slow path
 * when a costly request failed) and then compacts its node for that order
 * asynchronously (MIGRATE_SYNC_LIGHT, as Linux's kcompactd_do_work), with
 * the skip hints and the deferral of direct compaction. Every 500 ms
 * (HPAGE_FRAG_CHECK_INTERVAL_MSEC) it wakes by itself for proactive
 * compaction: when vm.compaction_proactiveness is not 0 and the node's
 * fragmentation score is above the high mark (100 - proactiveness + 10),
 * it compacts the node until the score is below the low mark; a round
 * that did not lower the score puts the next off for 64 intervals.
 *
 * Locking: the per-node state below is written by wakers with single
 * stores and read by its thread, as kswapd's (mm/kswapd.c); a wakeup that
 * races the thread's sleep is made up by the next one, or by the timer. */
#include "mm/compaction_internal.h"
#include "drivers/base/node.h"
#include "kernel/psi.h"
#include "kernel/init.h"
#include "kernel/printk.h"
#include "kernel/sched.h"
#include "kernel/sched_mm.h"
#include "kernel/sysctl.h"
#include "kernel/wait.h"
#include "mm/kswapd.h"
#include "mm/vmstat.h"

int sysctl_compaction_proactiveness = 20;
int sysctl_compact_unevictable_allowed = 1;

#define HPAGE_FRAG_CHECK_INTERVAL_MSEC 500
#define COMPACT_MAX_DEFER_SHIFT 6

struct kcompactd_state {
	wait_queue_head_t wait;
	struct task_struct *task;
	int max_order;           /* the largest order a waker asked for (-1: none) */
	unsigned int proactive_defer; /* intervals to wait before the next proactive round */
	bool busy;               /* compacting now */
};

static struct kcompactd_state kcompactd_state[MAX_NUMNODES];

unsigned int fragmentation_score_node(pg_data_t *pgdat)
{
	return extfrag_for_order(pgdat, pageblock_order);
}

/* Linux's fragmentation_score_wmark. */
unsigned int fragmentation_score_wmark(bool low)
{
	int wmark_low = 100 - READ_ONCE(sysctl_compaction_proactiveness);
	if (wmark_low < 5)
		wmark_low = 5;
	return low ? (unsigned int)wmark_low : (unsigned int)(wmark_low + 10 < 100 ? wmark_low + 10 : 100);
}

static bool kswapd_is_running(pg_data_t *pgdat)
{
	struct kswapd_stats st;
	kswapd_stats(pgdat->node_id, &st);
	return st.running && st.runs > st.sleeps;
}

/* Linux's should_proactive_compact_node. */
static bool should_proactive_compact_node(pg_data_t *pgdat)
{
	if (!READ_ONCE(sysctl_compaction_proactiveness) || kswapd_is_running(pgdat))
		return false;
	return fragmentation_score_node(pgdat) > fragmentation_score_wmark(false);
}

/* Linux's kcompactd_node_suitable: a node whose free blocks of the order
 * are missing and where compaction could make one. */
static bool kcompactd_node_suitable(pg_data_t *pgdat, int order)
{
	return compaction_suitable(pgdat, order, WMARK_MIN) == COMPACT_CONTINUE;
}

/* Linux's proactive_compact_node. */
static void proactive_compact_node(pg_data_t *pgdat)
{
	struct compact_control cc;
	compact_control_init(&cc, pgdat, -1, MIGRATE_SYNC_LIGHT);
	cc.ignore_skip_hint = cc.whole_zone = cc.proactive_compaction = true;
	compact_zone(&cc);
	count_compact_scanned(&cc, true);
}

/* Linux's kcompactd_do_work: the order asked for, unless deferred or
 * unsuitable. */
static void kcompactd_do_work(pg_data_t *pgdat, int order)
{
	count_vm_event(KCOMPACTD_WAKE);
	reset_isolation_suitable(pgdat);
	if (compaction_deferred(pgdat, order) || !kcompactd_node_suitable(pgdat, order))
		return;
	struct compact_control cc;
	compact_control_init(&cc, pgdat, order, MIGRATE_SYNC_LIGHT);
	enum compact_result status = compact_zone(&cc);
	count_compact_scanned(&cc, true);
	if (status == COMPACT_SUCCESS)
		compaction_defer_reset(pgdat, order, false);
	else if (status == COMPACT_PARTIAL_SKIPPED || status == COMPACT_COMPLETE)
		/* Linux: a pass over the whole node that made no block of the
		 * order: the next try waits. */
		defer_compaction(pgdat, order);
}

static bool kcompactd_work_requested(struct kcompactd_state *ks)
{
	return READ_ONCE(ks->max_order) >= 0 || kthread_should_stop();
}

static int kcompactd(void *arg)
{
	pg_data_t *pgdat = arg;
	struct kcompactd_state *ks = &kcompactd_state[pgdat->node_id];
	long timeout = msecs_to_jiffies(HPAGE_FRAG_CHECK_INTERVAL_MSEC);
	/* As Linux's: the compactor's own allocations never reclaim. */
	memalloc_flags_save(PF_MEMALLOC);
	while (!kthread_should_stop()) {
		long left = wait_event_timeout(ks->wait, kcompactd_work_requested(ks), timeout);
		if (kthread_should_stop())
			break;
		if (left) {
			int order = __atomic_exchange_n(&ks->max_order, -1, __ATOMIC_ACQ_REL);
			if (order >= 0) {
				/* Linux 6.1's kcompactd marks the compaction it
				 * was woken for (not the proactive kind) a stall. */
				unsigned long pflags;
				WRITE_ONCE(ks->busy, true);
				psi_memstall_enter(&pflags);
				kcompactd_do_work(pgdat, order);
				psi_memstall_leave(&pflags);
				WRITE_ONCE(ks->busy, false);
			}
			continue;
		}
		/* The interval passed without a wakeup: proactive
		 * compaction's turn. */
		if (!should_proactive_compact_node(pgdat))
			continue;
		if (ks->proactive_defer) {
			ks->proactive_defer--;
			continue;
		}
		unsigned int prev = fragmentation_score_node(pgdat);
		WRITE_ONCE(ks->busy, true);
		proactive_compact_node(pgdat);
		WRITE_ONCE(ks->busy, false);
		/* Linux: no progress, so back off. */
		if (fragmentation_score_node(pgdat) >= prev)
			ks->proactive_defer = 1u << COMPACT_MAX_DEFER_SHIFT;
		cond_resched();
	}
	return 0;
}

bool kcompactd_busy(int nid)
{
	struct kcompactd_state *ks = &kcompactd_state[nid];
	return ks->task && (READ_ONCE(ks->busy) || READ_ONCE(ks->max_order) >= 0);
}

void kcompactd_take_pending(int nid)
{
	struct kcompactd_state *ks = &kcompactd_state[nid];
	if (ks->task && READ_ONCE(ks->max_order) >= 0)
		wake_up(&ks->wait);
}

void wakeup_kcompactd(pg_data_t *pgdat, int order)
{
	if (!pgdat || order <= 0)
		return;
	struct kcompactd_state *ks = &kcompactd_state[pgdat->node_id];
	if (!ks->task)
		return;
	if (READ_ONCE(ks->max_order) < order)
		WRITE_ONCE(ks->max_order, order);
	if (!waitqueue_active(&ks->wait))
		return;
	/* Linux's kcompactd_node_suitable and deferral test, before the
	 * wakeup (the thread asks them again). */
	if (!kcompactd_node_suitable(pgdat, order))
		return;
	wake_up(&ks->wait);
}

/* Linux's kcompactd_run for every node with memory, at boot; and the
 * scanners' cached positions at the node's ends (Linux sets them when it
 * sets a zone up), before any compaction. */
static int kcompactd_init(void)
{
	for (int nid = 0; nid < MAX_NUMNODES; nid++) {
		pg_data_t *pgdat = NODE_DATA(nid);
		if (!pgdat || !pgdat->managed_pages)
			continue;
		reset_cached_positions(pgdat);
		struct kcompactd_state *ks = &kcompactd_state[nid];
		init_waitqueue_head(&ks->wait);
		ks->max_order = -1;
		ks->task = kthread_create(kcompactd, pgdat, "kcompactd%d", nid);
		if (!ks->task) {
			pr_err("Failed to start kcompactd on node %d\n", nid);
			continue;
		}
		wake_up_process(ks->task);
	}
	return 0;
}
late_initcall(kcompactd_init);

/* --- the files ----------------------------------------------------------- */

/* /proc/sys/vm/compact_memory (Linux 6.1's sysctl_compaction_handler): a
 * write of anything compacts every node; a read gives nothing. Mode 0200
 * as Linux's. */
static int compact_memory_handler(const struct ctl_table *table, bool write, struct seq_buf *m, const char *buf,
				  size_t len)
{
	(void)table, (void)m, (void)buf, (void)len;
	if (write)
		compact_nodes();
	return 0;
}

static const struct ctl_table ctl_compact_memory = { .procname = "compact_memory",
						      .proc_handler = compact_memory_handler };
static const struct proc_dir_entry ctl_entry_compact_memory __proc_entry = {
	.parent = &proc_sys_vm_dir, .name = "compact_memory", .mode = S_IFREG | 0200, .show = proc_sys_show,
	.write = proc_sys_write, .data = &ctl_compact_memory,
};

static const int one_hundred = 100, one_thousand = 1000;
SYSCTL_ENTRY(proc_sys_vm_dir, compaction_proactiveness, .data = &sysctl_compaction_proactiveness,
	     .maxlen = sizeof(int), .proc_handler = proc_dointvec_minmax, .extra1 = SYSCTL_ZERO,
	     .extra2 = &one_hundred);
SYSCTL_ENTRY(proc_sys_vm_dir, extfrag_threshold, .data = &sysctl_extfrag_threshold, .maxlen = sizeof(int),
	     .proc_handler = proc_dointvec_minmax, .extra1 = SYSCTL_ZERO, .extra2 = &one_thousand);
SYSCTL_ENTRY(proc_sys_vm_dir, compact_unevictable_allowed, .data = &sysctl_compact_unevictable_allowed,
	     .maxlen = sizeof(int), .proc_handler = proc_dointvec_minmax, .extra1 = SYSCTL_ZERO,
	     .extra2 = SYSCTL_ONE);

/* /sys/devices/system/node/node<N>/compact (Linux's compact_store): a
 * write compacts that node. Write-only (0200); a read gives nothing. */
static void node_compact_show(struct seq_buf *m, const struct proc_node *node)
{
	(void)m, (void)node;
}

static long node_compact_write(const struct proc_node *node, const char *buf, size_t len)
{
	(void)buf;
	compact_node(node->nid);
	return (long)len;
}

static const struct proc_dir_entry node_compact_file __proc_entry = {
	.parent = &node_dir, .name = "compact", .mode = S_IFREG | 0200, .show = node_compact_show,
	.write = node_compact_write,
};
