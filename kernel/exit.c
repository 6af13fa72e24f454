/* The end of user threads and of thread groups (Linux's kernel/exit.c):
 * exit 60 ends one thread, exit_group 231 and a fatal signal (a fault's
 * or one sent: do_group_exit_signal, with its console line) end all of
 * them, and the reaper frees the threads nobody waits for. The last thread
 * of a process makes it a zombie for its parent (exit_notify: its
 * children to their new parent, its parent told with exit_signal), or has
 * the kernel free it when nobody will wait; the end of a tree's root kills
 * the rest of its tree (zap_tree). Both are kernel/exit_notify.c; waiting
 * is kernel/exit_wait.c.
 *
 * A thread always ends in its own context (do_exit_thread): robust futexes
 * and CLONE_CHILD_CLEARTID first (Linux's exit_mm -> exit_mm_release), then
 * it leaves the pid table and the group, drops its mm and FPU area, and the
 * last thread of the group sets the process's result and frees the files.
 * The task_struct and kernel stack can only be freed once the CPU has left
 * them: the leader's by process_wait, every other thread's by the reaper (a
 * kernel thread: Linux's self-reaping of CLONE_THREAD children, which
 * release_task does from the exiting thread's own exit_notify).
 *
 * A group exit (Linux's do_group_exit + zap_other_threads) marks the group
 * under signal->siglock, wakes every other thread from an interruptible
 * wait and kicks the CPUs they run on with the reschedule IPI; each one ends
 * on its next way back to user mode (arch_do_signal_or_restart).
 *
 * Invariant: signal->sigcnt counts the group's task_structs not yet freed;
 * release_process frees the group only when the leader's is the last. A
 * process is on its parent's children list from its creation until a wait
 * claims it (EXIT_DEAD) or it is handed to the process reaper. */
#include "arch/x86_64/apic.h"
#include "arch/x86_64/traps.h"
#include "arch/x86_64/uaccess.h"
#include "fs/file.h"
#include "fs/fs_struct.h"
#include "drivers/tty/tty_struct.h"
#include "kernel/futex.h"
#include "kernel/init.h"
#include "kernel/panic.h"
#include "kernel/pid.h"
#include "kernel/printk.h"
#include "kernel/process.h"
#include "kernel/signal.h"
#include "kernel/smp.h"
#include "lib/string.h"
#include "kernel/syscall.h"
#include "kernel/time.h"
#include "kernel/topology.h"
#include "mm/mm_types.h"
#include "mm/mempolicy.h"
#include "mm/mmu_context.h"
#include "mm/slab.h"
#include "mm/util.h"

static unsigned long user_threads_alive;

/* Tasks to free that nobody waits for, each queue with its kernel thread:
 * exited threads other than leaders (release_thread), and processes the
 * kernel reaps (release_process, which waits for the first queue's work
 * on that process's threads, hence a thread of its own). Linked by
 * task->thread_node. */
struct reap_queue {
	spinlock_t lock;
	struct list_head list;
	struct wait_queue_head wait;
	void (*release)(struct task_struct *p);
};
static void release_thread(struct task_struct *p);
static struct reap_queue thread_reap = {
	__SPIN_LOCK_UNLOCKED, LIST_HEAD_INIT(thread_reap.list),
	__WAIT_QUEUE_HEAD_INITIALIZER(thread_reap.wait), release_thread,
};
static struct reap_queue process_reap = {
	__SPIN_LOCK_UNLOCKED, LIST_HEAD_INIT(process_reap.list),
	__WAIT_QUEUE_HEAD_INITIALIZER(process_reap.wait), release_process,
};

/* Moves the tasks of list (on their thread_node) to q. */
static void reap_queue_add(struct reap_queue *q, struct list_head *list)
{
	if (list_empty(list))
		return;
	spin_lock(&q->lock);
	while (!list_empty(list)) {
		struct task_struct *p = list_first_entry(list, struct task_struct, thread_node);
		list_del(&p->thread_node);
		list_add_tail(&p->thread_node, &q->list);
	}
	spin_unlock(&q->lock);
	wake_up(&q->wait);
}

static void reap_queue_add_one(struct reap_queue *q, struct task_struct *p)
{
	LIST_HEAD(one);
	list_add_tail(&p->thread_node, &one);
	reap_queue_add(q, &one);
}

