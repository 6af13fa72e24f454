/* NUMA memory policies and their system calls (see mm/mempolicy.h): the
 * checks and errnos in Linux's order (mm/mempolicy.c: get_nodes,
 * sanitize_mpol_flags, mpol_new, mpol_set_nodemask, do_get_mempolicy,
 * do_mbind, set_mempolicy_home_node), and the node a user page comes from
 * (policy_nodemask, alloc_pages_mpol, interleave_nid). The home node is
 * Aneesh Kumar K.V's 2021 series "mm: add new syscall
 * set_mempolicy_home_node" (v4, 2021-11-01, https://lore.kernel.org/all/20211101050206.549050-1-aneesh.kumar@linux.ibm.com/;
 * merged in Linux 5.17 as c6018b4b2549 "mm/mempolicy: add
 * set_mempolicy_home_node syscall"): for MPOL_BIND and MPOL_PREFERRED_MANY
 * the allocation starts at the home node and falls back to the allowed
 * nodes nearest to it, where it used to start at the faulting CPU's node.
 *
 * mmlab has no cpusets: the nodes a task may use (Linux's
 * cpuset_current_mems_allowed) are all nodes, and a mask is intersected
 * with the nodes that have memory (N_MEMORY) as Linux's is. */
#include "mm/mempolicy.h"
#include "fs/proc/proc_fs.h"
#include "mm/hugetlb_vma.h"
#include "arch/x86_64/uaccess.h"
#include "kernel/printk.h"
#include "kernel/cred.h"
#include "kernel/sched.h"
#include "fs/proc/proc_fs.h"
#include "kernel/smp.h"
#include "kernel/spinlock.h"
#include "lib/string.h"
#include "kernel/syscall.h"
#include "mm/huge_memory.h"
#include "mm/gup.h"
#include "mm/memory.h"
#include "mm/migrate.h"
#include "mm/mmu_context.h"
#include "mm/mm_types.h"
#include "mm/mmap.h"
#include "mm/mmap_lock.h"
#include "mm/numa.h"
#include "mm/page.h"
#include "mm/page_alloc.h"
#include "mm/pagewalk.h"
#include "mm/shmem.h"
#include "mm/vma.h"

#define BITS_PER_LONG 64

/* Linux's task_lock around current->mempolicy, for the readers that are
 * not the task itself (numa_maps of another process): the task swaps its
 * policy under it, a reader takes a reference under it. */
static DEFINE_SPINLOCK(task_policy_lock);

struct mempolicy *get_task_policy_ref(struct task_struct *t)
{
	spin_lock(&task_policy_lock);
	struct mempolicy *pol = mpol_get(t->mempolicy);
	spin_unlock(&task_policy_lock);
	return pol;
}

static void set_task_policy(struct task_struct *t, struct mempolicy *new)
{
	spin_lock(&task_policy_lock);
	struct mempolicy *old = t->mempolicy;
	t->mempolicy = new;
	if (new && (new->mode == MPOL_INTERLEAVE || new->mode == MPOL_WEIGHTED_INTERLEAVE)) {
		t->il_prev = MAX_NUMNODES - 1;
		t->il_weight = 0;
	}
	spin_unlock(&task_policy_lock);
	mpol_put(old);
}

const char *const policy_modes[MPOL_MAX] = {
	[MPOL_DEFAULT] = "default",   [MPOL_PREFERRED] = "prefer", [MPOL_BIND] = "bind",
	[MPOL_INTERLEAVE] = "interleave", [MPOL_LOCAL] = "local", [MPOL_PREFERRED_MANY] = "prefer (many)",
	[MPOL_WEIGHTED_INTERLEAVE] = "weighted interleave",
};

/* ---- weighted interleave's weights (Linux 6.9, Gregory Price and Rakie
 * Kim: mm/mempolicy.c iw_table and its sysfs files) -------------------- */

/* Node weights, 1 to 255; 0 here means never written, which reads as 1
 * (Linux's get_il_weight without a table). Written whole bytes: a reader
 * sees the old weight or the new. */
static u8 iw_table[MAX_NUMNODES];

static u8 get_il_weight(int nid)
{
	u8 w = nid >= 0 && nid < MAX_NUMNODES ? __atomic_load_n(&iw_table[nid], __ATOMIC_RELAXED) : 0;
	return w ? w : 1;
}

static void weighted_interleave_node_show(struct seq_buf *m, const struct proc_node *node)
{
	seq_buf_printf(m, "%u\n", get_il_weight(node->nid));
}

/* Linux's node_store: kstrtou8 of the value; 0 or anything else that is
 * not a number from 1 to 255 is EINVAL. */
static long weighted_interleave_node_write(const struct proc_node *node, const char *buf, size_t len)
{
	size_t n = len;
	while (n && (buf[n - 1] == '\n'))
		n--;
	unsigned long v = 0;
	if (!n)
		return -EINVAL;
	for (size_t i = 0; i < n; i++) {
		if (buf[i] < '0' || buf[i] > '9')
			return -EINVAL;
		v = v * 10 + (unsigned long)(buf[i] - '0');
		if (v > 255)
			return -EINVAL;
	}
	if (!v)
		return -EINVAL;
	__atomic_store_n(&iw_table[node->nid], (u8)v, __ATOMIC_RELAXED);
	return (long)len;
}

