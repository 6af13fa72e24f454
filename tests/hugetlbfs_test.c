/* hugetlbfs (fs/hugetlbfs/): mount options and their errnos, statfs and
 * /proc/mounts; a file mapped shared by two mms is one page; truncate
 * unmaps it from both and gives it back; reservations are the file's,
 * counted once however many mappings cover an offset, and given back by
 * truncate, a punched hole and the file's end; a private mapping copies
 * the file's page at its first write; read(2), fallocate, write's -EINVAL;
 * MFD_HUGETLB and MAP_SHARED|MAP_HUGETLB files on the kernel's instance.
 *
 * Each case sets the 2 MiB pool to the few pages it needs (the pool the
 * machine had is made again after it) and checks that every page and
 * reservation comes back to the pool, and every free page, slab object and
 * page-table page to the machine, however it ends (the mounts are
 * detached and the directories removed by a deferred action). */
#include "tests/kunit.h"
#include "tests/test_hugetlb.h"
#include "tests/test_mm.h"
#include "arch/x86_64/uaccess.h"
#include "fs/dcache.h"
#include "fs/fs.h"
#include "fs/hugetlbfs/hugetlbfs.h"
#include "fs/init.h"
#include "fs/mount.h"
#include "fs/proc/proc_fs.h"
#include "ipc/shm.h"
#include "kernel/rcu.h"
#include "kernel/sched.h"
#include "kernel/unistd.h"
#include "lib/err.h"
#include "lib/string.h"
#include "lib/vsprintf.h"
#include "mm/filemap.h"
#include "mm/hugetlb.h"
#include "mm/hugetlb_vma.h"
#include "mm/memfd.h"
#include "mm/mempolicy.h"
#include "mm/mmap.h"
#include "mm/mmu_context.h"
#include "mm/page.h"
#include "mm/page_alloc.h"
#include "mm/pgtable.h"
#include "mm/rmap.h"
#include "mm/slab.h"
#include "mm/util.h"

#define DIR "/tmp/hugetlbfs_test"
#define SZ2M (2ul << 20)
#define RW (PROT_READ | PROT_WRITE)

/* The case's mount point, detached (if still mounted) and removed
 * however the case ends. */
struct scratch {
	bool mounted;
	struct hstate *h;
	struct kunit_resources before;
};

static void scratch_release(void *arg)
{
	struct scratch *s = arg;
	if (s->mounted)
		do_umount_path(DIR, MNT_DETACH);
	init_rmdir(DIR); /* -ENOENT when scratch_end removed it */
	/* A case that ended early leaves its pool: what is free of it goes
	 * (nothing after scratch_end). */
	if (s->h) {
		set_max_huge_pages(s->h, 0, NUMA_NO_NODE);
		s->h->nr_overcommit_huge_pages = 0;
	}
	kfree(s);
}

/* The pool of h set to pages pages (after the snapshot of what the
 * machine has), and DIR made. */
static struct scratch *scratch_begin_h(struct kunit *test, struct hstate *h, unsigned long pages)
{
	test_hugetlb_empty_pool(test, h);
	struct scratch *s = kzalloc(sizeof(*s), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, s);
	s->h = h;
	kunit_resources_take(&s->before);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, scratch_release, s), 0);
	KUNIT_ASSERT_EQ(test, init_mkdir(DIR, 0755), 0);
	test_hugetlb_set_pool(test, h, pages);
	return s;
}

static struct scratch *scratch_begin(struct kunit *test, unsigned long pages)
{
	return scratch_begin_h(test, &hstates[HSTATE_2M], pages);
}

static int mount_hugetlbfs(struct scratch *s, const char *opts)
{
	char buf[160];
	if (opts)
		strlcpy(buf, opts, sizeof(buf));
	int err = do_mount("none", DIR, "hugetlbfs", 0, opts ? buf : NULL);
	if (!err)
		s->mounted = true;
	return err;
}

static void scratch_end(struct kunit *test, struct scratch *s)
{
	if (s->mounted) {
		KUNIT_EXPECT_EQ(test, do_umount_path(DIR, 0), 0);
		s->mounted = false;
	}
	KUNIT_EXPECT_EQ(test, init_rmdir(DIR), 0);
	test_hugetlb_expect_pool_back(test, s->h);
	rcu_barrier();
	kunit_expect_resources_back(test, &s->before);
}

/* The instance mounted with opts and its file "f" made and opened
 * read-write (ASSERTs both). */
static struct file *mount_and_create(struct kunit *test, struct scratch *s, const char *opts)
{
	KUNIT_ASSERT_EQ(test, mount_hugetlbfs(s, opts), 0);
	struct file *f = filp_open(DIR "/f", O_CREAT | O_RDWR, 0600);
	KUNIT_ASSERT_FALSE(test, IS_ERR(f));
	return f;
}

/* "f" closed and unlinked: its last reference, so its pages go. */
static void close_and_unlink(struct kunit *test, struct file *f)
{
	KUNIT_EXPECT_EQ(test, filp_close(f), 0);
	KUNIT_EXPECT_EQ(test, init_unlink(DIR "/f"), 0);
}

static long ftruncate_file(struct file *f, long size)
{
	struct iattr attr = { .ia_valid = ATTR_SIZE, .ia_size = size };
	return notify_change(f->f_path.dentry, &attr);
}

static u64 entry_at(struct mm_struct *mm, unsigned long addr)
{
	pmd_t *pmd = mm_find_pmd(mm, addr);
	return pmd ? pmd_val(pmdp_get(pmd)) : 0;
}

