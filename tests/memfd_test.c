/* memfd_create and the seals (mm/memfd.c), the count of shared writable
 * mappings each file keeps (fs/fs.h's i_mmap_writable, mm/vma.c), and
 * /dev/zero's mappings (drivers/char/mem.c, mm/shmem_file.c), through the
 * system calls (do_syscall_64) on a test mm with a file table of its own.
 *
 * What the count must be is read from the kernel: the file's
 * address_space after each mmap, split, mremap, fork (dup_mm), munmap and
 * seal. Every case checks that its memfds leave nothing behind: the
 * inodes of the internal tmpfs, the dentries, the shmem pages (and,
 * through the mm fixture, free pages and slab objects). */
#include "tests/kunit.h"
#include "tests/test_mm.h"
#include "arch/x86_64/uaccess.h"
#include "fs/dcache.h"
#include "fs/fdtable.h"
#include "fs/fs.h"
#include "kernel/sched.h"
#include "kernel/syscall.h"
#include "kernel/unistd.h"
#include "lib/string.h"
#include "mm/gup.h"
#include "mm/memfd.h"
#include "mm/mmap_lock.h"
#include "mm/mmu_context.h"
#include "mm/mremap.h"
#include "mm/page_alloc.h"
#include "mm/shmem.h"
#include "mm/shmem_fs.h"
#include "mm/vma.h"

#define UBASE 0x0000300000000000ul /* 16 pages: names and buffers */
#define MBASE 0x0000310000000000ul /* where the cases map (MAP_FIXED) */
#define PG PAGE_SIZE

static long sys(unsigned long nr, unsigned long a0, unsigned long a1, unsigned long a2)
{
	const unsigned long args[6] = { a0, a1, a2, 0, 0, 0 };
	return do_syscall_64(nr, args);
}

static long sys_mmap(unsigned long addr, unsigned long len, unsigned long prot, unsigned long flags, long fd)
{
	const unsigned long args[6] = { addr, len, prot, flags | (addr ? MAP_FIXED : 0), (unsigned long)fd, 0 };
	return do_syscall_64(__NR_mmap, args);
}

struct memfd_counts {
	long inodes, dentries;
	unsigned long shmem_pages;
};

static void memfd_counts_now(struct memfd_counts *c)
{
	c->inodes = __atomic_load_n(&shmem_internal_sb()->s_inodes, __ATOMIC_RELAXED);
	c->dentries = nr_dentries();
	c->shmem_pages = nr_shmem_pages();
}

static void expect_memfd_counts_back(struct kunit *test, const struct memfd_counts *before)
{
	struct memfd_counts after;
	memfd_counts_now(&after);
	KUNIT_EXPECT_EQ(test, after.inodes, before->inodes);
	KUNIT_EXPECT_EQ(test, after.dentries, before->dentries);
	KUNIT_EXPECT_EQ(test, after.shmem_pages, before->shmem_pages);
}

/* A memfd named name (written at UBASE), made with flags. */
static long make_memfd(struct kunit *test, const char *name, unsigned int flags)
{
	KUNIT_ASSERT_EQ(test, copy_to_user((void *)UBASE, name, strlen(name) + 1), 0);
	return sys(__NR_memfd_create, UBASE, flags, 0);
}

/* The count of the file at fd (held for the read). */
static int writable_count(long fd)
{
	struct file *f = fget(current->files, (unsigned int)fd);
	if (!f)
		return -1000;
	int n = __atomic_load_n(&f->f_mapping->i_mmap_writable, __ATOMIC_RELAXED);
	fput(f);
	return n;
}

