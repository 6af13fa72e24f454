/* Shared policies of shmem objects (mm/shared_policy.h,
 * mm/mempolicy_shared.c, mm/shmem_policy.c): the range tree cut and
 * replaced as Linux's shared_policy_replace does it; mbind on one mapping
 * of a MAP_SHARED anonymous object, a memfd or a System V segment read
 * back through another mapping and another process, and after the mapping
 * it was set through is gone; new pages of the object placed by it
 * whoever makes them (a fault in another process, write(2)), the home
 * node included; MPOL_MF_STRICT with a misplaced shmem page. The nodes
 * come from the machine (the nodes with memory, the CPU's node); a case
 * that needs two nodes skips on one. System calls go through
 * do_syscall_64 on a test mm (tests/test_mm.h), whose end checks that
 * every page and slab object (the policies and the tree's nodes among
 * them) is back. */
#include "tests/kunit.h"
#include "tests/test_file.h"
#include "tests/test_mm.h"
#include "arch/x86_64/uaccess.h"
#include "fs/fdtable.h"
#include "fs/fs.h"
#include "ipc/shm.h"
#include "kernel/sched.h"
#include "kernel/syscall.h"
#include "kernel/unistd.h"
#include "lib/string.h"
#include "mm/filemap.h"
#include "mm/mempolicy.h"
#include "mm/mmu_context.h"
#include "mm/page.h"
#include "mm/page_alloc.h"
#include "mm/shmem.h"
#include "mm/shmem_fs.h"
#include "mm/slab.h"
#include "mm/vma.h"

#define UBASE 0x0000300000000000ul /* 16 pages: names, masks, results */
#define MASK (UBASE + 8 * PG)	   /* a node mask for mbind */
#define OUT (UBASE + 9 * PG)	   /* get_mempolicy's mode, then its mask */
#define MBASE 0x0000310000000000ul /* where the cases map (MAP_FIXED) */
#define PG PAGE_SIZE
#define MAXNODE 65 /* one long of mask bits */

static long sys6(unsigned long nr, unsigned long a0, unsigned long a1, unsigned long a2, unsigned long a3,
		 unsigned long a4, unsigned long a5)
{
	const unsigned long args[6] = { a0, a1, a2, a3, a4, a5 };
	return do_syscall_64(nr, args);
}

static long sys(unsigned long nr, unsigned long a0, unsigned long a1, unsigned long a2)
{
	return sys6(nr, a0, a1, a2, 0, 0, 0);
}

static long map(unsigned long addr, unsigned long len, unsigned long flags, long fd, unsigned long off)
{
	return sys6(__NR_mmap, addr, len, PROT_READ | PROT_WRITE, flags | MAP_FIXED, (unsigned long)fd, off);
}

static long mbind(unsigned long addr, unsigned long len, int mode, nodemask_t nodes, unsigned flags)
{
	unsigned long word = nodes.bits[0];
	if (copy_to_user((void *)MASK, &word, sizeof(word)))
		return -EFAULT;
	return sys6(__NR_mbind, addr, len, (unsigned long)mode, MASK, MAXNODE, flags);
}

/* get_mempolicy(MPOL_F_ADDR) at addr: the mode (or a negative errno),
 * and the nodes in *nodes. */
static long policy_at(unsigned long addr, nodemask_t *nodes)
{
	long err = sys6(__NR_get_mempolicy, OUT, OUT + 8, MAXNODE, addr, MPOL_F_ADDR, 0);
	if (err)
		return err;
	int mode;
	unsigned long word;
	if (copy_from_user(&mode, (void *)OUT, sizeof(mode)) || copy_from_user(&word, (void *)(OUT + 8), sizeof(word)))
		return -EFAULT;
	nodes_clear(*nodes);
	nodes->bits[0] = word;
	return mode;
}

static void expect_policy(struct kunit *test, unsigned long addr, int mode, nodemask_t nodes)
{
	nodemask_t got = NODE_MASK_ALL;
	KUNIT_EXPECT_EQ(test, policy_at(addr, &got), (long)mode);
	KUNIT_EXPECT_TRUE(test, nodes_equal(got, nodes));
}

static long memfd(struct kunit *test, unsigned long pages)
{
	KUNIT_ASSERT_EQ(test, copy_to_user((void *)UBASE, "pol", 4), 0);
	long fd = sys(__NR_memfd_create, UBASE, 0, 0);
	KUNIT_ASSERT_GE(test, fd, 0);
	KUNIT_ASSERT_EQ(test, sys(__NR_ftruncate, (unsigned long)fd, pages * PG, 0), 0);
	return fd;
}