/* What /proc/mounts says of DIR's line, from its type on, into buf. */
static void mounts_line(struct kunit *test, char *buf, size_t size)
{
	char *text;
	size_t len;
	KUNIT_ASSERT_EQ(test, procfs_generate("/proc/mounts", current, &text, &len), 0);
	buf[0] = 0;
	char *line = strstr(text, " " DIR " ");
	if (line) {
		line += strlen(" " DIR " ");
		size_t n = 0;
		while (line + n < text + len && line[n] != '\n' && n + 1 < size)
			n++;
		memcpy(buf, line, n);
		buf[n] = 0;
	}
	kvfree(text);
}

static void options_statfs_and_errnos(struct kunit *test)
{
	struct scratch *s = scratch_begin(test, 2);
	struct hstate *h = &hstates[HSTATE_2M];
	/* What Linux refuses: an unknown option, a bare key, a size with no
	 * digit first, a mode not in octal, a page size with no pool,
	 * min_size= above size=; min_size= past the pool is -ENOMEM. */
	static const char *const bad[] = { "bogus=1", "size", "size=M", "nr_inodes=k", "mode=9", "uid=x",
					   "pagesize=4M", "pagesize=3M", "size=2M,min_size=4M" };
	for (size_t i = 0; i < ARRAY_SIZE(bad); i++)
		KUNIT_EXPECT_EQ(test, mount_hugetlbfs(s, bad[i]), -EINVAL);
	KUNIT_EXPECT_EQ(test, mount_hugetlbfs(s, "min_size=6M"), -ENOMEM);
	KUNIT_EXPECT_EQ(test, h->resv_huge_pages, 0ul);
	/* min_size= reserves its pages for the instance at mount. */
	KUNIT_ASSERT_EQ(test, mount_hugetlbfs(s, "pagesize=2M,size=4M,min_size=2M,nr_inodes=3,mode=1770,uid=3,gid=4"), 0);
	KUNIT_EXPECT_EQ(test, h->resv_huge_pages, 1ul);
	char line[160];
	mounts_line(test, line, sizeof(line));
	KUNIT_EXPECT_STREQ(test, line,
			   "hugetlbfs rw,relatime,uid=3,gid=4,mode=1770,nr_inodes=3,pagesize=2M,size=4194304,min_size=2097152 0 0");
	struct file *f = filp_open(DIR "/f", O_CREAT | O_RDWR, 0600);
	KUNIT_ASSERT_FALSE(test, IS_ERR(f));
	struct kstatfs st;
	KUNIT_EXPECT_EQ(test, vfs_statfs(&f->f_path, &st), 0);
	KUNIT_EXPECT_EQ(test, st.f_type, (long)HUGETLBFS_MAGIC);
	KUNIT_EXPECT_EQ(test, st.f_bsize, (long)SZ2M);
	KUNIT_EXPECT_EQ(test, st.f_blocks, 2ul);
	KUNIT_EXPECT_EQ(test, st.f_bfree, 2ul);
	KUNIT_EXPECT_EQ(test, st.f_files, 3ul);
	KUNIT_EXPECT_EQ(test, st.f_ffree, 1ul); /* the root and f */
	KUNIT_EXPECT_EQ(test, f->f_inode->i_mode, (umode_t)(S_IFREG | 0600));
	/* nr_inodes=3: one more name, then -ENOSPC. */
	KUNIT_EXPECT_EQ(test, init_mkdir(DIR "/d", 0700), 0);
	KUNIT_EXPECT_EQ(test, init_mkdir(DIR "/e", 0700), -ENOSPC);
	/* A page made counts in the subpool (f_bfree); size= stops the third. */
	KUNIT_EXPECT_EQ(test, vfs_fallocate(f, 0, 0, 2 * SZ2M), 0);
	KUNIT_EXPECT_EQ(test, vfs_statfs(&f->f_path, &st), 0);
	KUNIT_EXPECT_EQ(test, st.f_bfree, 0ul);
	KUNIT_EXPECT_EQ(test, f->f_inode->i_size, (long)(2 * SZ2M));
	KUNIT_EXPECT_EQ(test, f->f_inode->i_blocks, 2 * SZ2M / 512);
	KUNIT_EXPECT_EQ(test, h->free_huge_pages, 0ul);
	KUNIT_EXPECT_EQ(test, h->resv_huge_pages, 0ul); /* min_size='s consumed by the first */
	KUNIT_EXPECT_EQ(test, vfs_fallocate(f, FALLOC_FL_KEEP_SIZE, 2 * SZ2M, SZ2M), -ENOSPC);
	/* write(2) is -EINVAL; a size not in whole huge pages too. */
	long long pos = 0;
	KUNIT_EXPECT_EQ(test, kernel_write(f, "x", 1, &pos), -EINVAL);
	KUNIT_EXPECT_EQ(test, ftruncate_file(f, SZ2M + 4096), -EINVAL);
	/* Truncate to one page: the other goes back; the subpool still uses
	 * min_size='s one page, so no reservation comes back yet. */
	KUNIT_EXPECT_EQ(test, ftruncate_file(f, SZ2M), 0);
	KUNIT_EXPECT_EQ(test, h->free_huge_pages, 1ul);
	KUNIT_EXPECT_EQ(test, h->resv_huge_pages, 0ul);
	KUNIT_EXPECT_EQ(test, filp_close(f), 0);
	/* The file's last page goes with its name: the subpool is below
	 * min_size= again, so its reservation comes back. */
	KUNIT_EXPECT_EQ(test, init_unlink(DIR "/f"), 0);
	KUNIT_EXPECT_EQ(test, h->free_huge_pages, 2ul);
	KUNIT_EXPECT_EQ(test, h->resv_huge_pages, 1ul);
	KUNIT_EXPECT_EQ(test, init_rmdir(DIR "/d"), 0);
	scratch_end(test, s); /* umount gives min_size='s back */
}

