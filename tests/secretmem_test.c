/* memfd_secret (mm/secretmem.c) and the direct map it changes
 * (mm/set_memory.c: set_direct_map_invalid_noflush and
 * set_direct_map_default_noflush), through the system calls on a test mm
 * with a file table of its own (tests/test_mm.h).
 *
 * What the kernel sees is read from the kernel: the secret page through
 * the file's page cache, its direct-map entry (lookup_kernel_address), a
 * load through the direct map made with the exception table's fixup
 * (get_kernel_nofault_u64: -EFAULT where a plain load would oops), the
 * split count /proc/meminfo's DirectMap lines come from. Every case checks
 * that nothing is left behind: free pages, slab objects and page tables
 * (the mm fixture), the direct map's splits folded back. */
#include "tests/kunit.h"
#include "tests/test_mm.h"
#include "arch/x86_64/uaccess.h"
#include "fs/fdtable.h"
#include "fs/fs.h"
#include "kernel/sched.h"
#include "kernel/syscall.h"
#include "kernel/unistd.h"
#include "mm/filemap.h"
#include "mm/gup.h"
#include "mm/kernel_map.h"
#include "mm/mmap.h"
#include "mm/mempolicy.h"
#include "mm/mmap_lock.h"
#include "mm/page_alloc.h"
#include "mm/rmap.h"
#include "mm/secretmem.h"
#include "mm/shmem.h"

#define UBASE 0x0000300000000000ul /* 4 pages: buffers */
#define MBASE 0x0000310000000000ul /* where the cases map (MAP_FIXED) */
#define PG PAGE_SIZE

static long sys(unsigned long nr, unsigned long a0, unsigned long a1, unsigned long a2, unsigned long a3)
{
	const unsigned long args[6] = { a0, a1, a2, a3, 0, 0 };
	return do_syscall_64(nr, args);
}

static long sys_mmap(unsigned long addr, unsigned long len, unsigned long prot, unsigned long flags, long fd)
{
	const unsigned long args[6] = { addr, len, prot, flags | MAP_FIXED, (unsigned long)fd, 0 };
	return do_syscall_64(__NR_mmap, args);
}

/* A secretmem file of npages, or the case is skipped when memfd_secret
 * is off (secretmem.enable=0). */
static long secret_file(struct kunit *test, unsigned long npages)
{
	long fd = sys(__NR_memfd_secret, 0, 0, 0, 0);
	if (fd == -ENOSYS)
		kunit_skip(test, "memfd_secret is off (secretmem.enable=0)");
	KUNIT_ASSERT_GE(test, fd, 0);
	KUNIT_ASSERT_EQ(test, sys(__NR_ftruncate, (unsigned long)fd, npages * PG, 0, 0), 0);
	return fd;
}

/* The page at index of the file at fd, with a reference (put_page), or
 * NULL. */
static struct page *file_page(long fd, unsigned long index)
{
	struct file *f = fget(current->files, (unsigned int)fd);
	if (!f)
		return NULL;
	struct page *page = filemap_get_folio(f->f_mapping, index);
	fput(f);
	return page;
}

static bool direct_map_present(struct page *page)
{
	int level;
	return lookup_kernel_address((unsigned long)page_address(page), &level) != NULL;
}

static void splits_now(unsigned long *n)
{
	direct_map_split_counts(&n[0], &n[1]);
}