static void create_errors(struct kunit *test)
{
	struct memfd_counts before;
	memfd_counts_now(&before);
	test_mm_enter_space(test, UBASE, 16);
	unsigned long fds = current->files->open_fds;
	KUNIT_EXPECT_EQ(test, make_memfd(test, "x", 0x100), -EINVAL);
	KUNIT_EXPECT_EQ(test, make_memfd(test, "x", 21u << MFD_HUGE_SHIFT), -EINVAL);
	KUNIT_EXPECT_EQ(test, sys(__NR_memfd_create, 0x1000, 0, 0), -EFAULT);
	/* A name of 249 bytes is taken, 250 are not; one that runs into an
	 * unmapped page before its NUL is -EFAULT. */
	char name[251];
	memset(name, 'n', 250);
	name[250] = 0;
	KUNIT_EXPECT_EQ(test, make_memfd(test, name, 0), -EINVAL);
	name[249] = 0;
	long fd = make_memfd(test, name, 0);
	KUNIT_EXPECT_GE(test, fd, 0);
	KUNIT_EXPECT_EQ(test, sys(__NR_close, fd, 0, 0), 0);
	unsigned long end = UBASE + 16 * PG - 10;
	KUNIT_ASSERT_EQ(test, copy_to_user((void *)end, name, 10), 0);
	KUNIT_EXPECT_EQ(test, sys(__NR_memfd_create, end, 0, 0), -EFAULT);
	/* No hstate of 1 MiB (tests/hugetlbfs_test.c has the 2 MiB one's). */
	KUNIT_EXPECT_EQ(test, make_memfd(test, "h", MFD_HUGETLB | (20u << MFD_HUGE_SHIFT)), -ENODEV);
	/* Nothing is left behind by a refused call: no fd taken. */
	KUNIT_EXPECT_EQ(test, current->files->open_fds, fds);
	expect_memfd_counts_back(test, &before);
}

static void seals_and_errnos(struct kunit *test)
{
	struct memfd_counts before;
	memfd_counts_now(&before);
	test_mm_enter_space(test, UBASE, 16);
	long plain = make_memfd(test, "plain", 0), fd = make_memfd(test, "sealable", MFD_ALLOW_SEALING);
	KUNIT_ASSERT_GE(test, plain, 0);
	KUNIT_ASSERT_GE(test, fd, 0);
	KUNIT_EXPECT_EQ(test, sys(__NR_fcntl, plain, F_GET_SEALS, 0), F_SEAL_SEAL);
	KUNIT_EXPECT_EQ(test, sys(__NR_fcntl, plain, F_ADD_SEALS, F_SEAL_GROW), -EPERM);
	KUNIT_EXPECT_EQ(test, sys(__NR_fcntl, fd, F_GET_SEALS, 0), 0);
	KUNIT_EXPECT_EQ(test, sys(__NR_fcntl, fd, F_ADD_SEALS, 0x20), -EINVAL);
	KUNIT_EXPECT_EQ(test, sys(__NR_fcntl, fd, F_ADD_SEALS, 1ul << 32), -EINVAL);
	KUNIT_EXPECT_EQ(test, sys(__NR_ftruncate, fd, 2 * PG, 0), 0);
	KUNIT_EXPECT_EQ(test, sys(__NR_fcntl, fd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW), 0);
	KUNIT_EXPECT_EQ(test, sys(__NR_ftruncate, fd, PG, 0), -EPERM);
	KUNIT_EXPECT_EQ(test, sys(__NR_ftruncate, fd, 3 * PG, 0), -EPERM);
	const unsigned long past[6] = { (unsigned long)fd, UBASE, 8, 2 * PG, 0, 0 };
	KUNIT_EXPECT_EQ(test, do_syscall_64(__NR_pwrite64, past), -EPERM);
	const unsigned long inside[6] = { (unsigned long)fd, UBASE, 8, PG, 0, 0 };
	KUNIT_EXPECT_EQ(test, do_syscall_64(__NR_pwrite64, inside), 8);
	const unsigned long grow[6] = { (unsigned long)fd, FALLOC_FL_KEEP_SIZE, PG, 2 * PG, 0, 0 };
	KUNIT_EXPECT_EQ(test, do_syscall_64(__NR_fallocate, grow), -EPERM);
	KUNIT_EXPECT_EQ(test, sys(__NR_fcntl, fd, F_ADD_SEALS, F_SEAL_WRITE), 0);
	KUNIT_EXPECT_EQ(test, writable_count(fd), -1);
	KUNIT_EXPECT_EQ(test, do_syscall_64(__NR_pwrite64, inside), -EPERM);
	const unsigned long punch[6] = { (unsigned long)fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, 0, PG, 0, 0 };
	KUNIT_EXPECT_EQ(test, do_syscall_64(__NR_fallocate, punch), -EPERM);
	/* A second F_SEAL_WRITE denies nothing more. */
	KUNIT_EXPECT_EQ(test, sys(__NR_fcntl, fd, F_ADD_SEALS, F_SEAL_WRITE | F_SEAL_SEAL), 0);
	KUNIT_EXPECT_EQ(test, writable_count(fd), -1);
	KUNIT_EXPECT_EQ(test, sys(__NR_fcntl, fd, F_GET_SEALS, 0),
			F_SEAL_SEAL | F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_WRITE);
	KUNIT_EXPECT_EQ(test, sys(__NR_fcntl, fd, F_ADD_SEALS, 0), -EPERM);
	/* Files that take no seals: /dev/null, open for writing or not. */
	KUNIT_ASSERT_EQ(test, copy_to_user((void *)UBASE, "/dev/null", 10), 0);
	long rw = sys(__NR_open, UBASE, O_RDWR, 0), ro = sys(__NR_open, UBASE, O_RDONLY, 0);
	KUNIT_ASSERT_GE(test, rw, 0);
	KUNIT_ASSERT_GE(test, ro, 0);
	KUNIT_EXPECT_EQ(test, sys(__NR_fcntl, rw, F_ADD_SEALS, F_SEAL_WRITE), -EINVAL);
	KUNIT_EXPECT_EQ(test, sys(__NR_fcntl, rw, F_GET_SEALS, 0), -EINVAL);
	KUNIT_EXPECT_EQ(test, sys(__NR_fcntl, ro, F_ADD_SEALS, F_SEAL_WRITE), -EPERM);
	for (long i = 3; i <= ro; i++)
		KUNIT_EXPECT_EQ(test, sys(__NR_close, i, 0, 0), 0);
	expect_memfd_counts_back(test, &before);
}

