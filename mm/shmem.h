/* Shared memory VMAs: mmap(MAP_SHARED | MAP_ANONYMOUS), a MAP_SHARED
 * mapping of /dev/zero (shmem_zero_setup, mm/shmem_file.c), a System V
 * segment (ipc/shm.c) and a MAP_SHARED mapping of a tmpfs file or memfd.
 * Every VMA of such a mapping (its pieces after a split, its copies in
 * children after fork, its place after mremap) points to one shmem
 * object (vma->vm_shm), which holds a file: the tmpfs file mapped, or,
 * for shared anonymous memory and a segment, an unlinked file of the
 * mapping's size on the kernel's internal tmpfs (shm_mnt: Linux's
 * shmem_kernel_file_setup, whose huge= is shmem_enabled's, so its pages
 * may be huge as Linux's are: mm/shmem_huge.c). The pages are the file's
 * page cache, made by the first fault that needs one (a read as a write:
 * no zero page), kept until a truncate, a hole punched (MADV_REMOVE) or
 * the file's last reference takes them. A write is seen by every process
 * mapping the page: no copy-on-write, and fork copies no entry (the
 * child's faults find the pages in the cache).
 *
 * mmlab differs from Linux in where the anonymous kinds' file hangs: the
 * object holds it and the VMA's vm_file stays NULL (Linux's points to
 * it), so that the code that tells a file mapping by vm_file sees
 * anonymous memory there. What a user sees of that file is Linux's all
 * the same: /proc/<pid>/maps, smaps and numa_maps show it ("/dev/zero
 * (deleted)", "/SYSV<key> (deleted)", fs/proc/task_mmu.c), and
 * get_unmapped_area places the mapping by it (shmem_get_unmapped_area).
 *
 * Counting (Linux's): a mapped shmem page counts in the mm's
 * MM_SHMEMPAGES (RssShmem), not in AnonPages; the file's pages in
 * /proc/meminfo's Shmem and Cached. Each mapping holds a reference and a
 * map count, as an anonymous page's do; the page cache holds one
 * reference per page. The size of an anonymous object is fixed at mmap
 * (a fault past it is SIGBUS, as past the end of any shmem file), and its
 * commit is charged at mmap unless MAP_NORESERVE, and given back when it
 * goes (Linux's shmem_acct_size).
 *
 * The VMAs are in the file's address_space's i_mmap (mm/interval_tree.h):
 * truncate, a hole punched and MADV_REMOVE unmap the pages they take from
 * every process (mm/truncate.h).
 *
 * Locking: the object's refcount (the VMAs) is atomic; the pages are the
 * page cache's (mm/filemap.h). */
#ifndef MM_SHMEM_H
#define MM_SHMEM_H

#include "mm/shared_policy.h"
#include "kernel/types.h"
#include "mm/gfp.h"

struct page;
struct vm_area_struct;
struct vm_fault;
struct mm_struct;

struct shmem_object {
	int refcount;            /* VMAs pointing to it; atomic */
	unsigned long size;      /* pages: the file's i_size when the object was made */
	bool accounted;          /* an anonymous object's size is charged to the commit */
	/* The file (a reference) and its page cache, where the pages are;
	 * the file's i_size is the end: a fault past it is SIGBUS. A
	 * SHM_HUGETLB segment's is a hugetlbfs file (ipc/shm.c). */
	struct file *file;
	struct address_space *mapping;
	/* A System V segment's object (ipc/shm.h): each VMA that maps it is
	 * an attach, counted as VMAs come (shmem_get) and go (shmem_put),
	 * Linux's shm_vm_ops open and close; NULL for any other object, and
	 * once the segment is destroyed (no VMA is left then). */
	const struct shmem_attach_ops *attach_ops;
	void *attach_data; /* the segment (struct shmid_kernel) */
};

struct shmem_attach_ops {
	void (*open)(struct shmem_object *obj);
	void (*close)(struct shmem_object *obj);
};

/* A new object of len bytes for shared anonymous memory (a MAP_SHARED
 * anonymous or /dev/zero mapping: name "dev/zero"; a System V segment:
 * "SYSV<key>"): an unlinked file of that size on the internal tmpfs, so
 * named (/proc/<pid>/maps shows "/<name> (deleted)"), charged unless
 * noreserve; NULL with *err (-ENOMEM) when memory or commit is short. */
