/* The per-task files under /proc/self and /proc/<pid> that walk the address
 * space: maps, numa_maps, smaps and smaps_rollup, in Linux 6.12's
 * formats (fs/proc/task_mmu.c's show_map_vma, show_smap and
 * show_smaps_rollup; smaps has the same lines through 6.18); pagemap,
 * the same file's in Linux, is fs/proc/task_pagemap.c. They are
 * registered by fs/proc/base.c and print into a seq_buf (lib/seq_buf.c).
 *
 * Invariant: every figure comes from the task's own mm (its counters, its
 * VMAs, and for smaps and pagemap its page tables, walked through
 * mm/pagewalk.c, which holds each PTE table by a reference while reading
 * it) at generation time, or is the 0 or constant Linux prints for what
 * this kernel lacks, named where it is printed. The VMA walks are done
 * under the mm's mmap_lock held for reading (Linux's show_map), since
 * other threads of the process may map and unmap meanwhile; the text goes into the kernel's seq_buf
 * (pagemap's entries into a kernel buffer), and the copy to user memory
 * (which may fault, and so take the lock again) happens after it is
 * dropped. */
#include "mm/swapops.h"
#include "mm/page_alloc.h"
#include "fs/proc/internal.h"
#include "arch/x86_64/uaccess.h"
#include "fs/file.h"
#include "kernel/cred.h"
#include "kernel/sched.h"
#include "kernel/signal.h"
#include "kernel/smp.h"
#include "lib/string.h"
#include "kernel/time.h"
#include "mm/memory.h"
#include "mm/rmap.h"
#include "mm/huge_memory.h"
#include "mm/hugetlb.h"
#include "mm/hugetlb_vma.h"
#include "mm/hugetlb_internal.h"
#include "mm/mempolicy.h"
#include "mm/mm_types.h"
#include "fs/dcache.h"
#include "fs/fs_struct.h"
#include "lib/err.h"
#include "mm/mmap.h"
#include "mm/mmap_lock.h"
#include "mm/numa.h"
#include "mm/page.h"
#include "mm/pagewalk.h"
#include "mm/shmem.h"
#include "mm/shmem_swap.h"
#include "mm/slab.h"

/* ---- maps ---- */

/* Linux's show_vma_header_prefix: "start-end flags offset dev inode ". */
static void show_vma_header_prefix(struct seq_buf *m, unsigned long start, unsigned long end,
				   unsigned long f, unsigned long long pgoff, unsigned int dev, unsigned long ino)
{
	seq_buf_printf(m, "%08lx-%08lx %c%c%c%c %08llx %02x:%02x %lu ", start, end,
		       f & VM_READ ? 'r' : '-', f & VM_WRITE ? 'w' : '-', f & VM_EXEC ? 'x' : '-',
		       f & VM_MAYSHARE ? 's' : 'p', pgoff, MAJOR(dev), MINOR(dev), ino);
}

/* seq_pad(m, ' ') then name: a name starts at column 73. line is where the
 * line began in m. */
static void show_vma_name(struct seq_buf *m, size_t line, const char *name)
{
	size_t used = m->len - line;
	seq_buf_printf(m, "%*s %s", used < 72 ? (int)(72 - used) : 0, "", name);
}

/* The file's path from the reader's root (Linux's seq_path) in buf
 * (PATH_MAX bytes, may be NULL), or NULL. */
static char *vma_file_path(struct file *file, char *buf)
{
	if (!buf)
		return NULL;
	struct path root;
	get_fs_root(current_fs(), &root);
	char *p = d_path(&file->f_path, &root, buf, PATH_MAX);
	path_put(&root);
	return IS_ERR(p) ? NULL : p;
}

/* The file Linux's vma->vm_file is: the VMA's own, or, for shared
 * anonymous memory and a System V segment, whose VMAs mmlab gives none
 * (mm/shmem.h), the unlinked file of the internal tmpfs that holds their
 * pages ("/dev/zero (deleted)", "/SYSV<key> (deleted)" whose inode number
 * is the segment's id: ipc/shm.c), as Linux's shmem_zero_setup and shmat
 * set vm_file. NULL for anonymous memory. */
static struct file *vma_shown_file(const struct vm_area_struct *vma)
{
	if (vma->vm_file)
		return vma->vm_file;
	return vma->vm_shm ? vma->vm_shm->file : NULL;
}