static int reaper_fn(void *data)
{
	struct reap_queue *q = data;
	for (;;) {
		wait_event(q->wait, READ_ONCE(q->list.next) != &q->list);
		spin_lock(&q->lock);
		struct task_struct *p = list_first_entry(&q->list, struct task_struct, thread_node);
		list_del(&p->thread_node);
		spin_unlock(&q->lock);
		q->release(p);
	}
	return 0;
}
static DECLARE_WAIT_QUEUE_HEAD(group_release_wait);
static struct task_struct *reaper;

unsigned long nr_user_threads(void) { return __atomic_load_n(&user_threads_alive, __ATOMIC_RELAXED); }
void user_thread_started(void) { __atomic_add_fetch(&user_threads_alive, 1, __ATOMIC_RELAXED); }
bool user_thread_reaper_running(void) { return READ_ONCE(reaper) != NULL; }

/* Linux's signal_wake_up + kick_process for SIGKILL, for every thread of
 * tsk's group but tsk. Caller holds signal->siglock, group_exit set. */
static void zap_other_threads(struct task_struct *tsk)
{
	struct task_struct *t;
	/* group_exit is visible before any kick lands: a thread that takes
	 * the IPI, or wakes, reads it set. */
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	list_for_each_entry(t, &tsk->signal->thread_head, thread_node) {
		if (t == tsk)
			continue;
		wake_up_state(t, TASK_INTERRUPTIBLE | TASK_WAKEKILL); /* a stopped one too */
		/* It may be running in user mode there (no system call to
		 * return from): the interrupt's way out looks at the flag. A
		 * thread of this CPU is not running now and looks when it
		 * next returns to user mode. */
		if (t->cpu != smp_processor_id())
			apic_send_ipi(cpu_physical_id(t->cpu), RESCHEDULE_VECTOR);
	}
}

/* Marks the group exiting with code, unless it already is, and ends the
 * other threads; a kill by signo (why != NULL) also records the report.
 * Returns whether this call did it. */
static bool start_group_exit(struct task_struct *tsk, int code, const char *why, int signo)
{
	struct signal_struct *sig = tsk->signal;
	spin_lock(&sig->siglock);
	bool first = !sig->group_exit;
	if (first) {
		if (why) {
			sig->result.killed = true;
			sig->result.signal = signo;
			/* Linux's do_coredump gives up on a process that is not
			 * dumpable (PR_SET_DUMPABLE 0): no core, no 0x80 bit.
			 * mmlab writes no file and reports the others dumped. */
			sig->result.core_dumped = sig_kernel_coredump(signo) && tsk->mm && get_dumpable(tsk->mm);
			sig->result.exit_code = 0;
			strlcpy(sig->result.reason, why, sizeof(sig->result.reason));
		}
		sig->group_exit_code = code;
		__atomic_store_n(&sig->group_exit, true, __ATOMIC_RELEASE);
		zap_other_threads(tsk);
	}
	spin_unlock(&sig->siglock);
	return first;
}

void release_processes_later(struct list_head *dead) { reap_queue_add(&process_reap, dead); }

void mm_release(struct task_struct *tsk, struct mm_struct *mm)
{
	/* Linux's mm_release: the CLEARTID word, while the mm is still ours
	 * (the robust list went first: futex_exit_release or
	 * futex_exec_release). A failed write is ignored, as Linux's; the
	 * wake goes to shared futexes (no FUTEX_PRIVATE_FLAG), as Linux's
	 * do_futex(FUTEX_WAKE). */
	if (tsk->clear_child_tid) {
		if (__atomic_load_n(&mm->mm_users, __ATOMIC_RELAXED) > 1) {
			(void)put_user_u32(0, tsk->clear_child_tid);
			futex_wake((u32 __user *)tsk->clear_child_tid, FLAGS_SHARED, 1, FUTEX_BITSET_MATCH_ANY);
		}
		tsk->clear_child_tid = NULL;
	}
}

/* Linux's de_thread for a thread that is not the leader, once the leader
 * has exited: the caller takes the leader's place (exchange_tids,
 * transfer_pid: its pid, which is the process's id; its parent and exit
 * signal SIGCHLD; its children; its place among its parent's children
 * and in the tree, and as the tree's root). The old leader's task, ended,
 * stays until the process is freed (signal->dead_leaders: a file opened
 * under /proc/self, or process_wait, may still name it), and no longer
 * counts among the group's tasks (sigcnt). */