/* /sys/kernel/mm/mempolicy/weighted_interleave/node<N>: Linux has a file
 * for each possible node. */
static const struct proc_dir_entry mempolicy_dir __proc_entry = {
	.parent = &sys_kernel_mm_dir, .name = "mempolicy", .mode = S_IFDIR | 0555,
};
static const struct proc_dir_entry weighted_interleave_dir __proc_entry = {
	.parent = &mempolicy_dir, .name = "weighted_interleave", .mode = S_IFDIR | 0555,
};
static const struct proc_dir_entry weighted_interleave_node __proc_entry = {
	.parent = &weighted_interleave_dir, .match = proc_match_node, .list = proc_list_node,
	.mode = S_IFREG | 0644, .show = weighted_interleave_node_show,
	.write = weighted_interleave_node_write,
};

void mpol_to_str(struct seq_buf *m, const struct mempolicy *pol)
{
	unsigned short mode = pol ? pol->mode : MPOL_DEFAULT, flags = pol ? pol->flags : 0;
	nodemask_t nodes = pol && mode != MPOL_LOCAL ? pol->nodes : NODE_MASK_NONE;
	seq_buf_puts(m, policy_modes[mode]);
	if (flags & MPOL_MODE_FLAGS) {
		seq_buf_puts(m, "=");
		if (flags & MPOL_F_STATIC_NODES)
			seq_buf_puts(m, "static");
		else if (flags & MPOL_F_RELATIVE_NODES)
			seq_buf_puts(m, "relative");
		if (flags & MPOL_F_NUMA_BALANCING) {
			unsigned short f = flags & MPOL_MODE_FLAGS;
			if (f & (f - 1))
				seq_buf_puts(m, "|");
			seq_buf_puts(m, "balancing");
		}
	}
	if (nodes_empty(nodes))
		return;
	/* ":%*pbl": ranges, as "1-3,5". */
	seq_buf_puts(m, ":");
	bool first = true;
	for (int n = 0; n < MAX_NUMNODES; n++) {
		if (!node_isset(n, nodes))
			continue;
		int e = n;
		while (e + 1 < MAX_NUMNODES && node_isset(e + 1, nodes))
			e++;
		seq_buf_printf(m, e > n ? "%s%d-%d" : "%s%d", first ? "" : ",", n, e);
		first = false;
		n = e;
	}
}

nodemask_t node_states_memory(void)
{
	nodemask_t m = NODE_MASK_NONE;
	for (unsigned nid = 0; nid < num_online_nodes(); nid++)
		if (node_has_memory((int)nid))
			node_set((int)nid, m);
	return m;
}

/* Linux's nr_node_ids: the highest possible node id + 1. */
static unsigned long nr_node_ids(void) { return num_online_nodes(); }

static bool node_online(unsigned long nid) { return nid < num_online_nodes(); }

/* ---- the user's node mask ----------------------------------------------- */




/* ---- making a policy ------------------------------------------------------ */

/* Linux's sanitize_mpol_flags: the mode argument split into mode and flags. */
static int sanitize_mpol_flags(int *mode, unsigned short *flags)
{
	*flags = (unsigned short)(*mode & MPOL_MODE_FLAGS);
	*mode &= ~MPOL_MODE_FLAGS;
	if ((unsigned int)*mode >= MPOL_MAX)
		return -EINVAL;
	if ((*flags & MPOL_F_STATIC_NODES) && (*flags & MPOL_F_RELATIVE_NODES))
		return -EINVAL;
	/* Linux turns NUMA-balancing hints on for these two; mmlab has no
	 * NUMA balancing, so the flag is kept and does nothing. */
	if ((*flags & MPOL_F_NUMA_BALANCING) && *mode != MPOL_BIND && *mode != MPOL_PREFERRED_MANY)
		return -EINVAL;
	return 0;
}

/* Linux's mpol_new: NULL (with *err 0) for MPOL_DEFAULT, else a policy
 * whose nodes mpol_set_nodemask fills in. */
struct mempolicy *mpol_new(unsigned short mode, unsigned short flags, const nodemask_t *nodes, int *err)
{
	*err = 0;
	if (mode == MPOL_DEFAULT) {
		if (!nodes_empty(*nodes))
			*err = -EINVAL;
		return NULL;
	}
	if (mode == MPOL_PREFERRED) {
		/* Empty: allocate locally, which the flags cannot say. */
		if (nodes_empty(*nodes)) {
			if (flags & (MPOL_F_STATIC_NODES | MPOL_F_RELATIVE_NODES)) {
				*err = -EINVAL;
				return NULL;
			}
			mode = MPOL_LOCAL;
		}
	} else if (mode == MPOL_LOCAL) {
		if (!nodes_empty(*nodes) || (flags & (MPOL_F_STATIC_NODES | MPOL_F_RELATIVE_NODES))) {
			*err = -EINVAL;
			return NULL;
		}
	} else if (nodes_empty(*nodes)) {
		*err = -EINVAL;
		return NULL;
	}
	struct mempolicy *pol = kzalloc(sizeof(*pol), GFP_KERNEL);
	if (!pol) {
		*err = -ENOMEM;
		return NULL;
	}
	pol->refcnt = 1;
	pol->mode = mode;
	pol->flags = flags;
	pol->home_node = NUMA_NO_NODE;
	return pol;
}


