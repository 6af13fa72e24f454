/* memfd_create(2) and fcntl's F_ADD_SEALS / F_GET_SEALS (Linux 6.1's
 * mm/memfd.c): mm/memfd.h has the rules of the seals. A memfd is an
 * unlinked tmpfs file on the internal tmpfs (shmem_file_setup,
 * mm/shmem_file.c), or with MFD_HUGETLB a file on the kernel's hugetlbfs
 * instance of its size (hugetlb_file_setup), named "memfd:<name>", so
 * /proc/<pid>/fd/<n> and /proc/<pid>/maps show "/memfd:<name> (deleted)". */
#include "mm/memfd.h"
#include "arch/x86_64/uaccess.h"
#include "fs/fs.h"
#include "fs/internal.h"
#include "fs/hugetlbfs/hugetlbfs.h"
#include "kernel/sched.h"
#include "kernel/syscall.h"
#include "kernel/unistd.h"
#include "lib/err.h"
#include "lib/string.h"
#include "mm/filemap.h"
#include "mm/huge_memory.h"
#include "mm/mm_types.h"
#include "mm/page_alloc.h"
#include "mm/rmap.h"
#include "mm/shmem.h"
#include "mm/shmem_fs.h"
#include "mm/slab.h"

/* Linux's memfd_file_seals_ptr: tmpfs and hugetlbfs files carry seals. */
static unsigned int *memfd_file_seals_ptr(struct file *file)
{
	return shmem_file(file) || is_file_hugepages(file) ? &file->f_inode->i_seals : NULL;
}

/* Linux's memfd_tag_pins / memfd_wait_for_pins: a page of the file with a
 * reference beyond the page cache's and its mappings' is pinned (by
 * get_user_pages: a write may still come through it), and F_SEAL_WRITE
 * waits for it to go. Linux looks again four times over about 150 ms,
 * sleeping between; mmlab has no timed sleep here and yields the CPU
 * between its five looks instead, then gives -EBUSY. i_rwsem held. */
#define LAST_SCAN 4

static bool memfd_has_pins(struct address_space *mapping)
{
	for (unsigned long index = 0;; index++) {
		index = filemap_next_index(mapping, index, ~0ul, true);
		if (index == ~0ul)
			return false;
		struct page *page = filemap_get_folio(mapping, index);
		if (!page)
			continue; /* gone since (a hole punched by nobody: i_rwsem is held; truncated) */
		/* Ours, the page cache's, one per mapping. */
		struct page *head = compound_head(page);
		long refs = page_ref_count(page), maps = page_mapcount(page), expect = 2;
		if (page_test_flag(head, PG_shmem_thp)) {
			/* A tmpfs huge page, its 512 indices at once (Linux's
			 * memfd_tag_pins: HPAGE_PMD_NR cache references against
			 * page_count - total_mapcount): ours, the cache's 512,
			 * one per PMD and one per PTE of any of its pages. */
			refs = page_ref_count(head);
			maps = __atomic_load_n(shmem_thp_pmd_mapcount_ptr(head), __ATOMIC_RELAXED);
			for (unsigned long i = 0; i < HPAGE_PMD_NR; i++)
				maps += page_mapcount_own(head + i);
			expect = 1 + (long)HPAGE_PMD_NR;
			index = head->index + HPAGE_PMD_NR - 1;
		}
		bool pinned = refs - maps != expect;
		put_page(page);
		if (pinned)
			return true;
	}
}

static int memfd_wait_for_pins(struct address_space *mapping)
{
	for (int scan = 0; scan <= LAST_SCAN; scan++) {
		if (!memfd_has_pins(mapping))
			return 0;
		cond_resched();
	}
	return -EBUSY;
}

