/* /proc/<pid> and /proc/self (Linux's fs/proc/base.c tgid_base_stuff):
 * the directory of a process and its files, which fs/proc/array.c and
 * fs/proc/task_mmu.c generate for the task the lookup found (node->task).
 *
 * Only the caller's own pid exists: there is no pid table to look others
 * up in, and a process cannot see another's mm. */
#include "fs/proc/internal.h"
#include "kernel/sched.h"

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

static const struct proc_dir_entry pid_dir __proc_entry = {
	.parent = &proc_root_dir, .match = pid_dir_match, .mode = S_IFDIR | 0555,
};

#define PID_FILE(field, name_, show_)                                                  \
	static const struct proc_dir_entry field __proc_entry = {                     \
		.parent = &pid_dir, .name = name_, .mode = S_IFREG | 0444, .show = show_, \
	}

PID_FILE(pid_maps, "maps", maps_show);
PID_FILE(pid_numa_maps, "numa_maps", numa_maps_show);
PID_FILE(pid_smaps, "smaps", smaps_show);
PID_FILE(pid_smaps_rollup, "smaps_rollup", smaps_rollup_show);
PID_FILE(pid_stat, "stat", stat_show);
PID_FILE(pid_statm, "statm", statm_show);
PID_FILE(pid_status, "status", status_show);
/* S_IRUSR, as Linux's REG("pagemap", S_IRUSR, ...). */
static const struct proc_dir_entry pid_pagemap __proc_entry = {
	.parent = &pid_dir, .name = "pagemap", .mode = S_IFREG | 0400, .read = pagemap_read,
};