/* Linux's mpol_set_nodemask and the modes' create functions: the user's
 * nodes, intersected with the nodes that have memory. */
int mpol_set_nodemask(struct mempolicy *pol, const nodemask_t *nodes)
{
	if (!pol || pol->mode == MPOL_LOCAL)
		return 0;
	nodemask_t allowed = node_states_memory(), m;
	if (pol->flags & MPOL_F_RELATIVE_NODES)
		m = mpol_relative_nodemask(nodes, &allowed);
	else
		nodes_and(m, *nodes, allowed);
	if (pol->flags & (MPOL_F_STATIC_NODES | MPOL_F_RELATIVE_NODES))
		pol->user_nodemask = *nodes;
	if (nodes_empty(m))
		return -EINVAL;
	if (pol->mode == MPOL_PREFERRED) /* mpol_new_preferred: its first node */
		pol->nodes = nodemask_of_node(first_node(m));
	else
		pol->nodes = m;
	return 0;
}

/* A policy from the user's arguments, or NULL for the default (*err 0). */
static struct mempolicy *mpol_from_user(int mode, unsigned short flags, const nodemask_t *nodes, int *err)
{
	struct mempolicy *pol = mpol_new((unsigned short)mode, flags, nodes, err);
	if (*err)
		return NULL;
	*err = mpol_set_nodemask(pol, nodes);
	if (*err) {
		mpol_put(pol);
		return NULL;
	}
	return pol;
}

static struct mempolicy *mpol_dup(const struct mempolicy *old)
{
	struct mempolicy *pol = kmalloc(sizeof(*pol), GFP_KERNEL);
	if (pol) {
		*pol = *old;
		pol->refcnt = 1;
	}
	return pol;
}

void mpol_fork(struct task_struct *child, struct task_struct *parent)
{
	child->mempolicy = mpol_get(parent->mempolicy);
	child->il_prev = parent->il_prev;
	child->il_weight = 0;
}

void mpol_exit(struct task_struct *tsk)
{
	set_task_policy(tsk, NULL);
}

/* ---- allocating by policy ------------------------------------------------- */




struct mempolicy *__get_vma_policy(struct vm_area_struct *vma, unsigned long addr)
{
	if (vma_shared_policy(vma))
		return shmem_get_policy(vma, addr);
	return mpol_get(vma->vm_policy);
}

/* Linux's get_vma_policy: the VMA's policy (a shmem VMA's from its
 * object's shared policy), else the task's, with a reference (mpol_put
 * it); NULL is the default (local). *ilx is the interleave index of addr:
 * the page's offset in the mapping (vm_pgoff plus its place in the VMA). */
static struct mempolicy *get_vma_policy(struct vm_area_struct *vma, unsigned long addr, unsigned order,
				       unsigned long *ilx)
{
	struct mempolicy *pol = vma ? __get_vma_policy(vma, addr) : NULL;
	if (!pol)
		pol = mpol_get(current->mempolicy);
	/* Linux's get_vma_policy: a huge page interleaves by its own index. */
	*ilx = vma ? (vma->vm_pgoff >> order) + ((addr - vma->vm_start) >> (PAGE_SHIFT + order)) : 0;
	return pol;
}

struct page *vma_alloc_page(gfp_t gfp, struct vm_area_struct *vma, unsigned long addr)
{
	return vma_alloc_folio(gfp, 0, vma, addr);
}

struct page *vma_alloc_folio(gfp_t gfp, unsigned order, struct vm_area_struct *vma, unsigned long addr)
{
	unsigned long ilx;
	struct mempolicy *pol = get_vma_policy(vma, addr, order, &ilx);
	struct page *page = alloc_pages_mpol(gfp, order, pol, ilx);
	mpol_put(pol);
	return page;
}

struct page *alloc_pages_mpol(gfp_t gfp, unsigned order, const struct mempolicy *pol, unsigned long ilx)
{
	if (!pol)
		return __alloc_pages(gfp, order, numa_node_id(), NULL);
	int nid = numa_node_id();
	const nodemask_t *mask = policy_nodemask(pol, ilx, iw_table, &nid);
	if (pol->mode == MPOL_PREFERRED_MANY) {
		/* alloc_pages_preferred_many: the mask without waiting, then
		 * anywhere. */
		gfp_t preferred = (gfp | __GFP_NOWARN) & ~(__GFP_DIRECT_RECLAIM | __GFP_NOFAIL);
		struct page *page = __alloc_pages(preferred, order, nid, mask);
		return page ? page : __alloc_pages(gfp, order, nid, NULL);
	}
	struct page *page = __alloc_pages(gfp, order, nid, mask);
	if (page && (pol->mode == MPOL_INTERLEAVE || pol->mode == MPOL_WEIGHTED_INTERLEAVE) &&
	    page_to_nid(page) == nid)
		count_numa_interleave_hit(nid);
	return page;
}

