/* A shmem object's NUMA policy by page offset (Linux's struct
 * shared_policy, include/linux/mempolicy.h): ranges [start, end) of page
 * offsets, each with a policy, in an rb-tree ordered by offset, never
 * overlapping; an offset in no range has the default policy (the task's
 * policy then decides, as Linux's get_vma_policy falls back to it).
 *
 * A tmpfs inode has one (fs/fs.h's i_policy: Linux's
 * shmem_inode_info.policy), the unnamed one of each anonymous shmem
 * object too (a MAP_SHARED anonymous mapping, a /dev/zero mapping, a
 * System V segment: mm/shmem.h), as Linux's. mbind on
 * any mapping of the object sets the range it maps (mm/shmem.c's
 * shmem_set_policy), so every process and every mapping of the object,
 * present or later, sees it; it goes with the inode.
 *
 * Kept apart from mm/mempolicy.h so that fs/fs.h and mm/shmem.h (which
 * host code includes) need only the rb-tree and the lock. */
#ifndef MM_SHARED_POLICY_H
#define MM_SHARED_POLICY_H

#include "kernel/spinlock.h"
#include "lib/rbtree.h"

struct mempolicy;

struct shared_policy {
	struct rb_root root; /* of struct sp_node; empty: the default policy */
	spinlock_t lock;     /* the tree (Linux: an rwlock) */
};

struct sp_node {
	struct rb_node nd;
	unsigned long start, end; /* page offsets [start, end) */
	struct mempolicy *policy; /* a reference */
};

#endif
