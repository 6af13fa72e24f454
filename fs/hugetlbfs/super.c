/* hugetlbfs instances (the super-block half of Linux 6.1's
 * fs/hugetlbfs/inode.c, and the subpool of mm/hugetlb.c): the mount
 * options and their errors, the subpool that size= and min_size= make,
 * statfs, /proc/mounts's options, the kernel's own instances and
 * hugetlb_file_setup. fs/hugetlbfs/hugetlbfs.h has the rules.
 *
 * Options, as Linux 6.1's hugetlbfs_parse_param reads them: an option it
 * does not know, a bare key, a size= / min_size= / nr_inodes= that does
 * not start with a digit, a uid= / gid= that is not a u32, a mode= not in
 * octal, and a pagesize= with no pool are -EINVAL; so is a min_size=
 * above size= (hugetlbfs_validate). N% of size= and min_size= is of the
 * pool's persistent pages (Linux's max_huge_pages). A remount takes the
 * options through the same checks and changes nothing, as Linux's (it
 * has no reconfigure). */
#include "fs/hugetlbfs/hugetlbfs.h"
#include "fs/hugetlbfs/internal.h"
#include "fs/dcache.h"
#include "fs/fs_context.h"
#include "fs/libfs.h"
#include "fs/mount.h"
#include "kernel/init.h"
#include "kernel/unistd.h"
#include "lib/err.h"
#include "lib/seq_buf.h"
#include "lib/string.h"
#include "lib/vsprintf.h"
#include "kernel/printk.h"
#include "mm/hugetlb.h"
#include "mm/mm_types.h"
#include "mm/slab.h"

/* ---- the subpool ---- */

long hugepage_subpool_get_pages(struct hugepage_subpool *spool, long delta)
{
	long ret = delta;
	if (!spool)
		return ret;
	spin_lock(&spool->lock);
	if (spool->max_hpages != -1) {
		if (spool->used_hpages + delta > spool->max_hpages) {
			ret = -ENOMEM;
			goto out;
		}
		spool->used_hpages += delta;
	}
	if (spool->min_hpages != -1 && spool->rsv_hpages) {
		if (delta > spool->rsv_hpages) {
			ret = delta - spool->rsv_hpages;
			spool->rsv_hpages = 0;
		} else {
			ret = 0;
			spool->rsv_hpages -= delta;
		}
	}
out:
	spin_unlock(&spool->lock);
	return ret;
}

long hugepage_subpool_put_pages(struct hugepage_subpool *spool, long delta)
{
	long ret = delta;
	if (!spool)
		return ret;
	spin_lock(&spool->lock);
	if (spool->max_hpages != -1)
		spool->used_hpages -= delta;
	if (spool->min_hpages != -1 && spool->used_hpages < spool->min_hpages) {
		ret = spool->rsv_hpages + delta <= spool->min_hpages ? 0 : spool->rsv_hpages + delta - spool->min_hpages;
		spool->rsv_hpages += delta;
		if (spool->rsv_hpages > spool->min_hpages)
			spool->rsv_hpages = spool->min_hpages;
	}
	spin_unlock(&spool->lock);
	return ret;
}

/* Linux's hugepage_new_subpool: min_hpages pool pages reserved now. */
static struct hugepage_subpool *hugepage_new_subpool(struct hstate *h, long max_hpages, long min_hpages)
{
	struct hugepage_subpool *spool = kzalloc(sizeof(*spool), GFP_KERNEL);
	if (!spool)
		return NULL;
	spin_lock_init(&spool->lock);
	spool->max_hpages = max_hpages;
	spool->hstate = h;
	spool->min_hpages = min_hpages;
	if (min_hpages != -1 && hugetlb_acct_memory(h, min_hpages)) {
		kfree(spool);
		return NULL;
	}
	spool->rsv_hpages = min_hpages;
	return spool;
}

