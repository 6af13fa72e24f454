/* The address-space fixture (tests/test_mm.h). The fixtures live in a
 * small static table rather than an allocation, so that making one never
 * shows in its own slab count; a slot is taken by test_mm_create and given
 * back by the cleanup action. Locking: none; a case's actions run on the
 * case's thread, and cases run one at a time (an inner case of the
 * framework's self-tests finishes before its outer one goes on). */
#include "tests/test_mm.h"
#include "tests/test_cpu.h"
#include "arch/x86_64/uaccess.h"
#include "fs/file.h"
#include "kernel/sched.h"
#include "kernel/rwsem.h"
#include "kernel/spinlock.h"
#include "kernel/unistd.h"
#include "mm/memory.h"
#include "mm/mmap.h"
#include "mm/mmu_context.h"
#include "mm/pgtable.h"
#include "mm/pte_ref.h"
#include "mm/shmem.h"
#include "mm/khugepaged.h"
#include "mm/mm_inline.h"
#include "mm/mempolicy.h"
#include "fs/fs.h"
#include "fs/init.h"
#include "fs/mount.h"
#include "lib/err.h"
#include "lib/string.h"
#include "lib/vsprintf.h"
#include "mm/slab.h"

struct test_mm {
	struct kunit *test; /* NULL: the slot is free */
	struct mm_struct *mm;
	unsigned flags;
	bool put; /* test_mm_put dropped the mm already */
	struct kunit_resources before;
	unsigned long tables_before, rwsem_bugs_before, spinlock_bugs_before;
};

static struct test_mm slots[TEST_MM_MAX];

static void put_mm(struct test_mm *t)
{
	if (t->put)
		return;
	t->put = true;
	if (t->flags & TEST_MM_CURRENT)
		kthread_unuse_mm(t->mm);
	KUNIT_EXPECT_EQ(t->test, pte_ref_verify(t->mm), 0);
	mmput(t->mm);
}

static void test_mm_cleanup(void *ctx)
{
	struct test_mm *t = ctx;
	struct kunit *test = t->test;
	put_mm(t);
	t->test = NULL;
	if (t->flags & TEST_MM_NO_LEAK_CHECK)
		return;
	KUNIT_EXPECT_EQ(test, nr_user_pagetable_pages(), t->tables_before);
	KUNIT_EXPECT_EQ(test, rwsem_bugs, t->rwsem_bugs_before);
	KUNIT_EXPECT_EQ(test, spinlock_bugs, t->spinlock_bugs_before);
	kunit_expect_resources_back(test, &t->before);
}

struct mm_struct *test_mm_create(struct kunit *test, unsigned flags)
{
	struct test_mm *t = NULL;
	for (unsigned i = 0; i < TEST_MM_MAX && !t; i++)
		if (!slots[i].test)
			t = &slots[i];
	KUNIT_ASSERT_NOT_NULL(test, t);
	*t = (struct test_mm){ .flags = flags };
	if (!(flags & TEST_MM_NO_LEAK_CHECK)) {
		kunit_resources_take(&t->before);
		t->tables_before = nr_user_pagetable_pages();
		t->rwsem_bugs_before = rwsem_bugs;
		t->spinlock_bugs_before = spinlock_bugs;
	}
	t->mm = mm_alloc();
	KUNIT_ASSERT_NOT_NULL(test, t->mm);
	t->test = test;
	if (flags & TEST_MM_CURRENT)
		kthread_use_mm(t->mm);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, test_mm_cleanup, t), 0);
	return t->mm;
}

struct vm_area_struct *test_mm_map_anon(struct kunit *test, struct mm_struct *mm, unsigned long addr,
					unsigned long len)
{
	unsigned long a = do_mmap(mm, addr, len, PROT_READ | PROT_WRITE,
				  MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED);
	KUNIT_ASSERT_EQ(test, a, addr);
	struct vm_area_struct *vma = find_vma(mm, addr);
	KUNIT_ASSERT_NOT_NULL(test, vma);
	return vma;
}

pte_t test_mm_pte(struct mm_struct *mm, unsigned long addr)
{
	pmd_t *pmd = mm_find_pmd(mm, addr);
	pte_t *pte = pmd ? pte_offset_map(pmd, addr) : NULL;
	if (!pte)
		return __pte(0);
	pte_t v = ptep_get(pte);
	pte_unmap(pte);
	return v;
}

/* The mode to put back, and the case that changed it. */
static enum pte_reclaim_mode mode_before;
static struct kunit *mode_test;