static void become_leader(struct task_struct *tsk)
{
	struct task_struct *leader = tsk->group_leader, *c, *p;
	struct signal_struct *sig = tsk->signal;
	int old_pid = tsk->pid;
	detach_pid(tsk);
	spin_lock(&tasklist_lock);
	tsk->pid = leader->pid;
	leader->pid = old_pid;
	tsk->group_leader = tsk;
	tsk->real_parent = leader->real_parent;
	tsk->parent_thread = leader->parent_thread;
	tsk->exit_signal = SIGCHLD;
	INIT_LIST_HEAD(&tsk->children);
	while (!list_empty(&leader->children)) {
		c = list_first_entry(&leader->children, struct task_struct, sibling);
		list_move(&c->sibling, &tsk->children);
		c->real_parent = tsk;
	}
	INIT_LIST_HEAD(&tsk->sibling);
	if (leader->real_parent) {
		list_add(&tsk->sibling, &leader->sibling);
		list_del(&leader->sibling);
	}
	list_add(&tsk->tasks, &leader->tasks);
	list_del(&leader->tasks);
	if (sig->child_reaper == leader)
		list_for_each_entry(p, &sig->tree_tasks, tasks)
			p->signal->child_reaper = tsk;
	spin_unlock(&tasklist_lock);
	attach_pid(tsk);
	spin_lock(&sig->siglock);
	list_add_tail(&leader->thread_node, &sig->dead_leaders);
	spin_unlock(&sig->siglock);
	__atomic_sub_fetch(&sig->sigcnt, 1, __ATOMIC_ACQ_REL);
}

int de_thread(struct task_struct *tsk)
{
	struct signal_struct *sig = tsk->signal;
	spin_lock(&sig->siglock);
	if (sig->nr_threads == 1 && tsk == tsk->group_leader) {
		spin_unlock(&sig->siglock);
		return 0;
	}
	if (sig->group_exit) {
		spin_unlock(&sig->siglock);
		return -EAGAIN;
	}
	/* The other threads end as in a group exit; the caller does not
	 * (signal_pending and fatal_signal_pending skip group_exec_task). */
	sig->group_exec_task = tsk;
	sig->group_exit_code = 0;
	__atomic_store_n(&sig->group_exit, true, __ATOMIC_RELEASE);
	zap_other_threads(tsk);
	spin_unlock(&sig->siglock);
	/* Their task_structs freed too, but the leader's (a leader is freed
	 * with its process): the caller is alone. */
	bool leader = tsk == tsk->group_leader;
	wait_event(group_release_wait, READ_ONCE(sig->nr_threads) == 1 &&
					       __atomic_load_n(&sig->sigcnt, __ATOMIC_ACQUIRE) == (leader ? 1 : 2));
	if (!leader)
		become_leader(tsk);
	spin_lock(&sig->siglock);
	__atomic_store_n(&sig->group_exit, false, __ATOMIC_RELEASE);
	sig->group_exec_task = NULL;
	spin_unlock(&sig->siglock);
	return 0;
}