/* The instance went (its files with it): min_size='s reservations back.
 * Linux gives back min_hpages, whatever its files hold then; mmlab's files
 * are all evicted by now, so rsv_hpages is min_hpages again. */
static void hugepage_put_subpool(struct hugepage_subpool *spool)
{
	if (!spool)
		return;
	if (spool->min_hpages != -1)
		hugetlb_acct_memory(spool->hstate, -spool->rsv_hpages);
	kfree(spool);
}

/* ---- options ---- */

enum hugetlbfs_size_type { NO_SIZE, SIZE_STD, SIZE_PERCENT };

struct hugetlbfs_fs_context {
	struct hstate *hstate;
	unsigned long long max_size_opt, min_size_opt;
	long max_hpages, nr_inodes, min_hpages;
	enum hugetlbfs_size_type max_val_type, min_val_type;
	unsigned int uid, gid;
	umode_t mode;
};

/* Linux's hugetlbfs_size_to_hpages: -1 for no size. */
static long hugetlbfs_size_to_hpages(struct hstate *h, unsigned long long size_opt, enum hugetlbfs_size_type type)
{
	if (type == NO_SIZE)
		return -1;
	unsigned shift = PAGE_SHIFT + h->order;
	if (type == SIZE_PERCENT) {
		unsigned long persistent = READ_ONCE(h->nr_huge_pages) - READ_ONCE(h->surplus_huge_pages);
		size_opt = (size_opt << shift) * persistent / 100;
	}
	return (long)(size_opt >> shift);
}

static bool starts_with_digit(const char *s) { return s && *s >= '0' && *s <= '9'; }

static int hugetlbfs_parse_param(struct fs_context *fc, const char *key, const char *value)
{
	struct hugetlbfs_fs_context *ctx = fc->fs_private;
	static const char *const keys[] = { "gid", "min_size", "mode", "nr_inodes", "pagesize", "size", "uid" };
	unsigned opt = 0;
	while (opt < ARRAY_SIZE(keys) && strcmp(key, keys[opt]))
		opt++;
	if (opt == ARRAY_SIZE(keys))
		return -ENOPARAM; /* the VFS's: "source", else "Unknown parameter" */
	if (!value)
		return -EINVAL; /* fs_parse: a value missing */
	const char *rest;
	unsigned int u;
	switch (opt) {
	case 0: /* gid */
	case 6: /* uid */
		if (kstrtouint(value, 0, &u))
			goto bad_val;
		if (opt == 0)
			ctx->gid = u;
		else
			ctx->uid = u;
		return 0;
	case 2: /* mode */
		if (kstrtouint(value, 8, &u))
			goto bad_val;
		ctx->mode = (umode_t)(u & 01777u);
		return 0;
	case 1: /* min_size */
	case 5: /* size: memparse would take a K/M/G without a digit */
		if (!starts_with_digit(value))
			goto bad_val;
		if (opt == 5) {
			ctx->max_size_opt = memparse(value, &rest);
			ctx->max_val_type = *rest == '%' ? SIZE_PERCENT : SIZE_STD;
		} else {
			ctx->min_size_opt = memparse(value, &rest);
			ctx->min_val_type = *rest == '%' ? SIZE_PERCENT : SIZE_STD;
		}
		return 0;
	case 3: /* nr_inodes */
		if (!starts_with_digit(value))
			goto bad_val;
		ctx->nr_inodes = (long)memparse(value, &rest);
		return 0;
	case 4: { /* pagesize */
		struct hstate *h = size_to_hstate((unsigned long)memparse(value, &rest));
		if (!h || !h->supported) {
			pr_err("hugetlbfs: Unsupported page size %lu MB\n",
			       (unsigned long)(memparse(value, &rest) >> 20));
			return -EINVAL;
		}
		ctx->hstate = h;
		return 0;
	}
	}
bad_val: /* Linux's invalfc; fs_parse says it for uid=, gid= and mode= */
	pr_err("hugetlbfs: Bad value '%s' for mount option '%s'\n", value, key);
	return -EINVAL;
}