/* Two mms map one file shared: one page, seen by both (written by one,
 * read by the other), counted Shared_Hugetlb (mapcount 2); the file's
 * reservations are per offset, however many mappings cover it; truncate
 * unmaps the page from both, gives it back, and a fault past the end is
 * SIGBUS; a reservation not used goes with the offsets truncate takes. */
static void shared_file_is_one_page_for_two_mms(struct kunit *test)
{
	struct scratch *s = scratch_begin(test, 3);
	struct hstate *h = &hstates[HSTATE_2M];
	struct file *f = mount_and_create(test, s, NULL);
	struct mm_struct *mm1 = test_mm_create(test, TEST_MM_CURRENT);
	struct mm_struct *mm2 = test_mm_create(test, TEST_MM_NO_LEAK_CHECK);
	unsigned long a = do_mmap_file(mm1, f, 0, 2 * SZ2M - 1, RW, MAP_SHARED, 0);
	KUNIT_ASSERT_FALSE(test, IS_ERR_VALUE(a));
	KUNIT_EXPECT_EQ(test, a & (SZ2M - 1), 0ul);
	KUNIT_EXPECT_EQ(test, f->f_inode->i_size, (long)(2 * SZ2M)); /* a writable mapping grows it */
	KUNIT_EXPECT_EQ(test, h->resv_huge_pages, 2ul);
	unsigned long b = do_mmap_file(mm2, f, 0, 2 * SZ2M, RW, MAP_SHARED, 0);
	KUNIT_ASSERT_FALSE(test, IS_ERR_VALUE(b));
	KUNIT_EXPECT_EQ(test, h->resv_huge_pages, 2ul); /* the same offsets: nothing more */
	/* An offset not a whole number of huge pages: -EINVAL. */
	KUNIT_EXPECT_EQ(test, (long)do_mmap_file(mm2, f, 0, SZ2M, RW, MAP_SHARED, 1), (long)-EINVAL);
	unsigned long cached = nr_file_pages();
	KUNIT_EXPECT_EQ(test, test_mm_write_u64(mm1, a + SZ2M + 16, 0xfeed), 0);
	KUNIT_EXPECT_EQ(test, nr_file_pages(), cached); /* not in Cached: the pool counts it */
	KUNIT_EXPECT_EQ(test, h->resv_huge_pages, 1ul);
	KUNIT_EXPECT_EQ(test, h->free_huge_pages, 2ul);
	KUNIT_EXPECT_EQ(test, test_mm_read_u64(mm2, b + SZ2M + 16), 0xfeedull);
	KUNIT_EXPECT_EQ(test, h->free_huge_pages, 2ul);
	u64 e1 = entry_at(mm1, a + SZ2M), e2 = entry_at(mm2, b + SZ2M);
	KUNIT_EXPECT_TRUE(test, (e1 & (_PAGE_PRESENT | _PAGE_PSE | _PAGE_RW)) == (_PAGE_PRESENT | _PAGE_PSE | _PAGE_RW));
	KUNIT_EXPECT_EQ(test, e1 & PTE_PFN_MASK, e2 & PTE_PFN_MASK);
	struct page *page = pfn_to_page((e1 & PTE_PFN_MASK) >> PAGE_SHIFT);
	KUNIT_EXPECT_EQ(test, page_mapcount(page), 2);
	KUNIT_EXPECT_EQ(test, page->index, 1ul); /* the page cache counts in huge pages */
	KUNIT_EXPECT_EQ(test, mm1->hugetlb_usage, 512l);
	KUNIT_EXPECT_EQ(test, f->f_mapping->nrpages, 1ul);
	/* read(2) sees it too. */
	u64 v = 0;
	long long pos = SZ2M + 16;
	KUNIT_EXPECT_EQ(test, kernel_read(f, &v, sizeof(v), &pos), 8l);
	KUNIT_EXPECT_EQ(test, v, 0xfeedull);
	pos = 16; /* a hole reads as zeros */
	v = 1;
	KUNIT_EXPECT_EQ(test, kernel_read(f, &v, sizeof(v), &pos), 8l);
	KUNIT_EXPECT_EQ(test, v, 0ull);
	/* Truncate to one page: the second goes from both mms and back to
	 * the pool; the first offset's reservation (never used) stays. */
	KUNIT_EXPECT_EQ(test, ftruncate_file(f, SZ2M), 0);
	KUNIT_EXPECT_EQ(test, entry_at(mm1, a + SZ2M), 0ull);
	KUNIT_EXPECT_EQ(test, entry_at(mm2, b + SZ2M), 0ull);
	KUNIT_EXPECT_EQ(test, h->free_huge_pages, 3ul);
	KUNIT_EXPECT_EQ(test, h->resv_huge_pages, 1ul);
	KUNIT_EXPECT_EQ(test, mm1->hugetlb_usage, 0l);
	KUNIT_EXPECT_EQ(test, hugetlb_fault(find_vma(mm1, a), a + SZ2M, 0), (vm_fault_t)VM_FAULT_SIGBUS);
	/* fallocate past the end makes the page and leaves i_size in it:
	 * that page is still past the end for a fault (whole pages only). */
	KUNIT_EXPECT_EQ(test, vfs_fallocate(f, 0, SZ2M, 8), 0);
	KUNIT_EXPECT_EQ(test, f->f_inode->i_size, (long)SZ2M + 8);
	KUNIT_EXPECT_EQ(test, f->f_mapping->nrpages, 1ul);
	KUNIT_EXPECT_EQ(test, hugetlb_fault(find_vma(mm1, a), a + SZ2M, 0), (vm_fault_t)VM_FAULT_SIGBUS);
	/* Truncate to nothing: the first offset's reservation goes. */
	KUNIT_EXPECT_EQ(test, ftruncate_file(f, 0), 0);
	KUNIT_EXPECT_EQ(test, h->resv_huge_pages, 0ul);
	KUNIT_EXPECT_EQ(test, hugetlb_fault(find_vma(mm2, b), b, 0), (vm_fault_t)VM_FAULT_SIGBUS);
	test_mm_destroy(test, mm2);
	test_mm_destroy(test, mm1);
	close_and_unlink(test, f);
	scratch_end(test, s);
}

