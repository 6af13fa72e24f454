/* NUMA memory policies (Linux's mm/mempolicy.c, include/uapi/linux/mempolicy.h):
 * which nodes a user page may come from, per task (set_mempolicy) and per
 * range of an address space (mbind), and the home node of Aneesh Kumar's
 * 2021 series (set_mempolicy_home_node, system call 450; Linux 5.17 commit
 * c6018b4b2549).
 *
 * A policy is immutable once it is in use: set_mempolicy, mbind and
 * set_mempolicy_home_node make a new one and swap it in, so a task's and
 * its VMAs' pointers are plain references (Linux copies with mpol_dup where
 * mmlab shares: there are no cpusets to rebind a policy in place).
 *
 * Locking: a task's own policy is read and replaced only by that task
 * (threads are separate tasks: Linux's current->mempolicy). A VMA's
 * vm_policy is written under the mmap lock held for writing and read under
 * it held for reading or writing (faults, get_mempolicy).
 *
 * Pages move with move_pages(2), migrate_pages(2) and mbind's
 * MPOL_MF_MOVE (mm/migrate.c). */
#ifndef MM_MEMPOLICY_H
#define MM_MEMPOLICY_H

#include "kernel/types.h"
#include "mm/gfp.h"
#include "mm/nodemask.h"
#include "mm/slab.h"

/* Modes (include/uapi/linux/mempolicy.h). */
enum {
	MPOL_DEFAULT,
	MPOL_PREFERRED,
	MPOL_BIND,
	MPOL_INTERLEAVE,
	MPOL_LOCAL,
	MPOL_PREFERRED_MANY,
	MPOL_WEIGHTED_INTERLEAVE, /* Linux 6.9 */
	MPOL_MAX,
};

/* Mode flags, or'ed into the mode argument. */
#define MPOL_F_STATIC_NODES (1 << 15)
#define MPOL_F_RELATIVE_NODES (1 << 14)
#define MPOL_F_NUMA_BALANCING (1 << 13)
#define MPOL_MODE_FLAGS (MPOL_F_STATIC_NODES | MPOL_F_RELATIVE_NODES | MPOL_F_NUMA_BALANCING)

/* get_mempolicy flags. */
#define MPOL_F_NODE (1 << 0)
#define MPOL_F_ADDR (1 << 1)
#define MPOL_F_MEMS_ALLOWED (1 << 2)

/* mbind flags. */
#define MPOL_MF_STRICT (1 << 0)
#define MPOL_MF_MOVE (1 << 1)
#define MPOL_MF_MOVE_ALL (1 << 2)
#define MPOL_MF_VALID (MPOL_MF_STRICT | MPOL_MF_MOVE | MPOL_MF_MOVE_ALL)

struct mempolicy {
	int refcnt;		  /* atomic */
	unsigned short mode;	  /* MPOL_* (never MPOL_DEFAULT: that is NULL) */
	unsigned short flags;	  /* MPOL_F_STATIC_NODES, MPOL_F_RELATIVE_NODES, MPOL_F_NUMA_BALANCING */
	nodemask_t nodes;	  /* the nodes it allows or prefers (empty for MPOL_LOCAL) */
	int home_node;		  /* set_mempolicy_home_node, or NUMA_NO_NODE */
	nodemask_t user_nodemask; /* what the caller passed, for the static and relative flags */
};

static inline struct mempolicy *mpol_get(struct mempolicy *pol)
{
	if (pol)
		__atomic_add_fetch(&pol->refcnt, 1, __ATOMIC_RELAXED);
	return pol;
}

static inline void mpol_put(struct mempolicy *pol)
{
	if (pol && !__atomic_sub_fetch(&pol->refcnt, 1, __ATOMIC_ACQ_REL))
		kfree(pol);
}

/* Linux's __mpol_equal: may two VMAs with these policies be one? NULL is
 * the default policy. */
static inline bool mpol_equal(const struct mempolicy *a, const struct mempolicy *b)
{
	if (a == b)
		return true;
	if (!a || !b || a->mode != b->mode || a->flags != b->flags || a->home_node != b->home_node)
		return false;
	if ((a->flags & (MPOL_F_STATIC_NODES | MPOL_F_RELATIVE_NODES)) &&
	    !nodes_equal(a->user_nodemask, b->user_nodemask))
		return false;
	return a->mode == MPOL_LOCAL || nodes_equal(a->nodes, b->nodes);
}

/* ---- the portable part (mm/mempolicy_nodes.c, tested on the host) ---- */

/* Linux's get_nodes: the user's mask of maxnode - 1 bits (maxnode 0 or 1,
 * or nmask NULL: empty); EINVAL for more than a page of bits or a bit at
 * or above MAX_NUMNODES, EFAULT for a mask it cannot read. */
int get_nodes(nodemask_t *nodes, const unsigned long *nmask, unsigned long maxnode);
/* Linux's copy_nodes_to_user: maxnode - 1 bits rounded up to longs, those
 * beyond nr_node_ids' longs cleared; EINVAL past a page, EFAULT. */
int copy_nodes_to_user(unsigned long *mask, unsigned long maxnode, const nodemask_t *nodes,
		       unsigned long nr_node_ids);
