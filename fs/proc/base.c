/* /proc/<pid> and /proc/self (Linux's fs/proc/base.c tgid_base_stuff):
 * the directory of a process and its files, which fs/proc/array.c,
 * fs/proc/task_mmu.c and fs/proc/task_pagemap.c generate for the task a
 * generation pins.
 *
 * Which processes: the caller's process tree (kernel/pid.h
 * find_task_in_tree, collect_tree_processes), as Linux's pid namespace:
 * /proc lists "self" and the id of every process of the tree, zombies
 * included, in increasing order (proc_pid_readdir); a thread's id is
 * found by lookup but not listed, as Linux's; /proc/<pid>/task/ lists the
 * process's threads; /proc/thread-self is the calling thread's
 * /proc/<tgid>/task/<tid> (fs/proc/generic.c). Kernel threads belong to
 * every tree, as to Linux's initial pid namespace: each reader finds and
 * lists them (kernel/pid.h find_get_kthread, collect_kthread_pids). A
 * kernel thread reading (no tree) finds any live thread by its id
 * (find_get_task_by_vpid: not a zombie), but lists only the kernel
 * threads: mmlab has no list of every process.
 *
 * Lifetimes: a node names its process by id (proc_fs.h's struct
 * proc_node) and holds nothing; each generation pins the task, found
 * again for the reader (find_task_in_tree: a reference) and its mm (get_task_mm: a user
 * reference) for its duration, and drops both after it (proc_unpin_task).
 * A process reaped since its file was opened is not found: its files read
 * -ESRCH, as Linux's get_proc_task fails, but pagemap reads nothing (Linux's
 * holds the mm from the open). A zombie is found: it has no mm any more,
 * so its maps, cmdline and pagemap are empty and its status says
 * "Z (zombie)". */
#include "fs/proc/internal.h"
#include "fs/internal.h"
#include "kernel/pid.h"
#include "kernel/sched.h"
#include "kernel/signal.h"
#include "lib/vsprintf.h"
#include "mm/oom.h"
#include "kernel/sysctl.h"
#include "mm/gup.h"
#include "mm/mm_types.h"
#include "mm/mmap_lock.h"
#include "mm/mmu_context.h"
#include "mm/page.h"
#include "mm/slab.h"
#include "mm/util.h"

static struct task_struct *tree_of(struct task_struct *reader)
{
	return reader->signal ? reader->signal->child_reaper : NULL;
}

/* A process found by id for reader: in its tree or a kernel thread, or
 * (a kernel thread reading) any live thread; with a reference. NULL if
 * none. */
static struct task_struct *find_for_reader(struct task_struct *reader, int id)
{
	struct task_struct *tree = tree_of(reader), *t;
	if (!tree)
		return find_get_task_by_vpid(id);
	t = find_task_in_tree(tree, id);
	return t ? t : find_get_kthread(id);
}

static bool pid_dir_match(const char *s, size_t len, struct task_struct *task, struct proc_node *node)
{
	int id;
	bool self = len == 4 && !memcmp(s, "self", 4);
	if (self)
		id = tree_of(task) ? task->tgid : task->pid;
	else if (!proc_parse_id(s, len, &id))
		return false;
	if (tree_of(task) || !(self || (id > 0 && id == task->pid))) {
		/* Held until the lookup ends (procfs_lookup), for the
		 * families below that look at the task (fd/). */
		struct task_struct *t = id > 0 ? find_for_reader(task, id) : NULL;
		if (!t)
			return false;
		node->task = t;
		node->by_id = true;
	} else {
		node->task = task; /* a kernel thread itself */
	}
	node->pid = id;
	node->per_task = true;
	return true;
}

static void sort_ids(int *ids, int n)
{
	for (int i = 1; i < n; i++) { /* insertion sort: a few dozen ids */
		int j = i, id = ids[i];
		for (; j > 0 && ids[j - 1] > id; j--)
			ids[j] = ids[j - 1];
		ids[j] = id;
	}
}

/* The ids /proc lists for reader, increasing: every kernel thread's and,
 * for a process, the tgid of every process of its tree; n of them into a
 * kvmalloc'd array (NULL, 0 when none or memory is short). */