/* The node of the page at index of the memfd fd's page cache, -1 if none. */
static int file_page_node(long fd, unsigned long index)
{
	struct file *f = fget(current->files, (unsigned int)fd);
	if (!f)
		return -2;
	struct page *p = filemap_get_folio(f->f_mapping, index);
	int nid = p ? page_to_nid(p) : -1;
	if (p)
		put_page(p);
	fput(f);
	return nid;
}

/* The node of the page at index of the anonymous object mapped at addr. */
static int object_page_node(unsigned long addr, unsigned long index)
{
	struct vm_area_struct *vma = find_vma(current->mm, addr);
	if (!vma || !vma->vm_shm || index >= vma->vm_shm->size)
		return -2;
	struct page *p = test_cache_page(vma->vm_shm->mapping, index);
	return p ? page_to_nid(p) : -1;
}

static int first_memory_node(void)
{
	nodemask_t mem = node_states_memory();
	return first_node(mem);
}

/* A node with memory other than the CPU's, or -1 on a one-node machine. */
static int other_node(void)
{
	nodemask_t mem = node_states_memory();
	int nid;
	for_each_node_mask(nid, mem)
		if (nid != numa_node_id())
			return nid;
	return -1;
}

static unsigned long nr_ranges(struct shared_policy *sp)
{
	unsigned long n = 0;
	for (struct rb_node *r = rb_first(&sp->root); r; r = rb_next(r))
		n++;
	return n;
}

static struct mempolicy *bind_policy(struct kunit *test, int nid)
{
	int err;
	nodemask_t nodes = nodemask_of_node(nid);
	struct mempolicy *pol = mpol_new(MPOL_BIND, 0, &nodes, &err);
	KUNIT_ASSERT_NOT_NULL(test, pol);
	KUNIT_ASSERT_EQ(test, mpol_set_nodemask(pol, &nodes), 0);
	return pol;
}

/* The tree alone: a range set inside another cuts it in three, one over
 * whole ranges replaces them, neighbours with equal policies stay apart
 * (as Linux's), the default removes, and the free gives every node and
 * policy back. */
static void ranges_cut_and_replaced(struct kunit *test)
{
	struct kunit_resources before;
	kunit_resources_take(&before);
	int nid = first_memory_node();
	struct mempolicy *a = bind_policy(test, nid), *b = mpol_new(MPOL_LOCAL, 0, &(nodemask_t){}, &(int){ 0 });
	KUNIT_ASSERT_NOT_NULL(test, b);
	struct shared_policy sp;
	mpol_shared_policy_init(&sp, NULL);
	KUNIT_EXPECT_NULL(test, mpol_shared_policy_lookup(&sp, 0));
	KUNIT_EXPECT_EQ(test, mpol_set_shared_policy(&sp, 0, 10, a), 0);
	KUNIT_EXPECT_EQ(test, mpol_set_shared_policy(&sp, 3, 5, b), 0);
	KUNIT_EXPECT_EQ(test, nr_ranges(&sp), 3ul);
	static const struct { unsigned long idx; int which; } want[] = {
		{ 0, 1 }, { 2, 1 }, { 3, 2 }, { 4, 2 }, { 5, 1 }, { 9, 1 }, { 10, 0 },
	};
	for (unsigned i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		struct mempolicy *p = mpol_shared_policy_lookup(&sp, want[i].idx);
		KUNIT_EXPECT_PTR_EQ(test, p, want[i].which == 1 ? a : want[i].which == 2 ? b : NULL);
		mpol_put(p);
	}
	/* Over [2, 8): the middle range goes, its neighbours are cut. */
	KUNIT_EXPECT_EQ(test, mpol_set_shared_policy(&sp, 2, 8, b), 0);
	KUNIT_EXPECT_EQ(test, nr_ranges(&sp), 3ul);
	struct mempolicy *p = mpol_shared_policy_lookup(&sp, 1);
	KUNIT_EXPECT_PTR_EQ(test, p, a);
	mpol_put(p);
	p = mpol_shared_policy_lookup(&sp, 7);
	KUNIT_EXPECT_PTR_EQ(test, p, b);
	mpol_put(p);
	p = mpol_shared_policy_lookup(&sp, 8);
	KUNIT_EXPECT_PTR_EQ(test, p, a);
	mpol_put(p);
	/* An equal policy next door is a range of its own. */
	KUNIT_EXPECT_EQ(test, mpol_set_shared_policy(&sp, 10, 12, a), 0);
	KUNIT_EXPECT_EQ(test, nr_ranges(&sp), 4ul);
	/* The default over [0, 9) leaves [9, 10) and [10, 12). */
	KUNIT_EXPECT_EQ(test, mpol_set_shared_policy(&sp, 0, 9, NULL), 0);
	KUNIT_EXPECT_EQ(test, nr_ranges(&sp), 2ul);
	KUNIT_EXPECT_NULL(test, mpol_shared_policy_lookup(&sp, 8));
	mpol_free_shared_policy(&sp);
	KUNIT_EXPECT_EQ(test, nr_ranges(&sp), 0ul);
	mpol_put(a);
	mpol_put(b);
	kunit_expect_resources_back(test, &before);
}

