/* memfd_secret 447 (Linux 6.1's mm/secretmem.c): an unlinked file on an
 * internal mount of its own, "secretmem", whose pages leave the kernel's
 * direct map when they are faulted in and come back to it just before
 * they are freed. mm/secretmem.h says what refuses to reach them.
 *
 * What a secretmem file allows, as Linux's:
 *   - flags 0 or O_CLOEXEC (-EINVAL otherwise); -ENOSYS when disabled
 *     (secretmem.enable=0 on the command line);
 *   - ftruncate, once, from size 0 (-EINVAL after: secretmem_setattr);
 *   - mmap MAP_SHARED only (-EINVAL for MAP_PRIVATE), locked (VM_LOCKED,
 *     counted in VmLck and against RLIMIT_MEMLOCK: -EAGAIN past it
 *     without CAP_IPC_LOCK; munlock leaves it locked), never dumped
 *     (VM_DONTDUMP), never executable (the mount is noexec: PROT_EXEC is
 *     -EPERM);
 *   - no read, write, pread, pwrite (no such methods: -EINVAL, and -ESPIPE
 *     for the positioned ones), no fallocate (-EOPNOTSUPP).
 *
 * mmlab's differences: the file is a tmpfs inode (mm/shmem.c keeps its
 * page cache and its mappings) on a second internal tmpfs instance with
 * statfs's f_type SECRETMEM_MAGIC, where Linux's is an anonymous inode on
 * a pseudo file system; and secretmem.enable defaults to on, Linux 6.5's
 * default ("mm/secretmem: make it on by default", Mike Rapoport), where
 * Linux 6.1 (which this follows otherwise) has it off.
 *
 * The cost of taking a page out of the direct map is that the 1 GiB or
 * 2 MiB leaf mapping it is split while the page is out (mm/set_memory.c,
 * set_direct_map_invalid_noflush): /proc/meminfo's DirectMap4k grows
 * until the last secret page of the range is freed.
 *
 * Locking: a page is added to the page cache after it left the direct
 * map, and is flushed from every TLB before it is mapped: the
 * fault's flush_tlb_kernel_range runs before it returns the page. Two
 * faults racing on one index settle in the page cache (-EEXIST: the loser
 * puts its page back in the direct map and frees it). */
#include "mm/secretmem.h"
#include "arch/x86_64/tlb.h"
#include "fs/file.h"
#include "fs/fs_context.h"
#include "fs/fs.h"
#include "fs/internal.h"
#include "fs/mount.h"
#include "kernel/cmdline.h"
#include "kernel/init.h"
#include "kernel/printk.h"
#include "kernel/sched.h"
#include "kernel/syscall.h"
#include "kernel/unistd.h"
#include "lib/err.h"
#include "lib/string.h"
#include "fs/dcache.h"
#include "mm/filemap.h"
#include "mm/kernel_map.h"
#include "mm/memory.h"
#include "mm/mempolicy.h"
#include "mm/mmap.h"
#include "mm/page_alloc.h"
#include "mm/rmap.h"
#include "mm/shmem.h"
#include "mm/shmem_fs.h"
#include "mm/vma.h"

#define SECRETMEM_MAGIC 0x5345434d /* "SECM" */
#define SECRETMEM_FLAGS_MASK 0

static bool secretmem_enable = true;
kernel_param_flag("secretmem.enable", secretmem_enable,
		  "memfd_secret(2) (Linux 6.1 defaults it off, 6.5 on: mmlab on)");

static int secretmem_users; /* open secretmem files; atomic */
static struct vfsmount *secretmem_mnt;
static struct inode_operations secretmem_iops; /* tmpfs's, with secretmem_setattr */
static const struct inode_operations *shmem_file_iops;
static const struct file_operations secretmem_fops;
static const struct address_space_operations secretmem_aops;

bool secretmem_active(void) { return __atomic_load_n(&secretmem_users, __ATOMIC_RELAXED) != 0; }

bool secretmem_mapping(const struct address_space *mapping) { return mapping && mapping->a_ops == &secretmem_aops; }

bool vma_is_secretmem(const struct vm_area_struct *vma)
{
	return vma->vm_file && vma->vm_file->f_op == &secretmem_fops;
}

/* Linux's page_is_secretmem: an anonymous page's mapping word is tagged
 * (PAGE_MAPPING_ANON) and is no address_space; a page-cache page's may
 * be cleared meanwhile (truncate), never freed under the caller's
 * reference. */
bool page_is_secretmem(struct page *page)
{
	if (!secretmem_active())
		return false;
	struct address_space *mapping = READ_ONCE(compound_head(page)->mapping);
	if (!mapping || ((unsigned long)mapping & PAGE_MAPPING_ANON))
		return false;
	return secretmem_mapping(mapping);
}