/* The count follows every VMA that maps the file shared and may write:
 * made by mmap, split by mprotect, moved by mremap, copied by fork, gone
 * with munmap and the child's mm. */
static void writable_mapping_count(struct kunit *test)
{
	struct memfd_counts before;
	memfd_counts_now(&before);
	test_mm_enter_space(test, UBASE, 16);
	struct mm_struct *mm = current->mm;
	long fd = make_memfd(test, "count", MFD_ALLOW_SEALING);
	KUNIT_ASSERT_GE(test, fd, 0);
	KUNIT_ASSERT_EQ(test, sys(__NR_ftruncate, fd, 4 * PG, 0), 0);
	KUNIT_EXPECT_EQ(test, sys_mmap(MBASE, 3 * PG, PROT_READ | PROT_WRITE, MAP_SHARED, fd), (long)MBASE);
	KUNIT_EXPECT_EQ(test, writable_count(fd), 1);
	/* Read-only, but it may become writable again: counted. */
	KUNIT_EXPECT_EQ(test, sys_mmap(MBASE + 8 * PG, PG, PROT_READ, MAP_SHARED, fd), (long)(MBASE + 8 * PG));
	KUNIT_EXPECT_EQ(test, writable_count(fd), 2);
	/* Private: not counted. */
	KUNIT_EXPECT_EQ(test, sys_mmap(MBASE + 10 * PG, PG, PROT_READ | PROT_WRITE, MAP_PRIVATE, fd),
			(long)(MBASE + 10 * PG));
	KUNIT_EXPECT_EQ(test, writable_count(fd), 2);
	KUNIT_EXPECT_EQ(test, sys(__NR_mprotect, MBASE + PG, PG, PROT_READ), 0); /* three VMAs */
	KUNIT_EXPECT_EQ(test, writable_count(fd), 4);
	const unsigned long move[6] = { MBASE + 8 * PG, PG, PG, MREMAP_MAYMOVE | MREMAP_FIXED, MBASE + 20 * PG, 0 };
	KUNIT_EXPECT_EQ(test, do_syscall_64(__NR_mremap, move), (long)(MBASE + 20 * PG));
	KUNIT_EXPECT_EQ(test, writable_count(fd), 4);
	KUNIT_EXPECT_EQ(test, sys(__NR_fcntl, fd, F_ADD_SEALS, F_SEAL_WRITE), -EBUSY);
	/* fork's copy counts its VMAs until its mm goes. */
	struct mm_struct *child;
	KUNIT_ASSERT_EQ(test, dup_mm(mm, &child), 0);
	KUNIT_EXPECT_EQ(test, writable_count(fd), 8);
	mmput(child);
	KUNIT_EXPECT_EQ(test, writable_count(fd), 4);
	KUNIT_EXPECT_EQ(test, sys(__NR_munmap, MBASE, 3 * PG, 0), 0);
	KUNIT_EXPECT_EQ(test, writable_count(fd), 1);
	KUNIT_EXPECT_EQ(test, sys(__NR_munmap, MBASE + 20 * PG, PG, 0), 0);
	KUNIT_EXPECT_EQ(test, writable_count(fd), 0);
	/* Sealed: no shared writable mapping; a read-only one cannot become
	 * one; none is counted, and the denial stays. */
	KUNIT_EXPECT_EQ(test, sys(__NR_fcntl, fd, F_ADD_SEALS, F_SEAL_WRITE), 0);
	KUNIT_EXPECT_EQ(test, sys_mmap(MBASE, PG, PROT_READ | PROT_WRITE, MAP_SHARED, fd), -EPERM);
	KUNIT_EXPECT_EQ(test, sys_mmap(MBASE, PG, PROT_READ, MAP_SHARED, fd), (long)MBASE);
	KUNIT_EXPECT_EQ(test, sys(__NR_mprotect, MBASE, PG, PROT_READ | PROT_WRITE), -EACCES);
	KUNIT_EXPECT_EQ(test, writable_count(fd), -1);
	KUNIT_EXPECT_EQ(test, sys(__NR_munmap, MBASE, PG, 0), 0);
	KUNIT_EXPECT_EQ(test, writable_count(fd), -1);
	KUNIT_EXPECT_EQ(test, sys(__NR_close, fd, 0, 0), 0);
	KUNIT_EXPECT_EQ(test, sys(__NR_munmap, MBASE + 10 * PG, PG, 0), 0);
	expect_memfd_counts_back(test, &before);
}