static int listed_ids(struct task_struct *reader, int **out)
{
	struct task_struct **procs = NULL;
	int *kthreads;
	int nk = collect_kthread_pids(&kthreads);
	int np = tree_of(reader) ? collect_tree_processes(tree_of(reader), NULL, NULL, &procs) : 0;
	int *ids = np + nk ? kvmalloc_array((size_t)(np + nk), sizeof(*ids), GFP_KERNEL) : NULL;
	for (int i = 0; i < np; i++) {
		if (ids)
			ids[i] = procs[i]->tgid;
		put_task_struct(procs[i]);
	}
	kvfree(procs);
	if (ids && nk)
		memcpy(ids + np, kthreads, (size_t)nk * sizeof(*ids));
	kvfree(kthreads);
	*out = ids;
	if (!ids)
		return 0;
	sort_ids(ids, np + nk);
	return np + nk;
}

/* getdents of /proc: "self" and "thread-self" (Linux's are fixed
 * symlinks; here the walk goes through them: generic.c), then the
 * processes. Each member is asked for by its position, so the tree is
 * collected again for each: a listing is quadratic in the tree's size,
 * which is a few processes. A process that ends between two getdents
 * calls moves the later ones up one position, so one may be missed
 * (Linux resumes at the next tgid instead). */
static bool pid_dir_list(unsigned int i, struct task_struct *task, char *name, size_t size)
{
	if (i < 2) {
		snprintf(name, size, i ? "thread-self" : "self");
		return true;
	}
	int *ids, n = listed_ids(task, &ids);
	bool found = i - 2 < (unsigned int)n;
	if (found)
		snprintf(name, size, "%d", ids[i - 2]);
	kvfree(ids);
	return found;
}

const struct proc_dir_entry pid_dir __proc_entry = {
	.parent = &proc_root_dir, .match = pid_dir_match, .list = pid_dir_list, .mode = S_IFDIR | 0555,
};

int proc_pin_task(const struct proc_node *node, struct task_struct *reader, struct proc_node *pinned)
{
	*pinned = *node;
	pinned->mm = NULL;
	if (!node->per_task)
		return 0;
	struct task_struct *t = node->task;
	if (node->by_id)
		t = find_for_reader(reader, node->pid);
	else if (t)
		get_task_struct(t);
	if (!t)
		return -ESRCH;
	pinned->task = t;
	pinned->mm = get_task_mm(t);
	return 0;
}

void proc_unpin_task(struct proc_node *pinned)
{
	if (!pinned->per_task)
		return;
	if (pinned->mm)
		mmput(pinned->mm);
	put_task_struct(pinned->task);
	pinned->mm = NULL;
	pinned->task = NULL;
}

/* The links (fs/stat.c reads them: the program, the working directory
 * and the root of the process). */
static const struct proc_dir_entry pid_exe __proc_entry = {
	.parent = &pid_dir, .name = "exe", .mode = S_IFLNK | 0777,
};
static const struct proc_dir_entry pid_cwd __proc_entry = {
	.parent = &pid_dir, .name = "cwd", .mode = S_IFLNK | 0777,
};
static const struct proc_dir_entry pid_root __proc_entry = {
	.parent = &pid_dir, .name = "root", .mode = S_IFLNK | 0777,
};

/* ---- cmdline, environ: the process's own memory ---- */

/* [start, end) of the process's memory: its argument or environment
 * strings, NUL-separated as exec laid them out (Linux's get_mm_cmdline
 * without the setproctitle case, which needs a program that rewrites its
 * arguments). A zombie has no mm: nothing. */