/* A private mapping reads the file's page and copies it at its first
 * write, with the reservation its mmap took; the file keeps its data.
 * A hole punched takes the page from every mapping (zeros when read
 * again), its partial ends are zeroed, and MAP_NORESERVE takes no
 * reservation (SIGBUS when no page is left beyond the reserved ones). */
static void private_copies_and_holes(struct kunit *test)
{
	struct scratch *s = scratch_begin(test, 3);
	struct hstate *h = &hstates[HSTATE_2M];
	struct file *f = mount_and_create(test, s, "pagesize=2048k");
	/* The file's pages outlive the mm: the scratch's snapshot, taken
	 * before the mount, is the one that counts. */
	struct mm_struct *mm = test_mm_create(test, TEST_MM_CURRENT | TEST_MM_NO_LEAK_CHECK);
	unsigned long sh = do_mmap_file(mm, f, 0, 2 * SZ2M, RW, MAP_SHARED, 0);
	KUNIT_ASSERT_FALSE(test, IS_ERR_VALUE(sh));
	KUNIT_EXPECT_EQ(test, test_mm_write_u64(mm, sh + 8, 0xabc), 0);
	unsigned long pr = do_mmap_file(mm, f, 0, SZ2M, RW, MAP_PRIVATE, 0);
	KUNIT_ASSERT_FALSE(test, IS_ERR_VALUE(pr));
	KUNIT_EXPECT_EQ(test, h->resv_huge_pages, 2ul); /* the file's second offset, the private page */
	KUNIT_EXPECT_EQ(test, test_mm_read_u64(mm, pr + 8), 0xabcull);
	u64 shared_entry = entry_at(mm, sh);
	KUNIT_EXPECT_EQ(test, entry_at(mm, pr) & PTE_PFN_MASK, shared_entry & PTE_PFN_MASK);
	KUNIT_EXPECT_FALSE(test, entry_at(mm, pr) & _PAGE_RW);
	KUNIT_EXPECT_EQ(test, test_mm_write_u64(mm, pr + 8, 0xdef), 0);
	KUNIT_EXPECT_NE(test, entry_at(mm, pr) & PTE_PFN_MASK, shared_entry & PTE_PFN_MASK);
	KUNIT_EXPECT_EQ(test, test_mm_read_u64(mm, pr + 8), 0xdefull);
	KUNIT_EXPECT_EQ(test, test_mm_read_u64(mm, sh + 8), 0xabcull);
	KUNIT_EXPECT_EQ(test, h->resv_huge_pages, 1ul); /* the copy used the private reservation */
	KUNIT_EXPECT_EQ(test, h->free_huge_pages, 1ul);
	/* A hole over the first page and 8 bytes of the second: the first
	 * goes from every mapping, the private copy too (Linux's
	 * hugetlb_vmdelete_list zaps private mappings alike; the copy's
	 * reservation comes back to its mapping), and the second is zeroed
	 * where the hole meets it. */
	KUNIT_EXPECT_EQ(test, test_mm_write_u64(mm, sh + SZ2M, 0x77), 0);
	KUNIT_EXPECT_EQ(test, test_mm_write_u64(mm, sh + SZ2M + 8, 0x88), 0);
	KUNIT_EXPECT_EQ(test, h->free_huge_pages, 0ul);
	KUNIT_EXPECT_EQ(test, vfs_fallocate(f, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, 0, SZ2M + 8), 0);
	KUNIT_EXPECT_EQ(test, entry_at(mm, sh), 0ull);
	KUNIT_EXPECT_EQ(test, entry_at(mm, pr), 0ull);
	KUNIT_EXPECT_EQ(test, test_mm_read_u64(mm, sh + SZ2M), 0ull);
	KUNIT_EXPECT_EQ(test, test_mm_read_u64(mm, sh + SZ2M + 8), 0x88ull);
	KUNIT_EXPECT_EQ(test, f->f_mapping->nrpages, 1ul);
	KUNIT_EXPECT_EQ(test, h->free_huge_pages, 2ul);
	KUNIT_EXPECT_EQ(test, h->resv_huge_pages, 1ul);
	/* The hole faults a page back in (its offset left the map: no
	 * reservation, a free page beyond the private one's). */
	KUNIT_EXPECT_EQ(test, test_mm_read_u64(mm, sh + 16), 0ull);
	KUNIT_EXPECT_EQ(test, h->free_huge_pages, 1ul);
	KUNIT_EXPECT_EQ(test, h->resv_huge_pages, 1ul);
	/* MAP_NORESERVE: no reservation; a fault finds no page beyond the
	 * reserved one (SIGBUS). */
	KUNIT_EXPECT_EQ(test, ftruncate_file(f, 3 * SZ2M), 0);
	unsigned long nr = do_mmap_file(mm, f, 0, 3 * SZ2M, RW, MAP_SHARED | MAP_NORESERVE, 0);
	KUNIT_ASSERT_FALSE(test, IS_ERR_VALUE(nr));
	KUNIT_EXPECT_EQ(test, h->resv_huge_pages, 1ul);
	KUNIT_EXPECT_EQ(test, hugetlb_fault(find_vma(mm, nr), nr + 2 * SZ2M, FAULT_FLAG_WRITE),
			(vm_fault_t)VM_FAULT_SIGBUS);
	KUNIT_EXPECT_EQ(test, do_munmap(mm, nr, 3 * SZ2M), 0);
	KUNIT_EXPECT_EQ(test, do_munmap(mm, pr, SZ2M), 0);
	KUNIT_EXPECT_EQ(test, h->resv_huge_pages, 0ul);
	KUNIT_EXPECT_EQ(test, do_munmap(mm, sh, 2 * SZ2M), 0);
	KUNIT_EXPECT_EQ(test, h->free_huge_pages, 1ul); /* the file keeps its two pages */
	test_mm_destroy(test, mm);
	close_and_unlink(test, f);
	KUNIT_EXPECT_EQ(test, h->free_huge_pages, 3ul);
	scratch_end(test, s);
}

