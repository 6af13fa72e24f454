/* unmap_mapping_range and truncate_pagecache: mm/truncate.h has the
 * rules. */
#include "mm/truncate.h"
#include "fs/fs.h"
#include "mm/filemap.h"
#include "mm/interval_tree.h"
#include "mm/mmap.h"
#include "mm/teardown.h"

void unmap_mapping_pages(struct address_space *mapping, unsigned long start, unsigned long nr, bool even_cows)
{
	unsigned long first = start, last = start + nr - 1;
	if (!nr || last < first)
		last = ~0ul;
	down_read(&mapping->i_mmap_rwsem);
	struct vm_area_struct *vma;
	vma_interval_tree_foreach(vma, &mapping->i_mmap, first, last) {
		unsigned long vba = vma->vm_pgoff, vea = vba + ((vma->vm_end - vma->vm_start) >> PAGE_SHIFT) - 1;
		unsigned long zba = max(first, vba), zea = min(last, vea);
		unmap_mapping_range_vma(vma, vma->vm_start + ((zba - vba) << PAGE_SHIFT),
					vma->vm_start + ((zea - vba + 1) << PAGE_SHIFT), even_cows);
	}
	up_read(&mapping->i_mmap_rwsem);
}

bool try_unmap_mapping_pages(struct address_space *mapping, unsigned long start, unsigned long nr)
{
	unsigned long first = start, last = start + nr - 1;
	if (!down_read_trylock(&mapping->i_mmap_rwsem))
		return false;
	struct vm_area_struct *vma;
	vma_interval_tree_foreach(vma, &mapping->i_mmap, first, last) {
		unsigned long vba = vma->vm_pgoff, vea = vba + ((vma->vm_end - vma->vm_start) >> PAGE_SHIFT) - 1;
		unsigned long zba = max(first, vba), zea = min(last, vea);
		unmap_mapping_range_vma(vma, vma->vm_start + ((zba - vba) << PAGE_SHIFT),
					vma->vm_start + ((zea - vba + 1) << PAGE_SHIFT), false);
	}
	up_read(&mapping->i_mmap_rwsem);
	return true;
}

void unmap_mapping_range(struct address_space *mapping, long holebegin, long holelen, bool even_cows)
{
	unsigned long hba = (unsigned long)holebegin >> PAGE_SHIFT;
	unsigned long hlen = ((unsigned long)holelen + PAGE_SIZE - 1) >> PAGE_SHIFT;
	unmap_mapping_pages(mapping, hba, hlen, even_cows);
}

unsigned long truncate_pagecache(struct inode *inode, long newsize)
{
	struct address_space *mapping = inode->i_mapping;
	long holebegin = (long)PAGE_ALIGN((unsigned long)newsize);
	/* Linux's comment: unmap first, so that a page is not unmapped
	 * while still in the cache (a fault would find and map it again),
	 * then drop the pages, then unmap again for the private copies
	 * that faults made meanwhile. */
	unmap_mapping_range(mapping, holebegin, 0, true);
	unsigned long removed = truncate_inode_pages(mapping, newsize);
	unmap_mapping_range(mapping, holebegin, 0, true);
	return removed;
}

unsigned long truncate_pagecache_range(struct inode *inode, long lstart, long lend)
{
	struct address_space *mapping = inode->i_mapping;
	long unmap_start = (long)PAGE_ALIGN((unsigned long)lstart);
	long unmap_end = (long)((unsigned long)(lend + 1) & PAGE_MASK) - 1;
	if (unmap_end <= unmap_start)
		return truncate_inode_pages_range(mapping, lstart, lend);
	unmap_mapping_range(mapping, unmap_start, 1 + unmap_end - unmap_start, false);
	unsigned long removed = truncate_inode_pages_range(mapping, lstart, lend);
	/* Where Linux's truncate_inode_pages_range unmaps a page it finds
	 * still mapped (a fault that found it before it went), mmlab unmaps
	 * the range again (mm/truncate.h's rule for faults). */
	unmap_mapping_range(mapping, unmap_start, 1 + unmap_end - unmap_start, false);
	return removed;
}