static void show_mm_range(struct seq_buf *m, const struct proc_node *node, bool env)
{
	struct mm_struct *mm = node->mm;
	if (!mm)
		return;
	mmap_read_lock(mm);
	unsigned long start = env ? mm->env_start : mm->arg_start, end = env ? mm->env_end : mm->arg_end;
	mmap_read_unlock(mm);
	if (end <= start)
		return;
	size_t len = end - start;
	if (len > m->size - m->len) { /* an overflow: procfs_fill retries with a larger buffer */
		m->len = m->size + 1;
		return;
	}
	char *buf = kvmalloc(len, GFP_KERNEL);
	if (!buf)
		return;
	/* Linux's get_mm_cmdline: access_remote_vm, which faults in a page
	 * never touched (or reclaimed) rather than skipping it. */
	size_t got = len > 0x7fffffff ? 0 : (size_t)access_remote_vm(mm, start, buf, (int)len, 0);
	memcpy(m->buffer + m->len, buf, got);
	m->len += got;
	kvfree(buf);
}

static void cmdline_show(struct seq_buf *m, const struct proc_node *node) { show_mm_range(m, node, false); }
static void environ_show(struct seq_buf *m, const struct proc_node *node) { show_mm_range(m, node, true); }

/* Linux's comm: the name, raw, and a newline. */
static void comm_show(struct seq_buf *m, const struct proc_node *node)
{
	seq_buf_printf(m, "%.*s\n", TASK_COMM_LEN, node->task->comm);
}

/* Linux's comm_write: the first TASK_COMM_LEN - 1 bytes written become
 * the name (raw: a newline written is kept), for a task of the writer's
 * own process; another process's is -EINVAL, one that has ended -ESRCH.
 * The whole count is returned. (A write of PAGE_SIZE bytes or more is
 * -EINVAL here, as every /proc write: procfs_write; Linux takes it.) */
static long comm_write(const struct proc_node *node, const char *buf, size_t len)
{
	struct proc_node pinned;
	if (proc_pin_task(node, proc_self_task(), &pinned))
		return -ESRCH;
	long ret = (long)len;
	struct task_struct *p = pinned.task;
	if (p == current || (p->signal && p->signal == current->signal)) /* same_thread_group */
		__set_task_comm(p, buf); /* buf is NUL-terminated */
	else
		ret = -EINVAL;
	proc_unpin_task(&pinned);
	return ret;
}

/* Linux's proc_oom_score and oom_score_adj_read/_write (mm/oom.h). A
 * write's text is Linux's kstrtoint: an optional sign, digits, an
 * optional newline; anything else -EINVAL. */
static void oom_score_show(struct seq_buf *m, const struct proc_node *node)
{
	seq_buf_printf(m, "%lu\n", oom_score(node->task));
}

static void oom_score_adj_show(struct seq_buf *m, const struct proc_node *node)
{
	seq_buf_printf(m, "%d\n", node->task->signal ? READ_ONCE(node->task->signal->oom_score_adj) : 0);
}

static long oom_score_adj_write(const struct proc_node *node, const char *buf, size_t len)
{
	s64 v;
	if (proc_get_long(buf, len, true, &v) || v < -0x80000000ll || v > 0x7fffffff)
		return -EINVAL;
	struct proc_node pinned;
	if (proc_pin_task(node, proc_self_task(), &pinned))
		return -ESRCH;
	int err = set_oom_score_adj(pinned.task, (int)v);
	proc_unpin_task(&pinned);
	return err ? err : (long)len;
}

PROC_FILE(pid_oom_score, pid_dir, "oom_score", oom_score_show);
PROC_FILE_RW(pid_oom_score_adj, pid_dir, "oom_score_adj", oom_score_adj_show, oom_score_adj_write);
PROC_FILE(pid_cmdline, pid_dir, "cmdline", cmdline_show);
PROC_FILE_RW(pid_comm, pid_dir, "comm", comm_show, comm_write);
/* S_IRUSR, as Linux's REG("environ", S_IRUSR, ...); everyone is root. */
static const struct proc_dir_entry pid_environ __proc_entry = {
	.parent = &pid_dir, .name = "environ", .mode = S_IFREG | 0400, .show = environ_show,
};
PROC_FILE(pid_maps, pid_dir, "maps", maps_show);
PROC_FILE(pid_mounts, pid_dir, "mounts", mounts_show);
PROC_FILE(pid_mountinfo, pid_dir, "mountinfo", mountinfo_show);
PROC_FILE(pid_numa_maps, pid_dir, "numa_maps", numa_maps_show);
PROC_FILE(pid_smaps, pid_dir, "smaps", smaps_show);
/* No mm: -ESRCH, as Linux's show_smaps_rollup. */
static const struct proc_dir_entry pid_smaps_rollup __proc_entry = {
	.parent = &pid_dir, .name = "smaps_rollup", .mode = S_IFREG | 0444, .show = smaps_rollup_show,
	.needs_mm = true,
};
PROC_FILE(pid_stat, pid_dir, "stat", stat_show);
PROC_FILE(pid_statm, pid_dir, "statm", statm_show);
PROC_FILE(pid_status, pid_dir, "status", status_show);
/* ---- /proc/<pid>/task/<tid>: the threads (Linux's tid_base_stuff) ---- */