int huge_node(struct vm_area_struct *vma, unsigned long addr, unsigned order, nodemask_t *mask,
	      bool *have_mask, bool *preferred_many)
{
	unsigned long ilx;
	struct mempolicy *pol = get_vma_policy(vma, addr, order, &ilx);
	int nid = numa_node_id();
	*have_mask = false;
	*preferred_many = false;
	if (!pol)
		return nid;
	const nodemask_t *m = policy_nodemask(pol, ilx, iw_table, &nid);
	if (m) {
		*mask = *m;
		*have_mask = true;
	}
	*preferred_many = pol->mode == MPOL_PREFERRED_MANY;
	mpol_put(pol);
	return nid;
}

/* ---- set_mempolicy, get_mempolicy ----------------------------------------- */

/* The prologue set_mempolicy and mbind share (Linux's kernel_set_mempolicy
 * and kernel_mbind): the mode split from its flags, then the node mask. */
static int mode_and_nodes_from_user(int *mode, unsigned short *flags, nodemask_t *nodes,
				    const unsigned long *nmask, unsigned long maxnode)
{
	int err = sanitize_mpol_flags(mode, flags);
	return err ? err : get_nodes(nodes, nmask, maxnode);
}

SYSCALL_DEFINE3(set_mempolicy, int, mode, const unsigned long __user *, nmask, unsigned long, maxnode)
{
	unsigned short flags;
	nodemask_t nodes;
	int err = mode_and_nodes_from_user(&mode, &flags, &nodes, nmask, maxnode);
	if (err)
		return err;
	struct mempolicy *new = mpol_from_user(mode, flags, &nodes, &err);
	if (err)
		return err;
	set_task_policy(current, new);
	return 0;
}

/* Linux's lookup_node: the node of the page at addr, faulting it in for
 * reading (a never-touched page reads as the zero page's node). */
static long lookup_node(unsigned long addr)
{
	struct page *p;
	long ret = get_user_pages_fast(addr & PAGE_MASK, 1, 0, &p);
	if (ret > 0) {
		ret = page_to_nid(p);
		put_page(p);
	}
	return ret;
}

/* Linux's do_get_mempolicy. */
static long do_get_mempolicy(int *policy, nodemask_t *nmask, unsigned long addr, unsigned long flags)
{
	struct mm_struct *mm = current->mm;
	struct mempolicy *pol = current->mempolicy, *held = NULL;
	long err;
	if (flags & ~(unsigned long)(MPOL_F_NODE | MPOL_F_ADDR | MPOL_F_MEMS_ALLOWED))
		return -EINVAL;
	if (flags & MPOL_F_MEMS_ALLOWED) {
		if (flags & (MPOL_F_NODE | MPOL_F_ADDR))
			return -EINVAL;
		*policy = 0;
		*nmask = node_states_memory(); /* cpuset_current_mems_allowed */
		return 0;
	}
	bool locked = false;
	if (flags & MPOL_F_ADDR) {
		/* The VMA's own policy (a shmem VMA's: its object's shared
		 * policy at addr, vm_ops->get_policy): no fallback to the
		 * task's here. */
		mmap_read_lock(mm);
		locked = true;
		struct vm_area_struct *vma = find_vma(mm, addr);
		if (!vma || addr < vma->vm_start) {
			mmap_read_unlock(mm);
			return -EFAULT;
		}
		pol = held = __get_vma_policy(vma, addr);
	} else if (addr) {
		return -EINVAL;
	}
	/* NULL is the default policy (MPOL_LOCAL internally, MPOL_DEFAULT to
	 * the user). */
	if (flags & MPOL_F_NODE) {
		if (flags & MPOL_F_ADDR) {
			mmap_read_unlock(mm);
			locked = false;
			err = lookup_node(addr);
			if (err < 0)
				goto out;
			*policy = (int)err;
		} else if (pol && pol == current->mempolicy && pol->mode == MPOL_INTERLEAVE) {
			*policy = next_node_in(current->il_prev, &pol->nodes);
		} else if (pol && pol == current->mempolicy && pol->mode == MPOL_WEIGHTED_INTERLEAVE) {
			*policy = current->il_weight ? current->il_prev : next_node_in(current->il_prev, &pol->nodes);
		} else {
			err = -EINVAL;
			goto out;
		}
	} else {
		*policy = pol ? pol->mode | (pol->flags & MPOL_MODE_FLAGS) : MPOL_DEFAULT;
	}
	if (nmask) {
		nodes_clear(*nmask);
		if (pol && (pol->flags & (MPOL_F_STATIC_NODES | MPOL_F_RELATIVE_NODES)))
			*nmask = pol->user_nodemask;
		else if (pol && pol->mode != MPOL_LOCAL)
			*nmask = pol->nodes;
	}
	err = 0;
out:
	if (locked)
		mmap_read_unlock(mm);
	mpol_put(held);
	return err;
}

SYSCALL_DEFINE5(get_mempolicy, int __user *, policy, unsigned long __user *, nmask, unsigned long, maxnode,
		unsigned long, addr, unsigned long, flags)
{
	if (nmask && maxnode < nr_node_ids())
		return -EINVAL;
	int pval;
	nodemask_t nodes;
	long err = do_get_mempolicy(&pval, &nodes, addr, flags);
	if (err)
		return err;
	if (policy && copy_to_user(policy, &pval, sizeof(pval)))
		return -EFAULT;
	if (nmask)
		err = copy_nodes_to_user(nmask, maxnode, &nodes, nr_node_ids());
	return err;
}

