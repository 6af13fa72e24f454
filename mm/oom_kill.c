/* The OOM killer (Linux 6.1's mm/oom_kill.c; mm/oom.h says what each entry
 * does): the choice (oom_badness, select_bad_process), the constraint of
 * the allocation that failed (constrained_alloc), the kill and its report
 * (oom_kill_process, dump_header), and fs/proc/base.c's oom_score and
 * oom_score_adj. The reaper is mm/oom_reaper.c.
 *
 * Differences from Linux, on purpose: with nothing killable Linux panics
 * ("System is deadlocked on memory"); mmlab reports it and the allocation
 * fails, so that the kernel survives every OOM. Linux's SIGNAL_GROUP_EXIT
 * is set by the send of a fatal signal; mmlab's group_exit only once a
 * thread takes the SIGKILL, so "the process is dying" here is either
 * (group_dying). The report has no stack trace (mmlab has no dump_stack)
 * and its memory part is show_free_areas' per-node lines.
 *
 * Locking: oom_lock (a mutex, tried) serialises out_of_memory. The walk
 * over processes holds the id table's spinlock (walk_processes), under
 * which a task's mm is read under its task_lock, as Linux's
 * find_lock_task_mm. oom_score_adj and oom_score_adj_min are the
 * process's (signal_struct), written under its siglock, read without (a
 * short, as Linux reads it). */
#include "mm/oom.h"
#include "kernel/cred.h"
#include "kernel/mutex.h"
#include "kernel/panic.h"
#include "kernel/pid.h"
#include "kernel/printk.h"
#include "kernel/sched.h"
#include "kernel/signal.h"
#include "kernel/sysctl.h"
#include "lib/ratelimit.h"
#include "mm/mempolicy.h"
#include "mm/mm_types.h"
#include "mm/mmu_context.h"
#include "mm/page_alloc.h"
#include "mm/slab.h"
#include "mm/vmscan.h"
#include "mm/vmstat.h"

#define LONG_MIN_VALUE (-__LONG_MAX__ - 1)
#define K(pages) ((pages) << (PAGE_SHIFT - 10))

int sysctl_panic_on_oom;
int sysctl_oom_kill_allocating_task;
int sysctl_oom_dump_tasks = 1;

SYSCTL_ENTRY(proc_sys_vm_dir, panic_on_oom, .data = &sysctl_panic_on_oom, .maxlen = sizeof(int),
	     .proc_handler = proc_dointvec_minmax, .extra1 = SYSCTL_ZERO, .extra2 = SYSCTL_TWO);
SYSCTL_ENTRY(proc_sys_vm_dir, oom_kill_allocating_task, .data = &sysctl_oom_kill_allocating_task,
	     .maxlen = sizeof(int), .proc_handler = proc_dointvec);
SYSCTL_ENTRY(proc_sys_vm_dir, oom_dump_tasks, .data = &sysctl_oom_dump_tasks, .maxlen = sizeof(int),
	     .proc_handler = proc_dointvec);

static DEFINE_MUTEX(oom_lock);
static unsigned long oom_kill_count;

static const char *const oom_constraint_text[] = {
	[CONSTRAINT_NONE] = "CONSTRAINT_NONE",
	[CONSTRAINT_CPUSET] = "CONSTRAINT_CPUSET",
	[CONSTRAINT_MEMORY_POLICY] = "CONSTRAINT_MEMORY_POLICY",
	[CONSTRAINT_MEMCG] = "CONSTRAINT_MEMCG",
};

/* Linux's oom_unkillable_task: init, kernel threads. A kernel thread
 * here is a task with no thread group (no signal_struct: fs/proc/array.c
 * shows it PF_KTHREAD so); mmlab's processes start from kernel threads
 * and keep the flag. */
static bool oom_unkillable_task(struct task_struct *p)
{
	return p->tgid == 1 || !p->signal;
}

/* Swap entries (Linux's MM_SWAPENTS: the entries of mm's page tables
 * that name a swap slot). */
static inline unsigned long mm_swapents(struct mm_struct *mm)
{
	return get_mm_counter(mm, MM_SWAPENTS);
}

/* The badness of p's memory: under task_lock, which exit and exec hold
 * when they change ->mm (Linux's find_lock_task_mm), so no reference is
 * taken and none is dropped (a last mmput would sleep; this runs under
 * the id table's spinlock too). */
