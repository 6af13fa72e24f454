/* The table of live user threads by thread id, task references, and the
 * references on a task's mm, files and fs that /proc takes (see
 * kernel/pid.h). Linux keeps struct pid in an IDR and the task_struct's
 * usage count in refcount_t; here a small hash of list heads and an atomic
 * int do the same job for the few threads mmlab runs.
 *
 * Locking: pid_lock protects the table and orders every
 * find_get_task_by_vpid against detach_pid, so a reference is never taken
 * on a task that already left it. A task's usage is atomic; the last put
 * wakes release_task's wait. */
#include "kernel/pid.h"
#include "mm/mmu_context.h"
#include "kernel/panic.h"
#include "kernel/signal.h"
#include "fs/file.h"
#include "fs/fs_struct.h"
#include "mm/mm_types.h"
#include "mm/slab.h"
#include "mm/util.h"
#include "kernel/spinlock.h"
#include "kernel/wait.h"
#include "kernel/sysctl.h"
#include "fs/proc/proc_fs.h"

#define PID_HASH_SIZE 64

static DEFINE_SPINLOCK(pid_lock);
static struct list_head pid_hash[PID_HASH_SIZE];
static bool pid_hash_ready;
static unsigned long pids_in_table;
static DECLARE_WAIT_QUEUE_HEAD(task_put_wait);

/* ---- The id allocator (Linux's alloc_pid/free_pid over the pid
 * namespace's IDR, idr_alloc_cyclic) ----
 *
 * One bit per id below PID_MAX_DEFAULT, under pid_lock. Ids are handed
 * out cyclically: the next free one after the last given, wrapping to
 * RESERVED_PIDS once the top was reached (so 1 and 2 never come back);
 * -EAGAIN when every id is taken, as Linux's alloc_pid. Id 0 is the idle
 * tasks' (never given), 1 is init's (the boot task, kernel/sched.c) and 2
 * kthreadd's (kernel/kthread.c), both taken by set_task_pid before any
 * other. An id is freed with its task_struct (kthread_join), so a
 * zombie's stays taken until it is reaped, as Linux's. The scan from the
 * last id given finds a free one at once unless ids were used up to the
 * top and wrapped. */
#define PID_MAX_DEFAULT 0x8000
#define RESERVED_PIDS 300
#define PID_WORDS (PID_MAX_DEFAULT / 64)

/* /proc/sys/kernel/pid_max (Linux's): ids are handed out below it. From
 * RESERVED_PIDS + 1 (Linux's pid_max_min) to PID_MAX_DEFAULT, the
 * bitmap's size (Linux's pid_max_max is PID_MAX_LIMIT, 4M ids on 64-bit;
 * mmlab's table is for a few threads); -EINVAL outside. Lowered, it
 * leaves the ids above it held until freed, and the next id is found
 * from RESERVED_PIDS, as Linux's idr_alloc_cyclic does when its cursor is
 * past the end. */
static int pid_max = PID_MAX_DEFAULT;
static const int pid_max_min = RESERVED_PIDS + 1, pid_max_max = PID_MAX_DEFAULT;
SYSCTL_ENTRY(proc_sys_kernel_dir, pid_max, .data = &pid_max, .maxlen = sizeof(int),
	     .proc_handler = proc_dointvec_minmax, .extra1 = &pid_max_min, .extra2 = &pid_max_max);

static u64 pid_bitmap[PID_WORDS] = { 0x7 }; /* 0, 1 and 2: never handed out by alloc_pid */
static int pid_cursor = 2;                /* the last id given (Linux's idr cursor - 1) */
static unsigned long pids_allocated;      /* ids held by tasks */

static bool pid_test(int nr) { return pid_bitmap[nr / 64] >> (nr % 64) & 1; }

/* The first free id in [from, to), or -1; caller holds pid_lock. */
static int pid_find_free(int from, int to)
{
	for (int nr = from; nr < to;) {
		u64 word = pid_bitmap[nr / 64] | ((1ull << (nr % 64)) - 1);
		if (~word) {
			int found = (nr & ~63) + __builtin_ctzll(~word);
			return found < to ? found : -1;
		}
		nr = (nr & ~63) + 64;
	}
	return -1;
}

int alloc_pid(void)
{
	spin_lock(&pid_lock);
	int max = READ_ONCE(pid_max);
	int nr = pid_find_free(pid_cursor + 1, max);
	if (nr < 0)
		nr = pid_find_free(RESERVED_PIDS, pid_cursor + 1 < max ? pid_cursor + 1 : max);
	if (nr > 0) {
		pid_bitmap[nr / 64] |= 1ull << (nr % 64);
		pid_cursor = nr;
		pids_allocated++;
	}
	spin_unlock(&pid_lock);
	return nr > 0 ? nr : -EAGAIN;
}

