/* What every System V IPC object shares (Linux's ipc/util.[ch]): its
 * permission (struct kern_ipc_perm: key, owner, creator, mode, sequence),
 * its id, and the table of ids of one kind (struct ipc_ids, Linux's idr
 * and key hash reduced to an array of IPCMNI slots searched in order).
 *
 * An id is index + (sequence << IPCMNI_SHIFT), as Linux's ipc_buildid
 * without ipcmni_extend: the index is the slot, found by a cyclic search
 * (idr_alloc_cyclic) below max(in_use * 3 / 2, ipc_min_cycle), and the
 * sequence moves on whenever an index at or below the last one given is
 * given again, so a stale id of a reused slot no longer matches.
 *
 * Locking: ids->rwsem covers the table and every field of every object
 * in it (Linux has a spinlock per object and RCU lookups besides; mmlab
 * takes the one rwsem for writing wherever Linux would take either).
 * Nothing copies to or from user memory under it: a fault there takes
 * mmap_lock, which ranks above it (shm_close runs under mmap_lock).
 *
 * mmlab has one user, root (uid 0, gid 0, every capability): the owner
 * checks below are Linux's, and they pass as they pass for root. */
#ifndef IPC_UTIL_H
#define IPC_UTIL_H

#include "kernel/rwsem.h"
#include "kernel/types.h"

typedef int key_t;

#define IPC_PRIVATE ((key_t)0)

/* Linux's uapi ipc.h: get and control flags and commands. */
#define IPC_CREAT 00001000
#define IPC_EXCL 00002000
#define IPC_NOWAIT 00004000
#define IPC_RMID 0
#define IPC_SET 1
#define IPC_STAT 2
#define IPC_INFO 3

/* Linux's ipc/util.h without CONFIG_IPC_NS's ipcmni_extend. */
#define IPCMNI_SHIFT 15
#define IPCMNI (1 << IPCMNI_SHIFT)
#define IPCID_SEQ_MAX (0x7fffffff >> IPCMNI_SHIFT)
#define ipcid_to_idx(id) ((id) & (IPCMNI - 1))
#define ipcid_to_seqx(id) ((id) >> IPCMNI_SHIFT)
/* RADIX_TREE_MAP_SIZE: the smallest cycle of indexes. */
#define IPC_MIN_CYCLE 64

#define S_IRWXUGO 00777
#define S_IRUGO 00444
#define S_IWUGO 00222
#define S_IXUGO 00111

/* x86_64 Linux's struct ipc64_perm (asm-generic/ipcbuf.h): 48 bytes. */
struct ipc64_perm {
	key_t key;
	u32 uid, gid, cuid, cgid;
	u32 mode;
	unsigned short seq;
	unsigned short __pad2;
	unsigned long __unused1, __unused2;
};

struct kern_ipc_perm {
	bool deleted; /* out of the table: its id no longer finds it */
	int id;
	key_t key;
	u32 uid, gid, cuid, cgid;
	unsigned int mode; /* permission bits, and the kind's flags above them */
	unsigned short seq;
};

struct ipc_ids {
	struct rw_semaphore rwsem;
	int in_use;          /* objects in the table */
	unsigned short seq;  /* the sequence of the next id */
	int max_idx;         /* the highest index in use; -1: none */
	int last_idx;        /* the index given last (Linux's last_idx) */
	int next_idx;        /* where the cyclic search starts (idr_next) */
	struct kern_ipc_perm **entries; /* IPCMNI slots */
};

/* What ipcget needs of a kind (Linux's struct ipc_ops and ipc_params). */
struct ipc_params {
	key_t key;
	int flg;
	size_t size;
};
struct ipc_ops {
	int (*getnew)(struct ipc_params *params);
	int (*more_checks)(struct kern_ipc_perm *ipcp, struct ipc_params *params);
};

/* An empty table whose slots are entries_ (IPCMNI of them). */
#define IPC_IDS_INIT(name, entries_)                                                            \
	{ .rwsem = __RWSEM_INITIALIZER((name).rwsem), .max_idx = -1, .last_idx = -1, .entries = (entries_) }

/* Linux's ipcget: IPC_PRIVATE makes a new object; a key finds its object
 * (-EEXIST with IPC_CREAT | IPC_EXCL, then more_checks, then -EACCES for
 * the mode flg asks) or makes one with IPC_CREAT (-ENOENT without). The
 * id, or a negative errno. Takes ids->rwsem. */
int ipcget(struct ipc_ids *ids, const struct ipc_ops *ops, struct ipc_params *params);

/* 0 when flg's requested mode (S_IRUGO, S_IWUGO...) is granted, -1 when
 * not (Linux's ipcperms: owner, group, other bits, CAP_IPC_OWNER). */
int ipcperms(struct kern_ipc_perm *ipcp, short flg);

/* Enters new (key, mode set) in the table, as its creator: the index, or
 * -ENOSPC past limit objects (Linux's ipc_addid). ids->rwsem held for
 * writing. */
int ipc_addid(struct ipc_ids *ids, struct kern_ipc_perm *new, int limit);
/* Takes ipcp out of the table, deleted (Linux's ipc_rmid). */
void ipc_rmid(struct ipc_ids *ids, struct kern_ipc_perm *ipcp);
/* A removed object that lives on (an attached segment): no key finds it. */
void ipc_set_key_private(struct ipc_ids *ids, struct kern_ipc_perm *ipcp);

/* The object at id's index (-EINVAL: none), and the same checked against
 * id's sequence (-EINVAL: a stale id), as ERR_PTRs; ids->rwsem held. */
struct kern_ipc_perm *ipc_obtain_object_idr(struct ipc_ids *ids, int id);
struct kern_ipc_perm *ipc_obtain_object_check(struct ipc_ids *ids, int id);
/* IPC_SET and IPC_RMID's lookup: the object, if the caller owns or
 * created it or has CAP_SYS_ADMIN, else -EPERM (Linux's
 * ipcctl_obtain_check). */
struct kern_ipc_perm *ipcctl_obtain_check(struct ipc_ids *ids, int id);
/* IPC_SET: uid, gid and the permission bits from in (Linux's
 * ipc_update_perm; -EINVAL for an id no user namespace maps, which
 * mmlab's ids, all valid, never are). */
int ipc_update_perm(const struct ipc64_perm *in, struct kern_ipc_perm *out);
void kernel_to_ipc64_perm(const struct kern_ipc_perm *in, struct ipc64_perm *out);
/* IPC_INFO and SHM_INFO's answer: the highest index in use, -1 when none
 * (Linux's ipc_get_maxidx). */
int ipc_get_maxidx(const struct ipc_ids *ids);

#endif
