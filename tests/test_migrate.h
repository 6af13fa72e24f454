/* What the migration suites share (tests/shmem_migrate_test.c,
 * tests/hugetlb_migrate_test.c): two nodes of the machine to move
 * between, and move_pages(2) of one page through the system call, with
 * its arrays in a user area of the case's mm. */
#ifndef TESTS_TEST_MIGRATE_H
#define TESTS_TEST_MIGRATE_H

#include "arch/x86_64/uaccess.h"
#include "kernel/syscall.h"
#include "kernel/unistd.h"
#include "mm/mempolicy.h"
#include "mm/numa.h"

static inline long test_sys6(unsigned long nr, unsigned long a0, unsigned long a1, unsigned long a2,
			     unsigned long a3, unsigned long a4, unsigned long a5)
{
	const unsigned long args[6] = { a0, a1, a2, a3, a4, a5 };
	return do_syscall_64(nr, args);
}

/* move_pages of the one page at addr to node (pid 0), its arrays at the
 * user address arg (24 bytes): the call's result, and the page's status
 * in *status. */
static inline long test_move_one(unsigned long arg, unsigned long addr, int node, int flags, int *status)
{
	unsigned long pages = addr;
	int nodes = node, st = -1000;
	if (copy_to_user((void *)arg, &pages, sizeof(pages)) || copy_to_user((void *)(arg + 8), &nodes, 4) ||
	    copy_to_user((void *)(arg + 16), &st, 4))
		return -EFAULT;
	long r = test_sys6(__NR_move_pages, 0, 1, arg, arg + 8, arg + 16, (unsigned long)flags);
	if (copy_from_user(status, (void *)(arg + 16), 4))
		return -EFAULT;
	return r;
}

/* Two nodes with memory, in *a and *b; false with fewer. */
static inline bool test_two_nodes(int *a, int *b)
{
	nodemask_t mem = node_states_memory();
	*a = *b = -1;
	int nid;
	for_each_node_mask(nid, mem) {
		if (*a < 0)
			*a = nid;
		else if (*b < 0)
			*b = nid;
	}
	return *b >= 0;
}

#endif