struct shmem_object *shmem_object_alloc(struct mm_struct *mm, const char *name, unsigned long len, bool noreserve,
					int *err);
/* A new VMA's reference (and an attach of a segment's object). */
void shmem_get(struct shmem_object *obj);
/* Drops a VMA's reference (and its attach); the last frees the object
 * and its pages. */
void shmem_put(struct shmem_object *obj);

/* The page at address's page offset in what vma maps (its object, or
 * the tmpfs file of a MAP_PRIVATE mapping: vm_shm NULL), with a reference
 * for the caller (made zeroed if absent, from vma's NUMA policy); NULL
 * with VM_FAULT_SIGBUS past the object's or file's end or VM_FAULT_OOM in
 * *ret. */
struct page *shmem_get_page(struct vm_area_struct *vma, unsigned long address, unsigned int *ret);

/* Fault-around's lookup (Linux's first_map_page/next_map_page): the first
 * page present at an offset in [*index, last] of what vma maps (the page
 * cache of its object's file, or of the tmpfs file a private mapping
 * maps), with a reference for the caller, *index set to its offset; NULL
 * when none. Never allocates. */
struct page *shmem_next_present_page(struct vm_area_struct *vma, unsigned long *index, unsigned long last);

/* Accounting of a mapping of a shmem page in mm (mm/memory.c's callers). */
void shmem_page_mapped(struct mm_struct *mm, struct page *page);
void shmem_page_unmapped(struct mm_struct *mm, struct page *page);

/* Migration's side (mm/migrate_shmem.c): a mapping of page goes to a
 * migration entry (add false: the map count, Mapped at the last; the
 * caller puts the mapping's reference) or comes back from one (add true:
 * the map count, Mapped at the first, and a reference); RssShmem stays,
 * as a migration entry counts there. */
void shmem_rmap_moved(struct page *page, bool add);
/* A fault's check under the PTE lock, before it maps page at address of
 * vma (or a copy of page: a private file mapping's write, mm/memory.c)
 * (mm/truncate.h): whether the page is still the one there, in the
 * file's page cache below i_size; false when a truncate, a hole punch
 * or a migration took it away meanwhile. */
bool shmem_page_current(struct vm_area_struct *vma, unsigned long address, struct page *page);
/* File and shmem pages mapped by at least one PTE (/proc/meminfo Mapped,
 * /proc/vmstat nr_mapped: Linux's NR_FILE_MAPPED; every file of mmlab is
 * tmpfs, so these are shmem pages, as a tmpfs file's are on Linux). */
unsigned long nr_file_mapped_pages(void);

/* Pages in shmem objects and tmpfs files (/proc/meminfo Shmem): in their
 * page caches, not those out on swap (mm/shmem_swap.c changes it). */
unsigned long nr_shmem_pages(void);
void shmem_pages_add(long nr);
/* Whether mapping is a tmpfs file's (Linux's shmem_mapping): shared
 * anonymous memory's and System V segments' too, not secretmem's. */
struct address_space;
bool shmem_mapping(const struct address_space *mapping);

/* tmpfs's mmap method: a MAP_SHARED mapping of a file gets the object of
 * that file's pages (vma->vm_shm); a MAP_PRIVATE one needs nothing (its
 * faults map the file's pages read-only and copy them at a write,
 * mm/filemap_fault.c). 0 or -ENOMEM. */
struct file;
int shmem_mmap(struct file *file, struct vm_area_struct *vma);
/* An object whose pages are file's page cache (a reference to file; size:
 * the file's i_size in pages then): a MAP_SHARED mapping of a tmpfs file
 * (shmem_mmap), and a SHM_HUGETLB segment's hugetlbfs file (ipc/shm.c). */
struct shmem_object *shmem_file_object(struct file *file);

/* ---- NUMA policy of shmem mappings (mm/shmem_policy.c) ---- */

struct mempolicy;
/* The shared policy of what vma maps, for the VMAs Linux gives
 * shmem_vm_ops (a MAP_SHARED anonymous or /dev/zero mapping, a System V
 * segment, any mapping of a tmpfs file, MAP_PRIVATE too): the anonymous
 * object's or the file's inode's; NULL for any other VMA. */
