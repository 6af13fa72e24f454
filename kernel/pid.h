/* Finding a task by its id (Linux's find_get_task_by_vpid): a table of the
 * live user threads and the kernel threads by thread id, and a reference count that keeps a
 * task_struct alive until put_task_struct.
 *
 * Invariant: a task is in the table from clone/spawn until it starts to exit
 * (detach_pid, before it gives up its mm); a reference is taken while it is
 * in the table (under the table's lock), or by a running task on itself
 * (get_task_struct(current)), and whoever frees the
 * task (release_task) first waits until every reference was put. */
#ifndef KERNEL_PID_H
#define KERNEL_PID_H

#include "kernel/sched.h"

/* A fresh id for a task (Linux's alloc_pid): the next free one after the
 * last given, cyclically below pid_max (32768, or what
 * /proc/sys/kernel/pid_max says); -EAGAIN when none is free. free_pid
 * gives it back (kthread_join, with the task_struct); set_task_pid gives
 * p (init, kthreadd) one of the ids kept for it. */
int alloc_pid(void);
void free_pid(int nr);
void set_task_pid(struct task_struct *p, int nr);
/* init= (kernel/process.c): the boot task, id 1 until now, takes a fresh
 * id, so that the first user process may have 1, as Linux's init has.
 * Returns 1 (the id now free for that process, still counted as held) or
 * -EAGAIN. Once, from the boot task. */
int init_pid_handover(struct task_struct *boot);
/* Whether nr is held by a task (or kept for init and kthreadd). */
bool pid_in_use(int nr);
/* The last id alloc_pid gave (/proc/loadavg's last field). */
int last_pid(void);
/* Ids held by tasks, processes' and kernel threads' alike. */
unsigned long nr_pids_allocated(void);
/* Puts p (p->pid set, p->usage 1: its reaper's) into the table / takes it out. */
void attach_pid(struct task_struct *p);
void detach_pid(struct task_struct *p);

/* The task whose thread id is nr (0: none), with a reference; NULL if
 * there is none. */
struct task_struct *find_get_task_by_vpid(int nr);
void get_task_struct(struct task_struct *p);
void put_task_struct(struct task_struct *p);

/* The reaper's end of a user task (Linux's release_task + put_task_struct
 * of the last reference): drops the reaper's reference, waits until the
 * others are put, then frees the task and its kernel stack (kthread_join).
 * The task must have exited (detach_pid done). Returns its exit code. */
int release_task(struct task_struct *p);
/* Drops the reference of whoever made p and waits until every other is
 * put (release_task's and kthread_join's wait): p is out of the table. */
void put_task_struct_and_wait(struct task_struct *p);

/* Kernel threads (tasks with no thread group) are in the table too, from
 * kthread_create until kthread_join: the one numbered nr, with a
 * reference, NULL if nr is none or not a kernel thread's; and the ids of
 * all of them, unsorted, in a kvmalloc'd array (the count; 0 and *out
 * NULL when memory is short). */
struct task_struct *find_get_kthread(int nr);
int collect_kthread_pids(int **out);

/* The process trees (kernel/signal.h's signal->child_reaper): the
 * process or thread numbered nr in the tree of root, with a reference:
 * a thread id names its thread, a process id its leader, zombies
 * included; NULL if there is none (another tree's is none too, as
 * another pid namespace's). */
struct task_struct *find_task_in_tree(struct task_struct *root, int nr);
/* Every process of root's tree (its leader) for which match(p, arg) holds
 * (match NULL: all), each with a reference, in a kvmalloc'd array: the
 * count (0 and *out NULL when none, or memory is short). Put each, then
 * kvfree the array. match runs under tasklist_lock. */
int collect_tree_processes(struct task_struct *root, bool (*match)(struct task_struct *p, const void *arg),
			   const void *arg, struct task_struct ***out);

/* What /proc/<pid>/stat and status show of p's process: its parent's id
 * (0: started by the kernel), process group, session, and the signal its
 * end sends (SIGCHLD for a process the kernel started, as its parent
 * would see; -1 for a thread that is not the leader). A kernel thread's
 * are Linux's: parent kthreadd (2), group and session 0. */
void process_ids(struct task_struct *p, int *ppid, int *pgrp, int *session, int *exit_signal);

/* Linux's get_task_mm (kernel/fork.c): task's mm with a user reference
 * (mmput it), NULL once it has none (exited, or a kernel thread); taken
 * under task_lock, which exit and exec hold when they change ->mm, so the
 * mm cannot be freed between the read and the reference. The same for its
 * open files (files_release them) and its root and cwd (put_fs_struct),
 * which /proc/<pid>/fd, cwd and root read. */
struct mm_struct *get_task_mm(struct task_struct *task);
struct files_struct *get_task_files(struct task_struct *task);
struct fs_struct *get_task_fs(struct task_struct *task);

/* Linux's for_each_process, over every tree: fn(p, arg) for one live
 * thread of each process (its leader while it lives), until fn returns
 * true. Under the id table's spinlock: fn must not sleep; p stays valid
 * during the call (get_task_struct keeps it after). */
void walk_processes(bool (*fn)(struct task_struct *p, void *arg), void *arg);

/* Tasks in the table: live user threads and kernel threads. */
unsigned long nr_pids(void);

#endif