/* ---- mbind ---------------------------------------------------------------- */

/* mbind's internal flag (Linux's MPOL_MF_DISCONTIG_OK): holes in the range
 * are fine (resetting to the default policy). */
#define MPOL_MF_DISCONTIG_OK (1u << 31)

struct strict_walk {
	const nodemask_t *nodes;
	unsigned long misplaced;
};

static int strict_pte(pte_t pte, unsigned long addr, struct mm_walk *walk)
{
	(void)addr;
	struct strict_walk *s = walk->private;
	if (!pte_present(pte) || is_zero_pfn(pte_pfn(pte)))
		return 0;
	if (!node_isset(page_to_nid(pfn_to_page(pte_pfn(pte))), *s->nodes))
		s->misplaced++;
	return 0;
}

static int strict_huge_pmd(pmd_t pmd, unsigned long addr, unsigned long next, struct mm_walk *walk)
{
	struct strict_walk *s = walk->private;
	if (is_huge_zero_pmd(pmd))
		return 0;
	if (!node_isset(page_to_nid(pfn_to_page(pmd_pfn(pmd))), *s->nodes))
		s->misplaced += (next - addr) >> PAGE_SHIFT;
	return 0;
}

static int strict_hugetlb(pte_t pte, unsigned long hmask, unsigned long addr, unsigned long next,
			  struct mm_walk *walk)
{
	(void)hmask;
	struct strict_walk *s = walk->private;
	if (pte_present(pte) && !node_isset(page_to_nid(pfn_to_page(pte_pfn(pte))), *s->nodes))
		s->misplaced += (next - addr) >> PAGE_SHIFT;
	return 0;
}

static const struct mm_walk_ops strict_ops = { .pte_entry = strict_pte, .huge_pmd_entry = strict_huge_pmd,
					       .hugetlb_entry = strict_hugetlb };

/* Linux's queue_pages_range, counting where Linux queues: the holes rule
 * (-EFAULT for a range no VMA covers; with holes, unless DISCONTIG_OK)
 * and, under MPOL_MF_STRICT or a move, the pages already on a node outside
 * the user's mask (move_misplaced moves them later). Returns -EFAULT or
 * the misplaced count. */
static long check_pages_range(struct mm_struct *mm, unsigned long start, unsigned long end,
			      const nodemask_t *nodes, unsigned long flags)
{
	struct vm_area_struct *vma = find_vma(mm, start), *first = NULL;
	struct strict_walk s = { .nodes = nodes };
	for (; vma && vma->vm_start < end; vma = vma->vm_next) {
		if (!first) {
			first = vma;
			if (!(flags & MPOL_MF_DISCONTIG_OK) && start < vma->vm_start)
				return -EFAULT; /* a hole at the head of the range */
		}
		struct vm_area_struct *next = vma->vm_next;
		if (!(flags & MPOL_MF_DISCONTIG_OK) && vma->vm_end < end &&
		    (!next || vma->vm_end < next->vm_start))
			return -EFAULT; /* a hole in the middle or at the tail */
		if (flags & (MPOL_MF_STRICT | MPOL_MF_MOVE | MPOL_MF_MOVE_ALL)) {
			unsigned long a = start > vma->vm_start ? start : vma->vm_start;
			unsigned long b = end < vma->vm_end ? end : vma->vm_end;
			walk_page_range_vma(vma, a, b, &strict_ops, &s);
		}
	}
	if (!first)
		return -EFAULT; /* the whole range is a hole */
	return (long)s.misplaced;
}

/* The misplaced pages of a range, a batch at a time (a walk holds the PTE
 * lock, so it only notes them; they move after it): 64 entries, or fewer
 * that make 512 pages (Linux's NR_MAX_BATCHED_MIGRATION, HPAGE_PMD_NR), so
 * that a batch of THPs is one THP and not 128 MiB. */
#define COLLECT_ENTRIES 64
#define COLLECT_PAGES 512
struct collect_walk {
	const nodemask_t *nodes; /* misplaced: on a node outside it */
	int only_node;		 /* or, if not NUMA_NO_NODE: on this node (migrate_pages) */
	unsigned long addr[COLLECT_ENTRIES];
	unsigned int n;
	unsigned long pages; /* what the n entries map */
	unsigned long next;  /* where to go on when the batch filled up */
};

static bool collect_full(const struct collect_walk *c)
{
	return c->n == COLLECT_ENTRIES || c->pages >= COLLECT_PAGES;
}

static int collect_pte(pte_t pte, unsigned long addr, struct mm_walk *walk)
{
	struct collect_walk *c = walk->private;
	if (!pte_present(pte) || is_zero_pfn(pte_pfn(pte)))
		return 0;
	int nid = page_to_nid(pfn_to_page(pte_pfn(pte)));
	if (c->only_node != NUMA_NO_NODE ? nid != c->only_node : node_isset(nid, *c->nodes))
		return 0;
	c->addr[c->n++] = addr;
	c->pages++;
	if (!collect_full(c))
		return 0;
	c->next = addr + PAGE_SIZE;
	return 1;
}

