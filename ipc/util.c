/* The table of System V IPC ids and the permission checks every kind
 * shares (Linux's ipc/util.c): ipc/util.h has the rules. */
#include "ipc/util.h"
#include "lib/err.h"
#include "lib/string.h"

/* The one user: root (see ipc/util.h). */
#define CURRENT_EUID 0u
#define CURRENT_EGID 0u

/* Root has CAP_IPC_OWNER, CAP_SYS_ADMIN and CAP_IPC_LOCK. */
static bool ipc_capable(void) { return CURRENT_EUID == 0; }

int ipcperms(struct kern_ipc_perm *ipcp, short flg)
{
	int requested_mode = (flg >> 6) | (flg >> 3) | flg;
	int granted_mode = (int)ipcp->mode;
	if (CURRENT_EUID == ipcp->cuid || CURRENT_EUID == ipcp->uid)
		granted_mode >>= 6;
	else if (CURRENT_EGID == ipcp->cgid || CURRENT_EGID == ipcp->gid)
		granted_mode >>= 3;
	if ((requested_mode & ~granted_mode & 0007) && !ipc_capable())
		return -1;
	return 0;
}

/* idr_alloc_cyclic over [0, end): the first free slot from next_idx on,
 * else from 0; -ENOSPC when none. */
static int ipc_idr_alloc_cyclic(struct ipc_ids *ids, int end)
{
	int start = ids->next_idx < end ? ids->next_idx : end;
	for (int i = 0; i < end; i++) {
		int idx = (start + i) % end; /* start .. end - 1, then 0 .. start - 1 */
		if (!ids->entries[idx]) {
			ids->next_idx = idx + 1;
			return idx;
		}
	}
	return -ENOSPC;
}

int ipc_addid(struct ipc_ids *ids, struct kern_ipc_perm *new, int limit)
{
	if (limit > IPCMNI)
		limit = IPCMNI;
	if (ids->in_use >= limit)
		return -ENOSPC;
	new->cuid = new->uid = CURRENT_EUID;
	new->gid = new->cgid = CURRENT_EGID;
	new->deleted = false;
	/* Linux's ipc_idr_alloc: a cycle of at least ipc_min_cycle indexes,
	 * growing with the number in use. */
	int max_idx = ids->in_use * 3 / 2;
	if (max_idx < IPC_MIN_CYCLE)
		max_idx = IPC_MIN_CYCLE;
	if (max_idx > IPCMNI)
		max_idx = IPCMNI;
	int idx = ipc_idr_alloc_cyclic(ids, max_idx);
	if (idx < 0)
		return idx;
	if (idx <= ids->last_idx) {
		ids->seq++;
		if (ids->seq >= IPCID_SEQ_MAX)
			ids->seq = 0;
	}
	ids->last_idx = idx;
	new->seq = ids->seq;
	new->id = (new->seq << IPCMNI_SHIFT) + idx;
	ids->entries[idx] = new;
	ids->in_use++;
	if (idx > ids->max_idx)
		ids->max_idx = idx;
	return idx;
}

void ipc_rmid(struct ipc_ids *ids, struct kern_ipc_perm *ipcp)
{
	int idx = ipcid_to_idx(ipcp->id);
	ids->entries[idx] = NULL;
	ids->in_use--;
	ipcp->deleted = true;
	if (idx == ids->max_idx) { /* Linux's ipc_search_maxidx */
		while (--idx >= 0 && !ids->entries[idx])
			;
		ids->max_idx = idx;
	}
}

void ipc_set_key_private(struct ipc_ids *ids, struct kern_ipc_perm *ipcp)
{
	(void)ids; /* no key hash to leave: ipc_findkey skips IPC_PRIVATE */
	ipcp->key = IPC_PRIVATE;
}

/* Linux's ipc_findkey: the object with key (never IPC_PRIVATE), or NULL. */
static struct kern_ipc_perm *ipc_findkey(struct ipc_ids *ids, key_t key)
{
	for (int idx = 0; idx <= ids->max_idx; idx++) {
		struct kern_ipc_perm *ipcp = ids->entries[idx];
		if (ipcp && ipcp->key == key)
			return ipcp;
	}
	return NULL;
}

int ipcget(struct ipc_ids *ids, const struct ipc_ops *ops, struct ipc_params *params)
{
	int err;
	down_write(&ids->rwsem);
	struct kern_ipc_perm *ipcp = params->key == IPC_PRIVATE ? NULL : ipc_findkey(ids, params->key);
	if (params->key == IPC_PRIVATE) {
		err = ops->getnew(params); /* Linux's ipcget_new */
	} else if (!ipcp) {
		err = params->flg & IPC_CREAT ? ops->getnew(params) : -ENOENT;
	} else if ((params->flg & IPC_CREAT) && (params->flg & IPC_EXCL)) {
		err = -EEXIST;
	} else {
		err = ops->more_checks ? ops->more_checks(ipcp, params) : 0;
		/* Linux's ipc_check_perms: the mode bits flg asks for. */
		if (!err)
			err = ipcperms(ipcp, (short)params->flg) ? -EACCES : ipcp->id;
	}
	up_write(&ids->rwsem);
	return err;
}

struct kern_ipc_perm *ipc_obtain_object_idr(struct ipc_ids *ids, int id)
{
	struct kern_ipc_perm *ipcp = ids->entries[ipcid_to_idx(id)];
	return ipcp ? ipcp : ERR_PTR(-EINVAL);
}

struct kern_ipc_perm *ipc_obtain_object_check(struct ipc_ids *ids, int id)
{
	struct kern_ipc_perm *ipcp = ipc_obtain_object_idr(ids, id);
	if (IS_ERR(ipcp))
		return ipcp;
	if (ipcid_to_seqx(id) != ipcp->seq) /* Linux's ipc_checkid */
		return ERR_PTR(-EINVAL);
	return ipcp;
}

struct kern_ipc_perm *ipcctl_obtain_check(struct ipc_ids *ids, int id)
{
	struct kern_ipc_perm *ipcp = ipc_obtain_object_check(ids, id);
	if (IS_ERR(ipcp))
		return ipcp;
	if (CURRENT_EUID == ipcp->cuid || CURRENT_EUID == ipcp->uid || ipc_capable())
		return ipcp;
	return ERR_PTR(-EPERM);
}

int ipc_update_perm(const struct ipc64_perm *in, struct kern_ipc_perm *out)
{
	/* make_kuid: (uid_t)-1 maps to no user in any namespace. */
	if (in->uid == (u32)-1 || in->gid == (u32)-1)
		return -EINVAL;
	out->uid = in->uid;
	out->gid = in->gid;
	out->mode = (out->mode & ~S_IRWXUGO) | (in->mode & S_IRWXUGO);
	return 0;
}

void kernel_to_ipc64_perm(const struct kern_ipc_perm *in, struct ipc64_perm *out)
{
	out->key = in->key;
	out->uid = in->uid;
	out->gid = in->gid;
	out->cuid = in->cuid;
	out->cgid = in->cgid;
	out->mode = in->mode;
	out->seq = in->seq;
}

int ipc_get_maxidx(const struct ipc_ids *ids)
{
	if (ids->in_use == 0)
		return -1;
	if (ids->in_use == IPCMNI)
		return IPCMNI - 1;
	return ids->max_idx;
}