void set_task_pid(struct task_struct *p, int nr)
{
	spin_lock(&pid_lock);
	if (nr <= 0 || nr >= RESERVED_PIDS || !pid_test(nr))
		panic("BUG: set_task_pid(%s, %d): not a reserved id", p->comm, nr);
	pids_allocated++;
	spin_unlock(&pid_lock);
	p->pid = p->tgid = nr;
}

int init_pid_handover(struct task_struct *boot)
{
	if (boot->pid != INIT_PID)
		panic("BUG: init_pid_handover(%s): its id is %d, not %d", boot->comm, boot->pid, INIT_PID);
	int nr = alloc_pid();
	if (nr < 0)
		return nr;
	detach_pid(boot);
	boot->pid = boot->tgid = nr;
	attach_pid(boot);
	return INIT_PID;
}

void free_pid(int nr)
{
	if (nr <= 0)
		return;
	spin_lock(&pid_lock);
	if (nr >= PID_MAX_DEFAULT || !pid_test(nr))
		panic("BUG: free_pid(%d): not allocated", nr);
	pid_bitmap[nr / 64] &= ~(1ull << (nr % 64));
	pids_allocated--;
	spin_unlock(&pid_lock);
}

bool pid_in_use(int nr)
{
	if (nr <= 0 || nr >= PID_MAX_DEFAULT)
		return false;
	spin_lock(&pid_lock);
	bool used = pid_test(nr);
	spin_unlock(&pid_lock);
	return used;
}

int last_pid(void) { return READ_ONCE(pid_cursor); }
unsigned long nr_pids_allocated(void) { return READ_ONCE(pids_allocated); }

static struct list_head *pid_bucket(int nr) { return &pid_hash[(unsigned int)nr % PID_HASH_SIZE]; }

/* Caller holds pid_lock. */
static void pid_hash_init_locked(void)
{
	if (pid_hash_ready)
		return;
	for (int i = 0; i < PID_HASH_SIZE; i++)
		INIT_LIST_HEAD(&pid_hash[i]);
	pid_hash_ready = true;
}

void attach_pid(struct task_struct *p)
{
	spin_lock(&pid_lock);
	pid_hash_init_locked();
	list_add_tail(&p->pid_node, pid_bucket(p->pid));
	pids_in_table++;
	spin_unlock(&pid_lock);
}

void detach_pid(struct task_struct *p)
{
	spin_lock(&pid_lock);
	list_del(&p->pid_node);
	INIT_LIST_HEAD(&p->pid_node);
	pids_in_table--;
	spin_unlock(&pid_lock);
}

struct task_struct *find_get_task_by_vpid(int nr)
{
	struct task_struct *found = NULL, *p;
	if (nr <= 0)
		return NULL;
	spin_lock(&pid_lock);
	if (pid_hash_ready) {
		list_for_each_entry(p, pid_bucket(nr), pid_node) {
			if (p->pid == nr) {
				get_task_struct(p);
				found = p;
				break;
			}
		}
	}
	spin_unlock(&pid_lock);
	return found;
}

void get_task_struct(struct task_struct *p) { __atomic_add_fetch(&p->usage, 1, __ATOMIC_RELAXED); }

void put_task_struct(struct task_struct *p)
{
	int left = __atomic_sub_fetch(&p->usage, 1, __ATOMIC_ACQ_REL);
	if (left < 0)
		panic("BUG: put_task_struct(%s): usage %d", p->comm, left);
	/* Only release_task waits, and only for 0: after this nothing of p
	 * is touched (it may be freed right away). */
	if (left == 0)
		wake_up_all(&task_put_wait);
}

void put_task_struct_and_wait(struct task_struct *p)
{
	put_task_struct(p);
	wait_event(task_put_wait, __atomic_load_n(&p->usage, __ATOMIC_ACQUIRE) == 0);
}

int release_task(struct task_struct *p)
{
	put_task_struct_and_wait(p);
	return kthread_join(p);
}

struct task_struct *find_get_kthread(int nr)
{
	struct task_struct *p = find_get_task_by_vpid(nr);
	if (p && p->signal) {
		put_task_struct(p);
		p = NULL;
	}
	return p;
}

int collect_kthread_pids(int **out)
{
	struct task_struct *p;
	*out = NULL;
	for (;;) {
		unsigned long size = READ_ONCE(pids_in_table) + 1;
		int *ids = kvmalloc_array(size, sizeof(*ids), GFP_KERNEL);
		if (!ids)
			return 0;
		unsigned long n = 0;
		spin_lock(&pid_lock);
		for (int b = 0; pid_hash_ready && b < PID_HASH_SIZE; b++)
			list_for_each_entry(p, &pid_hash[b], pid_node)
				if (!p->signal) {
					if (n < size)
						ids[n] = p->pid;
					n++;
				}
		spin_unlock(&pid_lock);
		if (n <= size) {
			*out = ids;
			return (int)n;
		}
		kvfree(ids); /* the table grew meanwhile */
	}
}