/* mbind on part of a MAP_SHARED anonymous mapping: the other mapping of
 * the object in a forked child reads the object's policy at each offset,
 * and the VMA of the mbind is split as for private memory; MPOL_DEFAULT
 * takes it away for both. */
static void anon_object_policy_seen_by_child(struct kunit *test)
{
	test_mm_enter_space(test, UBASE, 16);
	int nid = first_memory_node();
	nodemask_t one = nodemask_of_node(nid), none = NODE_MASK_NONE;
	KUNIT_ASSERT_EQ(test, map(MBASE, 4 * PG, MAP_SHARED | MAP_ANONYMOUS, -1, 0), (long)MBASE);
	KUNIT_EXPECT_EQ(test, mbind(MBASE + PG, 2 * PG, MPOL_BIND, one, 0), 0);
	struct mm_struct *child;
	KUNIT_ASSERT_EQ(test, dup_mm(current->mm, &child), 0);
	struct mm_struct *was = test_mm_enter(child);
	expect_policy(test, MBASE, MPOL_DEFAULT, none);
	expect_policy(test, MBASE + PG, MPOL_BIND, one);
	expect_policy(test, MBASE + 3 * PG, MPOL_DEFAULT, none);
	test_mm_leave(child, was);
	KUNIT_EXPECT_EQ(test, mbind(MBASE, 4 * PG, MPOL_DEFAULT, none, 0), 0);
	was = test_mm_enter(child);
	/* The child's VMAs copied the parent's policies at fork (vm_policy),
	 * but what it reads is the object's, which the parent just reset. */
	expect_policy(test, MBASE + PG, MPOL_DEFAULT, none);
	KUNIT_EXPECT_EQ(test, mbind(MBASE + 2 * PG, PG, MPOL_PREFERRED, one, 0), 0);
	test_mm_leave(child, was);
	expect_policy(test, MBASE, MPOL_DEFAULT, none);
	expect_policy(test, MBASE + PG, MPOL_DEFAULT, none);
	expect_policy(test, MBASE + 2 * PG, MPOL_PREFERRED, one); /* set in the child */
	expect_policy(test, MBASE + 3 * PG, MPOL_DEFAULT, none);
	/* The child's mapping goes; the object and its policy stay. */
	mmput(child);
	expect_policy(test, MBASE + 2 * PG, MPOL_PREFERRED, one);
	KUNIT_EXPECT_EQ(test, sys(__NR_munmap, MBASE, 4 * PG, 0), 0);
}

/* A memfd: a policy set through one mapping is the file's. It is read
 * through a second mapping, a mapping at another file offset and a
 * MAP_PRIVATE one (Linux gives those shmem_vm_ops too), and survives the
 * unmapping of the mapping it was set through; the inode's eviction frees
 * it (the fixture counts the slab objects). */