/* F_SEAL_FUTURE_WRITE leaves the writable mapping made before it (and
 * its count); a pinned page holds F_SEAL_WRITE off until it is put. */
static void future_write_and_pins(struct kunit *test)
{
	struct memfd_counts before;
	memfd_counts_now(&before);
	test_mm_enter_space(test, UBASE, 16);
	long fd = make_memfd(test, "future", MFD_ALLOW_SEALING);
	KUNIT_ASSERT_GE(test, fd, 0);
	KUNIT_ASSERT_EQ(test, sys(__NR_ftruncate, fd, PG, 0), 0);
	KUNIT_EXPECT_EQ(test, sys_mmap(MBASE, PG, PROT_READ | PROT_WRITE, MAP_SHARED, fd), (long)MBASE);
	KUNIT_EXPECT_EQ(test, sys(__NR_fcntl, fd, F_ADD_SEALS, F_SEAL_FUTURE_WRITE), 0);
	KUNIT_EXPECT_EQ(test, copy_to_user((void *)MBASE, "W", 1), 0);
	KUNIT_EXPECT_EQ(test, sys(__NR_write, fd, MBASE, 1), -EPERM);
	KUNIT_EXPECT_EQ(test, sys_mmap(MBASE + PG, PG, PROT_READ | PROT_WRITE, MAP_SHARED, fd), -EPERM);
	KUNIT_EXPECT_EQ(test, sys_mmap(MBASE + PG, PG, PROT_READ, MAP_SHARED, fd), (long)(MBASE + PG));
	KUNIT_EXPECT_EQ(test, sys(__NR_mprotect, MBASE + PG, PG, PROT_READ | PROT_WRITE), -EACCES);
	KUNIT_EXPECT_EQ(test, writable_count(fd), 1);
	KUNIT_EXPECT_EQ(test, sys(__NR_fcntl, fd, F_ADD_SEALS, F_SEAL_WRITE), -EBUSY);
	/* A pin on the page, then no mapping may write: still busy. */
	struct page *page = NULL;
	mmap_read_lock(current->mm);
	long got = get_user_pages(MBASE, 1, FOLL_GET, &page);
	mmap_read_unlock(current->mm);
	KUNIT_ASSERT_EQ(test, got, 1);
	KUNIT_EXPECT_EQ(test, sys(__NR_munmap, MBASE, PG, 0), 0);
	KUNIT_EXPECT_EQ(test, writable_count(fd), 0);
	KUNIT_EXPECT_EQ(test, sys(__NR_fcntl, fd, F_ADD_SEALS, F_SEAL_WRITE), -EBUSY);
	KUNIT_EXPECT_EQ(test, writable_count(fd), 0); /* the denial was taken back */
	put_page(page);
	KUNIT_EXPECT_EQ(test, sys(__NR_fcntl, fd, F_ADD_SEALS, F_SEAL_WRITE), 0);
	KUNIT_EXPECT_EQ(test, sys(__NR_close, fd, 0, 0), 0);
	/* The read-only mapping outlives the descriptor, and holds the file. */
	KUNIT_EXPECT_EQ(test, __atomic_load_n(&shmem_internal_sb()->s_inodes, __ATOMIC_RELAXED), before.inodes + 1);
	KUNIT_EXPECT_EQ(test, sys(__NR_munmap, MBASE + PG, PG, 0), 0);
	expect_memfd_counts_back(test, &before);
}