/* A huge page (the head at pfn, of size ~mask + 1) is noted once, by
 * the first address the walk gives of it. */
static int collect_huge(struct collect_walk *c, unsigned long pfn, unsigned long mask, unsigned long addr)
{
	int nid = page_to_nid(pfn_to_page(pfn));
	if (c->only_node != NUMA_NO_NODE ? nid != c->only_node : node_isset(nid, *c->nodes))
		return 0;
	c->addr[c->n++] = addr;
	c->pages += (~mask + 1) >> PAGE_SHIFT;
	if (!collect_full(c))
		return 0;
	c->next = (addr & mask) + ~mask + 1;
	return 1;
}

/* A THP moves whole. */
static int collect_huge_pmd(pmd_t pmd, unsigned long addr, unsigned long next, struct mm_walk *walk)
{
	(void)next;
	return is_huge_zero_pmd(pmd) ? 0 : collect_huge(walk->private, pmd_pfn(pmd), PMD_MASK, addr);
}

/* A hugetlb page: migrate_anon_at refuses it (-EBUSY), so it counts as
 * not moved. */
static int collect_hugetlb(pte_t pte, unsigned long hmask, unsigned long addr, unsigned long next,
			   struct mm_walk *walk)
{
	(void)next;
	return pte_present(pte) ? collect_huge(walk->private, pte_pfn(pte), hmask, addr) : 0;
}

static const struct mm_walk_ops collect_ops = { .pte_entry = collect_pte, .huge_pmd_entry = collect_huge_pmd,
						.hugetlb_entry = collect_hugetlb };

/* The new page for a move under the range's (new) policy: Linux 6.1's
 * new_page (GFP_HIGHUSER_MOVABLE | __GFP_RETRY_MAYFAIL, a THP
 * GFP_TRANSHUGE), one round of the slow path and quietly, for the reasons
 * alloc_migration_target gives (__GFP_NORETRY for Linux's
 * should_reclaim_retry, which has no LRU pages to hope for here). */
static struct page *alloc_by_policy(struct vm_area_struct *vma, unsigned long addr, unsigned order, void *arg)
{
	(void)arg;
	gfp_t gfp = order ? GFP_TRANSHUGE : GFP_HIGHUSER_MOVABLE | __GFP_NORETRY | __GFP_NOWARN;
	return vma_alloc_folio(gfp, order, vma, addr);
}

/* The moves of mbind and migrate_pages (Linux's queue_pages_range, then
 * migrate_pages on what it queued): every page of [start, end) that the
 * walk selects (c's nodes or only_node), a batch at a time, to a page from
 * alloc; a THP split on the way (no 2 MiB on the target) is walked again
 * for its 4 KiB pages.
 *
 * The caller holds no mmap_lock: each batch is collected and moved under
 * it taken for reading, and it is dropped between batches (with a
 * cond_resched), so that a migration of gigabytes never keeps a writer
 * (mmap, munmap, another mbind) waiting for more than one batch. Linux
 * 6.1 holds it across the whole call; its pages cost less to move than
 * they do under emulation, and nothing here needs the address space to
 * stay as it was between batches (each starts from an address).
 *
 * As Linux's migrate_pages: the first page that finds no free page where
 * alloc looks (-ENOMEM) ends the migration ("When memory is low, don't
 * bother to try to migrate other folios, just exit"), and -ENOMEM is
 * returned; the pages moved before it stay moved. Otherwise returns how
 * many did not end on a node of want. */
static long move_collected(struct mm_struct *mm, unsigned long start, unsigned long end,
			   const struct collect_walk *proto, migrate_alloc_t alloc, void *arg,
			   const nodemask_t *want, unsigned int flags)
{
	unsigned long failed = 0, a = start;
	while (a < end) {
		struct collect_walk c = *proto;
		bool split = false, nomem = false;
		mmap_read_lock(mm);
		int full = walk_page_range(mm, a, end, &collect_ops, &c);
		for (unsigned int i = 0; i < c.n && !split && !nomem; i++) {
			struct vm_area_struct *vma = find_vma(mm, c.addr[i]);
			int r = vma ? migrate_anon_at(vma, c.addr[i], alloc, arg, &split, flags) : -EFAULT;
			if (r == -ENOMEM)
				nomem = true;
			/* A page shared with other processes stays without
			 * MPOL_MF_MOVE_ALL, and is not counted (Linux's
			 * migrate_page_add skips it). */
			else if (r >= 0 ? !node_isset(r, *want) : r != -ENOENT && r != -EACCES)
				failed++;
			if (split) /* a THP left in 4 KiB pages: walk them */
				a = c.addr[i] + PAGE_SIZE;
		}
		mmap_read_unlock(mm);
		if (nomem)
			return -ENOMEM;
		if (!split) {
			if (!full)
				break;
			a = c.next;
		}
		cond_resched();
	}
	return (long)failed;
}

/* mbind's MPOL_MF_MOVE (Linux's migrate_pages with new_page): every page
 * of [start, end) on a node outside nmask moves to a page the range's new
 * policy gives (alloc_by_policy). Returns -ENOMEM or how many could not
 * be moved there. */