/* show_map_vma(): a file mapping (a tmpfs or hugetlbfs file: every
 * hugetlb mapping maps one, "/anon_hugepage (deleted)" for MAP_HUGETLB;
 * shared anonymous memory and System V segments: vma_shown_file) shows
 * its offset, the file's device and inode, and its path; every other VMA
 * is anonymous (the ELF image is copied into anonymous memory), so
 * offset, device and inode are 0 and only the heap and the stack get
 * names. The caller holds mmap_lock. */
static void show_map_vma(struct seq_buf *m, struct mm_struct *mm, struct vm_area_struct *vma)
{
	size_t line = m->len;
	const char *name = NULL;
	struct file *file = vma_shown_file(vma);
	if (file) {
		struct inode *inode = file->f_inode;
		show_vma_header_prefix(m, vma->vm_start, vma->vm_end, vma->vm_flags,
				       (unsigned long long)vma->vm_pgoff << PAGE_SHIFT, inode->i_sb->s_dev, inode->i_ino);
		char *buf = kmalloc(PATH_MAX, GFP_KERNEL);
		char *p = vma_file_path(file, buf);
		if (p)
			show_vma_name(m, line, p);
		kfree(buf);
		seq_buf_puts(m, "\n");
		return;
	}
	show_vma_header_prefix(m, vma->vm_start, vma->vm_end, vma->vm_flags, 0, 0, 0);
	if (vma->vm_start < mm->brk && vma->vm_end > mm->start_brk)
		name = "[heap]";
	else if (vma->vm_start <= mm->start_stack && vma->vm_end >= mm->start_stack)
		name = "[stack]";
	if (name)
		show_vma_name(m, line, name);
	seq_buf_puts(m, "\n");
}

void maps_show(struct seq_buf *m, const struct proc_node *node)
{
	struct mm_struct *mm = node->mm;
	struct vm_area_struct *vma;
	if (!mm)
		return;
	mmap_read_lock(mm);
	for_each_vma(mm, vma)
		show_map_vma(m, mm, vma);
	mmap_read_unlock(mm);
}

/* ---- numa_maps ---- */

/* Linux's struct numa_maps, for what exists here (no swap cache, no
 * writeback; no LRU lists, so no page is active: " active=0", which is
 * what Linux 6.1 prints for fresh anonymous memory too). */
struct numa_maps {
	unsigned long pages, anon, dirty, mapcount_max;
	unsigned long node[MAX_NUMNODES];
};

/* Linux's gather_stats: nr pages of the page at pfn, on its node; anon
 * counts the anonymous ones (a private file mapping's page-cache pages,
 * a hugetlbfs file's pages, are not); the most mappings of one. */
static void numa_gather(struct numa_maps *md, unsigned long pfn, bool dirty, unsigned long nr, bool anon)
{
	struct page *page = pfn_to_page(pfn);
	unsigned long count = (unsigned long)page_mapcount(page);
	md->pages += nr;
	if (anon)
		md->anon += nr;
	if (dirty)
		md->dirty += nr;
	if (count > md->mapcount_max)
		md->mapcount_max = count;
	int nid = page_to_nid(page);
	if (nid >= 0 && nid < MAX_NUMNODES)
		md->node[nid] += nr;
}

static int numa_pte(pte_t pte, unsigned long addr, struct mm_walk *walk)
{
	(void)addr;
	/* can_gather_numa_stats: present, and a normal page (not the zero page). */
	if (pte_present(pte) && !is_zero_pfn(pte_pfn(pte)))
		numa_gather(walk->private, pte_pfn(pte), pte_dirty(pte), 1,
			    vma_page_anon(walk->vma, pfn_to_page(pte_pfn(pte))));
	return 0;
}

/* Linux's gather_pte_stats for a huge PMD: its pages all count, on the
 * THP's node (kernelpagesize_kB stays 4: a THP is not a VMA page size). */
static int numa_huge_pmd(pmd_t pmd, unsigned long addr, unsigned long next, struct mm_walk *walk)
{
	/* can_gather_numa_stats_pmd: the huge zero page is not a normal page. */
	if (!is_huge_zero_pmd(pmd))
		numa_gather(walk->private, pmd_pfn(pmd), pmd_val(pmd) & _PAGE_DIRTY, (next - addr) >> PAGE_SHIFT, true);
	return 0;
}

/* Linux's gather_hugetlb_stats: a hugetlb page counts once, whatever its
 * size (numa_maps prints " huge" and the VMA's kernelpagesize_kB). */