static const struct super_operations hugetlbfs_ops;
const struct file_system_type hugetlbfs_fs_type;

static void hugetlbfs_put_super(struct super_block *sb)
{
	struct hugetlbfs_sb_info *sbinfo = HUGETLBFS_SB(sb);
	hugepage_put_subpool(sbinfo->spool);
	kfree(sbinfo);
	free_super(sb);
}

/* Linux's hugetlbfs_validate and hugetlbfs_fill_super. */
static int hugetlbfs_get_tree(struct fs_context *fc)
{
	struct hugetlbfs_fs_context *ctx = fc->fs_private;
	ctx->max_hpages = hugetlbfs_size_to_hpages(ctx->hstate, ctx->max_size_opt, ctx->max_val_type);
	ctx->min_hpages = hugetlbfs_size_to_hpages(ctx->hstate, ctx->min_size_opt, ctx->min_val_type);
	if (ctx->max_hpages != -1 && ctx->min_hpages != -1 && ctx->min_hpages > ctx->max_hpages) {
		pr_err("hugetlbfs: Minimum size can not be greater than maximum size\n");
		return -EINVAL;
	}
	struct hugetlbfs_sb_info *sbinfo = kzalloc(sizeof(*sbinfo), GFP_KERNEL);
	struct super_block *sb = sbinfo ? alloc_super(&hugetlbfs_fs_type, &hugetlbfs_ops, HUGETLBFS_MAGIC) : NULL;
	if (!sb) {
		kfree(sbinfo);
		return -ENOMEM;
	}
	spin_lock_init(&sbinfo->stat_lock);
	sbinfo->hstate = ctx->hstate;
	sbinfo->max_inodes = sbinfo->free_inodes = ctx->nr_inodes;
	sbinfo->uid = ctx->uid;
	sbinfo->gid = ctx->gid;
	sbinfo->mode = ctx->mode;
	sb->s_fs_info = sbinfo;
	sb->s_flags = fc->sb_flags;
	sb->s_blocksize = huge_page_size(ctx->hstate);
	if (ctx->max_hpages != -1 || ctx->min_hpages != -1) {
		sbinfo->spool = hugepage_new_subpool(ctx->hstate, ctx->max_hpages, ctx->min_hpages);
		if (!sbinfo->spool) {
			hugetlbfs_put_super(sb);
			return -ENOMEM; /* Linux's fill_super: out_free */
		}
	}
	struct inode *root = hugetlbfs_get_inode(sb, NULL, S_IFDIR | ctx->mode, 0);
	if (root) {
		root->i_uid = ctx->uid;
		root->i_gid = ctx->gid;
	}
	if (!root || !(sb->s_root = d_make_root(root))) {
		if (root)
			iput(root);
		hugetlbfs_put_super(sb);
		return -ENOMEM;
	}
	fc->sb = sb;
	return 0;
}

static void hugetlbfs_free_fc(struct fs_context *fc) { kfree(fc->fs_private); }

static const struct fs_context_operations hugetlbfs_fs_context_ops = {
	.free = hugetlbfs_free_fc, .parse_param = hugetlbfs_parse_param, .get_tree = hugetlbfs_get_tree,
};

/* Linux's hugetlbfs_init_fs_context: the default size, no limits, 0755,
 * the caller's uid and gid (mmlab's one user: root). */
static int hugetlbfs_init_fs_context(struct fs_context *fc)
{
	struct hugetlbfs_fs_context *ctx = kzalloc(sizeof(*ctx), GFP_KERNEL);
	if (!ctx)
		return -ENOMEM;
	ctx->max_hpages = ctx->min_hpages = ctx->nr_inodes = -1;
	ctx->hstate = &hstates[default_hstate_idx];
	ctx->mode = 0755;
	fc->fs_private = ctx;
	fc->ops = &hugetlbfs_fs_context_ops;
	return 0;
}

