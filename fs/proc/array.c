/* The per-task files under /proc/self and /proc/<pid> that describe the
 * task and its address space in figures: status, stat and statm, in Linux
 * 6.12's formats (fs/proc/array.c's proc_pid_status, do_task_stat and
 * proc_pid_statm, task_mmu.c's task_mem). The files that walk the VMAs
 * and page tables are task_mmu.c's (maps, smaps, numa_maps) and
 * task_pagemap.c's (pagemap); the directory they are in is
 * fs/proc/base.c's.
 *
 * Invariant: every figure comes from the task's own mm and thread group
 * (its counters, its VMAs, the threads' and the exited threads' usage
 * under siglock) at generation time, or is the 0 or constant Linux prints
 * for what this kernel lacks, named where it is printed. The VMA counts
 * and the code/brk bounds are read under the mm's mmap_lock held for
 * reading, since other threads of the process may map and unmap
 * meanwhile. */
#include "mm/page_alloc.h"
#include "drivers/tty/tty_struct.h"
#include "fs/proc/internal.h"
#include "kernel/cred.h"
#include "kernel/pid.h"
#include "kernel/sched.h"
#include "kernel/signal.h"
#include "kernel/smp.h"
#include "lib/string.h"
#include "kernel/time.h"
#include "fs/file.h"
#include "mm/mm_types.h"
#include "mm/mmap.h"
#include "mm/mmap_lock.h"
#include "mm/numa.h"

/* ---- status and statm ---- */

/* What Linux keeps as mm->exec_vm, stack_vm, data_vm and locked_vm
 * (vm_stat_account's classes), counted from the VMAs, under the
 * mmap_lock (the callers hold it). */
struct vm_counts {
	unsigned long exec, stack, data, locked;
};

static void count_vmas(struct mm_struct *mm, struct vm_counts *c)
{
	struct vm_area_struct *vma;
	memset(c, 0, sizeof(*c));
	for_each_vma(mm, vma) {
		unsigned long pages = (vma->vm_end - vma->vm_start) >> PAGE_SHIFT;
		unsigned long f = vma->vm_flags;
		if ((f & (VM_EXEC | VM_WRITE | VM_GROWSDOWN)) == VM_EXEC)
			c->exec += pages;
		else if (f & VM_GROWSDOWN) /* VM_STACK on x86 */
			c->stack += pages;
		else if ((f & (VM_WRITE | VM_SHARED | VM_GROWSDOWN)) == VM_WRITE)
			c->data += pages;
		if (f & VM_LOCKED)
			c->locked += pages;
	}
}

static const char *task_state_name(const struct task_struct *p)
{
	long s = READ_ONCE(p->__state);
	/* The exit state first, as Linux's task_state_index (__state |
	 * exit_state, the highest bit): a process whose end wait can already
	 * see (exit_notify set EXIT_ZOMBIE) may still be on its way to its
	 * last schedule, its __state not yet TASK_DEAD. */
	int exit_state = READ_ONCE(p->exit_state);
	if (exit_state == EXIT_ZOMBIE)
		return "Z (zombie)";
	if (exit_state == EXIT_DEAD)
		return "X (dead)";
	if (s == TASK_RUNNING)
		return "R (running)";
	if (s & TASK_DEAD)
		/* A leader that exited before its threads stays its group's
		 * zombie, as Linux's does until the last thread goes.
		 * A process that has ended is a zombie until it is reaped
		 * (exit_state, Linux's get_task_state). */
		return p->signal && p == p->group_leader &&
		       (READ_ONCE(p->signal->nr_threads) > 0 || READ_ONCE(p->exit_state) == EXIT_ZOMBIE)
			       ? "Z (zombie)"
			       : "X (dead)";
	if (s & __TASK_STOPPED) /* a stop signal's (kernel/signal_stop.c) */
		return "T (stopped)";
	if (s & TASK_UNINTERRUPTIBLE)
		return "D (disk sleep)";
	return "S (sleeping)";
}

/* Name as Linux 6.12's proc_task_name(escape): seq_escape_str with
 * ESCAPE_SPACE|ESCAPE_SPECIAL but only "\n\\" selected, so just those two
 * are written as C escapes; a tab, say, stays raw. */
