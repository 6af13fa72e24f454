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

#define PID_HASH_SIZE 64

static DEFINE_SPINLOCK(pid_lock);
static struct list_head pid_hash[PID_HASH_SIZE];
static bool pid_hash_ready;
static unsigned long pids_in_table;
static int next_pid = 1;
static DECLARE_WAIT_QUEUE_HEAD(task_put_wait);

int alloc_pid(void) { return __atomic_fetch_add(&next_pid, 1, __ATOMIC_RELAXED); }
int last_pid(void) { return __atomic_load_n(&next_pid, __ATOMIC_RELAXED) - 1; }

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

int release_task(struct task_struct *p)
{
	put_task_struct(p);
	wait_event(task_put_wait, __atomic_load_n(&p->usage, __ATOMIC_ACQUIRE) == 0);
	return kthread_join(p);
}

unsigned long nr_pids(void) { return READ_ONCE(pids_in_table); }

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
	*pgrp = *session = p->signal ? p->tgid : p->pid;
	*exit_signal = SIGCHLD;
	if (!p->signal || !leader)
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