static void calls_and_errnos(struct kunit *test)
{
	test_mm_enter_space(test, UBASE, 4);
	unsigned long fds = current->files->open_fds;
	/* Flags: O_CLOEXEC only. */
	KUNIT_EXPECT_EQ(test, sys(__NR_memfd_secret, O_NONBLOCK, 0, 0, 0), -EINVAL);
	KUNIT_EXPECT_EQ(test, sys(__NR_memfd_secret, 1, 0, 0, 0), -EINVAL);
	KUNIT_EXPECT_EQ(test, current->files->open_fds, fds);
	long fd = sys(__NR_memfd_secret, O_CLOEXEC, 0, 0, 0);
	if (fd == -ENOSYS)
		kunit_skip(test, "memfd_secret is off (secretmem.enable=0)");
	KUNIT_ASSERT_GE(test, fd, 0);
	/* No read or write method: -EINVAL; no positioned I/O: -ESPIPE;
	 * no fallocate: -EOPNOTSUPP. */
	KUNIT_EXPECT_EQ(test, sys(__NR_read, (unsigned long)fd, UBASE, 64, 0), -EINVAL);
	KUNIT_EXPECT_EQ(test, sys(__NR_write, (unsigned long)fd, UBASE, 64, 0), -EINVAL);
	KUNIT_EXPECT_EQ(test, sys(__NR_pread64, (unsigned long)fd, UBASE, 64, 0), -ESPIPE);
	KUNIT_EXPECT_EQ(test, sys(__NR_fallocate, (unsigned long)fd, 0, 0, PG), -EOPNOTSUPP);
	/* The size is set once. */
	KUNIT_EXPECT_EQ(test, sys(__NR_ftruncate, (unsigned long)fd, 2 * PG, 0, 0), 0);
	KUNIT_EXPECT_EQ(test, sys(__NR_ftruncate, (unsigned long)fd, 4 * PG, 0, 0), -EINVAL);
	KUNIT_EXPECT_EQ(test, sys(__NR_ftruncate, (unsigned long)fd, 0, 0, 0), -EINVAL);
	/* Shared only; never executable (the mount is noexec). */
	KUNIT_EXPECT_EQ(test, sys_mmap(MBASE, 2 * PG, PROT_READ | PROT_WRITE, MAP_PRIVATE, fd), -EINVAL);
	KUNIT_EXPECT_EQ(test, sys_mmap(MBASE, 2 * PG, PROT_READ | PROT_EXEC, MAP_SHARED, fd), -EPERM);
	KUNIT_ASSERT_EQ(test, sys_mmap(MBASE, 4 * PG, PROT_READ | PROT_WRITE, MAP_SHARED, fd), (long)MBASE);
	struct vm_area_struct *vma = find_vma(current->mm, MBASE);
	KUNIT_ASSERT_NOT_NULL(test, vma);
	KUNIT_EXPECT_TRUE(test, vma_is_secretmem(vma));
	KUNIT_EXPECT_TRUE(test, (vma->vm_flags & (VM_LOCKED | VM_DONTDUMP)) == (VM_LOCKED | VM_DONTDUMP));
	KUNIT_EXPECT_FALSE(test, vma->vm_flags & VM_MAYEXEC);
	/* Nothing is faulted in by the mmap, locked or not (Linux's
	 * populate goes by the flags before the file's method). */
	KUNIT_EXPECT_NULL(test, file_page(fd, 0));
	/* Locked, and it stays so: munlock leaves it (mlock_fixup). */
	KUNIT_EXPECT_EQ(test, sys(__NR_munlock, MBASE, 4 * PG, 0, 0), 0);
	KUNIT_EXPECT_TRUE(test, find_vma(current->mm, MBASE)->vm_flags & VM_LOCKED);
	/* Within the size a write lands; past it, no page (SIGBUS). */
	KUNIT_EXPECT_EQ(test, test_mm_write_u64(current->mm, MBASE + PG, 0x5ec7e7), 0);
	KUNIT_EXPECT_EQ(test, test_mm_read_u64(current->mm, MBASE + PG), 0x5ec7e7ull);
	KUNIT_EXPECT_NE(test, test_mm_write_u64(current->mm, MBASE + 2 * PG, 1), 0);
	KUNIT_EXPECT_NULL(test, file_page(fd, 2));
	KUNIT_EXPECT_EQ(test, sys(__NR_munmap, MBASE, 4 * PG, 0, 0), 0);
	KUNIT_EXPECT_EQ(test, sys(__NR_close, (unsigned long)fd, 0, 0, 0), 0);
	KUNIT_EXPECT_FALSE(test, secretmem_active());
}

/* A secret page is out of the direct map while it is the file's: its
 * entry is not present and a kernel load through it faults; what the
 * process wrote is there through its own mapping. When the file goes the
 * page is back in the direct map, zeroed, before it is freed, and the
 * splits its removal made are folded back. */