/* Linux 6.1's hugetlbfs_show_options. */
static void hugetlbfs_show_options(struct seq_buf *m, struct super_block *sb)
{
	struct hugetlbfs_sb_info *sbinfo = HUGETLBFS_SB(sb);
	struct hugepage_subpool *spool = sbinfo->spool;
	unsigned long hpage_size = huge_page_size(sbinfo->hstate), shift = PAGE_SHIFT + sbinfo->hstate->order;
	if (sbinfo->uid)
		seq_buf_printf(m, ",uid=%u", sbinfo->uid);
	if (sbinfo->gid)
		seq_buf_printf(m, ",gid=%u", sbinfo->gid);
	if (sbinfo->mode != 0755)
		seq_buf_printf(m, ",mode=%o", sbinfo->mode);
	if (sbinfo->max_inodes != -1)
		seq_buf_printf(m, ",nr_inodes=%lu", (unsigned long)sbinfo->max_inodes);
	char mod = 'K';
	hpage_size /= 1024;
	if (hpage_size >= 1024) {
		hpage_size /= 1024;
		mod = 'M';
	}
	seq_buf_printf(m, ",pagesize=%lu%c", hpage_size, mod);
	if (spool) {
		if (spool->max_hpages != -1)
			seq_buf_printf(m, ",size=%llu", (unsigned long long)spool->max_hpages << shift);
		if (spool->min_hpages != -1)
			seq_buf_printf(m, ",min_size=%llu", (unsigned long long)spool->min_hpages << shift);
	}
}

/* Linux's hugetlbfs_statfs: blocks are huge pages; without size= there
 * are none to count (0), and -1 inodes is no limit, as Linux shows them. */
static int hugetlbfs_statfs(struct dentry *dentry, struct kstatfs *buf)
{
	struct hugetlbfs_sb_info *sbinfo = HUGETLBFS_SB(dentry->d_sb);
	simple_statfs(dentry, buf);
	buf->f_type = HUGETLBFS_MAGIC;
	buf->f_bsize = (long)huge_page_size(sbinfo->hstate);
	buf->f_frsize = buf->f_bsize;
	buf->f_blocks = buf->f_bfree = buf->f_bavail = 0;
	spin_lock(&sbinfo->stat_lock);
	if (sbinfo->spool) {
		spin_lock(&sbinfo->spool->lock);
		buf->f_blocks = (unsigned long)sbinfo->spool->max_hpages;
		buf->f_bavail = buf->f_bfree = (unsigned long)(sbinfo->spool->max_hpages - sbinfo->spool->used_hpages);
		spin_unlock(&sbinfo->spool->lock);
	}
	buf->f_files = (unsigned long)sbinfo->max_inodes;
	buf->f_ffree = (unsigned long)sbinfo->free_inodes;
	spin_unlock(&sbinfo->stat_lock);
	buf->f_namelen = NAME_MAX;
	return 0;
}

/* Linux's kill_litter_super. */
static void hugetlbfs_kill_sb(struct super_block *sb)
{
	struct dentry *root = sb->s_root;
	d_genocide(root);
	dput(root);
	hugetlbfs_put_super(sb);
}

/* ---- inodes of the instance ---- */

/* Linux's hugetlbfs_dec_free_inodes (in hugetlbfs_alloc_inode). */
static bool hugetlbfs_dec_free_inodes(struct super_block *sb)
{
	struct hugetlbfs_sb_info *sbinfo = HUGETLBFS_SB(sb);
	bool ok = true;
	spin_lock(&sbinfo->stat_lock);
	if (sbinfo->free_inodes >= 0) {
		if (!sbinfo->free_inodes)
			ok = false;
		else
			sbinfo->free_inodes--;
	}
	spin_unlock(&sbinfo->stat_lock);
	return ok;
}