/* MPOL_F_RELATIVE_NODES: bit n means the (n mod |rel|)-th node of rel. */
nodemask_t mpol_relative_nodemask(const nodemask_t *orig, const nodemask_t *rel);
/* The node after n in mask, wrapping (MAX_NUMNODES if mask is empty). */
int next_node_in(int n, const nodemask_t *mask);
/* The interleave node of offset ilx; local when the mask is empty. */
int interleave_nid(const struct mempolicy *pol, unsigned long ilx, int local);
/* The same with node weights (weights[n]: 1-255, 0 reads as 1). */
int weighted_interleave_nid(const struct mempolicy *pol, unsigned long ilx, const u8 *weights, int local);
/* Linux's policy_nodemask: *nid (the local node on entry) becomes the node
 * the allocation starts from; returns the nodes allowed, NULL for any. */
const nodemask_t *policy_nodemask(const struct mempolicy *pol, unsigned long ilx, const u8 *weights, int *nid);
/* migrate_pages' node_remap (bitmap_bitremap). */
int node_remap(int oldbit, const nodemask_t *from, const nodemask_t *to);

struct vm_area_struct;
struct task_struct;
struct page;

/* A user page for addr of vma, from the policy in force there (the VMA's,
 * else the task's, else local): Linux's vma_alloc_folio/alloc_pages_mpol. */
struct page *vma_alloc_page(gfp_t gfp, struct vm_area_struct *vma, unsigned long addr);
/* The same for 2^order pages (a THP: order 9), interleaved by the huge
 * page's own index. */
struct page *vma_alloc_folio(gfp_t gfp, unsigned order, struct vm_area_struct *vma, unsigned long addr);

/* Linux's alloc_pages_mpol: 2^order pages placed by pol (NULL: the
 * local node), ilx the interleave index (a tmpfs page's: its inode
 * number plus its offset, as Linux's shmem_get_pgoff_policy). */
struct page *alloc_pages_mpol(gfp_t gfp, unsigned order, const struct mempolicy *pol, unsigned long ilx);

/* Linux's mpol_new: NULL (*err 0) for MPOL_DEFAULT, else a policy of
 * mode and flags whose nodes the caller fills in; *err -EINVAL for
 * nodes the mode does not take, -ENOMEM. */
struct mempolicy *mpol_new(unsigned short mode, unsigned short flags, const nodemask_t *nodes, int *err);
/* Linux's mpol_set_nodemask: pol's nodes from the user's, intersected
 * with the nodes that have memory (the static and relative flags keep the
 * user's); -EINVAL when none is left. NULL and MPOL_LOCAL take none. */
int mpol_set_nodemask(struct mempolicy *pol, const nodemask_t *nodes);

/* ---- shared policies (mm/shared_policy.h, mm/mempolicy_shared.c) ---- */

struct shared_policy;
/* Linux's mpol_shared_policy_init: an empty tree, then mpol (a tmpfs
 * instance's mpol=, whose reference this takes; NULL for none) made again
 * for the nodes with memory, over every offset of the file. */
void mpol_shared_policy_init(struct shared_policy *sp, struct mempolicy *mpol);
/* Linux's mpol_shared_policy_lookup: the policy of page offset idx with
 * a reference (mpol_put it), NULL for the default. */
struct mempolicy *mpol_shared_policy_lookup(struct shared_policy *sp, unsigned long idx);
/* Linux's mpol_set_shared_policy: offsets [start, end) get npol (NULL:
 * the default). Linux takes the VMA and sets its vm_pgoff and
 * vma_pages; the callers here pass those. 0 or -ENOMEM. */
int mpol_set_shared_policy(struct shared_policy *sp, unsigned long start, unsigned long end,
			   struct mempolicy *npol);
/* Linux's mpol_free_shared_policy: every range goes (inode eviction). */
void mpol_free_shared_policy(struct shared_policy *sp);
/* Linux's __get_vma_policy: the policy of addr in vma with a reference
 * (mpol_put it), NULL when the VMA has none: a shmem VMA's from its
 * object's shared policy (vm_ops->get_policy, mm/shmem_policy.c), any
 * other VMA's own vm_policy. */
struct mempolicy *__get_vma_policy(struct vm_area_struct *vma, unsigned long addr);

/* Linux's mpol_parse_str, for tmpfs's mpol=: "mode[=static|relative][:nodelist]"
 * with mode default, prefer, bind, interleave, local or "prefer (many)".
 * 0 and *mpol (NULL for default), or 1 when the string is refused. */
int mpol_parse_str(char *str, struct mempolicy **mpol);
/* The modes' names, as numa_maps and tmpfs's mpol= spell them. */
extern const char *const policy_modes[MPOL_MAX];

/* Linux's huge_node, for a hugetlb fault: the node the page of 2^order
 * pages at addr should come from, and in *mask (*have_mask) the nodes it
 * may come from; *preferred_many: the mask first, then any node. */
int huge_node(struct vm_area_struct *vma, unsigned long addr, unsigned order, nodemask_t *mask,
	      bool *have_mask, bool *preferred_many);

struct seq_buf;
struct proc_node;
/* Linux's mpol_to_str, as numa_maps prints a policy: "bind=static:1-3",
 * "prefer (many):1,2", "default". NULL is the default policy. */
void mpol_to_str(struct seq_buf *m, const struct mempolicy *pol);
/* t's own policy with a reference (mpol_put it), NULL for the default. */
struct mempolicy *get_task_policy_ref(struct task_struct *t);

/* The policy a new thread starts with: its creator's (copy_process). */
void mpol_fork(struct task_struct *child, struct task_struct *parent);
/* A task's policy goes with it (do_exit's mpol_put). */
void mpol_exit(struct task_struct *tsk);

/* The nodes with memory (Linux's node_states[N_MEMORY]): what every mask
 * is intersected with, and get_mempolicy(MPOL_F_MEMS_ALLOWED). */
nodemask_t node_states_memory(void);

#endif