static void task_comm_escaped(const struct task_struct *p, char name[TASK_COMM_LEN * 2 + 1])
{
	size_t n = 0;
	for (size_t i = 0; i < TASK_COMM_LEN && p->comm[i]; i++) {
		const char *esc = NULL;
		switch (p->comm[i]) {
		case '\n': esc = "\\n"; break;
		case '\\': esc = "\\\\"; break;
		}
		if (esc) {
			name[n++] = esc[0];
			name[n++] = esc[1];
		} else {
			name[n++] = p->comm[i];
		}
	}
	name[n] = 0;
}

static void task_name(struct seq_buf *m, const struct task_struct *p)
{
	char name[TASK_COMM_LEN * 2 + 1];
	task_comm_escaped(p, name);
	seq_buf_printf(m, "Name:\t%s\n", name);
}

#define SEQ_PUT_KB(label, pages) seq_buf_printf(m, label "\t%8lu kB\n", (pages) << (PAGE_SHIFT - 10))

/* Linux's task_mem(). */
static void task_mem(struct seq_buf *m, struct mm_struct *mm)
{
	struct vm_counts c;
	mmap_read_lock(mm);
	count_vmas(mm, &c);
	unsigned long anon = get_mm_counter(mm, MM_ANONPAGES), shmem = get_mm_counter(mm, MM_SHMEMPAGES);
	unsigned long swap = get_mm_counter(mm, MM_SWAPENTS);
	unsigned long total_vm = READ_ONCE(mm->total_vm);
	unsigned long hiwater_vm = max(total_vm, READ_ONCE(mm->hiwater_vm));
	unsigned long total_rss = anon + shmem; /* no file pages */
	unsigned long hiwater_rss = max(total_rss, READ_ONCE(mm->hiwater_rss));
	/* Text is the code segment's span, at most the executable VMAs. */
	unsigned long text = ALIGN_UP(mm->end_code, PAGE_SIZE) - (mm->start_code & PAGE_MASK);
	text = min(text, c.exec << PAGE_SHIFT);
	unsigned long lib = (c.exec << PAGE_SHIFT) - text;
	mmap_read_unlock(mm);

	SEQ_PUT_KB("VmPeak:", hiwater_vm);
	SEQ_PUT_KB("VmSize:", total_vm);
	SEQ_PUT_KB("VmLck:", c.locked);   /* VM_LOCKED VMAs (Linux's locked_vm: mlock, MAP_LOCKED) */
	SEQ_PUT_KB("VmPin:", 0ul);        /* nothing pins user pages */
	SEQ_PUT_KB("VmHWM:", hiwater_rss);
	SEQ_PUT_KB("VmRSS:", total_rss);
	SEQ_PUT_KB("RssAnon:", anon);
	/* Every file is tmpfs, whose pages are shmem: a mapped one counts in
	 * RssShmem, as on Linux (mm_counter_file: swap-backed pages are
	 * MM_SHMEMPAGES), so RssFile has nothing to count. */
	SEQ_PUT_KB("RssFile:", 0ul);
	SEQ_PUT_KB("RssShmem:", shmem);   /* shared anonymous memory and tmpfs files (mm/shmem.h) */
	SEQ_PUT_KB("VmData:", c.data);
	SEQ_PUT_KB("VmStk:", c.stack);
	seq_buf_printf(m, "VmExe:\t%8lu kB\n", text >> 10);
	seq_buf_printf(m, "VmLib:\t%8lu kB\n", lib >> 10);
	seq_buf_printf(m, "VmPTE:\t%8lu kB\n", mm_pgtables_bytes(mm) >> 10);
	SEQ_PUT_KB("VmSwap:", swap);      /* swap entries (MM_SWAPENTS) */
	/* Linux's hugetlb_report_usage: hugetlb pages mapped (not in RSS). */
	SEQ_PUT_KB("HugetlbPages:", (unsigned long)__atomic_load_n(&mm->hugetlb_usage, __ATOMIC_RELAXED));
}

/* The id a task's status and stat show as its own: a process's leader
 * shows the process's id, another thread its thread id. */
static int task_pid_shown(const struct task_struct *p)
{
	return p->signal && p == p->group_leader ? p->tgid : p->pid;
}