static const struct proc_dir_entry pid_task_dir __proc_entry = {
	.parent = &pid_dir, .name = "task", .mode = S_IFDIR | 0555,
};

/* The thread numbered tid of task's process, with a reference; NULL if
 * none (it has ended, or is another process's). A kernel thread has one:
 * itself. */
static struct task_struct *find_thread(struct task_struct *task, int tid)
{
	struct signal_struct *sig = task->signal;
	struct task_struct *t, *found = NULL;
	if (!sig)
		return tid == task->pid ? (get_task_struct(task), task) : NULL;
	spin_lock(&sig->siglock);
	list_for_each_entry(t, &sig->thread_head, thread_node) {
		if (t->pid == tid) {
			get_task_struct(t);
			found = t;
			break;
		}
	}
	spin_unlock(&sig->siglock);
	return found;
}

static bool tid_dir_match(const char *s, size_t len, struct task_struct *task, struct proc_node *node)
{
	int tid;
	struct task_struct *t;
	if (!proc_parse_id(s, len, &tid) || !(t = find_thread(task, tid)))
		return false;
	if (node->by_id) { /* the lookup holds the thread instead of the process */
		put_task_struct(node->task);
		node->task = t;
		node->pid = tid;
	} else {
		put_task_struct(t); /* a kernel thread itself, borrowed */
	}
	node->thread = true;
	return true;
}

/* The live threads of the process in the order they joined it (Linux's
 * proc_task_readdir starts at the leader and follows the thread list);
 * one that has ended is gone, a leader that ended before its threads
 * too (Linux keeps it until they end). */
static bool tid_dir_list(unsigned int i, struct task_struct *task, char *name, size_t size)
{
	struct signal_struct *sig = task->signal;
	struct task_struct *t;
	int tid = 0;
	if (!sig)
		tid = i == 0 ? task->pid : 0;
	else {
		spin_lock(&sig->siglock);
		list_for_each_entry(t, &sig->thread_head, thread_node)
			if (i-- == 0) {
				tid = t->pid;
				break;
			}
		spin_unlock(&sig->siglock);
	}
	if (tid <= 0)
		return false;
	snprintf(name, size, "%d", tid);
	return true;
}

const struct proc_dir_entry tid_dir __proc_entry = {
	.parent = &pid_task_dir, .match = tid_dir_match, .list = tid_dir_list, .mode = S_IFDIR | 0555,
};
/* What mmlab has of Linux's per-thread files: the thread's own stat,
 * status and comm, and the process's memory as the thread sees it. */
PROC_FILE_RW(tid_comm, tid_dir, "comm", comm_show, comm_write);
PROC_FILE(tid_stat, tid_dir, "stat", stat_show);
PROC_FILE(tid_statm, tid_dir, "statm", statm_show);
PROC_FILE(tid_status, tid_dir, "status", status_show);
PROC_FILE(tid_maps, tid_dir, "maps", maps_show);
PROC_FILE(tid_smaps, tid_dir, "smaps", smaps_show);

/* S_IRUSR, as Linux's REG("pagemap", S_IRUSR, ...). */
static const struct proc_dir_entry pid_pagemap __proc_entry = {
	.parent = &pid_dir, .name = "pagemap", .mode = S_IFREG | 0400, .read = pagemap_read,
};
