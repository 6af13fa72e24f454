/* System V shared memory (Linux's ipc/shm.c): shmget (29), shmat (30),
 * shmctl (31), shmdt (67), /proc/sysvipc/shm and kernel.shmmax, shmall,
 * shmmni. docs/sysv_shm.md tells the whole story.
 *
 * A segment (struct shmid_kernel) is a shmem object (mm/shmem.h), the
 * same kind MAP_SHARED | MAP_ANONYMOUS makes, of its size rounded up to
 * pages (with SHM_HUGETLB: an object holding a hugetlbfs file of its size
 * rounded up to huge pages, which its VMAs map as a file, Linux's newseg):
 * the segment holds one reference, each VMA that maps it another.
 * shmat maps it MAP_SHARED through the mmap path (do_mmap_shmem_locked);
 * every VMA of it, its pieces after a split and fork's copies included,
 * is one attach, counted by the object's attach_ops as the VMA is made
 * and freed (Linux's shm_vm_ops open and close): so shm_nattch is exact
 * through fork, exit, execve, munmap and shmdt. IPC_RMID of an attached
 * segment marks it SHM_DEST and makes its key IPC_PRIVATE; its id still
 * finds it (shmat too, as Linux's) until the last detach destroys it.
 *
 * Locking: shm_ids.rwsem (ipc/util.h) covers the table and every
 * segment's fields. It ranks below mmap_lock: shmat and shmdt take
 * mmap_lock and then, through the attach hooks, the rwsem. */
#ifndef IPC_SHM_H
#define IPC_SHM_H

#include "ipc/util.h"

/* Linux's uapi shm.h. */
#define SHMMIN 1ul
#define SHMMNI 4096
#define SHMMAX (~0ul - (1ul << 24))
#define SHMALL (~0ul - (1ul << 24))
#define SHMSEG SHMMNI
#define SHMLBA 4096ul /* x86: PAGE_SIZE */

/* shmget flags above the permission bits, and shmat's. */
#define SHM_HUGETLB 04000
#define SHM_NORESERVE 010000
#define SHM_HUGE_SHIFT 26
#define SHM_HUGE_MASK 0x3f
#define SHM_HUGE_2MB (21u << SHM_HUGE_SHIFT) /* log2 of the size, as MAP_HUGE_* */
#define SHM_HUGE_1GB (30u << SHM_HUGE_SHIFT)
#define SHM_RDONLY 010000
#define SHM_RND 020000
#define SHM_REMAP 040000
#define SHM_EXEC 0100000

/* shmctl commands beyond IPC_*. */
#define SHM_LOCK 11
#define SHM_UNLOCK 12
#define SHM_STAT 13
#define SHM_INFO 14
#define SHM_STAT_ANY 15

/* shm_perm.mode's flags above the permission bits. */
#define SHM_DEST 01000   /* destroyed at the last detach */
#define SHM_LOCKED 02000 /* SHM_LOCK: not reclaimable */

/* x86_64 Linux's struct shmid64_ds (asm-generic/shmbuf.h): 112 bytes. */
struct shmid64_ds {
	struct ipc64_perm shm_perm;
	size_t shm_segsz;
	long shm_atime, shm_dtime, shm_ctime;
	int shm_cpid, shm_lpid;
	unsigned long shm_nattch;
	unsigned long __unused4, __unused5;
};

/* IPC_INFO's answer (struct shminfo64): 72 bytes. */
struct shminfo64 {
	unsigned long shmmax, shmmin, shmmni, shmseg, shmall;
	unsigned long __unused1, __unused2, __unused3, __unused4;
};

/* SHM_INFO's answer (struct shm_info): 48 bytes. */
struct shm_info {
	int used_ids;
	unsigned long shm_tot, shm_rss, shm_swp;
	unsigned long swap_attempts, swap_successes;
};

struct shmem_object;

struct shmid_kernel {
	struct kern_ipc_perm shm_perm;
	struct shmem_object *shm_file; /* its pages (Linux: a shmem file) */
	unsigned long shm_nattch;
	size_t shm_segsz;
	s64 shm_atim, shm_dtim, shm_ctim;
	int shm_cprid, shm_lprid; /* tgids: creator, last shmat/shmdt */
};

/* The namespace's limits (Linux's ns->shm_ctl*) and pages in segments. */
extern unsigned long shm_ctlmax, shm_ctlall, shm_tot;
extern int shm_ctlmni;

/* The system calls' bodies, on current (Linux's names). ksys_shmctl's
 * buf is user memory; shmctl_stat, shmctl_ipc_info and shmctl_shm_info
 * fill kernel structures (as Linux's, which ksys_shmctl copies out). */
long ksys_shmget(key_t key, size_t size, int shmflg);
long do_shmat(int shmid, unsigned long shmaddr, int shmflg, unsigned long *raddr);
long ksys_shmdt(unsigned long shmaddr);
long ksys_shmctl(int shmid, int cmd, void *buf);
int shmctl_stat(int shmid, int cmd, struct shmid64_ds *tbuf);
int shmctl_ipc_info(struct shminfo64 *shminfo);
int shmctl_shm_info(struct shm_info *shm_info);

/* Segments in the table now (shm_ids.in_use), for tests. */
int shm_segments_in_use(void);

/* ipc/shm_ctl.c's access to the table (ipc/shm.c owns it). */
extern struct ipc_ids shm_ids;
void shm_destroy(struct shmid_kernel *shp);
unsigned long shm_rss_pages(const struct shmid_kernel *shp);

#endif