struct shared_policy *vma_shared_policy(struct vm_area_struct *vma);
/* Linux's shmem_set_policy (vm_ops->set_policy): the offsets vma maps get
 * mpol (NULL: the default) in its object's shared policy. 0 or -ENOMEM. */
int shmem_set_policy(struct vm_area_struct *vma, struct mempolicy *mpol);
/* Linux's shmem_get_policy (vm_ops->get_policy): the shared policy of the
 * offset addr maps, with a reference; NULL for the default. */
struct mempolicy *shmem_get_policy(struct vm_area_struct *vma, unsigned long addr);
/* Linux's shmem_alloc_folio: a zeroed page for offset index of an object
 * with shared policy sp, from the policy there, else the allocating
 * task's, else the local node; ilx is the interleave index (Linux biases
 * it by the inode number: i_ino + index). */
struct page *shmem_alloc_policy_page(struct shared_policy *sp, unsigned long index, unsigned long ilx);
/* The same for 2^order pages with gfp (a huge page: mm/shmem_huge.c). */
struct page *shmem_alloc_policy_folio(struct shared_policy *sp, unsigned long index, unsigned long ilx, gfp_t gfp,
				      unsigned int order);

/* A tmpfs file's huge page goes (its last reference, or a split): the
 * marks of mm/shmem_huge.c come off its pages, ShmemHugePages counts it
 * no more. */
void shmem_thp_prep_free(struct page *head);

/* Huge pages of tmpfs (mm/shmem_huge.c). The huge= values (Linux's
 * SHMEM_HUGE_*) and the two only shmem_enabled takes: deny (no huge page
 * anywhere) and force (huge pages everywhere, whatever huge= says). */
#define SHMEM_HUGE_NEVER 0
#define SHMEM_HUGE_ALWAYS 1
#define SHMEM_HUGE_WITHIN_SIZE 2
#define SHMEM_HUGE_ADVISE 3
#define SHMEM_HUGE_DENY (-1)
#define SHMEM_HUGE_FORCE (-2)
/* /sys/kernel/mm/transparent_hugepage/shmem_enabled (Linux's shmem_huge). */
extern int shmem_huge;
/* Sets it, and the internal instance's huge= with it unless deny or force. */
void shmem_huge_set(int huge);
/* Huge pages in tmpfs files' page caches (ShmemHugePages, nr_shmem_hugepages). */
unsigned long nr_shmem_thps(void);
/* A tmpfs huge page's first PMD mapping (up) or its last going: Mapped
 * counts its pages no PTE maps (Linux's page_add_file_rmap compound). */
void shmem_file_rmap_pmd(struct page *head, bool up);
/* Those mapped by at least one PMD (ShmemPmdMapped, nr_shmem_pmdmapped). */
unsigned long nr_shmem_pmdmapped(void);
/* Whether a fault (flags FAULT_FLAG_*) at haddr of vma may map a tmpfs
 * huge page with a PMD: any fault of a shared mapping of a tmpfs file or
 * of shared anonymous memory, a read of a private mapping of a tmpfs file
 * (its write copies one page: Linux's do_cow_fault); the 2 MiB inside
 * the VMA, the offset of haddr a multiple of 512 pages (Linux's
 * transhuge_vma_suitable). */
struct vm_area_struct;
bool shmem_huge_vma_suitable(struct vm_area_struct *vma, unsigned long haddr, unsigned int flags);

/* Linux 6.1's shmem_get_unmapped_area (tmpfs's and memfd's
 * get_unmapped_area method; file NULL: shared anonymous memory, a
 * /dev/zero shared mapping, a System V segment, all on the internal
 * instance): where a mapping of len bytes at page offset pgoff goes so
 * that its huge pages can be mapped by PMDs: an address congruent to the
 * offset modulo 2 MiB, when huge pages may come (shmem_enabled not deny;
 * force, or the instance's huge= not never), len is 2 MiB or more, not
 * MAP_FIXED, a hint was not honoured as it is, and the offset leaves a
 * whole huge page inside the mapping. Else (or when no room is left for
 * the padded search) the mm's own search's address. */
struct file;
unsigned long shmem_get_unmapped_area(struct mm_struct *mm, struct file *file, unsigned long addr,
				      unsigned long len, unsigned long pgoff, unsigned long flags);

/* The kernel's own tmpfs files, /dev/zero's shared mappings, and tmpfs
 * instances' options: mm/shmem_fs.h. */

#endif