static int numa_hugetlb(pte_t pte, unsigned long hmask, unsigned long addr, unsigned long next,
			struct mm_walk *walk)
{
	(void)hmask, (void)addr, (void)next;
	if (pte_present(pte))
		/* A private mapping's own hugetlb page is anonymous to Linux
		 * (hugetlb_add_new_anon_rmap); a file's page is not, whoever
		 * maps it. */
		numa_gather(walk->private, pte_pfn(pte), pte_dirty(pte), 1, !page_in_file(pfn_to_page(pte_pfn(pte))));
	return 0;
}

static const struct mm_walk_ops numa_walk_ops = { .pte_entry = numa_pte, .huge_pmd_entry = numa_huge_pmd,
						  .hugetlb_entry = numa_hugetlb };

/* The page size of a VMA (Linux's vma_kernel_pagesize). */
static unsigned long vma_kernel_pagesize(const struct vm_area_struct *vma)
{
	return is_vm_hugetlb_page(vma) ? huge_page_size(hstate_vma(vma)) : PAGE_SIZE;
}

/* " file=<path>", the path escaped as Linux's seq_file_path(m, file,
 * "\n\t= ") does: those characters as \ooo (mangle_path). */
static void show_numa_file(struct seq_buf *m, struct file *file)
{
	char *buf = kmalloc(PATH_MAX, GFP_KERNEL);
	char *p = buf ? vma_file_path(file, buf) : NULL;
	if (p) {
		seq_buf_puts(m, " file=");
		for (; *p; p++) {
			if (*p == '\n' || *p == '\t' || *p == '=' || *p == ' ')
				seq_buf_printf(m, "\\%03o", (unsigned char)*p);
			else
				seq_buf_printf(m, "%c", *p);
		}
	}
	kfree(buf);
}

/* Linux's show_numa_map: "<start> <policy>[ file=<path>| heap| stack][ anon=N][ dirty=N]
 * [ N<n>=pages...] kernelpagesize_kB=4", the policy being the VMA's (a
 * shmem VMA's: its object's shared policy at vm_start), else the task's (mpol_to_str; the home node is not shown, as Linux does
 * not). */
void numa_maps_show(struct seq_buf *m, const struct proc_node *node)
{
	struct mm_struct *mm = node->mm;
	struct vm_area_struct *vma;
	if (!mm)
		return;
	struct mempolicy *task_pol = get_task_policy_ref(node->task);
	mmap_read_lock(mm);
	for_each_vma(mm, vma) {
		struct numa_maps md = { 0 };
		seq_buf_printf(m, "%08lx ", vma->vm_start);
		/* Linux's __get_vma_policy at vm_start: a shmem VMA shows its
		 * object's shared policy at the VMA's first offset. */
		struct mempolicy *pol = __get_vma_policy(vma, vma->vm_start);
		mpol_to_str(m, pol ? pol : task_pol);
		mpol_put(pol);
		struct file *file = vma_shown_file(vma);
		if (file)
			show_numa_file(m, file);
		else if (vma->vm_start <= mm->brk && vma->vm_end >= mm->start_brk)
			seq_buf_puts(m, " heap");
		else if (vma->vm_start <= mm->start_stack && vma->vm_end >= mm->start_stack)
			seq_buf_puts(m, " stack");
		if (is_vm_hugetlb_page(vma))
			seq_buf_puts(m, " huge");
		walk_page_vma(vma, &numa_walk_ops, &md);
		if (md.pages) {
			if (md.anon)
				seq_buf_printf(m, " anon=%lu", md.anon);
			if (md.dirty)
				seq_buf_printf(m, " dirty=%lu", md.dirty);
			if (md.pages != md.anon && md.pages != md.dirty)
				seq_buf_printf(m, " mapped=%lu", md.pages);
			if (md.mapcount_max > 1)
				seq_buf_printf(m, " mapmax=%lu", md.mapcount_max);
			/* Linux: active= only when fewer are active, never for
			 * hugetlb; no page is on an active LRU list here. */
			if (!is_vm_hugetlb_page(vma))
				seq_buf_puts(m, " active=0");
			for (int nid = 0; nid < MAX_NUMNODES; nid++)
				if (md.node[nid] && node_has_memory(nid))
					seq_buf_printf(m, " N%d=%lu", nid, md.node[nid]);
			seq_buf_printf(m, " kernelpagesize_kB=%lu", vma_kernel_pagesize(vma) >> 10);
		}
		seq_buf_puts(m, "\n");
	}
	mmap_read_unlock(mm);
	mpol_put(task_pol);
}