/* The kernel's instance: MAP_SHARED|MAP_HUGETLB is an unlinked file
 * ("anon_hugepage") reserving its pages at mmap (a private MAP_HUGETLB
 * has one too); MFD_HUGETLB a memfd of size 0 that takes seals and maps
 * after ftruncate. Their inodes go with their last reference. */
static void kernel_instance_files(struct kunit *test)
{
	struct scratch *s = scratch_begin(test, 2);
	struct hstate *h = &hstates[HSTATE_2M];
	struct super_block *sb = hugetlbfs_internal_sb(h);
	KUNIT_ASSERT_NOT_NULL(test, sb);
	long inodes = __atomic_load_n(&sb->s_inodes, __ATOMIC_RELAXED);
	struct mm_struct *mm = test_mm_create(test, TEST_MM_CURRENT);
	unsigned long a = do_mmap(mm, 0, SZ2M, RW, MAP_SHARED | MAP_ANONYMOUS | MAP_HUGETLB);
	KUNIT_ASSERT_FALSE(test, IS_ERR_VALUE(a));
	struct vm_area_struct *vma = find_vma(mm, a);
	KUNIT_ASSERT_NOT_NULL(test, vma);
	KUNIT_EXPECT_TRUE(test, vma->vm_file && is_file_hugepages(vma->vm_file));
	KUNIT_EXPECT_STREQ(test, vma->vm_file->f_path.dentry->d_name.name, HUGETLB_ANON_FILE);
	KUNIT_EXPECT_EQ(test, __atomic_load_n(&sb->s_inodes, __ATOMIC_RELAXED), inodes + 1);
	KUNIT_EXPECT_EQ(test, h->resv_huge_pages, 1ul);
	/* A private one has a file of its own too (empty: its pages are
	 * the mapping's), gone with it. */
	unsigned long pv = do_mmap(mm, 0, SZ2M, RW, MAP_PRIVATE | MAP_ANONYMOUS | MAP_HUGETLB);
	KUNIT_ASSERT_FALSE(test, IS_ERR_VALUE(pv));
	struct vm_area_struct *pvma = find_vma(mm, pv);
	KUNIT_EXPECT_TRUE(test, pvma->vm_file && is_file_hugepages(pvma->vm_file));
	KUNIT_EXPECT_EQ(test, __atomic_load_n(&sb->s_inodes, __ATOMIC_RELAXED), inodes + 2);
	KUNIT_EXPECT_EQ(test, h->resv_huge_pages, 2ul);
	KUNIT_EXPECT_EQ(test, do_munmap(mm, pv, SZ2M), 0);
	KUNIT_EXPECT_EQ(test, __atomic_load_n(&sb->s_inodes, __ATOMIC_RELAXED), inodes + 1);
	KUNIT_EXPECT_EQ(test, h->resv_huge_pages, 1ul);
	KUNIT_EXPECT_EQ(test, test_mm_write_u64(mm, a, 5), 0);
	KUNIT_EXPECT_EQ(test, h->resv_huge_pages, 0ul);
	/* MAP_HUGETLB with a size the machine has no pool of: -EINVAL
	 * before any file is made (the MAP_HUGE bits are checked first). */
	KUNIT_EXPECT_EQ(test, (long)do_mmap(mm, 0, SZ2M, RW, MAP_SHARED | MAP_ANONYMOUS | MAP_HUGETLB | (22 << MAP_HUGE_SHIFT)),
			(long)-EINVAL);
	/* One page left, and a second shared mapping of two: -ENOMEM, and
	 * its file goes at once. */
	KUNIT_EXPECT_EQ(test, (long)do_mmap(mm, 0, 2 * SZ2M, RW, MAP_SHARED | MAP_ANONYMOUS | MAP_HUGETLB),
			(long)-ENOMEM);
	KUNIT_EXPECT_EQ(test, __atomic_load_n(&sb->s_inodes, __ATOMIC_RELAXED), inodes + 1);
	/* MFD_HUGETLB: size 0, no reservation until mapped. */
	struct file *mfd = hugetlb_file_setup("memfd:t", 0, VM_NORESERVE, HUGETLB_ANONHUGE_INODE, 21);
	KUNIT_ASSERT_FALSE(test, IS_ERR(mfd));
	KUNIT_EXPECT_EQ(test, h->resv_huge_pages, 0ul);
	KUNIT_EXPECT_FALSE(test, IS_ERR_VALUE(do_mmap_file(mm, mfd, 0, SZ2M, RW, MAP_SHARED, 0)));
	KUNIT_EXPECT_EQ(test, h->resv_huge_pages, 1ul);
	KUNIT_EXPECT_EQ(test, mfd->f_inode->i_size, (long)SZ2M);
	KUNIT_EXPECT_EQ(test, filp_close(mfd), 0); /* the mapping keeps it */
	KUNIT_EXPECT_EQ(test, __atomic_load_n(&sb->s_inodes, __ATOMIC_RELAXED), inodes + 2);
	KUNIT_EXPECT_EQ(test, h->resv_huge_pages, 1ul);
	/* MADV_REMOVE punches the shared mapping's page out of its file. */
	KUNIT_EXPECT_EQ(test, h->free_huge_pages, 1ul);
	KUNIT_EXPECT_EQ(test, do_madvise(mm, a, SZ2M, MADV_REMOVE), 0);
	KUNIT_EXPECT_EQ(test, entry_at(mm, a), 0ull);
	KUNIT_EXPECT_EQ(test, h->free_huge_pages, 2ul);
	KUNIT_EXPECT_EQ(test, do_munmap(mm, a, SZ2M), 0);
	KUNIT_EXPECT_EQ(test, h->resv_huge_pages, 1ul);
	KUNIT_EXPECT_EQ(test, h->free_huge_pages, 2ul);
	test_mm_destroy(test, mm);
	KUNIT_EXPECT_EQ(test, __atomic_load_n(&sb->s_inodes, __ATOMIC_RELAXED), inodes);
	scratch_end(test, s);
}

