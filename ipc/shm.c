/* System V shared memory segments (Linux's ipc/shm.c): their making
 * (shmget), attaching (shmat), detaching (shmdt) and the attach count
 * kept by the VMAs that map them. ipc/shm.h has the rules; shmctl,
 * /proc/sysvipc/shm and the sysctls are ipc/shm_ctl.c's. */
#include "ipc/shm.h"
#include "kernel/sched.h"
#include "kernel/syscall.h"
#include "kernel/time.h"
#include "fs/fs.h"
#include "fs/hugetlbfs/hugetlbfs.h"
#include "lib/vsprintf.h"
#include "lib/err.h"
#include "mm/mmap.h"
#include "mm/hugetlb.h"
#include "mm/mm_types.h"
#include "mm/mmap_lock.h"
#include "mm/shmem.h"
#include "mm/slab.h"
#include "mm/util.h"

static struct kern_ipc_perm *shm_entries[IPCMNI];
struct ipc_ids shm_ids = IPC_IDS_INIT(shm_ids, shm_entries);

/* Linux's shm_init_ns. */
unsigned long shm_ctlmax = SHMMAX, shm_ctlall = SHMALL, shm_tot;
int shm_ctlmni = SHMMNI;

int shm_segments_in_use(void)
{
	return READ_ONCE(shm_ids.in_use);
}

unsigned long shm_rss_pages(const struct shmid_kernel *shp)
{
	const struct shmem_object *obj = shp->shm_file;
	/* Linux's shm_add_rss_swap: a hugetlb segment's huge pages, in
	 * 4 KiB pages. */
	if (is_file_hugepages(obj->file))
		return READ_ONCE(obj->mapping->nrpages) * pages_per_huge_page(hstate_file(obj->file));
	return READ_ONCE(obj->mapping->nrpages);
}

/* Linux's shm_may_destroy without kernel.shm_rmid_forced (mmlab has not
 * that sysctl: a segment goes only after IPC_RMID). */
static bool shm_may_destroy(const struct shmid_kernel *shp)
{
	return shp->shm_nattch == 0 && (shp->shm_perm.mode & SHM_DEST);
}

/* With shm_ids.rwsem held for writing: the segment leaves the table and
 * its reference to the pages goes (the last one unless a get_user_pages
 * reference holds a page). No VMA maps it (nattch is 0), so no attach
 * can come any more: the object stops counting them. */
void shm_destroy(struct shmid_kernel *shp)
{
	struct shmem_object *obj = shp->shm_file;
	shm_tot -= (shp->shm_segsz + PAGE_SIZE - 1) >> PAGE_SHIFT;
	ipc_rmid(&shm_ids, &shp->shm_perm);
	obj->attach_ops = NULL;
	obj->attach_data = NULL;
	shmem_put(obj);
	kfree(shp);
}

/* Linux's __shm_open: a VMA of the segment is made (shmat's, a split's
 * piece, fork's copy). The segment lives while a VMA maps it. */
static void shm_open(struct shmem_object *obj)
{
	struct shmid_kernel *shp = obj->attach_data;
	down_write(&shm_ids.rwsem);
	shp->shm_atim = ktime_get_real_seconds();
	shp->shm_lprid = current->tgid;
	shp->shm_nattch++;
	up_write(&shm_ids.rwsem);
}

/* Linux's shm_close: a VMA of the segment goes (munmap, shmdt, exit,
 * execve); the last detach destroys a segment marked SHM_DEST. */
static void shm_close(struct shmem_object *obj)
{
	struct shmid_kernel *shp = obj->attach_data;
	down_write(&shm_ids.rwsem);
	shp->shm_lprid = current->tgid;
	shp->shm_dtim = ktime_get_real_seconds();
	shp->shm_nattch--;
	if (shm_may_destroy(shp))
		shm_destroy(shp);
	up_write(&shm_ids.rwsem);
}

static const struct shmem_attach_ops shm_attach_ops = {
	.open = shm_open, .close = shm_close,
};

/* Whether vma maps a segment (Linux's vma->vm_ops == &shm_vm_ops). */
static bool vma_is_shm(const struct vm_area_struct *vma)
{
	return vma->vm_shm && vma->vm_shm->attach_ops == &shm_attach_ops;
}

/* Linux's newseg for SHM_HUGETLB: the size bits name a pool (-EINVAL
 * when none), the size is rounded up to its page size, and the segment's
 * pages are an unlinked file "SYSV<key>" on the kernel's hugetlbfs
 * instance, reserved now unless SHM_NORESERVE (hugetlb_file_setup:
 * -ENOMEM when the pool cannot). Linux lets only a user with
 * CAP_IPC_LOCK or in vm.hugetlb_shm_group make one without charging
 * RLIMIT_MEMLOCK; mmlab's one user is root, who may. */