/* ---- smaps and smaps_rollup ---- */

/* Linux's struct mem_size_stats, for what exists here: bytes, and the
 * proportional figures in bytes << PSS_SHIFT. */
#define PSS_SHIFT 12
struct mem_size_stats {
	unsigned long resident, shared_clean, shared_dirty, private_clean, private_dirty;
	unsigned long referenced, anonymous, anonymous_thp, shmem_thp;
	unsigned long private_hugetlb, shared_hugetlb, swap;
	u64 pss, pss_anon, pss_shmem, pss_dirty, pss_locked, swap_pss;
};

/* Linux's smaps_page_accumulate. A page here is anonymous (Pss_Anon) or
 * of shared anonymous memory (Pss_Shmem); Pss_File stays 0. */
static void smaps_page_accumulate(struct mem_size_stats *mss, unsigned long size, u64 pss,
				  bool dirty, bool locked, bool private, bool anon)
{
	mss->pss += pss;
	if (anon)
		mss->pss_anon += pss;
	else
		mss->pss_shmem += pss;
	if (locked)
		mss->pss_locked += pss;
	if (dirty) {
		mss->pss_dirty += pss;
		if (private)
			mss->private_dirty += size;
		else
			mss->shared_dirty += size;
	} else {
		if (private)
			mss->private_clean += size;
		else
			mss->shared_clean += size;
	}
}

/* Linux's smaps_account for an anonymous page (or the head of a huge
 * PMD's order-9 page) mapped over size bytes: its mapcount (_mapcount + 1)
 * shares its Pss out; a page mapped once is private. No swap, KSM or
 * MADV_FREE-lazy pages here (MADV_FREE frees at once): LazyFree and KSM
 * stay 0. */
static void smaps_account(struct mem_size_stats *mss, struct page *page, unsigned long size,
			  bool young, bool dirty, bool locked, bool anon)
{
	if (anon)
		mss->anonymous += size;
	mss->resident += size;
	if (young)
		mss->referenced += size;
	/* Each 4 KiB page by its own map count (a THP's pages may be mapped
	 * by PTEs elsewhere too since a fork), as Linux's loop over the
	 * subpages. */
	struct page *thp = size > PAGE_SIZE ? page : NULL; /* a THP's head, mapped by a PMD */
	int entire = !thp ? 0
		     : page_test_flag(thp, PG_shmem_thp) ? (int)__atomic_load_n(shmem_thp_pmd_mapcount_ptr(thp), __ATOMIC_RELAXED)
						       : thp_entire_mapcount(thp);
	for (unsigned long off = 0; off < size; off += PAGE_SIZE, page++) {
		/* A THP's page: the THP's PMDs and its own PTEs (a tail never
		 * mapped by a PTE does not point to its head). */
		int mapcount = thp ? entire + page_mapcount_own(page) : page_mapcount(page);
		u64 pss = (u64)PAGE_SIZE << PSS_SHIFT;
		if (mapcount >= 2)
			pss /= (u64)mapcount;
		smaps_page_accumulate(mss, PAGE_SIZE, pss, dirty, locked, mapcount < 2, anon);
	}
}

/* Linux's smaps_pte_entry: a present PTE (PROT_NONE ones too, as x86's
 * pte_present says) of a normal page is counted. */
static int smaps_pte_entry(pte_t pte, unsigned long addr, struct mm_walk *walk)
{
	(void)addr;
	if (is_swap_pte(pte)) {
		/* Linux's: Swap, and SwapPss shared by the entries that name
		 * the slot (its count, continuations included: swp_swapcount). */
		struct mem_size_stats *mss = walk->private;
		int mapcount = (int)swp_swapcount(pte_to_swp_entry(pte));
		mss->swap += PAGE_SIZE;
		u64 pss = (u64)PAGE_SIZE << PSS_SHIFT;
		mss->swap_pss += mapcount >= 2 ? pss / (u64)mapcount : pss;
		return 0;
	}
	if (!pte_present(pte))
		return 0;
	struct page *page = vm_normal_page(pte);
	if (page)
		smaps_account(walk->private, page, PAGE_SIZE, pte_val(pte) & _PAGE_ACCESSED,
			      pte_val(pte) & _PAGE_DIRTY, walk->vma->vm_flags & VM_LOCKED, vma_page_anon(walk->vma, page));
	return 0;
}