/* Linux's memfd_add_seals, in its order of checks. */
static int memfd_add_seals(struct file *file, unsigned int seals)
{
	if (!(file->f_mode & FMODE_WRITE))
		return -EPERM;
	if (seals & ~(unsigned int)F_ALL_SEALS)
		return -EINVAL;
	struct inode *inode = file->f_inode;
	down_write(&inode->i_rwsem);
	unsigned int *file_seals = memfd_file_seals_ptr(file);
	int error = 0;
	if (!file_seals) {
		error = -EINVAL;
	} else if (*file_seals & F_SEAL_SEAL) {
		error = -EPERM;
	} else {
		/* A shared writable mapping stays writable whatever the seal
		 * says, so there may be none when F_SEAL_WRITE comes, and none
		 * may be made after (fs/fs.h's i_mmap_writable below 0). */
		if ((seals & F_SEAL_WRITE) && !(*file_seals & F_SEAL_WRITE)) {
			error = mapping_deny_writable(file->f_mapping);
			if (!error) {
				error = memfd_wait_for_pins(file->f_mapping);
				if (error)
					mapping_allow_writable(file->f_mapping);
			}
		}
		if (!error)
			*file_seals |= seals;
	}
	up_write(&inode->i_rwsem);
	return error;
}

static int memfd_get_seals(struct file *file)
{
	unsigned int *seals = memfd_file_seals_ptr(file);
	return seals ? (int)*seals : -EINVAL;
}

long memfd_fcntl(struct file *file, unsigned int cmd, unsigned long arg)
{
	switch (cmd) {
	case F_ADD_SEALS:
		if (arg > 0xffffffffu) /* the upper 32 bits are refused */
			return -EINVAL;
		return memfd_add_seals(file, (unsigned int)arg);
	case F_GET_SEALS:
		return memfd_get_seals(file);
	default:
		return -EINVAL;
	}
}

#define MFD_NAME_PREFIX "memfd:"
#define MFD_NAME_PREFIX_LEN (sizeof(MFD_NAME_PREFIX) - 1)
#define MFD_NAME_MAX_LEN (NAME_MAX - MFD_NAME_PREFIX_LEN) /* 249 */
#define MFD_ALL_FLAGS (MFD_CLOEXEC | MFD_ALLOW_SEALING | MFD_HUGETLB)

SYSCALL_DEFINE2(memfd_create, const char __user *, uname, unsigned int, flags)
{
	if (!(flags & MFD_HUGETLB)) {
		if (flags & ~MFD_ALL_FLAGS)
			return -EINVAL;
	} else if (flags & ~(MFD_ALL_FLAGS | (MFD_HUGE_MASK << MFD_HUGE_SHIFT))) {
		return -EINVAL; /* the size bits only with MFD_HUGETLB */
	}
	char *name = kmalloc(MFD_NAME_PREFIX_LEN + MFD_NAME_MAX_LEN + 1, GFP_KERNEL);
	if (!name)
		return -ENOMEM;
	/* Linux's strnlen_user(uname, MFD_NAME_MAX_LEN + 1): a fault before
	 * the NUL is -EFAULT, no NUL in 250 bytes -EINVAL. */
	memcpy(name, MFD_NAME_PREFIX, MFD_NAME_PREFIX_LEN);
	long len = strncpy_from_user(name + MFD_NAME_PREFIX_LEN, uname, MFD_NAME_MAX_LEN + 1);
	long ret = len < 0 ? -EFAULT : len > (long)MFD_NAME_MAX_LEN ? -EINVAL : 0;
	if (ret)
		goto out;
	name[MFD_NAME_PREFIX_LEN + len] = 0;
	struct files_struct *files = current->files;
	int fd = alloc_fd(files);
	if (fd < 0) {
		ret = fd;
		goto out;
	}
	/* MFD_HUGETLB: a file on the kernel's hugetlbfs instance of the size
	 * (-ENODEV for a size with no pool), reserving nothing: its pages
	 * are reserved when it is mapped, as Linux's. */
	struct file *file = flags & MFD_HUGETLB ? hugetlb_file_setup(name, 0, VM_NORESERVE, HUGETLB_ANONHUGE_INODE,
								       (int)((flags >> MFD_HUGE_SHIFT) & MFD_HUGE_MASK))
					       : shmem_file_setup(name, 0);
	if (IS_ERR(file)) {
		put_unused_fd(files, fd);
		ret = PTR_ERR(file);
		goto out;
	}
	if (flags & MFD_ALLOW_SEALING)
		*memfd_file_seals_ptr(file) &= ~(unsigned int)F_SEAL_SEAL;
	set_close_on_exec(files, fd, flags & MFD_CLOEXEC);
	fd_install(files, fd, file);
	ret = fd;
out:
	kfree(name);
	return ret;
}