static long badness_locked(struct task_struct *p, unsigned long totalpages)
{
	long adj = READ_ONCE(p->signal->oom_score_adj);
	if (adj == OOM_SCORE_ADJ_MIN)
		return LONG_MIN_VALUE;
	task_lock(p);
	struct mm_struct *mm = p->mm;
	if (!mm) {
		task_unlock(p);
		return LONG_MIN_VALUE;
	}
	long points = (long)get_mm_rss(mm) + (long)mm_swapents(mm) + (long)(mm_pgtables_bytes(mm) / PAGE_SIZE);
	task_unlock(p);
	/* Normalise to oom_score_adj units. */
	adj *= (long)totalpages / 1000;
	return points + adj;
}

long oom_badness(struct task_struct *p, unsigned long totalpages)
{
	if (oom_unkillable_task(p))
		return LONG_MIN_VALUE;
	return badness_locked(p, totalpages);
}

unsigned long oom_score(struct task_struct *p)
{
	unsigned long totalpages = totalram_pages() + (unsigned long)total_swap_pages;
	long badness = oom_badness(p, totalpages);
	/* LONG_MIN (never killed) shows 0; the rest is scaled back from
	 * -1000..1000 units around 1000, to 0..2000, by 2/3 (Linux). */
	if (badness == LONG_MIN_VALUE)
		return 0;
	long points = (1000 + badness * 1000 / (long)totalpages) * 2 / 3;
	return points < 0 ? 0 : (unsigned long)points;
}

int set_oom_score_adj(struct task_struct *p, int adj)
{
	if (adj < OOM_SCORE_ADJ_MIN || adj > OOM_SCORE_ADJ_MAX)
		return -EINVAL;
	struct signal_struct *sig = p->signal;
	if (!sig)
		return -ESRCH;
	bool privileged = capable(CAP_SYS_RESOURCE);
	int err = 0;
	spin_lock(&sig->siglock);
	if (adj < sig->oom_score_adj_min && !privileged) {
		err = -EACCES;
	} else {
		sig->oom_score_adj = (short)adj;
		if (privileged)
			sig->oom_score_adj_min = (short)adj;
	}
	spin_unlock(&sig->siglock);
	return err;
}

/* ---- victims ---------------------------------------------------------- */

bool tsk_is_oom_victim(struct task_struct *p)
{
	return p->signal && READ_ONCE(p->signal->oom_mm);
}

bool oom_reserves_allowed(void)
{
	struct task_struct *t = current;
	return t && tsk_is_oom_victim(t);
}

unsigned long oom_kills(void) { return __atomic_load_n(&oom_kill_count, __ATOMIC_RELAXED); }

/* Linux's SIGNAL_GROUP_EXIT: the group exits, or a SIGKILL for it waits
 * to be taken (see the top). */
static bool group_dying(struct task_struct *p)
{
	return fatal_signal_pending(p) || sigkill_pending(p);
}

/* Linux's mark_oom_victim: the process may dip into the reserves
 * (ALLOC_OOM) to exit; its mm is remembered (and kept: mmgrab) for the
 * reaper and for the next OOM's tsk_is_oom_victim. */
static void mark_oom_victim(struct task_struct *tsk, struct mm_struct *mm)
{
	struct mm_struct *none = NULL;
	if (__atomic_compare_exchange_n(&tsk->signal->oom_mm, &none, mm, false, __ATOMIC_ACQ_REL,
					__ATOMIC_RELAXED))
		mmgrab(mm);
}

struct shares_mm {
	struct mm_struct *mm;
	struct task_struct *except; /* a process not to count (its group) */
	struct task_struct *found;  /* a reference */
	bool only_alive;            /* skip processes dying already */
};

/* Linux's process_shares_mm over one thread: a process other than
 * except whose task uses mm (CLONE_VM without CLONE_THREAD: vfork). The
 * walk sees every process once through one thread; the others of the
 * group share its mm (threads always do). */
static bool find_sharer(struct task_struct *p, void *arg)
{
	struct shares_mm *s = arg;
	if (p->signal == s->except->signal || READ_ONCE(p->mm) != s->mm)
		return false;
	if (s->only_alive && group_dying(p))
		return false;
	get_task_struct(p);
	s->found = p;
	return true;
}

/* Linux's __task_will_free_mem and task_will_free_mem: the task's
 * process is dying, and every other process sharing its mm too, so its
 * memory goes soon without another kill. */