/* Linux's smaps_pmd_entry: a huge PMD's anonymous page, also counted in
 * AnonHugePages. */
static int smaps_huge_pmd(pmd_t pmd, unsigned long addr, unsigned long next, struct mm_walk *walk)
{
	struct mem_size_stats *mss = walk->private;
	if (!pmd_present(pmd) || is_huge_zero_pmd(pmd))
		return 0; /* the huge zero page is not a normal page: not in Rss */
	unsigned long size = next - addr; /* HPAGE_PMD_SIZE: a huge PMD lies inside its VMA */
	struct page *page = pfn_to_page(pmd_pfn(pmd));
	bool shmem = page_test_flag(page, PG_shmem_thp); /* a tmpfs huge page (mm/shmem_huge.c) */
	if (shmem)
		mss->shmem_thp += size;
	else
		mss->anonymous_thp += size;
	smaps_account(mss, page, size, pmd_val(pmd) & _PAGE_ACCESSED, pmd_val(pmd) & _PAGE_DIRTY,
		      walk->vma->vm_flags & VM_LOCKED, !shmem);
	return 0;
}

/* Linux's smaps_hugetlb_range: a hugetlb page is in Private_Hugetlb (or
 * Shared_Hugetlb when mapped more than once), not in Rss or Anonymous. */
static int smaps_hugetlb(pte_t pte, unsigned long hmask, unsigned long addr, unsigned long next,
			 struct mm_walk *walk)
{
	(void)hmask;
	struct mem_size_stats *mss = walk->private;
	if (!pte_present(pte))
		return 0;
	if (page_mapcount(pfn_to_page(pte_pfn(pte))) >= 2)
		mss->shared_hugetlb += next - addr;
	else
		mss->private_hugetlb += next - addr;
	return 0;
}

static const struct mm_walk_ops smaps_walk_ops = {
	.pte_entry = smaps_pte_entry,
	.huge_pmd_entry = smaps_huge_pmd,
	.hugetlb_entry = smaps_hugetlb,
};

/* Linux's SEQ_PUT_DEC: a label, then kB in 8 columns. */
static void put_kb(struct seq_buf *m, const char *label, unsigned long bytes)
{
	seq_buf_printf(m, "%s%8lu kB\n", label, bytes >> 10);
}

/* Linux 6.12's __show_smap (the same lines through 6.18): the Pss_Anon,
 * _File and _Shmem lines only in smaps_rollup. File figures are 0: every
 * file is tmpfs, whose pages are shmem (a shmem page out on swap counts
 * in Swap: smap_gather_stats). */
static void __show_smap(struct seq_buf *m, const struct mem_size_stats *mss, bool rollup)
{
	put_kb(m, "Rss:            ", mss->resident);
	put_kb(m, "Pss:            ", (unsigned long)(mss->pss >> PSS_SHIFT));
	put_kb(m, "Pss_Dirty:      ", (unsigned long)(mss->pss_dirty >> PSS_SHIFT));
	if (rollup) {
		put_kb(m, "Pss_Anon:       ", (unsigned long)(mss->pss_anon >> PSS_SHIFT));
		put_kb(m, "Pss_File:       ", 0);
		put_kb(m, "Pss_Shmem:      ", (unsigned long)(mss->pss_shmem >> PSS_SHIFT));
	}
	put_kb(m, "Shared_Clean:   ", mss->shared_clean);
	put_kb(m, "Shared_Dirty:   ", mss->shared_dirty);
	put_kb(m, "Private_Clean:  ", mss->private_clean);
	put_kb(m, "Private_Dirty:  ", mss->private_dirty);
	put_kb(m, "Referenced:     ", mss->referenced);
	put_kb(m, "Anonymous:      ", mss->anonymous);
	put_kb(m, "KSM:            ", 0);
	put_kb(m, "LazyFree:       ", 0);
	put_kb(m, "AnonHugePages:  ", mss->anonymous_thp);
	put_kb(m, "ShmemPmdMapped: ", mss->shmem_thp);
	put_kb(m, "FilePmdMapped:  ", 0);
	put_kb(m, "Shared_Hugetlb: ", mss->shared_hugetlb);
	seq_buf_printf(m, "Private_Hugetlb: %7lu kB\n", mss->private_hugetlb >> 10);
	put_kb(m, "Swap:           ", mss->swap);
	put_kb(m, "SwapPss:        ", (unsigned long)(mss->swap_pss >> PSS_SHIFT));
	put_kb(m, "Locked:         ", (unsigned long)(mss->pss_locked >> PSS_SHIFT));
}