static void restore_mode_action(void *unused)
{
	(void)unused;
	struct kunit *test = mode_test;
	mode_test = NULL;
	if (pte_reclaim_set_mode(mode_before))
		kunit_fail(test, false, __FILE__, __LINE__,
			   "could not put pte_reclaim mode %s back (a user mm is alive)",
			   pte_reclaim_mode_name(mode_before));
}

struct page *test_mm_pmd_page(struct mm_struct *mm, unsigned long addr)
{
	pmd_t *pmd = mm_find_pmd(mm, addr);
	if (!pmd)
		return NULL;
	pmd_t val = pmdp_get(pmd);
	return pmd_trans_huge(val) ? pfn_to_page(pmd_pfn(val)) : NULL;
}

static void restore_shmem_huge(void *arg) { shmem_huge_set((int)(long)arg); }

void test_set_shmem_huge(struct kunit *test, int huge)
{
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, restore_shmem_huge, (void *)(long)READ_ONCE(shmem_huge)),
			0);
	shmem_huge_set(huge);
}

static void test_tmpfs_unmount(void *dir)
{
	do_umount_path(dir, MNT_DETACH);
	init_rmdir(dir);
}

struct test_tmpfs {
	struct file *f;
	char path[96];
};

static void test_tmpfs_close(void *arg)
{
	struct test_tmpfs *t = arg;
	filp_close(t->f);
	init_unlink(t->path);
	kfree(t);
}

struct file *test_tmpfs_file(struct kunit *test, const char *dir, const char *opts)
{
	init_mkdir(dir, 0755);
	char buf[64];
	strlcpy(buf, opts, sizeof(buf));
	KUNIT_ASSERT_EQ(test, do_mount("test", dir, "tmpfs", 0, buf), 0);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, test_tmpfs_unmount, (void *)dir), 0);
	struct test_tmpfs *t = kmalloc(sizeof(*t), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, t);
	snprintf(t->path, sizeof(t->path), "%s/f", dir);
	struct file *f = filp_open(t->path, O_RDWR | O_CREAT | O_EXCL, 0600);
	if (IS_ERR(f))
		kfree(t);
	KUNIT_ASSERT_FALSE(test, IS_ERR(f));
	t->f = f;
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, test_tmpfs_close, t), 0);
	return f;
}

int test_set_size(struct file *f, long size)
{
	struct iattr attr = { .ia_valid = ATTR_SIZE | ATTR_MTIME, .ia_size = size };
	attr.ia_mtime = current_time();
	return notify_change(f->f_path.dentry, &attr);
}

void test_khugepaged_two_full_scans(void)
{
	khugepaged_scan_sleep_millisecs = 10;
	khugepaged_alloc_sleep_millisecs = 10;
	unsigned int target = khugepaged_full_scans_read() + 2;
	khugepaged_wake();
	khugepaged_wait_full_scans(target);
}

static void restore_fault_around(void *arg) { fault_around_bytes = (unsigned long)arg; }

void test_set_fault_around(struct kunit *test, unsigned long bytes)
{
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, restore_fault_around, (void *)fault_around_bytes),
			0);
	fault_around_bytes = bytes;
}

int test_pte_reclaim_mode(struct kunit *test, enum pte_reclaim_mode mode)
{
	enum pte_reclaim_mode before = pte_reclaim_mode;
	int err = pte_reclaim_set_mode(mode);
	if (err || mode_test == test)
		return err; /* nothing changed, or the first change's action restores */
	mode_before = before;
	mode_test = test;
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, restore_mode_action, NULL), 0);
	return 0;
}

static const struct pte_reclaim_mode_param pte_reclaim_modes[] = {
	{ PTE_RECLAIM_OFF, "off" },
	{ PTE_RECLAIM_SCAN, "scan" },
	{ PTE_RECLAIM_REFCOUNT, "refcount" },
};

const void *pte_reclaim_modes_gen_params(const void *prev, char *desc)
{
	const struct pte_reclaim_mode_param *next = prev ? (const struct pte_reclaim_mode_param *)prev + 1
							 : pte_reclaim_modes;
	if (next == pte_reclaim_modes + ARRAY_SIZE(pte_reclaim_modes))
		return NULL;
	kunit_param_desc(desc, "%s", next->name);
	return next;
}

/* A live mm first: one made after another was put may have its address. */
static struct test_mm *find(struct kunit *test, struct mm_struct *mm)
{
	for (int put = 0; put < 2; put++)
		for (unsigned i = 0; i < TEST_MM_MAX; i++)
			if (slots[i].test == test && slots[i].mm == mm && slots[i].put == put)
				return &slots[i];
	return NULL;
}