static bool task_will_free_mem(struct task_struct *task)
{
	struct mm_struct *mm = READ_ONCE(task->mm);
	if (!mm || !task->signal || !group_dying(task))
		return false;
	/* Reaped already: little more will come. */
	if (mm_flag_test(mm, MMF_OOM_SKIP))
		return false;
	if (__atomic_load_n(&mm->mm_users, __ATOMIC_RELAXED) <= 1)
		return true;
	struct shares_mm s = { .mm = mm, .except = task, .only_alive = true };
	walk_processes(find_sharer, &s);
	if (!s.found)
		return true;
	put_task_struct(s.found);
	return false;
}

/* ---- the constraint and the choice --------------------------------------- */

/* Linux's constrained_alloc: an allocation whose nodemask leaves out a
 * node with memory is bound by a memory policy (MPOL_BIND: mmlab has no
 * cpusets), and only that policy's nodes' memory counts. */
static enum oom_constraint constrained_alloc(struct oom_control *oc)
{
	oc->totalpages = totalram_pages() + (unsigned long)total_swap_pages;
	/* Linux: only __GFP_NOFAIL gets here with __GFP_THISNODE. */
	if (oc->gfp_mask & __GFP_THISNODE)
		return CONSTRAINT_NONE;
	if (!oc->nodemask)
		return CONSTRAINT_NONE;
	bool subset = true;
	for (int nid = 0; nid < MAX_NUMNODES; nid++)
		if (node_has_memory(nid) && !node_isset(nid, *oc->nodemask))
			subset = false;
	if (subset)
		return CONSTRAINT_NONE;
	int nid;
	oc->totalpages = (unsigned long)total_swap_pages;
	for_each_node_mask(nid, *oc->nodemask)
		if (nid < MAX_NUMNODES && NODE_DATA(nid))
			oc->totalpages += NODE_DATA(nid)->node_present_pages;
	return CONSTRAINT_MEMORY_POLICY;
}

/* Linux's mempolicy_in_oom_domain: a task whose own policy is MPOL_BIND
 * to nodes all outside mask frees nothing there. (Its VMAs' policies do
 * not count, as in Linux.) */
static bool mempolicy_in_oom_domain(struct task_struct *tsk, const nodemask_t *mask)
{
	bool ret = true;
	if (!mask)
		return true;
	task_lock(tsk);
	struct mempolicy *pol = tsk->mempolicy;
	if (pol && pol->mode == MPOL_BIND)
		ret = nodes_intersects(pol->nodes, *mask);
	task_unlock(tsk);
	return ret;
}

/* Linux's oom_cpuset_eligible: for a memory-policy OOM, some thread of
 * the process has a policy that may use the policy's nodes; otherwise
 * (cpusets: mmlab has none) every process. Threads are read without the
 * group's siglock, under the id table's lock (walk_processes). */
static bool oom_cpuset_eligible(struct task_struct *start, struct oom_control *oc)
{
	if (!oc->nodemask)
		return true;
	struct task_struct *t;
	bool ret = false;
	spin_lock(&start->signal->siglock);
	list_for_each_entry(t, &start->signal->thread_head, thread_node)
		if ((ret = mempolicy_in_oom_domain(t, oc->nodemask)))
			break;
	spin_unlock(&start->signal->siglock);
	return ret;
}

/* Linux's oom_evaluate_task: true to stop the walk (an earlier victim is
 * still dying: wait for it rather than kill another). */
static bool oom_evaluate_task(struct task_struct *task, void *arg)
{
	struct oom_control *oc = arg;
	if (oom_unkillable_task(task) || !oom_cpuset_eligible(task, oc))
		return false;
	/* A victim already has the reserves; another is chosen only once
	 * its mm was reaped or freed (MMF_OOM_SKIP). */
	if (tsk_is_oom_victim(task)) {
		if (mm_flag_test(task->signal->oom_mm, MMF_OOM_SKIP))
			return false;
		if (oc->chosen)
			put_task_struct(oc->chosen);
		oc->chosen = (void *)-1ul;
		return true;
	}
	long points = badness_locked(task, oc->totalpages);
	/* Ties go to the later process, as Linux's. */
	if (points == LONG_MIN_VALUE || points < oc->chosen_points)
		return false;
	if (oc->chosen)
		put_task_struct(oc->chosen);
	get_task_struct(task);
	oc->chosen = task;
	oc->chosen_points = points;
	return false;
}