/* A SHM_HUGETLB segment: its size rounded up to huge pages and reserved
 * at shmget (-ENOMEM past the pool, -EINVAL for a size with none), one
 * page seen by two attaches (which reserve nothing more; with
 * SHM_NORESERVE nothing at all), counted in SHM_INFO's rss; a SHM_RDONLY
 * attach cannot be made writable; IPC_RMID while attached destroys it at
 * the last shmdt, which gives every page and reservation back. */
static void shm_hugetlb_segment_attached_twice(struct kunit *test)
{
	struct scratch *s = scratch_begin(test, 2);
	struct hstate *h = &hstates[HSTATE_2M];
	struct mm_struct *mm = test_mm_create(test, TEST_MM_CURRENT);
	int segs = shm_segments_in_use();
	KUNIT_EXPECT_EQ(test, ksys_shmget(IPC_PRIVATE, SZ2M, IPC_CREAT | 0600 | SHM_HUGETLB | (22 << SHM_HUGE_SHIFT)),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, ksys_shmget(IPC_PRIVATE, 2 * SZ2M + 1, IPC_CREAT | 0600 | SHM_HUGETLB), -ENOMEM);
	KUNIT_EXPECT_EQ(test, shm_segments_in_use(), segs);
	KUNIT_EXPECT_EQ(test, h->resv_huge_pages, 0ul);
	/* SHM_NORESERVE: no reservation at shmget, nor at shmat (a
	 * segment's file reserves only when it is made). */
	long nores = ksys_shmget(IPC_PRIVATE, SZ2M, IPC_CREAT | 0600 | SHM_HUGETLB | SHM_NORESERVE);
	KUNIT_ASSERT_GE(test, nores, 0l);
	unsigned long n = 0;
	KUNIT_EXPECT_EQ(test, do_shmat((int)nores, 0, 0, &n), 0l);
	KUNIT_EXPECT_EQ(test, h->resv_huge_pages, 0ul);
	KUNIT_EXPECT_EQ(test, ksys_shmctl((int)nores, IPC_RMID, NULL), 0l);
	KUNIT_EXPECT_EQ(test, ksys_shmdt(n), 0l);
	KUNIT_EXPECT_EQ(test, shm_segments_in_use(), segs);
	long id = ksys_shmget(IPC_PRIVATE, SZ2M + 5, IPC_CREAT | 0600 | SHM_HUGETLB | SHM_HUGE_2MB);
	KUNIT_ASSERT_GE(test, id, 0l);
	KUNIT_EXPECT_EQ(test, h->resv_huge_pages, 2ul); /* 4 MiB */
	unsigned long a = 0, b = 0, c = 0;
	KUNIT_ASSERT_EQ(test, do_shmat((int)id, 0, 0, &a), 0l);
	KUNIT_ASSERT_EQ(test, do_shmat((int)id, 0, 0, &b), 0l);
	KUNIT_EXPECT_NE(test, a, b);
	KUNIT_EXPECT_EQ(test, (a | b) & (SZ2M - 1), 0ul);
	KUNIT_EXPECT_EQ(test, find_vma(mm, a)->vm_end - a, 2 * SZ2M);
	KUNIT_EXPECT_EQ(test, test_mm_write_u64(mm, a + SZ2M + 8, 0x5151), 0);
	KUNIT_EXPECT_EQ(test, test_mm_read_u64(mm, b + SZ2M + 8), 0x5151ull);
	KUNIT_EXPECT_EQ(test, entry_at(mm, a + SZ2M) & PTE_PFN_MASK, entry_at(mm, b + SZ2M) & PTE_PFN_MASK);
	KUNIT_EXPECT_EQ(test, h->resv_huge_pages, 1ul);
	KUNIT_EXPECT_EQ(test, h->free_huge_pages, 1ul);
	struct shmid64_ds ds;
	KUNIT_EXPECT_EQ(test, shmctl_stat((int)id, IPC_STAT, &ds), 0);
	KUNIT_EXPECT_EQ(test, ds.shm_nattch, 2ul);
	KUNIT_EXPECT_EQ(test, ds.shm_segsz, SZ2M + 5);
	struct shm_info info;
	KUNIT_EXPECT_GE(test, shmctl_shm_info(&info), 0);
	KUNIT_EXPECT_GE(test, info.shm_rss, 512ul);
	KUNIT_ASSERT_EQ(test, do_shmat((int)id, 0, SHM_RDONLY, &c), 0l);
	KUNIT_EXPECT_EQ(test, test_mm_read_u64(mm, c + SZ2M + 8), 0x5151ull);
	KUNIT_EXPECT_EQ(test, do_mprotect(mm, c, 2 * SZ2M, RW), -EACCES);
	KUNIT_EXPECT_EQ(test, ksys_shmdt(a), 0l);
	KUNIT_EXPECT_EQ(test, ksys_shmctl((int)id, IPC_RMID, NULL), 0l);
	KUNIT_EXPECT_EQ(test, shm_segments_in_use(), segs + 1); /* still attached */
	KUNIT_EXPECT_EQ(test, ksys_shmdt(b), 0l);
	KUNIT_EXPECT_EQ(test, ksys_shmdt(c), 0l);
	KUNIT_EXPECT_EQ(test, shm_segments_in_use(), segs);
	KUNIT_EXPECT_EQ(test, h->free_huge_pages, 2ul);
	KUNIT_EXPECT_EQ(test, h->resv_huge_pages, 0ul);
	test_mm_destroy(test, mm);
	scratch_end(test, s);
}