static long move_misplaced(struct mm_struct *mm, unsigned long start, unsigned long end,
			   const nodemask_t *nmask, unsigned int flags)
{
	struct collect_walk proto = { .nodes = nmask, .only_node = NUMA_NO_NODE };
	return move_collected(mm, start, end, &proto, alloc_by_policy, NULL, nmask, flags);
}

/* ---- migrate_pages(2) ------------------------------------------------------ */

/* Linux's migrate_to_node: every page of mm on source moves to dest;
 * those other processes map too only with flags MPOL_MF_MOVE_ALL, which
 * kernel_migrate_pages passes to a caller with CAP_SYS_NICE. Returns
 * -ENOMEM (dest is full) or how many could not be moved. */
static long migrate_to_node(struct mm_struct *mm, int source, int dest, unsigned long flags)
{
	struct collect_walk proto = { .only_node = source };
	nodemask_t want = nodemask_of_node(dest);
	return move_collected(mm, 0, TASK_SIZE, &proto, alloc_migration_target, &dest, &want, flags);
}

/* Linux's do_migrate_pages: the sources in an order that never moves a
 * page twice, where it can. Returns the pages not moved, or -ENOMEM as
 * soon as a destination had no room for one (the moves made stay made):
 * Linux 6.1 stops at the first migrate_to_node that fails. The mmap_lock
 * is taken by migrate_to_node, a batch at a time. */
static long do_migrate_pages(struct mm_struct *mm, const nodemask_t *from, const nodemask_t *to,
			     unsigned long flags)
{
	unsigned long busy = 0;
	nodemask_t tmp = *from;
	while (!nodes_empty(tmp)) {
		int s, source = NUMA_NO_NODE, dest = 0;
		for_each_node_mask(s, tmp) {
			/* A node in both masks stays put when the masks differ
			 * in size (Linux keeps the threads' relative layout). */
			if (nodes_weight(*from) != nodes_weight(*to) && node_isset(s, *to))
				continue;
			int d = node_remap(s, from, to);
			if (s == d)
				continue;
			source = s;
			dest = d;
			/* dest not among the sources left: this one first. */
			if (!node_isset(dest, tmp))
				break;
		}
		if (source == NUMA_NO_NODE)
			break;
		node_clear(source, tmp);
		long err = migrate_to_node(mm, source, dest, flags);
		if (err < 0)
			return err;
		busy += (unsigned long)err;
	}
	return busy < 0x7fffffff ? (long)busy : 0x7fffffff;
}

SYSCALL_DEFINE4(migrate_pages, int, pid, unsigned long, maxnode, const unsigned long __user *, old_nodes,
		const unsigned long __user *, new_nodes)
{
	nodemask_t old, new;
	int err = get_nodes(&old, old_nodes, maxnode);
	if (err)
		return err;
	err = get_nodes(&new, new_nodes, maxnode);
	if (err)
		return err;
	struct mm_struct *mm = find_mm_struct(pid, &err);
	if (!mm)
		return err;
	/* Every mmlab process may act on every other (ptrace_may_access:
	 * one user); without CAP_SYS_NICE only the pages the target alone
	 * maps move, as Linux's kernel_migrate_pages (its refusal of new
	 * nodes outside the target's cpuset never applies: no cpusets). */
	nodemask_t allowed = node_states_memory(); /* cpuset_mems_allowed(current) */
	nodes_and(new, new, allowed);
	if (nodes_empty(new)) {
		mmput(mm);
		return -EINVAL;
	}
	long ret = do_migrate_pages(mm, &old, &new, capable(CAP_SYS_NICE) ? MPOL_MF_MOVE_ALL : MPOL_MF_MOVE);
	mmput(mm);
	return ret;
}

/* Linux's mbind_range: [start, end) of vma gets new (a split or a merge
 * as vma_modify_policy makes them). */
static int mbind_range(struct mm_struct *mm, struct vm_area_struct *vma, unsigned long start,
		       unsigned long end, struct mempolicy *new)
{
	unsigned long vmstart = start > vma->vm_start ? start : vma->vm_start;
	unsigned long vmend = end < vma->vm_end ? end : vma->vm_end;
	if (mpol_equal(vma->vm_policy, new))
		return 0;
	int err = hugetlb_vm_op_split(vma, vmstart) ?: hugetlb_vm_op_split(vma, vmend);
	if (err)
		return err;
	vma = vma_modify_policy(mm, vma, vmstart, vmend, new);
	if (!vma)
		return -ENOMEM;
	/* Linux's vma_replace_policy: a shmem VMA's range (the whole VMA,
	 * merged or split to the range) is set in its object's shared policy
	 * too (vm_ops->set_policy), where every mapping of the object finds
	 * it. Linux sets the object's first and leaves the VMA as it was when
	 * that fails (-ENOMEM); here the VMA has the policy by then. */
	return vma_shared_policy(vma) ? shmem_set_policy(vma, new) : 0;
}