static struct shmem_object *newseg_hugetlb(const struct ipc_params *params, int *err)
{
	int sizelog = (params->flg >> SHM_HUGE_SHIFT) & SHM_HUGE_MASK;
	struct hstate *hs = hstate_sizelog((unsigned)sizelog);
	*err = -EINVAL;
	if (!hs)
		return NULL;
	size_t hugesize = ALIGN_UP(params->size, huge_page_size(hs));
	char name[16];
	snprintf(name, sizeof(name), "SYSV%08x", (unsigned int)params->key);
	struct file *file = hugetlb_file_setup(name, hugesize, params->flg & SHM_NORESERVE ? VM_NORESERVE : 0,
					       HUGETLB_SHMFS_INODE, sizelog);
	if (IS_ERR(file)) {
		*err = (int)PTR_ERR(file);
		return NULL;
	}
	struct shmem_object *obj = shmem_file_object(file);
	fput(file); /* the object's reference, or none */
	*err = obj ? 0 : -ENOMEM;
	return obj;
}

/* Linux's newseg, in its order of checks, with shm_ids.rwsem held for
 * writing: the size against SHMMIN and shmmax (-EINVAL), the pages
 * against shmall (-ENOSPC), the pages' commit (-ENOMEM, unless
 * SHM_NORESERVE outside OVERCOMMIT_NEVER), then a slot (-ENOSPC past
 * shmmni). */
static int newseg(struct ipc_params *params)
{
	size_t size = params->size;
	int shmflg = params->flg;
	unsigned long numpages = (size + PAGE_SIZE - 1) >> PAGE_SHIFT;
	if (size < SHMMIN || size > shm_ctlmax)
		return -EINVAL;
	if (numpages << PAGE_SHIFT < size)
		return -ENOSPC;
	if (shm_tot + numpages < shm_tot || shm_tot + numpages > shm_ctlall)
		return -ENOSPC;
	struct shmid_kernel *shp = kzalloc(sizeof(*shp), GFP_KERNEL);
	if (!shp)
		return -ENOMEM;
	shp->shm_perm.key = params->key;
	shp->shm_perm.mode = (unsigned int)shmflg & S_IRWXUGO;
	int err;
	struct shmem_object *obj = (shmflg & SHM_HUGETLB) ? newseg_hugetlb(params, &err) : NULL;
	if (!(shmflg & SHM_HUGETLB)) {
		/* Linux's shmem_kernel_file_setup: the size charged to the
		 * commit (shmem_acct_size) unless VM_NORESERVE, which
		 * OVERCOMMIT_NEVER never grants. */
		bool noreserve = (shmflg & SHM_NORESERVE) && READ_ONCE(sysctl_overcommit_memory) != OVERCOMMIT_NEVER;
		/* The file is named "SYSV<key>" at shmget, so IPC_RMID's
		 * private key does not rename it: /proc/<pid>/maps shows
		 * "/SYSV<key> (deleted)" (fs/proc/task_mmu.c). */
		char name[16];
		snprintf(name, sizeof(name), "SYSV%08x", (unsigned int)params->key);
		obj = shmem_object_alloc(current->mm, name, numpages << PAGE_SHIFT, noreserve, &err);
	}
	if (!obj) {
		kfree(shp);
		return err;
	}
	shp->shm_cprid = current->tgid;
	shp->shm_ctim = ktime_get_real_seconds();
	shp->shm_segsz = size;
	shp->shm_file = obj;
	err = ipc_addid(&shm_ids, &shp->shm_perm, READ_ONCE(shm_ctlmni));
	if (err < 0) {
		shmem_put(obj);
		kfree(shp);
		return err;
	}
	obj->attach_data = shp;
	obj->attach_ops = &shm_attach_ops;
	/* Linux's newseg: the file's inode number is the segment's id,
	 * what /proc/<pid>/maps shows of an attach. */
	obj->file->f_inode->i_ino = (unsigned long)shp->shm_perm.id;
	shm_tot += numpages;
	return shp->shm_perm.id;
}

/* Linux's shm_more_checks: an existing segment smaller than asked. */
static int shm_more_checks(struct kern_ipc_perm *ipcp, struct ipc_params *params)
{
	struct shmid_kernel *shp = container_of(ipcp, struct shmid_kernel, shm_perm);
	return shp->shm_segsz < params->size ? -EINVAL : 0;
}

long ksys_shmget(key_t key, size_t size, int shmflg)
{
	static const struct ipc_ops shm_ops = { .getnew = newseg, .more_checks = shm_more_checks };
	struct ipc_params params = { .key = key, .flg = shmflg, .size = size };
	return ipcget(&shm_ids, &shm_ops, &params);
}

SYSCALL_DEFINE3(shmget, key_t, key, size_t, size, int, shmflg)
{
	return ksys_shmget(key, size, shmflg);
}

/* Linux's do_shmat, in its order of checks: the address (-EINVAL:
 * unaligned without SHM_RND, SHM_REMAP without an address or rounded to
 * 0), the id (-EINVAL), the mode (-EACCES: read, and write unless
 * SHM_RDONLY, exec with SHM_EXEC), then, unless SHM_REMAP, a range that
 * overlaps a mapping (-EINVAL), then the mapping itself. The segment is
 * held across the mapping by a count of its own (nattch + 1), so an
 * IPC_RMID meanwhile destroys it only after. */