void test_mm_unuse(struct kunit *test, struct mm_struct *mm)
{
	struct test_mm *t = find(test, mm);
	if (t && (t->flags & TEST_MM_CURRENT)) {
		kthread_unuse_mm(mm);
		t->flags &= ~TEST_MM_CURRENT;
	}
}

void test_mm_put(struct kunit *test, struct mm_struct *mm)
{
	struct test_mm *t = find(test, mm);
	if (t)
		put_mm(t);
}

void test_mm_destroy(struct kunit *test, struct mm_struct *mm)
{
	struct test_mm *t = find(test, mm);
	if (t)
		kunit_release_action(test, test_mm_cleanup, t);
}

struct mm_struct *test_mm_enter(struct mm_struct *mm)
{
	struct mm_struct *was = current->mm;
	if (was == mm)
		return was;
	if (was)
		kthread_unuse_mm(was);
	kthread_use_mm(mm);
	return was;
}

void test_mm_leave(struct mm_struct *mm, struct mm_struct *was)
{
	if (was == mm)
		return;
	kthread_unuse_mm(mm);
	if (was)
		kthread_use_mm(was);
}

int test_mm_write_u64(struct mm_struct *mm, unsigned long addr, u64 v)
{
	struct mm_struct *was = test_mm_enter(mm);
	int err = put_user_u64(v, (void *)addr);
	test_mm_leave(mm, was);
	return err;
}

u64 test_mm_read_u64(struct mm_struct *mm, unsigned long addr)
{
	u64 v = ~0ull;
	struct mm_struct *was = test_mm_enter(mm);
	if (get_user_u64(&v, (const void *)addr))
		v = ~0ull;
	test_mm_leave(mm, was);
	return v;
}

int test_mm_stress_step(struct mm_struct *mm, unsigned long base, unsigned long npages, unsigned long *seed,
			unsigned long *index)
{
	*seed = *seed * 6364136223846793005ul + 1442695040888963407ul;
	unsigned long i = (*seed >> 33) % npages;
	*index = i;
	if ((*seed >> 20) % 16)
		return 1;
	unsigned long len = ((*seed >> 40) % 32 + 1) * PAGE_SIZE;
	if (i * PAGE_SIZE + len > npages * PAGE_SIZE)
		len = npages * PAGE_SIZE - i * PAGE_SIZE;
	return do_madvise(mm, base + i * PAGE_SIZE, len, MADV_DONTNEED);
}

int test_mm_stress_worker(struct test_worker *w, unsigned long base, unsigned long npages,
			  int (*access)(unsigned long addr, unsigned long index, unsigned long seed, unsigned long n))
{
	struct mm_struct *mm = w->crew->ctx;
	unsigned long seed = 0x9e3779b97f4a7c15ul * (w->id + 1), n = 0, i;
	int err = 0;
	kthread_use_mm(mm);
	while (!test_crew_should_stop(w)) {
		int step = test_mm_stress_step(mm, base, npages, &seed, &i);
		if (step < 0 || (step > 0 && access(base + i * PAGE_SIZE, i, seed, ++n)))
			err = 1;
		test_crew_progress(w);
		if (++n % 64 == 0)
			cond_resched();
	}
	kthread_unuse_mm(mm);
	return err;
}

/* The runner thread's own file table while a case has put its own in. */
static struct files_struct *saved_files;

static void leave_files(void *files)
{
	current->files = saved_files;
	files_release(files);
}

void test_mm_enter_space(struct kunit *test, unsigned long addr, unsigned long npages)
{
	struct mm_struct *mm = test_mm_create(test, TEST_MM_CURRENT);
	test_mm_map_anon(test, mm, addr, npages * PAGE_SIZE);
	struct files_struct *files = files_alloc("");
	KUNIT_ASSERT_NOT_NULL(test, files);
	saved_files = current->files;
	current->files = files;
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, leave_files, files), 0);
}

int test_quiet_lru_node(void)
{
	nodemask_t mem = node_states_memory();
	int nid;
	for_each_node_mask(nid, mem) {
		if (!node_has_memory(nid) || !NODE_DATA(nid)->managed_pages)
			continue;
		struct lruvec *l = node_lruvec(NODE_DATA(nid));
		if (!l->nr_pages[LRU_INACTIVE_ANON] && !l->nr_pages[LRU_ACTIVE_ANON] && !l->nr_pages[LRU_UNEVICTABLE])
			return nid;
	}
	return -1;
}