static void memfd_policy_belongs_to_the_file(struct kunit *test)
{
	test_mm_enter_space(test, UBASE, 16);
	int nid = first_memory_node();
	nodemask_t one = nodemask_of_node(nid), none = NODE_MASK_NONE;
	long fd = memfd(test, 8);
	KUNIT_ASSERT_EQ(test, map(MBASE, 8 * PG, MAP_SHARED, fd, 0), (long)MBASE);
	KUNIT_EXPECT_EQ(test, mbind(MBASE + 2 * PG, 3 * PG, MPOL_BIND | MPOL_F_STATIC_NODES, one, 0), 0);
	KUNIT_EXPECT_EQ(test, sys(__NR_munmap, MBASE, 8 * PG, 0), 0);
	unsigned long b = MBASE + 16 * PG, c = MBASE + 32 * PG, d = MBASE + 48 * PG;
	KUNIT_ASSERT_EQ(test, map(b, 8 * PG, MAP_SHARED, fd, 0), (long)b);
	KUNIT_ASSERT_EQ(test, map(c, 2 * PG, MAP_SHARED, fd, 4 * PG), (long)c);
	KUNIT_ASSERT_EQ(test, map(d, 8 * PG, MAP_PRIVATE, fd, 0), (long)d);
	for (unsigned long i = 0; i < 8; i++) {
		bool bound = i >= 2 && i < 5;
		expect_policy(test, b + i * PG, bound ? MPOL_BIND | MPOL_F_STATIC_NODES : MPOL_DEFAULT,
			      bound ? one : none);
		expect_policy(test, d + i * PG, bound ? MPOL_BIND | MPOL_F_STATIC_NODES : MPOL_DEFAULT,
			      bound ? one : none);
	}
	expect_policy(test, c, MPOL_BIND | MPOL_F_STATIC_NODES, one); /* offset 4 */
	expect_policy(test, c + PG, MPOL_DEFAULT, none);		 /* offset 5 */
	/* mbind through the private mapping sets the file's policy too. */
	KUNIT_EXPECT_EQ(test, mbind(d + 5 * PG, PG, MPOL_PREFERRED, one, 0), 0);
	expect_policy(test, c + PG, MPOL_PREFERRED, one);
	KUNIT_EXPECT_EQ(test, sys(__NR_munmap, b, 64 * PG, 0), 0);
	KUNIT_EXPECT_EQ(test, sys(__NR_close, (unsigned long)fd, 0, 0), 0);
}

/* Two attaches of one System V segment: the policy set through one is
 * read through the other. */
static void sysv_segment_policy_seen_by_every_attach(struct kunit *test)
{
	test_mm_enter_space(test, UBASE, 16);
	int nid = first_memory_node();
	nodemask_t one = nodemask_of_node(nid), none = NODE_MASK_NONE;
	int id = (int)ksys_shmget(IPC_PRIVATE, 4 * PG, 0600);
	KUNIT_ASSERT_GE(test, id, 0);
	unsigned long a = 0, b = 0;
	KUNIT_ASSERT_EQ(test, do_shmat(id, 0, 0, &a), 0l);
	KUNIT_ASSERT_EQ(test, do_shmat(id, 0, 0, &b), 0l);
	KUNIT_EXPECT_EQ(test, mbind(a + 3 * PG, PG, MPOL_INTERLEAVE, one, 0), 0);
	expect_policy(test, b + 3 * PG, MPOL_INTERLEAVE, one);
	expect_policy(test, b + 2 * PG, MPOL_DEFAULT, none);
	KUNIT_EXPECT_EQ(test, ksys_shmctl(id, IPC_RMID, NULL), 0l);
	KUNIT_EXPECT_EQ(test, ksys_shmdt(a), 0l);
	expect_policy(test, b + 3 * PG, MPOL_INTERLEAVE, one);
	KUNIT_EXPECT_EQ(test, ksys_shmdt(b), 0l);
}

/* New pages of the object follow its policy whoever makes them: a child
 * faulting the anonymous object, write(2) and a fault on the memfd. An
 * interleave over every node with memory gives each the same number of
 * consecutive offsets. */
