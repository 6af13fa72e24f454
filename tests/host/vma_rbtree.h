/* The rbtree cases of the host_vma suite (vma_rbtree.c). */
#ifndef TESTS_HOST_VMA_RBTREE_H
#define TESTS_HOST_VMA_RBTREE_H

#include "tests/host/ktest.h"

extern const struct ktest_case vma_rbtree_cases[];
extern const size_t nr_vma_rbtree_cases;

#endif