struct page *secretmem_get_page(struct address_space *mapping, struct vm_area_struct *vma, unsigned long address,
				unsigned int *ret)
{
	struct inode *inode = mapping->host;
	unsigned long index = linear_page_index(vma, address);
	if (!filemap_index_in_size(inode, index)) {
		*ret = VM_FAULT_SIGBUS; /* vmf_error(-EINVAL) */
		return NULL;
	}
	for (;;) {
		struct page *page = filemap_get_folio(mapping, index);
		if (page)
			return page;
		/* GFP_HIGHUSER, not movable: migration is refused anyway;
		 * placed by the task's policy, as Linux's folio_alloc. */
		page = alloc_pages_mpol(GFP_HIGHUSER | __GFP_ZERO, 0, current->mempolicy, index);
		if (!page) {
			*ret = VM_FAULT_OOM;
			return NULL;
		}
		if (set_direct_map_invalid_noflush(page)) {
			__free_page(page);
			*ret = VM_FAULT_OOM; /* vmf_error(-ENOMEM) */
			return NULL;
		}
		int err = __filemap_add_folio(mapping, page, index, GFP_KERNEL);
		if (!err) {
			unsigned long addr = (unsigned long)page_address(page);
			flush_tlb_kernel_range(addr, addr + PAGE_SIZE);
			return page; /* the allocation's reference is the caller's */
		}
		/* The split was made when the page left the direct map, so
		 * putting it back needs no table: it cannot fail. */
		set_direct_map_default_noflush(page);
		__free_page(page);
		if (err != -EEXIST) {
			*ret = VM_FAULT_OOM;
			return NULL;
		}
	}
}

/* Linux's secretmem_free_folio: back in the direct map, and zeroed, as
 * it leaves the page cache (unmapped everywhere by then: truncate and
 * the inode's end unmap first). */
static void secretmem_free_folio(struct page *page)
{
	set_direct_map_default_noflush(page);
	memset(page_address(page), 0, PAGE_SIZE);
}

static int secretmem_migrate_folio(struct address_space *mapping, struct page *new, struct page *old)
{
	(void)mapping, (void)new, (void)old;
	return -EBUSY;
}

static const struct address_space_operations secretmem_aops = {
	.free_folio = secretmem_free_folio,
	.migrate_folio = secretmem_migrate_folio,
};

/* Linux's secretmem_setattr: the size may be set while it is 0, once. */
static int secretmem_setattr(struct dentry *dentry, struct iattr *attr)
{
	struct inode *inode = dentry->d_inode;
	if ((attr->ia_valid & ATTR_SIZE) && inode->i_size)
		return -EINVAL;
	return shmem_file_iops->setattr(dentry, attr);
}

static int secretmem_mmap(struct file *file, struct vm_area_struct *vma)
{
	unsigned long len = vma->vm_end - vma->vm_start;
	if (!(vma->vm_flags & (VM_SHARED | VM_MAYSHARE)))
		return -EINVAL;
	if (!mlock_future_ok(vma->vm_mm, vma->vm_flags | VM_LOCKED, len))
		return -EAGAIN;
	vma_set_flags(vma, vma->vm_flags | VM_LOCKED | VM_DONTDUMP);
	return shmem_mmap(file, vma);
}

static void secretmem_release(struct inode *inode, struct file *file)
{
	(void)inode, (void)file;
	__atomic_sub_fetch(&secretmem_users, 1, __ATOMIC_RELAXED);
}

static const struct file_operations secretmem_fops = {
	.mmap = secretmem_mmap,
	.release = secretmem_release,
};

static struct file *secretmem_file_create(void)
{
	/* Linux's anon_inode_make_secure_inode: S_IRUSR | S_IWUSR, then
	 * S_IFREG ("pretend we are a normal file with zero size"). */
	struct inode *inode = shmem_get_inode(secretmem_mnt->mnt_sb, NULL, S_IFREG | 0600, 0);
	if (!inode)
		return ERR_PTR(-ENOMEM);
	clear_nlink(inode);
	inode->i_op = &secretmem_iops;
	inode->i_fop = &secretmem_fops;
	inode->i_mapping->a_ops = &secretmem_aops;
	inode->i_size = 0;
	return alloc_file_pseudo(inode, secretmem_mnt, "secretmem", O_RDWR | O_LARGEFILE);
}

SYSCALL_DEFINE1(memfd_secret, unsigned int, flags)
{
	if (!secretmem_enable || !secretmem_mnt)
		return -ENOSYS;
	if (flags & ~(SECRETMEM_FLAGS_MASK | O_CLOEXEC))
		return -EINVAL;
	struct files_struct *files = current->files;
	int fd = alloc_fd(files);
	if (fd < 0)
		return fd;
	struct file *file = secretmem_file_create();
	if (IS_ERR(file)) {
		put_unused_fd(files, fd);
		return PTR_ERR(file);
	}
	__atomic_add_fetch(&secretmem_users, 1, __ATOMIC_RELAXED);
	set_close_on_exec(files, fd, flags & O_CLOEXEC);
	fd_install(files, fd, file);
	return fd;
}

/* Linux's secretmem_init: the mount, noexec so that no secret page is
 * ever executable. */
static int secretmem_init(void)
{
	if (!secretmem_enable)
		return 0;
	struct vfsmount *m = vfs_kern_mount(get_fs_type("tmpfs"), SB_KERNMOUNT, MNT_NOEXEC, "secretmem", NULL);
	if (IS_ERR(m)) {
		pr_warn("secretmem: no mount (%ld): memfd_secret is ENOSYS\n", PTR_ERR(m));
		return 0;
	}
	m->mnt_sb->s_magic = SECRETMEM_MAGIC;
	/* tmpfs's regular-file operations, with the size rule of ours. */
	struct inode *probe = shmem_get_inode(m->mnt_sb, NULL, S_IFREG | 0600, 0);
	if (!probe) {
		pr_warn("secretmem: no inode: memfd_secret is ENOSYS\n");
		return 0;
	}
	shmem_file_iops = probe->i_op;
	secretmem_iops = *probe->i_op;
	secretmem_iops.setattr = secretmem_setattr;
	clear_nlink(probe);
	iput(probe);
	secretmem_mnt = m;
	return 0;
}
late_initcall(secretmem_init);
