/* reclaim_policy=lru|fifo|clock: the page replacement policy of reclaim,
 * for teaching (docs/reclaim.md, "Replacement policies for teaching").
 * The variable is set by the command-line parser before any page is on an
 * LRU list and never changes after, so reclaim reads it without a lock;
 * each reclaim copies it into its scan_control once (mm/vmscan.c).
 *
 * Where it shows: /proc/sys/vm/reclaim_policy, read-only (0444). It is a
 * file of /proc/sys/vm because that is where the reclaim knobs a course
 * looks at already are (swappiness, min_free_kbytes,
 * watermark_scale_factor) and where mmlab's other boot-time design
 * switches are (pte_reclaim, clear_huge_page_method): a program that
 * wants to know which kernel and policy it runs under reads one file,
 * which Linux 6.1 does not have (its own choice between the two-list LRU
 * and the multi-gen LRU lives in /sys/kernel/mm/lru_gen/enabled, whose
 * words are a bit mask, not a policy name). Read-only because a switch
 * at run time would leave pages where the old policy put them (an active
 * list FIFO and CLOCK never fill), and the comparison a class runs is
 * one policy per boot. */
#include "mm/reclaim_policy.h"
#include "fs/proc/proc_fs.h"
#include "kernel/cmdline.h"
#include "kernel/init.h"
#include "kernel/printk.h"
#include "lib/string.h"

enum reclaim_policy reclaim_policy = RECLAIM_POLICY_LRU;

static const char *const policy_words[NR_RECLAIM_POLICIES] = {
	[RECLAIM_POLICY_LRU] = "lru",
	[RECLAIM_POLICY_FIFO] = "fifo",
	[RECLAIM_POLICY_CLOCK] = "clock",
};

const char *reclaim_policy_name(enum reclaim_policy policy)
{
	return (unsigned)policy < NR_RECLAIM_POLICIES ? policy_words[policy] : "?";
}

/* Another word is refused: -EINVAL makes the parser log "cmdline: bad
 * value 'X' for 'reclaim_policy' (expected lru, fifo or clock); keeping
 * lru", and the policy before it stays. */
static int setup_reclaim_policy(const char *val)
{
	for (int i = 0; val && i < NR_RECLAIM_POLICIES; i++)
		if (!strcmp(val, policy_words[i])) {
			reclaim_policy = (enum reclaim_policy)i;
			return 0;
		}
	return -EINVAL;
}

static void show_reclaim_policy(char *buf, size_t size)
{
	snprintf(buf, size, "%s", reclaim_policy_name(reclaim_policy));
}
kernel_param_setup("reclaim_policy", setup_reclaim_policy, show_reclaim_policy, "lru, fifo or clock",
		   "page replacement policy of reclaim: lru (Linux 6.1's two lists, default), fifo or "
		   "clock (also /proc/sys/vm/reclaim_policy)");

static void reclaim_policy_show(struct seq_buf *m, const struct proc_node *node)
{
	(void)node;
	seq_buf_printf(m, "%s\n", reclaim_policy_name(reclaim_policy));
}
PROC_FILE(reclaim_policy_entry, proc_sys_vm_dir, "reclaim_policy", reclaim_policy_show);

static int reclaim_policy_report(void)
{
	pr_info("vmscan: reclaim policy %s%s\n", reclaim_policy_name(reclaim_policy),
		reclaim_policy == RECLAIM_POLICY_LRU ? " (Linux 6.1's active and inactive lists)"
						     : " (reclaim_policy=, for teaching)");
	return 0;
}
late_initcall(reclaim_policy_report);