static void direct_map_removal(struct kunit *test)
{
	unsigned long before[2], during[2], after[2];
	unsigned long shmem = nr_shmem_pages(), cached = nr_file_pages();
	splits_now(before);
	test_mm_enter_space(test, UBASE, 4);
	long fd = secret_file(test, 1);
	KUNIT_ASSERT_EQ(test, sys_mmap(MBASE, PG, PROT_READ | PROT_WRITE, MAP_SHARED, fd), (long)MBASE);
	KUNIT_ASSERT_EQ(test, test_mm_write_u64(current->mm, MBASE + 8, 0x5ec12e7ull), 0);
	struct page *page = file_page(fd, 0);
	KUNIT_ASSERT_NOT_NULL(test, page);
	u64 v = 0;
	KUNIT_EXPECT_FALSE(test, direct_map_present(page));
	KUNIT_EXPECT_EQ(test, get_kernel_nofault_u64(&v, (char *)page_address(page) + 8), -EFAULT);
	KUNIT_EXPECT_EQ(test, test_mm_read_u64(current->mm, MBASE + 8), 0x5ec12e7ull);
	/* In the page cache (Cached), not Shmem, as Linux counts it. */
	KUNIT_EXPECT_EQ(test, nr_file_pages(), cached + 1);
	KUNIT_EXPECT_EQ(test, nr_shmem_pages(), shmem);
	/* Removing one 4 KiB page split the leaf that mapped it, down to a
	 * PTE: a 2 MiB split at least (and a 1 GiB one above it first when
	 * the direct map is built of those). */
	splits_now(during);
	KUNIT_EXPECT_GT(test, during[0], before[0]);
	KUNIT_EXPECT_GE(test, during[1], before[1]);
	KUNIT_EXPECT_EQ(test, sys(__NR_munmap, MBASE, PG, 0, 0), 0);
	/* Unmapped, still the file's: still out. */
	KUNIT_EXPECT_FALSE(test, direct_map_present(page));
	KUNIT_EXPECT_EQ(test, sys(__NR_close, (unsigned long)fd, 0, 0, 0), 0);
	/* The file's end took it out of the page cache: back in the direct
	 * map, zeroed, and only this case's reference holds it. */
	KUNIT_EXPECT_TRUE(test, direct_map_present(page));
	KUNIT_EXPECT_EQ(test, get_kernel_nofault_u64(&v, (char *)page_address(page) + 8), 0);
	KUNIT_EXPECT_EQ(test, v, 0ull);
	KUNIT_EXPECT_EQ(test, page_ref_count(page), 1);
	KUNIT_EXPECT_EQ(test, nr_file_pages(), cached);
	KUNIT_EXPECT_EQ(test, nr_shmem_pages(), shmem);
	put_page(page);
	/* Freed: still mapped in the direct map (a free page's memory is
	 * the allocator's to touch). */
	KUNIT_EXPECT_EQ(test, get_kernel_nofault_u64(&v, page_address(page)), 0);
	splits_now(after);
	KUNIT_EXPECT_EQ(test, after[0], before[0]);
	KUNIT_EXPECT_EQ(test, after[1], before[1]);
}

/* Every way the kernel would reach the page through the process's
 * mapping refuses: get_user_pages (the locked walk), its lockless walk
 * (falls back, then refused), and a debugger's forced access
 * (access_remote_vm: /proc/<pid>/mem, process_vm_readv). The process's
 * own user copies go through its page tables and work. */
static void gup_refused(struct kunit *test)
{
	test_mm_enter_space(test, UBASE, 4);
	long fd = secret_file(test, 2);
	KUNIT_ASSERT_EQ(test, sys_mmap(MBASE, 2 * PG, PROT_READ | PROT_WRITE, MAP_SHARED, fd), (long)MBASE);
	KUNIT_ASSERT_EQ(test, test_mm_write_u64(current->mm, MBASE, 42), 0);
	struct page *pages[2] = { NULL, NULL };
	/* Fresh (index 1: never touched) and present (index 0). */
	KUNIT_EXPECT_EQ(test, get_user_pages_fast(MBASE + PG, 1, 0, pages), -EFAULT);
	KUNIT_EXPECT_EQ(test, get_user_pages_fast(MBASE, 1, FOLL_WRITE, pages), -EFAULT);
	KUNIT_EXPECT_EQ(test, get_user_pages_fast_only(MBASE, 1, 0, pages), 0);
	mmap_read_lock(current->mm);
	KUNIT_EXPECT_EQ(test, get_user_pages(MBASE, 1, 0, pages), -EFAULT);
	KUNIT_EXPECT_EQ(test, get_user_pages_remote(current->mm, MBASE, 1, FOLL_FORCE, pages), -EFAULT);
	mmap_read_unlock(current->mm);
	KUNIT_EXPECT_NULL(test, pages[0]);
	char buf[16];
	KUNIT_EXPECT_EQ(test, access_remote_vm(current->mm, MBASE, buf, sizeof(buf), FOLL_FORCE), 0);
	/* Its own copies: a write(2) from it reaches a pipe's page. */
	u64 v = 0;
	KUNIT_EXPECT_EQ(test, copy_from_user(&v, (void *)MBASE, sizeof(v)), 0ul);
	KUNIT_EXPECT_EQ(test, v, 42ull);
	/* Nothing was left pinned: the cache's, the mapping's and ours. */
	struct page *page = file_page(fd, 0);
	KUNIT_ASSERT_NOT_NULL(test, page);
	KUNIT_EXPECT_EQ(test, page_ref_count(page), 3);
	put_page(page);
	KUNIT_EXPECT_EQ(test, sys(__NR_munmap, MBASE, 2 * PG, 0, 0), 0);
	KUNIT_EXPECT_EQ(test, sys(__NR_close, (unsigned long)fd, 0, 0, 0), 0);
}