__noreturn void do_exit_thread(int code)
{
	struct task_struct *tsk = current;
	struct signal_struct *sig = tsk->signal;
	struct mm_struct *mm = tsk->mm;
	void *fpu = tsk->fpu_state;

	if (!sig || !mm)
		panic("BUG: do_exit_thread() in %s, which is not a user thread", tsk->comm);
	futex_exit_release(tsk);
	/* Linux's exit_signals: no signal is queued to it from here on. */
	exit_signals(tsk, false);
	mm_release(tsk, mm);
	detach_pid(tsk);

	spin_lock(&sig->siglock);
	list_del(&tsk->thread_node);
	/* Linux's __exit_signal: what this thread used stays the group's.
	 * What it uses from here on (the ticks of its last steps, the switch
	 * away in do_exit) is counted nowhere, as in Linux after that point. */
	sig->utime += tsk->utime;
	sig->stime += tsk->stime;
	sig->min_flt += tsk->min_flt;
	sig->maj_flt += tsk->maj_flt;
	sig->nvcsw += tsk->nvcsw;
	sig->nivcsw += tsk->nivcsw;
	/* Linux's do_exit: setmax_mm_hiwater_rss. */
	sig->maxrss = max(sig->maxrss, __atomic_load_n(&mm->hiwater_rss, __ATOMIC_RELAXED));
	bool last = sig->nr_threads == 1;
	/* The group's status after a group exit, else the last thread's own
	 * (what Linux reports to the parent when the leader exited first:
	 * checked on Linux 6.18 with thread_group leader_exit). */
	if (last && !sig->result.killed)
		sig->result.exit_code = sig->group_exit ? sig->group_exit_code : code & 0xff;
	/* And the last line the process wrote, while its file table is still
	 * there: both before nr_threads says 0, which is when process_wait
	 * may read the result (group_released; the kernel's own process has
	 * no tree count to wait for besides), so the store of 0 is a
	 * release. (The line was copied later, after the file table left the
	 * task: a waiter woken in between by another group's release read
	 * an empty last line.) */
	if (last && tsk->files)
		strlcpy(sig->result.last_line, files_last_console_line(tsk->files), sizeof(sig->result.last_line));
	__atomic_store_n(&sig->nr_threads, sig->nr_threads - 1, __ATOMIC_RELEASE);
	/* An exec waits for the leader's end, which no release announces. */
	bool exec_waits = sig->group_exec_task && tsk == tsk->group_leader;
	spin_unlock(&sig->siglock);
	if (exec_waits)
		wake_up_all(&group_release_wait);

	if (!last)
		exit_thread_children(tsk);
	/* Linux's exit_fs: this thread's hold on the root and cwd. */
	task_lock(tsk);
	struct fs_struct *fs = tsk->fs;
	tsk->fs = NULL;
	task_unlock(tsk);
	put_fs_struct(fs);
	/* Off the task before the last thread releases the table: a /proc
	 * reader takes its reference under task_lock (get_task_files). */
	struct files_struct *files = tsk->files;
	task_lock(tsk);
	tsk->files = NULL;
	task_unlock(tsk);
	if (last) {
		exit_signals(tsk, true); /* the process's queue: nobody can send to it now */
		files_release(files);
		/* Linux's do_exit: a session leader's end hangs up its
		 * controlling terminal. */
		disassociate_ctty(true);
		process_ended();
	}
	task_lock(tsk); /* a /proc reader holds it while it takes a reference */
	/* Off the address space and FPU area before they go: the scheduler
	 * looks at both when it switches. */
	__asm__ volatile("cli" ::: "memory");
	tsk->mm = NULL;
	tsk->fpu_state = NULL;
	switch_mm(mm, NULL);
	__asm__ volatile("sti" ::: "memory");
	task_unlock(tsk);
	mmput(mm);
	/* Linux's mm_release: a vfork parent may go on once the child has
	 * left the memory it borrowed. */
	if (tsk->in_vfork)
		complete_all(&tsk->vfork_done);
	kfree(fpu);
	mpol_exit(tsk);
	__atomic_sub_fetch(&user_threads_alive, 1, __ATOMIC_RELAXED);

	if (tsk != tsk->group_leader) {
		reap_queue_add_one(&thread_reap, tsk);
	}
	if (last) {
		/* After the mm and the files are gone (Linux's exit_notify
		 * follows exit_mm and exit_files): a parent woken here finds
		 * the process's resources freed. */
		if (exit_notify(tsk->group_leader))
			reap_queue_add_one(&process_reap, tsk->group_leader);
		/* sig stays: this task holds one of sigcnt until it is freed. */
		wake_up_all(&group_release_wait);
	}
	do_exit(code);
}

__noreturn void process_exit(int code)
{
	struct task_struct *tsk = current;
	start_group_exit(tsk, code & 0xff, NULL, 0);
	do_exit_thread(READ_ONCE(tsk->signal->group_exit_code));
}

__noreturn void do_group_exit_signal(int signo, const char *report)
{
	struct task_struct *tsk = current;
	/* Nothing of the kernel's is held on the way back to user mode, or
	 * from a user-mode exception; the teardown may wait for TLB-flush
	 * IPIs. */
	__asm__ volatile("sti" ::: "memory");
	if (!tsk->signal) /* cannot happen: only processes take signals */
		panic("BUG: signal %d kills task %s, which is not a process", signo, tsk->comm);
	/* The default action of a fatal signal: the whole group dies (Linux's
	 * do_group_exit from get_signal), reported once. The status is the
	 * shell's 128 + signal; the result says which signal it was. */
	if (start_group_exit(tsk, 128 + signo, report, signo)) {
		if (tsk->pid == tsk->tgid)
			printk(KERN_ALWAYS "%smmlab: process %d (%s) killed: %s\n", process_console_prefix(tsk),
			       tsk->tgid, tsk->comm, report);
		else
			printk(KERN_ALWAYS "%smmlab: process %d (%s) killed: %s [in thread %d]\n",
			       process_console_prefix(tsk), tsk->tgid, tsk->comm, report, tsk->pid);
	}
	do_exit_thread(128 + signo);
}