/* /proc/self/fd/N and /proc/self/maps name the memfd; /dev/zero's shared
 * mapping is shmem memory without a file, its private one anonymous. */
static void names_and_dev_zero(struct kunit *test)
{
	struct memfd_counts before;
	memfd_counts_now(&before);
	test_mm_enter_space(test, UBASE, 16);
	long fd = make_memfd(test, "named", 0);
	KUNIT_ASSERT_GE(test, fd, 0);
	char path[32], got[64] = { 0 };
	int n = snprintf(path, sizeof(path), "/proc/self/fd/%ld", fd);
	KUNIT_ASSERT_EQ(test, copy_to_user((void *)UBASE, path, (size_t)n + 1), 0);
	long len = sys(__NR_readlink, UBASE, UBASE + PG, sizeof(got) - 1);
	KUNIT_ASSERT_GT(test, len, 0);
	KUNIT_ASSERT_EQ(test, copy_from_user(got, (void *)(UBASE + PG), (size_t)len), 0);
	KUNIT_EXPECT_STREQ(test, got, "/memfd:named (deleted)");
	KUNIT_EXPECT_EQ(test, sys(__NR_close, fd, 0, 0), 0);
	KUNIT_ASSERT_EQ(test, copy_to_user((void *)UBASE, "/dev/zero", 10), 0);
	long zero = sys(__NR_open, UBASE, O_RDWR, 0);
	KUNIT_ASSERT_GE(test, zero, 0);
	KUNIT_EXPECT_EQ(test, sys_mmap(MBASE, 2 * PG, PROT_READ | PROT_WRITE, MAP_SHARED, zero), (long)MBASE);
	KUNIT_EXPECT_EQ(test, sys_mmap(MBASE + 4 * PG, PG, PROT_READ | PROT_WRITE, MAP_PRIVATE, zero),
			(long)(MBASE + 4 * PG));
	KUNIT_EXPECT_EQ(test, sys(__NR_close, zero, 0, 0), 0);
	struct vm_area_struct *s = find_vma(current->mm, MBASE), *p = find_vma(current->mm, MBASE + 4 * PG);
	KUNIT_ASSERT_NOT_NULL(test, s);
	KUNIT_ASSERT_NOT_NULL(test, p);
	KUNIT_EXPECT_NOT_NULL(test, s->vm_shm);
	KUNIT_EXPECT_NULL(test, s->vm_file);
	KUNIT_EXPECT_NULL(test, p->vm_shm);
	KUNIT_EXPECT_NULL(test, p->vm_file);
	/* The shared one's pages are shmem pages. */
	unsigned long shmem = nr_shmem_pages();
	KUNIT_EXPECT_EQ(test, copy_to_user((void *)MBASE, "S", 1), 0);
	KUNIT_EXPECT_EQ(test, nr_shmem_pages(), shmem + 1);
	KUNIT_EXPECT_EQ(test, sys(__NR_munmap, MBASE, 5 * PG, 0), 0);
	expect_memfd_counts_back(test, &before);
}

static struct kunit_case memfd_cases[] = {
	KUNIT_CASE(create_errors),
	KUNIT_CASE(seals_and_errnos),
	KUNIT_CASE(writable_mapping_count),
	KUNIT_CASE(future_write_and_pins),
	KUNIT_CASE(names_and_dev_zero),
	{},
};

static struct kunit_suite memfd_suite = {
	.name = "memfd",
	.test_cases = memfd_cases,
};
kunit_test_suite(memfd_suite);