static void select_bad_process(struct oom_control *oc)
{
	oc->chosen_points = LONG_MIN_VALUE;
	/* A victim that has exited (off the walk) but whose memory is not
	 * back yet, its mm held elsewhere: wait for the reaper (mm/oom.h);
	 * or one whose memory came back after the caller's last try. */
	if (oc->victims_pending || oom_victims_pending()) {
		oc->chosen = (void *)-1ul;
		return;
	}
	walk_processes(oom_evaluate_task, oc);
}

/* ---- the report -------------------------------------------------------------- */

static unsigned int task_uid(struct task_struct *p)
{
	const struct cred *cred = get_task_cred(p);
	unsigned int uid = cred->uid;
	put_cred(cred);
	return uid;
}

/* Linux's dump_task: one eligible process's line. */
static bool dump_task(struct task_struct *p, void *arg)
{
	struct oom_control *oc = arg;
	if (oom_unkillable_task(p) || !oom_cpuset_eligible(p, oc))
		return false;
	task_lock(p);
	struct mm_struct *mm = p->mm;
	if (mm)
		pr_info("[%7d] %5u %5d %8lu %8lu %8ld %8lu         %5hd %s\n", p->pid,
			p->cred ? p->cred->uid : 0, p->tgid, mm->total_vm, get_mm_rss(mm),
			mm_pgtables_bytes(mm), mm_swapents(mm), READ_ONCE(p->signal->oom_score_adj), p->comm);
	task_unlock(p);
	return false;
}

/* Linux's dump_header: what asked, the memory, the processes, and (with
 * a victim) the one-line summary. */
static void dump_header(struct oom_control *oc, struct task_struct *victim)
{
	char mode[160], nodes[3 * MAX_NUMNODES + 8];
	struct task_struct *t = current;
	gfp_flags_string(oc->gfp_mask, mode, sizeof(mode));
	pr_warn("%s invoked oom-killer: gfp_mask=%#x(%s), order=%d, oom_score_adj=%hd\n", t->comm, oc->gfp_mask,
		mode, oc->order, t->signal ? READ_ONCE(t->signal->oom_score_adj) : (short)0);
	pr_info("Mem-Info:\n");
	show_free_areas();
	if (sysctl_oom_dump_tasks) {
		pr_info("Tasks state (memory values in pages):\n");
		pr_info("[  pid  ]   uid  tgid total_vm      rss pgtables_bytes swapents oom_score_adj name\n");
		walk_processes(dump_task, oc);
	}
	if (victim) {
		nodemask_string(oc->nodemask, nodes, sizeof(nodes));
		pr_info("oom-kill:constraint=%s,nodemask=%s,task=%s,pid=%d,uid=%u\n",
			oom_constraint_text[oc->constraint], nodes, victim->comm, victim->pid, task_uid(victim));
	}
}

/* ---- the kill ------------------------------------------------------------------ */

/* SIGKILL from the kernel (Linux's SEND_SIG_PRIV). Its siginfo is taken
 * without reclaim: the OOM lock is held, and an allocation that needed
 * the OOM killer would wait for it forever. Without one the signal is
 * pending all the same. */
static void oom_send_sigkill(struct task_struct *p)
{
	struct kernel_siginfo info = { .si_signo = SIGKILL, .si_code = SI_KERNEL };
	if (p->sighand)
		send_signal_prealloc(SIGKILL, &info, p, true, kmalloc(sizeof(struct sigqueue), GFP_NOWAIT | __GFP_NOWARN));
}

/* Linux's __oom_kill_process: SIGKILL to the victim's process, then the
 * mark, the report line, the SIGKILL to every other process using the mm,
 * and the reaper. Drops the reference on victim. */
static void __oom_kill_process(struct task_struct *victim, const char *message)
{
	task_lock(victim);
	struct mm_struct *mm = victim->mm;
	if (!mm) {
		task_unlock(victim);
		pr_info("%s: OOM victim %d (%s) is already exiting. Skip killing the task\n", message, victim->pid,
			victim->comm);
		put_task_struct(victim);
		return;
	}
	mmgrab(mm); /* to compare against after the unlock */
	task_unlock(victim);

	count_vm_event(OOM_KILL);
	__atomic_add_fetch(&oom_kill_count, 1, __ATOMIC_RELAXED);
	/* The signal before the reserves: the victim's user code must not
	 * use them up (Linux's order). */
	oom_send_sigkill(victim);
	mark_oom_victim(victim, mm);
	pr_err("%s: Killed process %d (%s) total-vm:%lukB, anon-rss:%lukB, file-rss:%lukB, shmem-rss:%lukB, "
	       "UID:%u pgtables:%lukB oom_score_adj:%hd\n",
	       message, victim->tgid, victim->comm, K(mm->total_vm), K(get_mm_counter(mm, MM_ANONPAGES)),
	       0ul /* MM_FILEPAGES: mmlab counts tmpfs pages as shmem, as Linux does */,
	       K(get_mm_counter(mm, MM_SHMEMPAGES)), task_uid(victim), (unsigned long)mm_pgtables_bytes(mm) >> 10,
	       READ_ONCE(victim->signal->oom_score_adj));

	/* Every other process using the mm dies too, without the reserves
	 * (Linux's loop; init never uses another's mm here: a kernel-started
	 * process is never a vfork child). */
	for (;;) {
		struct shares_mm s = { .mm = mm, .except = victim, .only_alive = true };
		walk_processes(find_sharer, &s);
		if (!s.found)
			break;
		oom_send_sigkill(s.found);
		put_task_struct(s.found);
	}
	queue_oom_reaper(victim);
	mmdrop(mm);
	put_task_struct(victim);
}