/* The report of a user-mode exception: what, where. */
static void fault_report(const struct pt_regs *regs, u64 cr2, const char *reason, char *why, size_t size)
{
	if (regs->vector == X86_TRAP_PF)
		snprintf(why, size, "%s at address %#lx (ip %#lx, error code %#lx)", reason, cr2, regs->rip,
			 regs->error_code);
	else
		snprintf(why, size, "%s (ip %#lx, error code %#lx)", reason, regs->rip, regs->error_code);
}

__noreturn void user_fault_kill(struct pt_regs *regs, u64 cr2, const char *reason, int signo)
{
	char why[sizeof(((struct process_result *)0)->reason)];
	fault_report(regs, cr2, reason, why, sizeof(why));
	do_group_exit_signal(signo, why);
}

void user_fault_signal(struct pt_regs *regs, u64 cr2, const char *reason, int signo, int code,
		       unsigned long addr)
{
	struct task_struct *tsk = current;
	char why[sizeof(((struct process_result *)0)->reason)];
	__asm__ volatile("sti" ::: "memory");
	/* What the signal frame's sigcontext shows (Linux's trap_nr,
	 * error_code and, for a page fault, set_signal_archinfo's cr2 and
	 * error code: user mode's, and a protection fault for a kernel
	 * address, whose page tables are not the user's business). */
	tsk->thread.trap_nr = regs->vector;
	tsk->thread.error_code = regs->error_code;
	if (regs->vector == X86_TRAP_PF) {
		tsk->thread.error_code |= X86_PF_USER | (cr2 >= TASK_SIZE ? X86_PF_PROT : 0);
		tsk->thread.cr2 = cr2;
	}
	fault_report(regs, cr2, reason, why, sizeof(why));
	force_sig_fault(signo, code, addr, why);
}

/* Once no thread is left, none can be made: then only the reaper's
 * releases remain to wait for. */
static bool group_released(struct signal_struct *sig)
{
	return READ_ONCE(sig->nr_threads) == 0 && __atomic_load_n(&sig->sigcnt, __ATOMIC_ACQUIRE) == 1;
}

void wait_group_released(struct signal_struct *sig)
{
	wait_event(group_release_wait, group_released(sig));
}

void wait_tree_released(struct signal_struct *sig)
{
	wait_group_released(sig);
	wait_event(group_release_wait, READ_ONCE(sig->nr_tree) == 0);
}

void wake_up_tree_waiters(void) { wake_up_all(&group_release_wait); }

bool wait_group_released_timeout(struct signal_struct *sig, long timeout)
{
	return wait_event_timeout(group_release_wait, group_released(sig), timeout) != 0;
}

/* Frees an exited thread that is not its group's leader. */
static void release_thread(struct task_struct *p)
{
	struct signal_struct *sig = p->signal;
	struct sighand_struct *sh = p->sighand;
	release_task(p);
	sighand_put(sh);
	/* The last touch of sig: process_wait may free it right after. */
	__atomic_sub_fetch(&sig->sigcnt, 1, __ATOMIC_ACQ_REL);
	wake_up_all(&group_release_wait);
}

/* Before the test run and the boot programs (both later: the test run is a
 * late_initcall_sync, the boot programs follow the initcalls): the reaper
 * is there before any process. */
static int reaper_init(void)
{
	struct task_struct *p = kthread_run_on_cpu(reaper_fn, &thread_reap, smp_processor_id(), "reaper/%u");
	struct task_struct *pr = kthread_run_on_cpu(reaper_fn, &process_reap, smp_processor_id(), "preaper/%u");
	if (!p || !pr)
		return -ENOMEM;
	WRITE_ONCE(reaper, p);
	return 0;
}
late_initcall(reaper_init);

/* Linux's sys_exit: this thread only. */
SYSCALL_DEFINE1(exit, int, error_code)
{
	do_exit_thread(error_code & 0xff);
}

SYSCALL_DEFINE1(exit_group, int, error_code)
{
	process_exit(error_code);
}