void status_show(struct seq_buf *m, const struct proc_node *node)
{
	struct task_struct *p = node->task;
	struct mm_struct *mm = node->mm; /* pinned: get_task_mm */
	/* The process's id (a kernel thread's tgid is its pid) and
	 * the task's: a thread's own under /proc/<tid> and task/<tid>, as
	 * Linux's. */
	int tgid = p->signal ? p->tgid : p->pid, pid = task_pid_shown(p);

	task_name(m, p);
	seq_buf_puts(m, "Umask:\t0022\n"); /* no umask(2): init's default */
	seq_buf_printf(m, "State:\t%s\n", task_state_name(p));
	/* A process the kernel started has parent 0, as init's is in Linux. */
	int ppid, pgrp, session, exit_signal;
	process_ids(p, &ppid, &pgrp, &session, &exit_signal);
	seq_buf_printf(m, "Tgid:\t%d\nNgid:\t0\nPid:\t%d\nPPid:\t%d\nTracerPid:\t0\n", tgid, pid, ppid);
	/* Linux's task_state and task_cap: the ids (real, effective, saved,
	 * fs) and the capability sets, from one reference on the creds. */
	const struct cred *cred = get_task_cred(p);
	seq_buf_printf(m, "Uid:\t%u\t%u\t%u\t%u\nGid:\t%u\t%u\t%u\t%u\n", cred->uid, cred->euid, cred->suid,
		       cred->fsuid, cred->gid, cred->egid, cred->sgid, cred->fsgid);
	seq_buf_printf(m, "FDSize:\t%d\n", p->files ? NR_OPEN_DEFAULT : 0);
	seq_buf_puts(m, "Groups:\t \n");
	seq_buf_printf(m, "NStgid:\t%d\nNSpid:\t%d\nNSpgid:\t%d\nNSsid:\t%d\n", tgid, pid, pgrp, session);
	/* A task with no thread group is a kernel thread (init, the boot
	 * task, too); a zombie has no mm but is a process. (A kernel thread
	 * working on a process's memory, kthread_use_mm, shows that mm's
	 * Vm lines below, which Linux's get_task_mm hides from /proc; the
	 * in-kernel tests read their own that way.) */
	seq_buf_printf(m, "Kthread:\t%c\n", !p->signal ? '1' : '0');
	if (mm) {
		task_mem(m, mm);
		seq_buf_puts(m, "CoreDumping:\t0\n");
		/* Linux's task_thp_status: 1 on a kernel with THP unless the
		 * process disabled it (prctl(PR_SET_THP_DISABLE)), whatever
		 * transparent_hugepage/enabled says. */
		seq_buf_printf(m, "THP_enabled:\t%d\n", !mm_flag_test(mm, MMF_DISABLE_THP));
		seq_buf_puts(m, "untag_mask:\t0xffffffffffffffff\n"); /* no LAM */
	}
	/* Linux's task_sig: the thread's and the process's pending sets, the
	 * queued count against RLIMIT_SIGPENDING, the mask and the actions
	 * (read without the lock: a snapshot, as Linux's is by the time it
	 * is read). */
	unsigned long ign, catch;
	collect_sigign_sigcatch(p, &ign, &catch);
	struct signal_struct *sig = p->signal;
	seq_buf_printf(m, "Threads:\t%d\nSigQ:\t%lu/%lu\n", sig ? READ_ONCE(sig->nr_threads) : 1,
		       sig ? READ_ONCE(sig->nr_queued) : 0ul,
		       sig ? READ_ONCE(sig->rlim[RLIMIT_SIGPENDING].rlim_cur) : 0ul);
	seq_buf_printf(m, "SigPnd:\t%016lx\nShdPnd:\t%016lx\n"
		       "SigBlk:\t%016lx\nSigIgn:\t%016lx\nSigCgt:\t%016lx\n",
		       sig ? __atomic_load_n(&p->pending.signal, __ATOMIC_RELAXED) : 0ul,
		       sig ? __atomic_load_n(&sig->shared_pending.signal, __ATOMIC_RELAXED) : 0ul,
		       READ_ONCE(p->blocked), ign, catch);
	seq_buf_printf(m, "CapInh:\t%016lx\nCapPrm:\t%016lx\nCapEff:\t%016lx\nCapBnd:\t%016lx\n"
		       "CapAmb:\t%016lx\n", cred->cap_inheritable.val, cred->cap_permitted.val, cred->cap_effective.val,
		       cred->cap_bset.val, cred->cap_ambient.val);
	put_cred(cred);
	seq_buf_printf(m, "NoNewPrivs:\t%d\nSeccomp:\t0\nSeccomp_filters:\t0\n", READ_ONCE(p->no_new_privs));
	/* The kernel applies no speculation mitigations. */
	seq_buf_puts(m, "Speculation_Store_Bypass:\tvulnerable\n"
			"SpeculationIndirectBranch:\talways enabled\n");
	/* Its affinity (sched_setaffinity), as Linux's task_cpus_allowed. */
	u64 allowed = READ_ONCE(p->cpus_mask.bits);
	seq_buf_puts(m, "Cpus_allowed:\t");
	print_mask(m, allowed, num_possible_cpus());
	bool cpus[NR_CPUS] = { 0 };
	for (unsigned int cpu = 0; cpu < NR_CPUS; cpu++)
		cpus[cpu] = allowed >> cpu & 1;
	seq_buf_puts(m, "\nCpus_allowed_list:\t");
	print_list(m, cpus, NR_CPUS);
	/* Memory may come from any node that has some. */
	bool mems[MAX_NUMNODES] = { 0 };
	u64 mem_bits = 0;
	for (int nid = 0; nid < MAX_NUMNODES; nid++)
		if ((mems[nid] = node_has_memory(nid)))
			mem_bits |= 1ull << nid;
	seq_buf_puts(m, "Mems_allowed:\t");
	print_mask(m, mem_bits, MAX_NUMNODES);
	seq_buf_puts(m, "\nMems_allowed_list:\t");
	print_list(m, mems, MAX_NUMNODES);
	seq_buf_printf(m, "voluntary_ctxt_switches:\t%lu\nnonvoluntary_ctxt_switches:\t%lu\n",
		       READ_ONCE(p->nvcsw), READ_ONCE(p->nivcsw));
}

