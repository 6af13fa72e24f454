/* shmctl(2), /proc/sysvipc/shm and the shm sysctls (Linux's ipc/shm.c
 * ksys_shmctl and sysvipc_shm_proc_show, ipc/ipc_sysctl.c): what can be
 * asked and changed of the segments ipc/shm.c makes. Every answer is
 * built under shm_ids.rwsem and copied to user memory after it is
 * dropped (ipc/util.h: a fault must not happen under it). */
#include "arch/x86_64/uaccess.h"
#include "ipc/shm.h"
#include "arch/x86_64/page.h"
#include "kernel/syscall.h"
#include "kernel/sysctl.h"
#include "kernel/time.h"
#include "lib/err.h"
#include "lib/string.h"
#include "mm/shmem.h"

int shmctl_ipc_info(struct shminfo64 *shminfo)
{
	memset(shminfo, 0, sizeof(*shminfo));
	shminfo->shmmni = shminfo->shmseg = (unsigned long)READ_ONCE(shm_ctlmni);
	shminfo->shmmax = READ_ONCE(shm_ctlmax);
	shminfo->shmall = READ_ONCE(shm_ctlall);
	shminfo->shmmin = SHMMIN;
	down_read(&shm_ids.rwsem);
	int err = ipc_get_maxidx(&shm_ids);
	up_read(&shm_ids.rwsem);
	return err < 0 ? 0 : err;
}

int shmctl_shm_info(struct shm_info *shm_info)
{
	memset(shm_info, 0, sizeof(*shm_info));
	down_read(&shm_ids.rwsem);
	shm_info->used_ids = shm_ids.in_use;
	/* Linux's shm_get_stat: the pages present; nothing is swapped. */
	for (int idx = 0; idx <= shm_ids.max_idx; idx++)
		if (shm_ids.entries[idx])
			shm_info->shm_rss +=
				shm_rss_pages(container_of(shm_ids.entries[idx], struct shmid_kernel, shm_perm));
	shm_info->shm_tot = shm_tot;
	int err = ipc_get_maxidx(&shm_ids);
	up_read(&shm_ids.rwsem);
	return err < 0 ? 0 : err;
}

/* Linux's shmctl_stat: IPC_STAT finds the id (its sequence checked),
 * SHM_STAT and SHM_STAT_ANY an index (and answer the id); all but
 * SHM_STAT_ANY need read permission (-EACCES). */
int shmctl_stat(int shmid, int cmd, struct shmid64_ds *tbuf)
{
	memset(tbuf, 0, sizeof(*tbuf));
	down_read(&shm_ids.rwsem);
	struct kern_ipc_perm *ipcp = cmd == IPC_STAT ? ipc_obtain_object_check(&shm_ids, shmid)
						     : ipc_obtain_object_idr(&shm_ids, shmid);
	int err;
	if (IS_ERR(ipcp)) {
		err = PTR_ERR(ipcp);
	} else if (cmd != SHM_STAT_ANY && ipcperms(ipcp, S_IRUGO)) {
		err = -EACCES;
	} else {
		struct shmid_kernel *shp = container_of(ipcp, struct shmid_kernel, shm_perm);
		kernel_to_ipc64_perm(&shp->shm_perm, &tbuf->shm_perm);
		tbuf->shm_segsz = shp->shm_segsz;
		tbuf->shm_atime = shp->shm_atim;
		tbuf->shm_dtime = shp->shm_dtim;
		tbuf->shm_ctime = shp->shm_ctim;
		tbuf->shm_cpid = shp->shm_cprid;
		tbuf->shm_lpid = shp->shm_lprid;
		tbuf->shm_nattch = shp->shm_nattch;
		/* "As defined in SUS: return 0 on success"; SHM_STAT's the id. */
		err = cmd == IPC_STAT ? 0 : shp->shm_perm.id;
	}
	up_read(&shm_ids.rwsem);
	return err;
}

/* Linux's shmctl_down: IPC_SET and IPC_RMID, by the owner, the creator
 * or CAP_SYS_ADMIN (-EPERM). IPC_RMID destroys a segment nothing
 * attaches; an attached one is marked SHM_DEST, its key made private,
 * and goes at its last detach (Linux's do_shm_rmid). */
static int shmctl_down(int shmid, int cmd, const struct shmid64_ds *shmid64)
{
	down_write(&shm_ids.rwsem);
	struct kern_ipc_perm *ipcp = ipcctl_obtain_check(&shm_ids, shmid);
	int err = 0;
	if (IS_ERR(ipcp)) {
		err = PTR_ERR(ipcp);
	} else {
		struct shmid_kernel *shp = container_of(ipcp, struct shmid_kernel, shm_perm);
		if (cmd == IPC_RMID) {
			if (shp->shm_nattch) {
				shp->shm_perm.mode |= SHM_DEST;
				ipc_set_key_private(&shm_ids, &shp->shm_perm);
			} else {
				shm_destroy(shp);
			}
		} else {
			err = ipc_update_perm(&shmid64->shm_perm, ipcp);
			if (!err)
				shp->shm_ctim = ktime_get_real_seconds();
		}
	}
	up_write(&shm_ids.rwsem);
	return err;
}

/* Linux's shmctl_do_lock: SHM_LOCK marks the segment's pages not
 * reclaimable (shmem_lock), SHM_UNLOCK makes them so again. mmlab has no
 * page reclaim yet, so only the SHM_LOCKED flag is kept (seen in
 * IPC_STAT's mode and /proc/sysvipc/shm). Root has CAP_IPC_LOCK: no
 * owner or RLIMIT_MEMLOCK check applies. */