/* Applies new to every VMA of [start, end). */
static int mbind_vmas(struct mm_struct *mm, unsigned long start, unsigned long end, struct mempolicy *new)
{
	struct vm_area_struct *vma = find_vma(mm, start);
	while (vma && vma->vm_start < end) {
		unsigned long vma_end = vma->vm_end;
		int err = mbind_range(mm, vma, start, end, new);
		if (err)
			return err;
		/* The range's VMA may have merged with its neighbours: go on
		 * from where this one ended. */
		vma = vma_end < end ? find_vma(mm, vma_end) : NULL;
	}
	return 0;
}

static long do_mbind(unsigned long start, unsigned long len, int mode, unsigned short mode_flags,
		     const nodemask_t *nmask, unsigned long flags)
{
	struct mm_struct *mm = current->mm;
	if (flags & ~(unsigned long)MPOL_MF_VALID)
		return -EINVAL;
	if ((flags & MPOL_MF_MOVE_ALL) && !capable(CAP_SYS_NICE))
		return -EPERM;
	if (start & ~PAGE_MASK)
		return -EINVAL;
	if (mode == MPOL_DEFAULT)
		flags &= ~(unsigned long)MPOL_MF_STRICT;
	len = PAGE_ALIGN(len);
	unsigned long end = start + len;
	if (end < start)
		return -EINVAL;
	if (end == start)
		return 0;
	int err;
	struct mempolicy *new = mpol_new((unsigned short)mode, mode_flags, nmask, &err);
	if (err)
		return err;
	if (!new)
		flags |= MPOL_MF_DISCONTIG_OK;
	bool move = flags & (MPOL_MF_MOVE | MPOL_MF_MOVE_ALL);
	mmap_write_lock(mm);
	err = mpol_set_nodemask(new, nmask);
	if (err)
		goto out;
	/* Misplaced means on a node the user's mask lacks (Linux passes the
	 * mask as given, not the policy's nodes). */
	long misplaced = check_pages_range(mm, start, end, nmask, flags);
	if (misplaced < 0) {
		err = (int)misplaced;
		goto out;
	}
	/* MPOL_MF_STRICT without a move: the first misplaced page ends
	 * Linux's scan with -EIO, before any VMA gets the policy. */
	if (misplaced && (flags & MPOL_MF_STRICT) && !move) {
		err = -EIO;
		goto out;
	}
	err = mbind_vmas(mm, start, end, new);
	/* With a move, the misplaced pages go where the new policy puts them;
	 * any left behind (or a policy with no room, -ENOMEM) is EIO under
	 * MPOL_MF_STRICT, ignored without. For MPOL_DEFAULT the user's mask
	 * is empty: every page is misplaced and moves by the task's policy,
	 * as Linux's. The policy is in place: the moves take the lock for
	 * reading a batch at a time (move_collected), where Linux 6.1 keeps
	 * it for writing to the end. */
	if (!err && move && misplaced) {
		mmap_write_unlock(mm);
		long failed = move_misplaced(mm, start, end, nmask, flags & MPOL_MF_MOVE_ALL);
		if (failed && (flags & MPOL_MF_STRICT))
			err = -EIO;
		mpol_put(new);
		return err;
	}
out:
	mmap_write_unlock(mm);
	mpol_put(new);
	return err;
}

SYSCALL_DEFINE6(mbind, unsigned long, start, unsigned long, len, unsigned long, mode,
		const unsigned long __user *, nmask, unsigned long, maxnode, unsigned int, flags)
{
	unsigned short mode_flags;
	nodemask_t nodes;
	int lmode = (int)mode;
	int err = mode_and_nodes_from_user(&lmode, &mode_flags, &nodes, nmask, maxnode);
	return err ? err : do_mbind(start, len, lmode, mode_flags, &nodes, flags);
}

/* ---- set_mempolicy_home_node (Linux 5.17, c6018b4b2549) --------------------- */

SYSCALL_DEFINE4(set_mempolicy_home_node, unsigned long, start, unsigned long, len, unsigned long, home_node,
		unsigned long, flags)
{
	struct mm_struct *mm = current->mm;
	int err = -ENOENT;
	if (start & ~PAGE_MASK)
		return -EINVAL;
	/* flags: for future extension. */
	if (flags != 0)
		return -EINVAL;
	if (home_node >= MAX_NUMNODES || !node_online(home_node))
		return -EINVAL;
	len = PAGE_ALIGN(len);
	unsigned long end = start + len;
	if (end < start)
		return -EINVAL;
	if (end == start)
		return 0;
	mmap_write_lock(mm);
	struct vm_area_struct *vma = find_vma(mm, start);
	while (vma && vma->vm_start < end) {
		unsigned long vma_end = vma->vm_end;
		struct mempolicy *old = vma->vm_policy;
		if (old) {
			/* Any other mode stops the call; VMAs updated before
			 * keep their home node, as Linux's. */
			if (old->mode != MPOL_BIND && old->mode != MPOL_PREFERRED_MANY) {
				err = -EOPNOTSUPP;
				break;
			}
			struct mempolicy *new = mpol_dup(old);
			if (!new) {
				err = -ENOMEM;
				break;
			}
			new->home_node = (int)home_node;
			err = mbind_range(mm, vma, start, end, new);
			mpol_put(new);
			if (err)
				break;
		}
		vma = vma_end < end ? find_vma(mm, vma_end) : NULL;
	}
	mmap_write_unlock(mm);
	return err;
}