void hugetlbfs_inc_free_inodes(struct super_block *sb)
{
	struct hugetlbfs_sb_info *sbinfo = HUGETLBFS_SB(sb);
	spin_lock(&sbinfo->stat_lock);
	if (sbinfo->free_inodes >= 0)
		sbinfo->free_inodes++;
	spin_unlock(&sbinfo->stat_lock);
}

struct inode *hugetlbfs_get_inode(struct super_block *sb, const struct inode *dir, umode_t mode, dev_t dev)
{
	if (!hugetlbfs_dec_free_inodes(sb))
		return NULL;
	struct inode *inode = new_inode(sb);
	if (!inode) {
		hugetlbfs_inc_free_inodes(sb);
		return NULL;
	}
	inode_init_owner(inode, dir, mode);
	if (!hugetlbfs_init_inode(inode, mode, dev)) {
		iput(inode); /* evicted: the count comes back */
		return NULL;
	}
	return inode;
}

static const struct super_operations hugetlbfs_ops = {
	.evict_inode = hugetlbfs_evict_inode, .statfs = hugetlbfs_statfs, .show_options = hugetlbfs_show_options,
};

const struct file_system_type hugetlbfs_fs_type = {
	.name = "hugetlbfs", .init_fs_context = hugetlbfs_init_fs_context, .kill_sb = hugetlbfs_kill_sb,
};

/* ---- the kernel's instances ---- */

static struct vfsmount *hugetlbfs_vfsmount[HUGE_MAX_HSTATE];

/* Linux's init_hugetlbfs_fs: an instance per size the CPU can map, with
 * pagesize= set, in no mount table. A late_initcall_sync, as Linux's
 * fs_initcall comes after hugetlb_init: the sizes are known by then (and
 * fs/ links before the tests, whose run is one too). */
static int init_hugetlbfs_fs(void)
{
	for (int i = 0; i < HUGE_MAX_HSTATE; i++) {
		if (!hstates[i].supported)
			continue;
		char opts[32];
		snprintf(opts, sizeof(opts), "pagesize=%luK", huge_page_size(&hstates[i]) >> 10);
		struct vfsmount *m = vfs_kern_mount(&hugetlbfs_fs_type, SB_KERNMOUNT, 0, "hugetlbfs", opts);
		if (IS_ERR(m))
			pr_err("hugetlbfs: Cannot mount internal hugetlbfs for page size %luK\n",
			       huge_page_size(&hstates[i]) >> 10);
		else
			hugetlbfs_vfsmount[i] = m;
	}
	return 0;
}
late_initcall_sync(init_hugetlbfs_fs);

struct super_block *hugetlbfs_internal_sb(const struct hstate *h)
{
	struct vfsmount *m = hugetlbfs_vfsmount[h - hstates];
	return m ? m->mnt_sb : NULL;
}

struct file *hugetlb_file_setup(const char *name, size_t size, unsigned long acctflag, int creat_flags,
				int page_size_log)
{
	struct hstate *h = hstate_sizelog((unsigned)page_size_log);
	if (!h)
		return ERR_PTR(-ENODEV); /* Linux's get_hstate_idx */
	struct vfsmount *mnt = hugetlbfs_vfsmount[h - hstates];
	if (!mnt)
		return ERR_PTR(-ENOENT);
	struct inode *inode = hugetlbfs_get_inode(mnt->mnt_sb, NULL, S_IFREG | 0777, 0);
	if (!inode)
		return ERR_PTR(-ENOSPC);
	if (creat_flags == HUGETLB_SHMFS_INODE)
		hugetlbfs_set_shm_inode(inode);
	inode->i_size = (long)size;
	clear_nlink(inode);
	/* Linux's: the whole huge pages of size (its callers round up). */
	if (!(acctflag & VM_NORESERVE) && hugetlbfs_reserve_pages(inode, 0, (long)(size >> (PAGE_SHIFT + h->order)))) {
		iput(inode);
		return ERR_PTR(-ENOMEM);
	}
	return alloc_file_pseudo(inode, mnt, name, O_RDWR);
}
