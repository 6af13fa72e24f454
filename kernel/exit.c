/* The end of user threads and of thread groups (Linux's kernel/exit.c):
 * exit 60 ends one thread, exit_group 231 and a fatal signal (a fault's
 * or one sent: do_group_exit_signal, with its console line) end all of
 * them, and the reaper frees the threads nobody waits for.
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
 * process_wait frees the group only when the leader's is the last. */
#include "arch/x86_64/apic.h"
#include "arch/x86_64/traps.h"
#include "arch/x86_64/uaccess.h"
#include "fs/file.h"
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
#include "kernel/topology.h"
#include "mm/mm_types.h"
#include "mm/mempolicy.h"
#include "mm/mmu_context.h"
#include "mm/slab.h"

static unsigned long user_threads_alive;
static DEFINE_SPINLOCK(reap_lock);
static LIST_HEAD(reap_list);
static DECLARE_WAIT_QUEUE_HEAD(reap_wait);
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
		wake_up_state(t, TASK_INTERRUPTIBLE);
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

__noreturn void do_exit_thread(int code)
{
	struct task_struct *tsk = current;
	struct signal_struct *sig = tsk->signal;
	struct mm_struct *mm = tsk->mm;
	void *fpu = tsk->fpu_state;

	if (!sig || !mm)
		panic("BUG: do_exit_thread() in %s, which is not a user thread", tsk->comm);
	/* Linux's exit_mm_release: the robust list, then the CLEARTID word
	 * (mm_release), while the mm is still ours. A failed write is
	 * ignored, as Linux's; the wake goes to shared futexes (no
	 * FUTEX_PRIVATE_FLAG), as Linux's do_futex(FUTEX_WAKE). */
	futex_exit_release(tsk);
	/* Linux's exit_signals: no signal is queued to it from here on. */
	exit_signals(tsk, false);
	if (tsk->clear_child_tid) {
		if (__atomic_load_n(&mm->mm_users, __ATOMIC_RELAXED) > 1) {
			int zero = 0;
			(void)copy_to_user(tsk->clear_child_tid, &zero, sizeof(zero));
			futex_wake((u32 __user *)tsk->clear_child_tid, FLAGS_SHARED, 1, FUTEX_BITSET_MATCH_ANY);
		}
		tsk->clear_child_tid = NULL;
	}
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
	bool last = --sig->nr_threads == 0;
	/* The group's status after a group exit, else the last thread's own
	 * (what Linux reports to the parent when the leader exited first:
	 * checked on Linux 6.18 with thread_group leader_exit). */
	if (last && !sig->result.killed)
		sig->result.exit_code = sig->group_exit ? sig->group_exit_code : code & 0xff;
	spin_unlock(&sig->siglock);

	if (last) {
		exit_signals(tsk, true); /* the process's queue: nobody can send to it now */
		strlcpy(sig->result.last_line, files_last_console_line(tsk->files),
			sizeof(sig->result.last_line));
		files_release(tsk->files);
		process_ended();
		/* sig stays: this task holds one of sigcnt until it is freed. */
		wake_up_all(&group_release_wait);
	}
	tsk->files = NULL;
	/* Off the address space and FPU area before they go: the scheduler
	 * looks at both when it switches. */
	__asm__ volatile("cli" ::: "memory");
	tsk->mm = NULL;
	tsk->fpu_state = NULL;
	switch_mm(mm, NULL);
	__asm__ volatile("sti" ::: "memory");
	mmput(mm);
	kfree(fpu);
	mpol_exit(tsk);
	__atomic_sub_fetch(&user_threads_alive, 1, __ATOMIC_RELAXED);

	if (tsk != tsk->group_leader) {
		spin_lock(&reap_lock);
		list_add_tail(&tsk->thread_node, &reap_list);
		spin_unlock(&reap_lock);
		wake_up(&reap_wait);
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

static int reaper_fn(void *unused)
{
	(void)unused;
	for (;;) {
		wait_event(reap_wait, READ_ONCE(reap_list.next) != &reap_list);
		spin_lock(&reap_lock);
		struct task_struct *p = list_first_entry(&reap_list, struct task_struct, thread_node);
		list_del(&p->thread_node);
		spin_unlock(&reap_lock);
		release_thread(p);
	}
	return 0;
}

/* Before the test run and the boot programs (both later: the test run is a
 * late_initcall_sync, the boot programs follow the initcalls): the reaper
 * is there before any process. */
static int reaper_init(void)
{
	struct task_struct *p = kthread_run_on_cpu(reaper_fn, NULL, smp_processor_id(), "reaper/%u");
	if (!p)
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