/* /proc/<pid>/stat: Linux's do_task_stat for the whole thread group
 * (proc_tgid_stat), its 52 fields in its order. The fault counts and CPU
 * times are getrusage's (kernel/sys.c: the live threads' and the exited
 * ones' share, times in 100 Hz clock_t); what mmlab lacks is Linux's 0 or
 * constant for it: no signal queued (pending 0; blocked, ignored and caught are
 * what rt_sigprocmask and rt_sigaction stored), every task at
 * Linux's default priority (20) and nice (0) under SCHED_OTHER, kstkesp and
 * kstkeip 0 as Linux shows them outside a core dump. The flags are Linux's
 * PF_* bits that have a meaning here (PF_KTHREAD, PF_IDLE; no PF_RANDOMIZE:
 * no address-space randomisation). */

void stat_show(struct seq_buf *m, const struct proc_node *node)
{
	struct task_struct *p = node->task;
	struct signal_struct *sig = p->signal;
	struct mm_struct *mm = node->mm; /* pinned: get_task_mm */
	int pid = task_pid_shown(p);
	unsigned long min_flt = 0, maj_flt = 0, rsslim = RLIM_INFINITY;
	u64 utime = 0, stime = 0, cutime = 0, cstime = 0;
	unsigned long cmin_flt = 0, cmaj_flt = 0;
	int num_threads = 1;
	/* /proc/<pid>/task/<tid>/stat (node->thread) is the thread's own
	 * (Linux's proc_tid_stat, whole = 0): its faults and times; the
	 * children's and the thread count are the group's either way. A
	 * kernel thread has only its own. */
	bool own = !sig || node->thread;
	if (sig) {
		spin_lock(&sig->siglock);
		cmin_flt = sig->cmin_flt;
		cmaj_flt = sig->cmaj_flt;
		cutime = sig->cutime;
		cstime = sig->cstime;
		if (!own) {
			min_flt = sig->min_flt;
			maj_flt = sig->maj_flt;
			utime = sig->utime;
			stime = sig->stime;
			struct task_struct *t;
			list_for_each_entry(t, &sig->thread_head, thread_node) {
				min_flt += READ_ONCE(t->min_flt);
				maj_flt += READ_ONCE(t->maj_flt);
				utime += READ_ONCE(t->utime);
				stime += READ_ONCE(t->stime);
			}
		}
		num_threads = sig->nr_threads;
		rsslim = sig->rlim[RLIMIT_RSS].rlim_cur;
		spin_unlock(&sig->siglock);
	}
	if (own) {
		min_flt = READ_ONCE(p->min_flt);
		maj_flt = READ_ONCE(p->maj_flt);
		utime = READ_ONCE(p->utime);
		stime = READ_ONCE(p->stime);
	}
	unsigned long vsize = 0, rss = 0, code[2] = { 0, 0 }, stack = 0, data[7] = { 0 };
	if (mm) {
		mmap_read_lock(mm);
		vsize = READ_ONCE(mm->total_vm) << PAGE_SHIFT;
		rss = get_mm_rss(mm);
		code[0] = mm->start_code;
		code[1] = mm->end_code;
		stack = mm->start_stack;
		unsigned long d[7] = { mm->start_data, mm->end_data, mm->start_brk, mm->arg_start,
				       mm->arg_end, mm->env_start, mm->env_end };
		memcpy(data, d, sizeof(d));
		mmap_read_unlock(mm);
	}
	long state = READ_ONCE(p->__state);
	/* Linux's wchan flag: 1 for a task that is not running, given for
	 * the group only when it has one thread. */
	int wchan = num_threads < 2 && state != TASK_RUNNING;
	/* User processes are made by kthread_create_on_cpu too: a task is a
	 * kernel thread here when it belongs to no thread group (a leader
	 * that has exited has no mm but is still its group's). */
	unsigned long flags = (sig ? 0 : PF_KTHREAD) | (p->flags & PF_IDLE);
	unsigned long ign, catch;
	collect_sigign_sigcatch(p, &ign, &catch);

	/* The name raw, as Linux's (proc_task_name without escaping; only
	 * status escapes it): a reader finds the fields after the last ')'. */
	int ppid, pgrp, session, exit_signal, tpgid;
	unsigned int tty_nr;
	process_ids(p, &ppid, &pgrp, &session, &exit_signal);
	proc_tty_ids(sig, &tty_nr, &tpgid); /* the controlling terminal's */
	seq_buf_printf(m, "%d (%.*s) %c %d %d %d %u %d %lu %lu %lu %lu %lu %llu %llu %llu %llu 20 0 %d 0 %llu %lu %lu %lu",
		       pid, TASK_COMM_LEN, p->comm, task_state_name(p)[0], ppid, pgrp, session, tty_nr, tpgid, flags, min_flt,
		       cmin_flt, maj_flt, cmaj_flt, (unsigned long long)nsec_to_clock_t(utime),
		       (unsigned long long)nsec_to_clock_t(stime), (unsigned long long)nsec_to_clock_t(cutime),
		       (unsigned long long)nsec_to_clock_t(cstime), num_threads, (unsigned long long)nsec_to_clock_t(p->start_boottime), vsize, rss, rsslim);
	seq_buf_printf(m, " %lu %lu %lu 0 0 %lu %lu %lu %lu %d 0 0 %d %u 0 0 0 0 0", mm ? code[0] : 0,
		       mm ? code[1] : 0, stack, 0ul, READ_ONCE(p->blocked) & 0x7ffffffful, ign & 0x7ffffffful,
		       catch & 0x7ffffffful, wchan,
		       exit_signal, READ_ONCE(p->cpu));
	for (int i = 0; i < 7; i++)
		seq_buf_printf(m, " %lu", data[i]);
	seq_buf_puts(m, " 0\n");
}

/* size resident shared text lib data dt, in pages (proc_pid_statm). */
void statm_show(struct seq_buf *m, const struct proc_node *node)
{
	struct mm_struct *mm = node->mm;
	if (!mm) {
		seq_buf_puts(m, "0 0 0 0 0 0 0\n");
		return;
	}
	struct vm_counts c;
	mmap_read_lock(mm);
	count_vmas(mm, &c);
	unsigned long text = (ALIGN_UP(mm->end_code, PAGE_SIZE) - (mm->start_code & PAGE_MASK)) >> PAGE_SHIFT;
	mmap_read_unlock(mm);
	/* Linux's statm: resident, then shared (file and shmem pages). */
	seq_buf_printf(m, "%lu %lu %lu %lu 0 %lu 0\n", READ_ONCE(mm->total_vm), get_mm_rss(mm),
		       get_mm_counter(mm, MM_SHMEMPAGES), text, c.data + c.stack);
}
