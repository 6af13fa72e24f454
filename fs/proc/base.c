/* /proc/<pid> and /proc/self (Linux's fs/proc/base.c tgid_base_stuff):
 * the directory of a process and its files, which fs/proc/array.c and
 * fs/proc/task_mmu.c generate for the task the lookup found (node->task).
 *
 * Only the caller's own pid exists: there is no pid table to look others
 * up in, and a process cannot see another's mm. */
#include "fs/proc/internal.h"
#include "kernel/sched.h"
#include "lib/vsprintf.h"

static bool pid_dir_match(const char *s, size_t len, struct task_struct *task, struct proc_node *node)
{
	int id;
	if (!((len == 4 && !memcmp(s, "self", 4)) ||
	      (proc_parse_id(s, len, &id) && task->pid > 0 && id == task->pid)))
		return false;
	node->task = task;
	node->per_task = true;
	return true;
}

/* getdents of /proc: "self" (Linux's is a fixed symlink) and the pid. */
static bool pid_dir_list(unsigned int i, struct task_struct *task, char *name, size_t size)
{
	if (i == 0)
		snprintf(name, size, "self");
	else if (i == 1 && task->pid > 0)
		snprintf(name, size, "%d", task->pid);
	else
		return false;
	return true;
}

const struct proc_dir_entry pid_dir __proc_entry = {
	.parent = &proc_root_dir, .match = pid_dir_match, .list = pid_dir_list, .mode = S_IFDIR | 0555,
};

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

PROC_FILE(pid_maps, pid_dir, "maps", maps_show);
PROC_FILE(pid_mounts, pid_dir, "mounts", mounts_show);
PROC_FILE(pid_mountinfo, pid_dir, "mountinfo", mountinfo_show);
PROC_FILE(pid_numa_maps, pid_dir, "numa_maps", numa_maps_show);
PROC_FILE(pid_smaps, pid_dir, "smaps", smaps_show);
PROC_FILE(pid_smaps_rollup, pid_dir, "smaps_rollup", smaps_rollup_show);
PROC_FILE(pid_stat, pid_dir, "stat", stat_show);
PROC_FILE(pid_statm, pid_dir, "statm", statm_show);
PROC_FILE(pid_status, pid_dir, "status", status_show);
/* S_IRUSR, as Linux's REG("pagemap", S_IRUSR, ...). */
static const struct proc_dir_entry pid_pagemap __proc_entry = {
	.parent = &pid_dir, .name = "pagemap", .mode = S_IFREG | 0400, .read = pagemap_read,
};