/* Linux's show_smap_vma_flags: two letters per VM_* bit set, in bit order
 * (the bits Linux names up to bit 31; mmlab sets only some of them). */
static void show_smap_vma_flags(struct seq_buf *m, unsigned long flags)
{
	static const char mnemonics[32][3] = {
		"rd", "wr", "ex", "sh", "mr", "mw", "me", "ms", "gd", "um", "pf", "",
		"uw", "lo", "io", "sr", "rr", "dc", "de", "lf", "ac", "nr", "ht", "sf",
		"ar", "wf", "dd", "sd", "mm", "hg", "nh", "mg",
	};
	seq_buf_puts(m, "VmFlags: ");
	for (unsigned i = 0; i < 32; i++)
		if (mnemonics[i][0] && (flags & (1ul << i)))
			seq_buf_printf(m, "%s ", mnemonics[i]);
	seq_buf_puts(m, "\n");
}

/* Walks one VMA's page tables into mss (mmap_lock held). */
static void smap_gather_stats(struct vm_area_struct *vma, struct mem_size_stats *mss)
{
	walk_page_vma(vma, &smaps_walk_ops, mss);
	/* Linux's smap_gather_stats for a shared shmem mapping: its object's
	 * pages out on swap, in the range it maps (shmem_swap_usage; its
	 * PTEs hold no swap entries: they went when the pages did). A
	 * private mapping of a tmpfs file is left to its swap entries, as
	 * Linux walks one that may hold copies (smaps_shmem_walk_ops; here
	 * without its count of the file's swapped pages under holes). */
	if (vma->vm_shm && vma->vm_shm->mapping && shmem_mapping(vma->vm_shm->mapping)) {
		unsigned long pages = (vma->vm_end - vma->vm_start) >> PAGE_SHIFT;
		mss->swap += shmem_swap_usage(vma->vm_shm->mapping, vma->vm_pgoff, vma->vm_pgoff + pages - 1);
	}
}

/* Linux 6.12's show_smap, for each VMA. THPeligible: whether a THP may
 * back part of it (mm/huge_memory.c's thp_vma_eligible); no ProtectionKey
 * line (no pkeys). */
void smaps_show(struct seq_buf *m, const struct proc_node *node)
{
	struct mm_struct *mm = node->mm;
	struct vm_area_struct *vma;
	if (!mm)
		return;
	mmap_read_lock(mm);
	for_each_vma(mm, vma) {
		struct mem_size_stats mss = { 0 };
		smap_gather_stats(vma, &mss);
		show_map_vma(m, mm, vma);
		put_kb(m, "Size:           ", vma->vm_end - vma->vm_start);
		put_kb(m, "KernelPageSize: ", vma_kernel_pagesize(vma));
		put_kb(m, "MMUPageSize:    ", vma_kernel_pagesize(vma));
		__show_smap(m, &mss, false);
		seq_buf_printf(m, "THPeligible:    %8u\n", thp_vma_eligible(vma) ? 1u : 0u);
		show_smap_vma_flags(m, vma->vm_flags);
	}
	mmap_read_unlock(mm);
}

/* Linux's show_smaps_rollup: every VMA's figures summed, under a header
 * from the first VMA's start to the last one's end ("---p", no name but
 * [rollup]); 0-0 without VMAs. */
void smaps_rollup_show(struct seq_buf *m, const struct proc_node *node)
{
	struct mm_struct *mm = node->mm;
	struct vm_area_struct *vma;
	struct mem_size_stats mss = { 0 };
	unsigned long start = 0, end = 0;
	if (!mm) /* not reached: the entry needs an mm (-ESRCH) */
		return;
	mmap_read_lock(mm);
	for_each_vma(mm, vma) {
		if (!end)
			start = vma->vm_start;
		smap_gather_stats(vma, &mss);
		end = vma->vm_end;
	}
	mmap_read_unlock(mm);
	size_t line = m->len;
	show_vma_header_prefix(m, start, end, 0, 0, 0, 0);
	show_vma_name(m, line, "[rollup]");
	seq_buf_puts(m, "\n");
	__show_smap(m, &mss, true);
}