static int shmctl_do_lock(int shmid, int cmd)
{
	down_write(&shm_ids.rwsem);
	struct kern_ipc_perm *ipcp = ipc_obtain_object_check(&shm_ids, shmid);
	int err = 0;
	if (IS_ERR(ipcp))
		err = PTR_ERR(ipcp);
	else if (cmd == SHM_LOCK)
		ipcp->mode |= SHM_LOCKED;
	else
		ipcp->mode &= ~SHM_LOCKED;
	up_write(&shm_ids.rwsem);
	return err;
}

/* An answer of err (>= 0) copied out to buf; -EFAULT when it cannot be. */
static long copy_answer(void *buf, const void *answer, size_t size, long err)
{
	if (err >= 0 && copy_to_user(buf, answer, size))
		return -EFAULT;
	return err;
}

/* Linux's ksys_shmctl with IPC_64 (x86_64 has no old version: a command
 * with IPC_64's bit is unknown, -EINVAL). */
long ksys_shmctl(int shmid, int cmd, void *buf)
{
	if (cmd < 0 || shmid < 0)
		return -EINVAL;
	switch (cmd) {
	case IPC_INFO: {
		struct shminfo64 shminfo;
		return copy_answer(buf, &shminfo, sizeof(shminfo), shmctl_ipc_info(&shminfo));
	}
	case SHM_INFO: {
		struct shm_info shm_info;
		return copy_answer(buf, &shm_info, sizeof(shm_info), shmctl_shm_info(&shm_info));
	}
	case SHM_STAT:
	case SHM_STAT_ANY:
	case IPC_STAT: {
		struct shmid64_ds tbuf;
		return copy_answer(buf, &tbuf, sizeof(tbuf), shmctl_stat(shmid, cmd, &tbuf));
	}
	case IPC_SET:
	case IPC_RMID: {
		struct shmid64_ds shmid64;
		if (cmd == IPC_SET && copy_from_user(&shmid64, buf, sizeof(shmid64)))
			return -EFAULT;
		return shmctl_down(shmid, cmd, &shmid64);
	}
	case SHM_LOCK:
	case SHM_UNLOCK:
		return shmctl_do_lock(shmid, cmd);
	default:
		return -EINVAL;
	}
}

SYSCALL_DEFINE3(shmctl, int, shmid, int, cmd, void __user *, buf)
{
	return ksys_shmctl(shmid, cmd, buf);
}

/* /proc/sysvipc (Linux makes it in fs/proc/root.c; only shm lives in it
 * here) and its shm file: Linux's header and sysvipc_shm_proc_show's
 * columns for 64-bit, one line per segment in index order; rss and swap
 * in bytes. */
static const struct proc_dir_entry proc_sysvipc_dir __proc_entry = {
	.parent = &proc_root_dir, .name = "sysvipc", .mode = S_IFDIR | 0555,
};

static void sysvipc_shm_proc_show(struct seq_buf *m, const struct proc_node *node)
{
	(void)node;
	seq_buf_puts(m, "       key      shmid perms                  size  cpid  lpid nattch   uid   gid  cuid  cgid"
			"      atime      dtime      ctime                   rss                  swap\n");
	down_read(&shm_ids.rwsem);
	for (int idx = 0; idx <= shm_ids.max_idx; idx++) {
		if (!shm_ids.entries[idx])
			continue;
		const struct shmid_kernel *shp = container_of(shm_ids.entries[idx], struct shmid_kernel, shm_perm);
		seq_buf_printf(m,
			       "%10d %10d  %4o %21lu %5u %5u  %5lu %5u %5u %5u %5u %10llu %10llu %10llu %21lu %21lu\n",
			       shp->shm_perm.key, shp->shm_perm.id, shp->shm_perm.mode, shp->shm_segsz,
			       (unsigned int)shp->shm_cprid, (unsigned int)shp->shm_lprid, shp->shm_nattch,
			       shp->shm_perm.uid, shp->shm_perm.gid, shp->shm_perm.cuid, shp->shm_perm.cgid,
			       (unsigned long long)shp->shm_atim, (unsigned long long)shp->shm_dtim,
			       (unsigned long long)shp->shm_ctim, shm_rss_pages(shp) * PAGE_SIZE, 0ul);
	}
	up_read(&shm_ids.rwsem);
}
PROC_FILE(sysvipc_shm_entry, proc_sysvipc_dir, "shm", sysvipc_shm_proc_show);

/* Linux's ipc/ipc_sysctl.c: kernel.shmmax and shmall (any unsigned
 * long), shmmni (0 to IPCMNI). mmlab has not kernel.shm_rmid_forced. */
static const int ipc_mni = IPCMNI;
SYSCTL_ENTRY(proc_sys_kernel_dir, shmmax, .data = &shm_ctlmax, .maxlen = sizeof(unsigned long),
	     .proc_handler = proc_doulongvec_minmax);
SYSCTL_ENTRY(proc_sys_kernel_dir, shmall, .data = &shm_ctlall, .maxlen = sizeof(unsigned long),
	     .proc_handler = proc_doulongvec_minmax);
SYSCTL_ENTRY(proc_sys_kernel_dir, shmmni, .data = &shm_ctlmni, .maxlen = sizeof(int),
	     .proc_handler = proc_dointvec_minmax, .extra1 = SYSCTL_ZERO, .extra2 = &ipc_mni);
