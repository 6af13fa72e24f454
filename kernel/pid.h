/* Finding a task by its id (Linux's find_get_task_by_vpid): a table of the
 * live user threads by thread id, and a reference count that keeps a
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

/* A fresh thread id (Linux's alloc_pid; ids are not reused). */
int alloc_pid(void);
/* The last id alloc_pid gave (0 before the first). */
int last_pid(void);
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
 * would see; -1 for a thread that is not the leader). */
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

/* User threads in the table. */
unsigned long nr_pids(void);

#endif