static void oom_kill_process(struct oom_control *oc, const char *message)
{
	static DEFINE_RATELIMIT_STATE(oom_rs, DEFAULT_RATELIMIT_INTERVAL, DEFAULT_RATELIMIT_BURST);
	struct task_struct *victim = oc->chosen;
	/* Dying already: no alarm, no more kills; the reserves to finish. */
	if (task_will_free_mem(victim)) {
		task_lock(victim);
		struct mm_struct *mm = victim->mm;
		if (mm)
			mmgrab(mm);
		task_unlock(victim);
		if (mm) {
			mark_oom_victim(victim, mm);
			queue_oom_reaper(victim);
			mmdrop(mm);
		}
		put_task_struct(victim);
		return;
	}
	if (__ratelimit(&oom_rs))
		dump_header(oc, victim);
	__oom_kill_process(victim, message);
}

/* Linux's check_panic_on_oom: 1 panics for an unconstrained OOM, 2 for
 * any. */
static void check_panic_on_oom(struct oom_control *oc)
{
	if (likely(!sysctl_panic_on_oom))
		return;
	if (sysctl_panic_on_oom != 2 && oc->constraint != CONSTRAINT_NONE)
		return;
	dump_header(oc, NULL);
	panic("Out of memory: %s panic_on_oom is enabled\n", sysctl_panic_on_oom == 2 ? "compulsory" : "system-wide");
}

bool out_of_memory(struct oom_control *oc)
{
	struct task_struct *t = current;
	/* A dying current task gets the reserves to exit (Linux: "If current
	 * has a pending SIGKILL or is exiting, then automatically select
	 * it"). */
	if (t && task_will_free_mem(t)) {
		struct mm_struct *mm = t->mm;
		mark_oom_victim(t, mm);
		queue_oom_reaper(t);
		return true;
	}
	/* The OOM killer does not compensate for I/O-less reclaim. */
	if (oc->gfp_mask && !(oc->gfp_mask & __GFP_FS))
		return true;
	oc->constraint = constrained_alloc(oc);
	if (oc->constraint != CONSTRAINT_MEMORY_POLICY)
		oc->nodemask = NULL;
	check_panic_on_oom(oc);

	if (sysctl_oom_kill_allocating_task && t && t->mm && !oom_unkillable_task(t) && oom_cpuset_eligible(t, oc) &&
	    READ_ONCE(t->signal->oom_score_adj) != OOM_SCORE_ADJ_MIN) {
		get_task_struct(t);
		oc->chosen = t;
		oom_kill_process(oc, "Out of memory (oom_kill_allocating_task)");
		return true;
	}

	select_bad_process(oc);
	if (!oc->chosen) {
		/* Linux panics here; mmlab lets the allocation fail (see the
		 * top), and says so at most as often as warn_alloc. */
		static DEFINE_RATELIMIT_STATE(none_rs, DEFAULT_RATELIMIT_INTERVAL, DEFAULT_RATELIMIT_BURST);
		if (__ratelimit(&none_rs)) {
			dump_header(oc, NULL);
			pr_warn("Out of memory and no killable processes...\n");
		}
		return false;
	}
	if (oc->chosen != (void *)-1ul)
		oom_kill_process(oc, "Out of memory");
	return true;
}

bool oom_lock_trylock(void)
{
	if (mutex_trylock(&oom_lock))
		return true;
	schedule_timeout_uninterruptible(1);
	return false;
}

void oom_lock_unlock(void) { mutex_unlock(&oom_lock); }
