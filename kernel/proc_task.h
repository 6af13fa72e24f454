/* The per-task procfs files, /proc/self|<pid>/{status,statm,maps}
 * (kernel/proc_task.c), as the generators procfs.c's namespace points at.
 * Each prints the task of the node it is given (node->task). */
#ifndef KERNEL_PROC_TASK_H
#define KERNEL_PROC_TASK_H

#include "kernel/procfs.h"

void status_show(struct seq_buf *m, const struct proc_node *node);
void statm_show(struct seq_buf *m, const struct proc_node *node);
void maps_show(struct seq_buf *m, const struct proc_node *node);

#endif
