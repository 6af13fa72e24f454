/* /sys/devices/system/node (drivers/base/node.c). */
#ifndef DRIVERS_BASE_NODE_H
#define DRIVERS_BASE_NODE_H

#include "fs/proc/proc_fs.h"

/* /sys/devices/system/node/node<N>: the lookup sets the node's nid. */
extern const struct proc_dir_entry node_dir;

#endif
