/* /bin/<program>: the boot modules as read-only files (fs/bin.c). */
#ifndef FS_BIN_H
#define FS_BIN_H

#include "kernel/types.h"

struct proc_node;
/* Whether a looked-up path is a program under /bin (node->module is it). */
bool bin_program_entry(const struct proc_node *node);

#endif