/* fork: a shared mapping of a file is the same page in the child (its
 * entry copied writable, no copy ever); a private one's file page is
 * read-only in both and copied by whichever writes (the child from a page
 * without a reservation, the parent with its mapping's), the file keeping
 * its data; everything back when both go. */
static void fork_shares_the_file_and_copies_private(struct kunit *test)
{
	struct scratch *s = scratch_begin(test, 4);
	struct hstate *h = &hstates[HSTATE_2M];
	struct file *f = mount_and_create(test, s, NULL);
	struct mm_struct *parent = test_mm_create(test, TEST_MM_CURRENT | TEST_MM_NO_LEAK_CHECK);
	unsigned long sh = do_mmap_file(parent, f, 0, SZ2M, RW, MAP_SHARED, 0);
	unsigned long pr = do_mmap_file(parent, f, 0, SZ2M, RW, MAP_PRIVATE, 0);
	KUNIT_ASSERT_FALSE(test, IS_ERR_VALUE(sh) || IS_ERR_VALUE(pr));
	KUNIT_EXPECT_EQ(test, test_mm_write_u64(parent, sh + 8, 31), 0);
	KUNIT_EXPECT_EQ(test, test_mm_read_u64(parent, pr + 8), 31ull);
	KUNIT_EXPECT_EQ(test, h->free_huge_pages, 3ul);
	KUNIT_EXPECT_EQ(test, h->resv_huge_pages, 1ul); /* the private mapping's */
	struct mm_struct *child;
	KUNIT_ASSERT_EQ(test, dup_mm(parent, &child), 0);
	KUNIT_EXPECT_TRUE(test, entry_at(child, sh) & _PAGE_RW);
	KUNIT_EXPECT_EQ(test, test_mm_write_u64(child, sh + 8, 32), 0);
	KUNIT_EXPECT_EQ(test, test_mm_read_u64(parent, sh + 8), 32ull);
	KUNIT_EXPECT_EQ(test, h->free_huge_pages, 3ul);
	KUNIT_EXPECT_EQ(test, test_mm_write_u64(child, pr + 8, 33), 0);
	KUNIT_EXPECT_EQ(test, h->free_huge_pages, 2ul);
	KUNIT_EXPECT_EQ(test, h->resv_huge_pages, 1ul); /* the child's copy took none */
	KUNIT_EXPECT_EQ(test, test_mm_write_u64(parent, pr + 8, 34), 0);
	KUNIT_EXPECT_EQ(test, h->free_huge_pages, 1ul);
	KUNIT_EXPECT_EQ(test, h->resv_huge_pages, 0ul); /* the parent's took its own */
	KUNIT_EXPECT_EQ(test, test_mm_read_u64(child, pr + 8), 33ull);
	KUNIT_EXPECT_EQ(test, test_mm_read_u64(parent, pr + 8), 34ull);
	KUNIT_EXPECT_EQ(test, test_mm_read_u64(child, sh + 8), 32ull);
	mmput(child);
	KUNIT_EXPECT_EQ(test, h->free_huge_pages, 2ul);
	test_mm_destroy(test, parent);
	KUNIT_EXPECT_EQ(test, h->free_huge_pages, 3ul); /* the file's page stays */
	close_and_unlink(test, f);
	scratch_end(test, s);
}

static void restore_task_policy(void *old)
{
	struct mempolicy *pol = current->mempolicy;
	current->mempolicy = old;
	mpol_put(pol);
}

/* fallocate places each page by the task's policy (Linux's pseudo-VMA
 * holds none of its own): bound to the last node with a pool page, the
 * page comes from there. */