/* Every mapping of the file sees the one page of the page cache. */
static void shared_between_mappings(struct kunit *test)
{
	test_mm_enter_space(test, UBASE, 4);
	long fd = secret_file(test, 1);
	KUNIT_ASSERT_EQ(test, sys_mmap(MBASE, PG, PROT_READ | PROT_WRITE, MAP_SHARED, fd), (long)MBASE);
	KUNIT_ASSERT_EQ(test, sys_mmap(MBASE + 4 * PG, PG, PROT_READ, MAP_SHARED, fd), (long)(MBASE + 4 * PG));
	KUNIT_ASSERT_EQ(test, test_mm_write_u64(current->mm, MBASE, 7), 0);
	KUNIT_EXPECT_EQ(test, test_mm_read_u64(current->mm, MBASE + 4 * PG), 7ull);
	struct page *page = file_page(fd, 0);
	KUNIT_ASSERT_NOT_NULL(test, page);
	KUNIT_EXPECT_EQ(test, page_mapcount(page), 2);
	put_page(page);
	KUNIT_EXPECT_EQ(test, sys(__NR_close, (unsigned long)fd, 0, 0, 0), 0);
	/* The mappings keep the file open (its release is the last fput):
	 * still there. */
	KUNIT_EXPECT_TRUE(test, secretmem_active());
	KUNIT_EXPECT_EQ(test, test_mm_read_u64(current->mm, MBASE), 7ull);
	KUNIT_EXPECT_EQ(test, sys(__NR_munmap, MBASE, 8 * PG, 0, 0), 0);
	KUNIT_EXPECT_FALSE(test, secretmem_active());
}

/* mbind(MPOL_MF_MOVE) to another node leaves a secret page where it
 * is (a_ops->migrate_folio: -EBUSY), without an error (no MPOL_MF_STRICT). */
static void not_migrated(struct kunit *test)
{
	nodemask_t mem = node_states_memory();
	test_mm_enter_space(test, UBASE, 4);
	long fd = secret_file(test, 1);
	KUNIT_ASSERT_EQ(test, sys_mmap(MBASE, PG, PROT_READ | PROT_WRITE, MAP_SHARED, fd), (long)MBASE);
	KUNIT_ASSERT_EQ(test, test_mm_write_u64(current->mm, MBASE, 9), 0);
	struct page *page = file_page(fd, 0);
	KUNIT_ASSERT_NOT_NULL(test, page);
	int nid = page_to_nid(page), other = -1, n;
	for_each_node_mask(n, mem)
		if (n != nid && other < 0)
			other = n;
	put_page(page);
	if (other < 0)
		kunit_skip(test, "one node with memory: nowhere to move to");
	unsigned long nodes = 1ul << other;
	KUNIT_ASSERT_EQ(test, copy_to_user((void *)UBASE, &nodes, sizeof(nodes)), 0ul);
	const unsigned long args[6] = { MBASE, PG, MPOL_BIND, UBASE, MAX_NUMNODES + 1, MPOL_MF_MOVE };
	KUNIT_EXPECT_EQ(test, do_syscall_64(__NR_mbind, args), 0);
	struct page *after = file_page(fd, 0);
	KUNIT_EXPECT_PTR_EQ(test, after, page);
	if (after) {
		KUNIT_EXPECT_EQ(test, page_to_nid(after), nid);
		put_page(after);
	}
	KUNIT_EXPECT_EQ(test, test_mm_read_u64(current->mm, MBASE), 9ull);
	KUNIT_EXPECT_EQ(test, sys(__NR_munmap, MBASE, PG, 0, 0), 0);
	KUNIT_EXPECT_EQ(test, sys(__NR_close, (unsigned long)fd, 0, 0, 0), 0);
}

static struct kunit_case secretmem_cases[] = {
	KUNIT_CASE(calls_and_errnos),
	KUNIT_CASE(direct_map_removal),
	KUNIT_CASE(gup_refused),
	KUNIT_CASE(shared_between_mappings),
	KUNIT_CASE(not_migrated),
	{},
};

static struct kunit_suite secretmem_suite = {
	.name = "secretmem",
	.test_cases = secretmem_cases,
};
kunit_test_suite(secretmem_suite);