static void pages_follow_the_shared_policy(struct kunit *test)
{
	int target = other_node();
	if (target < 0)
		kunit_skip(test, "one node with memory");
	test_mm_enter_space(test, UBASE, 16);
	nodemask_t one = nodemask_of_node(target), mem = node_states_memory();
	unsigned long w = (unsigned long)nodes_weight(mem), n = 4 * w;
	KUNIT_ASSERT_EQ(test, map(MBASE, n * PG, MAP_SHARED | MAP_ANONYMOUS, -1, 0), (long)MBASE);
	KUNIT_EXPECT_EQ(test, mbind(MBASE, PG, MPOL_BIND, one, 0), 0);
	KUNIT_EXPECT_EQ(test, mbind(MBASE + PG, (n - 1) * PG, MPOL_INTERLEAVE, mem, 0), 0);
	struct mm_struct *child;
	KUNIT_ASSERT_EQ(test, dup_mm(current->mm, &child), 0);
	for (unsigned long i = 0; i < n; i++)
		KUNIT_EXPECT_EQ(test, test_mm_write_u64(child, MBASE + i * PG, i), 0);
	mmput(child);
	KUNIT_EXPECT_EQ(test, object_page_node(MBASE, 0), target);
	unsigned long per_node[MAX_NUMNODES] = { 0 };
	for (unsigned long i = 1; i < n; i++) {
		int nid = object_page_node(MBASE, i);
		KUNIT_ASSERT_TRUE(test, nid >= 0 && node_isset(nid, mem));
		per_node[nid]++;
	}
	/* n - 1 offsets over w nodes: each has n / w or n / w - 1. */
	int nid;
	for_each_node_mask(nid, mem)
		KUNIT_EXPECT_TRUE(test, per_node[nid] == n / w || per_node[nid] == n / w - 1);
	KUNIT_EXPECT_EQ(test, sys(__NR_munmap, MBASE, n * PG, 0), 0);

	long fd = memfd(test, 4);
	KUNIT_ASSERT_EQ(test, map(MBASE, 4 * PG, MAP_SHARED, fd, 0), (long)MBASE);
	KUNIT_EXPECT_EQ(test, mbind(MBASE, 4 * PG, MPOL_BIND, one, 0), 0);
	KUNIT_EXPECT_EQ(test, sys(__NR_munmap, MBASE, 4 * PG, 0), 0);
	/* No mapping now: write(2) makes page 1 by the file's policy. */
	KUNIT_ASSERT_EQ(test, copy_to_user((void *)UBASE, "x", 1), 0);
	KUNIT_EXPECT_EQ(test, sys6(__NR_pwrite64, (unsigned long)fd, UBASE, 1, PG, 0, 0), 1);
	KUNIT_EXPECT_EQ(test, file_page_node(fd, 1), target);
	/* A new mapping's fault makes page 2 the same way. */
	KUNIT_ASSERT_EQ(test, map(MBASE, 4 * PG, MAP_SHARED, fd, 0), (long)MBASE);
	KUNIT_EXPECT_EQ(test, test_mm_write_u64(current->mm, MBASE + 2 * PG, 2), 0);
	KUNIT_EXPECT_EQ(test, file_page_node(fd, 2), target);
	KUNIT_EXPECT_EQ(test, file_page_node(fd, 0), -1);
	KUNIT_EXPECT_EQ(test, sys(__NR_munmap, MBASE, 4 * PG, 0), 0);
	KUNIT_EXPECT_EQ(test, sys(__NR_close, (unsigned long)fd, 0, 0), 0);
}

/* set_mempolicy_home_node on a shmem mapping, as Linux 6.1: the VMA's own
 * policy is copied with the home node and set in the object too
 * (mbind_range), so the object's new pages start at the home node. A
 * mapping whose VMA never had mbind has no policy of its own: ENOENT,
 * even when the object has one. A mode other than BIND and
 * PREFERRED_MANY is EOPNOTSUPP. */
static void home_node_of_a_shared_policy(struct kunit *test)
{
	int home = other_node();
	if (home < 0)
		kunit_skip(test, "one node with memory");
	test_mm_enter_space(test, UBASE, 16);
	nodemask_t mem = node_states_memory();
	long fd = memfd(test, 4);
	unsigned long b = MBASE + 16 * PG;
	KUNIT_ASSERT_EQ(test, map(MBASE, 4 * PG, MAP_SHARED, fd, 0), (long)MBASE);
	KUNIT_ASSERT_EQ(test, map(b, 4 * PG, MAP_SHARED, fd, 0), (long)b);
	KUNIT_EXPECT_EQ(test, mbind(MBASE, 2 * PG, MPOL_BIND, mem, 0), 0);
	KUNIT_EXPECT_EQ(test, mbind(MBASE + 2 * PG, 2 * PG, MPOL_INTERLEAVE, mem, 0), 0);
	KUNIT_EXPECT_EQ(test, sys6(__NR_set_mempolicy_home_node, b, 2 * PG, (unsigned long)home, 0, 0, 0), -ENOENT);
	KUNIT_EXPECT_EQ(test, sys6(__NR_set_mempolicy_home_node, MBASE + 2 * PG, PG, (unsigned long)home, 0, 0, 0),
			-EOPNOTSUPP);
	KUNIT_EXPECT_EQ(test, sys6(__NR_set_mempolicy_home_node, MBASE, 2 * PG, (unsigned long)home, 0, 0, 0), 0);
	struct vm_area_struct *vma = find_vma(current->mm, MBASE);
	struct mempolicy *pol = shmem_get_policy(vma, MBASE + PG);
	KUNIT_ASSERT_NOT_NULL(test, pol);
	KUNIT_EXPECT_EQ(test, pol->home_node, home);
	mpol_put(pol);
	/* Faulted through the other mapping: on the home node. */
	KUNIT_EXPECT_EQ(test, test_mm_write_u64(current->mm, b, 0), 0);
	KUNIT_EXPECT_EQ(test, test_mm_write_u64(current->mm, b + PG, 1), 0);
	KUNIT_EXPECT_EQ(test, file_page_node(fd, 0), home);
	KUNIT_EXPECT_EQ(test, file_page_node(fd, 1), home);
	KUNIT_EXPECT_EQ(test, sys(__NR_munmap, MBASE, 32 * PG, 0), 0);
	KUNIT_EXPECT_EQ(test, sys(__NR_close, (unsigned long)fd, 0, 0), 0);
}