static void fallocate_follows_the_task_policy(struct kunit *test)
{
	unsigned long nodes = 0;
	int first = NUMA_NO_NODE;
	for (int nid = 0; nid < (int)num_online_nodes(); nid++)
		if (node_has_memory(nid)) {
			nodes++;
			first = first == NUMA_NO_NODE ? nid : first;
		}
	if (nodes < 2)
		kunit_skip(test, "one node with memory");
	/* Made before the case's snapshot, freed after its check (the
	 * action puts the task's own back). */
	int err;
	nodemask_t mask = nodemask_of_node(first);
	struct mempolicy *pol = mpol_new(MPOL_BIND, 0, &mask, &err);
	KUNIT_ASSERT_NOT_NULL(test, pol);
	struct mempolicy *old = current->mempolicy;
	current->mempolicy = pol;
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, restore_task_policy, old), 0);
	struct scratch *s = scratch_begin(test, nodes);
	struct hstate *h = &hstates[HSTATE_2M];
	int last = NUMA_NO_NODE;
	for (int nid = 0; nid < (int)num_online_nodes(); nid++)
		if (h->free_huge_pages_node[nid])
			last = nid;
	KUNIT_ASSERT_NE(test, last, NUMA_NO_NODE);
	/* mpol_set_nodemask's part (every node is allowed here), before the
	 * policy places anything. */
	pol->nodes = nodemask_of_node(last);
	struct file *f = mount_and_create(test, s, NULL);
	KUNIT_EXPECT_EQ(test, vfs_fallocate(f, 0, 0, SZ2M), 0);
	struct page *page = filemap_get_folio(f->f_mapping, 0);
	KUNIT_ASSERT_NOT_NULL(test, page);
	KUNIT_EXPECT_EQ(test, page_to_nid(page), last);
	put_page(page);
	close_and_unlink(test, f);
	scratch_end(test, s);
}

/* pagesize=1G: a file of one 1 GiB page (on a machine with a free
 * order-18 block: pci-hole-6g), mapped under a PUD entry, read back
 * through read(2), given back by truncate. */
static void gigantic_pages_file(struct kunit *test)
{
	struct hstate *h = &hstates[HSTATE_1G];
	if (!h->supported)
		kunit_skip(test, "the CPU cannot map 1 GiB pages");
	struct scratch *s = scratch_begin_h(test, h, 1);
	KUNIT_ASSERT_EQ(test, mount_hugetlbfs(s, "pagesize=1G"), 0);
	char line[160];
	mounts_line(test, line, sizeof(line));
	KUNIT_EXPECT_STREQ(test, line, "hugetlbfs rw,relatime,pagesize=1024M 0 0");
	struct file *f = filp_open(DIR "/g", O_CREAT | O_RDWR, 0600);
	KUNIT_ASSERT_FALSE(test, IS_ERR(f));
	struct kstatfs st;
	KUNIT_EXPECT_EQ(test, vfs_statfs(&f->f_path, &st), 0);
	KUNIT_EXPECT_EQ(test, st.f_bsize, (long)huge_page_size(h));
	KUNIT_EXPECT_EQ(test, ftruncate_file(f, (long)SZ2M), -EINVAL);
	KUNIT_EXPECT_EQ(test, ftruncate_file(f, (long)huge_page_size(h)), 0);
	struct mm_struct *mm = test_mm_create(test, TEST_MM_CURRENT);
	unsigned long a = do_mmap_file(mm, f, 0, huge_page_size(h), RW, MAP_SHARED, 0);
	KUNIT_ASSERT_FALSE(test, IS_ERR_VALUE(a));
	KUNIT_EXPECT_EQ(test, a & (huge_page_size(h) - 1), 0ul);
	KUNIT_EXPECT_EQ(test, h->resv_huge_pages, 1ul);
	KUNIT_EXPECT_EQ(test, test_mm_write_u64(mm, a + 12345 * PAGE_SIZE, 0x1661), 0);
	KUNIT_EXPECT_EQ(test, h->resv_huge_pages, 0ul);
	KUNIT_EXPECT_EQ(test, h->free_huge_pages, 0ul);
	KUNIT_EXPECT_EQ(test, mm->hugetlb_usage, (long)pages_per_huge_page(h));
	KUNIT_EXPECT_NULL(test, mm_find_pmd(mm, a)); /* a PUD entry maps it */
	u64 v = 0;
	long long pos = 12345 * PAGE_SIZE;
	KUNIT_EXPECT_EQ(test, kernel_read(f, &v, sizeof(v), &pos), 8l);
	KUNIT_EXPECT_EQ(test, v, 0x1661ull);
	KUNIT_EXPECT_EQ(test, ftruncate_file(f, 0), 0);
	KUNIT_EXPECT_EQ(test, h->free_huge_pages, 1ul);
	KUNIT_EXPECT_EQ(test, mm->hugetlb_usage, 0l);
	test_mm_destroy(test, mm);
	KUNIT_EXPECT_EQ(test, filp_close(f), 0);
	KUNIT_EXPECT_EQ(test, init_unlink(DIR "/g"), 0);
	scratch_end(test, s);
}

static struct kunit_case hugetlbfs_cases[] = {
	KUNIT_CASE(options_statfs_and_errnos),
	KUNIT_CASE(shared_file_is_one_page_for_two_mms),
	KUNIT_CASE(private_copies_and_holes),
	KUNIT_CASE(kernel_instance_files),
	KUNIT_CASE(shm_hugetlb_segment_attached_twice),
	KUNIT_CASE(fork_shares_the_file_and_copies_private),
	KUNIT_CASE(fallocate_follows_the_task_policy),
	KUNIT_CASE(gigantic_pages_file),
	{},
};

static struct kunit_suite hugetlbfs_suite = { .name = "hugetlbfs", .test_cases = hugetlbfs_cases };
kunit_test_suite(hugetlbfs_suite);