long do_shmat(int shmid, unsigned long addr, int shmflg, unsigned long *raddr)
{
	struct mm_struct *mm = current->mm;
	unsigned long flags = MAP_SHARED, prot;
	short acc_mode;
	if (shmid < 0)
		return -EINVAL;
	if (addr) {
		if (addr & (SHMLBA - 1)) {
			if (!(shmflg & SHM_RND))
				return -EINVAL; /* SHMLBA is the page size on x86 */
			addr &= ~(SHMLBA - 1);
			if (!addr && (shmflg & SHM_REMAP))
				return -EINVAL;
		}
		flags |= MAP_FIXED;
	} else if (shmflg & SHM_REMAP) {
		return -EINVAL;
	}
	if (shmflg & SHM_RDONLY) {
		prot = PROT_READ;
		acc_mode = S_IRUGO;
	} else {
		prot = PROT_READ | PROT_WRITE;
		acc_mode = S_IRUGO | S_IWUGO;
	}
	if (shmflg & SHM_EXEC) {
		prot |= PROT_EXEC;
		acc_mode |= S_IXUGO;
	}

	down_write(&shm_ids.rwsem);
	struct kern_ipc_perm *ipcp = ipc_obtain_object_check(&shm_ids, shmid);
	if (IS_ERR(ipcp)) {
		up_write(&shm_ids.rwsem);
		return PTR_ERR(ipcp);
	}
	if (ipcperms(ipcp, acc_mode)) {
		up_write(&shm_ids.rwsem);
		return -EACCES;
	}
	struct shmid_kernel *shp = container_of(ipcp, struct shmid_kernel, shm_perm);
	struct shmem_object *obj = shp->shm_file;
	unsigned long size = shp->shm_segsz;
	shp->shm_nattch++;
	up_write(&shm_ids.rwsem);

	long err = 0;
	bool populate = false;
	mmap_write_lock(mm);
	if (addr && !(shmflg & SHM_REMAP) && (addr + size < addr || find_vma_intersection(mm, addr, addr + size)))
		err = -EINVAL;
	if (!err) {
		addr = do_mmap_shmem_locked(mm, addr, size, prot, flags, obj, &populate);
		if (IS_ERR_VALUE(addr))
			err = (long)addr;
		else
			*raddr = addr;
	}
	if (populate) { /* MAP_LOCKED after mlockall(MCL_FUTURE) */
		mmap_write_downgrade(mm);
		__mm_populate(mm, addr, PAGE_ALIGN(size), true);
		mmap_read_unlock(mm);
	} else {
		mmap_write_unlock(mm);
	}

	down_write(&shm_ids.rwsem);
	shp->shm_nattch--;
	if (shm_may_destroy(shp))
		shm_destroy(shp);
	up_write(&shm_ids.rwsem);
	return err;
}

SYSCALL_DEFINE3(shmat, int, shmid, unsigned long, shmaddr, int, shmflg)
{
	unsigned long ret;
	long err = do_shmat(shmid, shmaddr, shmflg, &ret);
	return err ? err : (long)ret;
}

/* Linux's ksys_shmdt: the VMA of a segment that starts at addr (its
 * first page there, vm_pgoff 0 at addr) goes, then every other piece of
 * the same segment within its size from addr whose offset matches (what
 * mprotect or munmap split off); -EINVAL when none starts there. */
long ksys_shmdt(unsigned long addr)
{
	struct mm_struct *mm = current->mm;
	long retval = -EINVAL;
	if (addr & ~PAGE_MASK)
		return retval;
	mmap_write_lock(mm);
	struct vm_area_struct *vma = find_vma(mm, addr), *next;
	struct shmem_object *obj = NULL;
	unsigned long size = 0;
	while (vma) {
		next = vma_next(vma);
		if (vma_is_shm(vma) && (vma->vm_start - addr) / PAGE_SIZE == vma->vm_pgoff) {
			obj = vma->vm_shm;
			size = obj->size << PAGE_SHIFT;
			do_munmap_locked(mm, vma->vm_start, vma->vm_end - vma->vm_start);
			retval = 0;
			vma = next;
			break;
		}
		vma = next;
	}
	while (vma && vma->vm_end - addr <= size) {
		next = vma_next(vma);
		if (vma_is_shm(vma) && (vma->vm_start - addr) / PAGE_SIZE == vma->vm_pgoff && vma->vm_shm == obj)
			do_munmap_locked(mm, vma->vm_start, vma->vm_end - vma->vm_start);
		vma = next;
	}
	mmap_write_unlock(mm);
	return retval;
}

SYSCALL_DEFINE1(shmdt, unsigned long, shmaddr)
{
	return ksys_shmdt(shmaddr);
}