unsigned long nr_pids(void) { return READ_ONCE(pids_in_table); }

/* A process is seen through its leader while the leader lives; a group
 * whose leader has exited before its other threads is seen through its
 * first live thread (read without the group's siglock: a thread exiting
 * meanwhile may make the group seen twice or not at all this once). */
static bool process_representative(struct task_struct *t)
{
	struct task_struct *leader = t->group_leader;
	if (t == leader)
		return true;
	if (!leader || !list_empty(&leader->pid_node))
		return false;
	return READ_ONCE(t->signal->thread_head.next) == &t->thread_node;
}

void walk_processes(bool (*fn)(struct task_struct *p, void *arg), void *arg)
{
	struct task_struct *t;
	spin_lock(&pid_lock);
	for (int b = 0; pid_hash_ready && b < PID_HASH_SIZE; b++)
		list_for_each_entry(t, &pid_hash[b], pid_node)
			if (t->signal && process_representative(t) && fn(t, arg))
				goto out;
out:
	spin_unlock(&pid_lock);
}

/* ---- The process trees: lookups under tasklist_lock ---- */

struct task_struct *find_task_in_tree(struct task_struct *root, int nr)
{
	struct task_struct *p, *found = NULL;
	if (nr <= 0)
		return NULL;
	spin_lock(&tasklist_lock);
	list_for_each_entry(p, &root->signal->tree_tasks, tasks) {
		if (p->tgid == nr) {
			get_task_struct(p);
			found = p;
			break;
		}
	}
	spin_unlock(&tasklist_lock);
	if (found)
		return found;
	/* A thread that is not a leader, alive (only a leader stays
	 * findable after its exit). */
	found = find_get_task_by_vpid(nr);
	if (found && (!found->signal || found->signal->child_reaper != root)) {
		put_task_struct(found);
		found = NULL;
	}
	return found;
}

int collect_tree_processes(struct task_struct *root, bool (*match)(struct task_struct *p, const void *arg),
			   const void *arg, struct task_struct ***out)
{
	struct task_struct *p;
	/* The array is sized before the lock (it may sleep); a tree that
	 * grew past it meanwhile is counted again. */
	int size = READ_ONCE(root->signal->nr_tree) + 1;
	for (;;) {
		struct task_struct **procs = kvmalloc_array((size_t)size, sizeof(*procs), GFP_KERNEL);
		int n = 0;
		*out = NULL;
		if (!procs)
			return 0;
		spin_lock(&tasklist_lock);
		list_for_each_entry(p, &root->signal->tree_tasks, tasks) {
			if (match && !match(p, arg))
				continue;
			if (n < size) {
				get_task_struct(p);
				procs[n] = p;
			}
			n++;
		}
		spin_unlock(&tasklist_lock);
		if (n <= size) {
			*out = procs;
			return n;
		}
		while (size > 0)
			put_task_struct(procs[--size]);
		kvfree(procs);
		size = n;
	}
}

void process_ids(struct task_struct *p, int *ppid, int *pgrp, int *session, int *exit_signal)
{
	struct task_struct *leader = p->group_leader;
	*ppid = 0;
	*pgrp = *session = p->tgid;
	*exit_signal = SIGCHLD;
	if (!p->signal) {
		/* A kernel thread: kthreadd's child (kernel/kthread.c), in
		 * Linux's process group and session 0; kthreadd and init
		 * (and the idle tasks) have parent 0, and kthreadd, made by
		 * kernel_thread without SIGCHLD, exit signal 0. */
		*pgrp = *session = 0;
		if (p->pid > KTHREADD_PID)
			*ppid = KTHREADD_PID;
		if (is_kthreadd(p))
			*exit_signal = 0;
		return;
	}
	if (!leader)
		return;
	spin_lock(&tasklist_lock);
	*ppid = leader->real_parent ? leader->real_parent->tgid : 0;
	*pgrp = p->signal->pgrp;
	*session = p->signal->session;
	if (p != leader)
		*exit_signal = -1;
	else if (leader->real_parent)
		*exit_signal = leader->exit_signal;
	spin_unlock(&tasklist_lock);
}

/* ---- references on another task's mm, files and fs (/proc/<pid>) ---- */

struct mm_struct *get_task_mm(struct task_struct *task)
{
	task_lock(task);
	struct mm_struct *mm = task->mm;
	if (mm) /* mmget: exit and exec change ->mm under task_lock only */
		mmget(mm);
	task_unlock(task);
	return mm;
}

struct files_struct *get_task_files(struct task_struct *task)
{
	task_lock(task);
	struct files_struct *files = task->files;
	if (files)
		get_files_struct(files);
	task_unlock(task);
	return files;
}

struct fs_struct *get_task_fs(struct task_struct *task)
{
	task_lock(task);
	struct fs_struct *fs = task->fs;
	if (fs)
		get_fs_struct(fs);
	task_unlock(task);
	return fs;
}