/* MPOL_MF_STRICT without a move, with a shmem page already on a node
 * outside the new mask: EIO and the policy stays as it was, for the
 * object too. Bad arguments are refused before anything changes. */
static void strict_with_a_misplaced_shmem_page(struct kunit *test)
{
	int other = other_node();
	if (other < 0)
		kunit_skip(test, "one node with memory");
	test_mm_enter_space(test, UBASE, 16);
	nodemask_t mem = node_states_memory();
	node_clear(other, mem);
	int here = first_node(mem);
	nodemask_t at_here = nodemask_of_node(here), at_other = nodemask_of_node(other);
	KUNIT_ASSERT_EQ(test, map(MBASE, 2 * PG, MAP_SHARED | MAP_ANONYMOUS, -1, 0), (long)MBASE);
	KUNIT_EXPECT_EQ(test, mbind(MBASE, 2 * PG, MPOL_BIND, at_here, 0), 0);
	KUNIT_EXPECT_EQ(test, test_mm_write_u64(current->mm, MBASE, 1), 0);
	KUNIT_ASSERT_EQ(test, object_page_node(MBASE, 0), here);
	KUNIT_EXPECT_EQ(test, mbind(MBASE, 2 * PG, MPOL_BIND, at_other, MPOL_MF_STRICT), -EIO);
	expect_policy(test, MBASE, MPOL_BIND, at_here);
	expect_policy(test, MBASE + PG, MPOL_BIND, at_here);
	/* Only the pages mapped in the range count: page 1 has none yet. */
	KUNIT_EXPECT_EQ(test, mbind(MBASE + PG, PG, MPOL_BIND, at_other, MPOL_MF_STRICT), 0);
	expect_policy(test, MBASE + PG, MPOL_BIND, at_other);
	KUNIT_EXPECT_EQ(test, mbind(MBASE + 1, PG, MPOL_BIND, at_other, 0), -EINVAL);
	KUNIT_EXPECT_EQ(test, mbind(MBASE, PG, MPOL_BIND, NODE_MASK_NONE, 0), -EINVAL);
	KUNIT_EXPECT_EQ(test, mbind(MBASE, PG, MPOL_BIND, at_other, 0x100), -EINVAL);
	expect_policy(test, MBASE, MPOL_BIND, at_here);
	KUNIT_EXPECT_EQ(test, sys(__NR_munmap, MBASE, 2 * PG, 0), 0);
}

static struct kunit_case shmem_policy_cases[] = {
	KUNIT_CASE(ranges_cut_and_replaced),
	KUNIT_CASE(anon_object_policy_seen_by_child),
	KUNIT_CASE(memfd_policy_belongs_to_the_file),
	KUNIT_CASE(sysv_segment_policy_seen_by_every_attach),
	KUNIT_CASE(pages_follow_the_shared_policy),
	KUNIT_CASE(home_node_of_a_shared_policy),
	KUNIT_CASE(strict_with_a_misplaced_shmem_page),
	{},
};

static struct kunit_suite shmem_policy_suite = { .name = "shmem_policy", .test_cases = shmem_policy_cases };
kunit_test_suite(shmem_policy_suite);
