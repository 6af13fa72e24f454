/* tmpfs instances (the super-block half of Linux's mm/shmem.c: shmem_fs_type,
 * shmem_parse_one, shmem_parse_options, shmem_fill_super,
 * shmem_reconfigure, shmem_show_options, shmem_statfs and the block and
 * inode counts of mm/shmem_fs.h). Options, as Linux 6.1 takes them:
 *
 *   size=N[kmg%]  the most pages its files may hold (bytes rounded up to
 *                 pages; N% of RAM); nr_blocks=N the same in pages
 *   nr_inodes=N   the most inodes (files, directories, links)
 *   mode=, uid=, gid=  the root directory's
 *   mpol=         where its files' pages go (mm/mempolicy_parse.c)
 *   huge=never|always|within_size|advise  whether its files' pages may
 *                 be huge (mm/shmem_huge.c)
 *
 * A mount without size= or nr_inodes= gets half of RAM in pages and in
 * inodes, as Linux's defaults; 0 is no limit. A remount changes the
 * limits, huge= and mpol= in place (mode=, uid= and gid= are taken and
 * ignored, as Linux's); a limit cannot be put on an instance made
 * without one, nor set below what is in use (-EINVAL). A file takes the
 * instance's mpol= when it is made (a remount's mpol= applies to files
 * made after it), and each of its new pages is placed by it, interleaved
 * by its inode number plus the page's offset. */
#include "mm/shmem.h"
#include "mm/shmem_fs.h"
#include "fs/dcache.h"
#include "fs/fs_context.h"
#include "fs/libfs.h"
#include "fs/mount.h"
#include "lib/seq_buf.h"
#include "lib/string.h"
#include "mm/mempolicy.h"
#include "mm/page_alloc.h"
#include "mm/slab.h"

/* ---- the counts ---- */

int shmem_inode_acct_block(struct inode *inode, long pages)
{
	struct shmem_sb_info *sbinfo = SHMEM_SB(inode->i_sb);
	long used = __atomic_add_fetch(&sbinfo->used_blocks, pages, __ATOMIC_RELAXED);
	unsigned long max = READ_ONCE(sbinfo->max_blocks);
	if (max && (unsigned long)used > max) {
		__atomic_sub_fetch(&sbinfo->used_blocks, pages, __ATOMIC_RELAXED);
		return -ENOSPC;
	}
	return 0;
}

void shmem_inode_unacct_blocks(struct inode *inode, long pages)
{
	__atomic_sub_fetch(&SHMEM_SB(inode->i_sb)->used_blocks, pages, __ATOMIC_RELAXED);
}

int shmem_reserve_inode(struct super_block *sb)
{
	struct shmem_sb_info *sbinfo = SHMEM_SB(sb);
	int err = 0;
	spin_lock(&sbinfo->stat_lock);
	if (sbinfo->max_inodes) {
		if (!sbinfo->free_inodes)
			err = -ENOSPC;
		else
			sbinfo->free_inodes--;
	}
	spin_unlock(&sbinfo->stat_lock);
	return err;
}

void shmem_free_inode(struct super_block *sb)
{
	struct shmem_sb_info *sbinfo = SHMEM_SB(sb);
	spin_lock(&sbinfo->stat_lock);
	if (sbinfo->max_inodes)
		sbinfo->free_inodes++;
	spin_unlock(&sbinfo->stat_lock);
}

struct mempolicy *shmem_get_sbmpol(struct super_block *sb)
{
	struct shmem_sb_info *sbinfo = SHMEM_SB(sb);
	spin_lock(&sbinfo->stat_lock);
	struct mempolicy *pol = mpol_get(sbinfo->mpol);
	spin_unlock(&sbinfo->stat_lock);
	return pol;
}

struct page *shmem_alloc_page(struct inode *inode, unsigned long index, int *err)
{
	if (shmem_inode_acct_block(inode, 1)) {
		*err = -ENOSPC;
		return NULL;
	}
	struct page *page = shmem_alloc_policy_page(&inode->i_policy, index, inode->i_ino + index);
	if (!page) {
		shmem_inode_unacct_blocks(inode, 1);
		*err = -ENOMEM;
	}
	return page;
}

void shmem_free_unadded(struct inode *inode, struct page *page)
{
	__free_page(page);
	shmem_inode_unacct_blocks(inode, 1);
}

static unsigned long shmem_default_max_blocks(void) { return totalram_pages() / 2; }
/* Linux's min(totalram - totalhigh, totalram / 2): no high memory here. */
static unsigned long shmem_default_max_inodes(void) { return totalram_pages() / 2; }

/* ---- the options ---- */

#define SHMEM_SEEN_BLOCKS 1
#define SHMEM_SEEN_INODES 2
#define SHMEM_SEEN_HUGE 4

struct shmem_options {
	unsigned long long blocks, inodes;
	struct mempolicy *mpol;
	umode_t mode;
	unsigned int uid, gid;
	unsigned char huge;
	int seen;
};

static const char *const shmem_huge_names[] = {
	[SHMEM_HUGE_NEVER] = "never", [SHMEM_HUGE_ALWAYS] = "always",
	[SHMEM_HUGE_WITHIN_SIZE] = "within_size", [SHMEM_HUGE_ADVISE] = "advise",
};

/* Linux's shmem_parse_one: 0, -ENOPARAM for a key that is not tmpfs's,
 * -EINVAL for a value it does not take (every tmpfs option wants one). */
static int shmem_parse_one(struct fs_context *fc, const char *key, const char *value)
{
	struct shmem_options *ctx = fc->fs_private;
	static const char *const keys[] = { "size", "nr_blocks", "nr_inodes", "mode", "uid", "gid", "huge", "mpol" };
	size_t opt = 0;
	/* Flags: inode64 is what mmlab's inode numbers are; inode32 would
	 * have them wrap at 2^32, which mmlab does not do (-EINVAL, as
	 * Linux's inode64 on a kernel with 32-bit ino_t). */
	if (!strcmp(key, "inode64") || !strcmp(key, "inode32"))
		return value || key[5] == '3' ? -EINVAL : 0;
	while (opt < ARRAY_SIZE(keys) && strcmp(key, keys[opt]))
		opt++;
	if (opt == ARRAY_SIZE(keys))
		return -ENOPARAM;
	if (!value || !*value) /* Linux's fs_param_is_string: no empty value */
		return -EINVAL;
	const char *rest;
	unsigned int u;
	switch (opt) {
	case 0: { /* size */
		unsigned long long size = memparse(value, &rest);
		if (*rest == '%') {
			size = (size << PAGE_SHIFT) * totalram_pages() / 100;
			rest++;
		}
		if (*rest)
			return -EINVAL;
		ctx->blocks = (size + PAGE_SIZE - 1) / PAGE_SIZE;
		ctx->seen |= SHMEM_SEEN_BLOCKS;
		return 0;
	}
	case 1: /* nr_blocks */
		ctx->blocks = memparse(value, &rest);
		if (*rest || ctx->blocks > 0x7fffffffffffffffull)
			return -EINVAL;
		ctx->seen |= SHMEM_SEEN_BLOCKS;
		return 0;
	case 2: /* nr_inodes */
		ctx->inodes = memparse(value, &rest);
		if (*rest)
			return -EINVAL;
		ctx->seen |= SHMEM_SEEN_INODES;
		return 0;
	case 3: /* mode, octal */
		if (kstrtouint(value, 8, &u))
			return -EINVAL;
		ctx->mode = (umode_t)(u & 07777);
		return 0;
	case 4: /* uid: (uid_t)-1 is no user */
	case 5:
		if (kstrtouint(value, 0, &u) || u == 0xffffffffu)
			return -EINVAL;
		*(opt == 4 ? &ctx->uid : &ctx->gid) = u;
		return 0;
	case 6: /* huge */
		for (u = 0; u < ARRAY_SIZE(shmem_huge_names) && strcmp(value, shmem_huge_names[u]); u++)
			;
		/* Linux's shmem_param_enums_huge: deny and force are
		 * shmem_enabled's alone ("Bad value"). */
		if (u == ARRAY_SIZE(shmem_huge_names))
			return -EINVAL;
		ctx->huge = (unsigned char)u;
		ctx->seen |= SHMEM_SEEN_HUGE;
		return 0;
	default: { /* mpol: parsed from a copy, which mpol_parse_str cuts up */
		char buf[128];
		size_t len = strlen(value);
		if (len >= sizeof(buf))
			return -EINVAL;
		memcpy(buf, value, len + 1);
		mpol_put(ctx->mpol);
		ctx->mpol = NULL;
		return mpol_parse_str(buf, &ctx->mpol) ? -EINVAL : 0;
	}
	}
}

/* Linux's shmem_parse_options: comma-separated, but a comma followed by a
 * digit continues mpol's node list ("mpol=bind:0,1"). */
static char *shmem_next_opt(char **s)
{
	char *this = *s, *p = this;
	for (;;) {
		p = strchr(p, ',');
		if (!p)
			break;
		p++;
		if (*p < '0' || *p > '9') {
			p[-1] = 0;
			break;
		}
	}
	*s = p;
	return this;
}

static int shmem_parse_options(struct fs_context *fc, char *options)
{
	return vfs_parse_monolithic_sep(fc, options, shmem_next_opt);
}

static const struct super_operations shmem_ops;
const struct file_system_type shmem_fs_type;

static void shmem_put_super(struct super_block *sb)
{
	struct shmem_sb_info *sbinfo = SHMEM_SB(sb);
	mpol_put(sbinfo->mpol);
	kfree(sbinfo);
	free_super(sb);
}

/* Linux's shmem_fill_super: the instance and its root directory. */
static int shmem_get_tree(struct fs_context *fc)
{
	struct shmem_options *ctx = fc->fs_private;
	struct shmem_sb_info *sbinfo = kzalloc(sizeof(*sbinfo), GFP_KERNEL);
	struct super_block *sb = sbinfo ? alloc_super(&shmem_fs_type, &shmem_ops, TMPFS_MAGIC) : NULL;
	if (!sb) {
		kfree(sbinfo);
		return -ENOMEM;
	}
	spin_lock_init(&sbinfo->stat_lock);
	/* Linux's: the defaults for a mount, none for the kernel's own. */
	bool kern = fc->sb_flags & SB_KERNMOUNT;
	sbinfo->max_blocks = ctx->seen & SHMEM_SEEN_BLOCKS ? ctx->blocks : kern ? 0 : shmem_default_max_blocks();
	sbinfo->max_inodes = ctx->seen & SHMEM_SEEN_INODES ? ctx->inodes : kern ? 0 : shmem_default_max_inodes();
	sbinfo->free_inodes = sbinfo->max_inodes;
	sbinfo->mode = ctx->mode;
	sbinfo->uid = ctx->uid;
	sbinfo->gid = ctx->gid;
	sbinfo->huge = ctx->huge;
	sbinfo->mpol = ctx->mpol; /* the option's reference */
	ctx->mpol = NULL;
	sb->s_fs_info = sbinfo;
	sb->s_flags = fc->sb_flags;
	struct inode *root = shmem_get_inode(sb, NULL, S_IFDIR | sbinfo->mode, 0);
	if (root) {
		root->i_uid = sbinfo->uid;
		root->i_gid = sbinfo->gid;
	}
	if (!root || !(sb->s_root = d_make_root(root))) {
		if (root)
			iput(root);
		shmem_put_super(sb);
		return -ENOMEM;
	}
	fc->sb = sb;
	return 0;
}

/* Linux's shmem_reconfigure. */
static int shmem_reconfigure(struct fs_context *fc)
{
	struct shmem_options *ctx = fc->fs_private;
	struct shmem_sb_info *sbinfo = SHMEM_SB(fc->sb);
	struct mempolicy *old = NULL;
	int err = -EINVAL;
	spin_lock(&sbinfo->stat_lock);
	unsigned long inodes = sbinfo->max_inodes - sbinfo->free_inodes;
	long used = __atomic_load_n(&sbinfo->used_blocks, __ATOMIC_RELAXED);
	if ((ctx->seen & SHMEM_SEEN_BLOCKS) && ctx->blocks) {
		if (!sbinfo->max_blocks || (unsigned long long)used > ctx->blocks)
			goto out; /* "Cannot retroactively limit size", "Too small a size for current use" */
	}
	if ((ctx->seen & SHMEM_SEEN_INODES) && ctx->inodes) {
		if (!sbinfo->max_inodes || ctx->inodes < inodes)
			goto out; /* "Cannot retroactively limit inodes", "Too few inodes for current use" */
	}
	if (ctx->seen & SHMEM_SEEN_HUGE)
		sbinfo->huge = ctx->huge;
	if (ctx->seen & SHMEM_SEEN_BLOCKS)
		sbinfo->max_blocks = ctx->blocks;
	if (ctx->seen & SHMEM_SEEN_INODES) {
		sbinfo->max_inodes = ctx->inodes;
		sbinfo->free_inodes = ctx->inodes - inodes;
	}
	/* The policy stays unless mpol= was given (mpol=default gives none). */
	if (ctx->mpol) {
		old = sbinfo->mpol;
		sbinfo->mpol = ctx->mpol;
		ctx->mpol = NULL;
	}
	err = 0;
out:
	spin_unlock(&sbinfo->stat_lock);
	mpol_put(old);
	return err;
}

static void shmem_free_fc(struct fs_context *fc)
{
	struct shmem_options *ctx = fc->fs_private;
	if (ctx)
		mpol_put(ctx->mpol);
	kfree(ctx);
}

static const struct fs_context_operations shmem_fs_context_ops = {
	.free = shmem_free_fc, .parse_param = shmem_parse_one, .parse_monolithic = shmem_parse_options,
	.get_tree = shmem_get_tree, .reconfigure = shmem_reconfigure,
};

static int shmem_init_fs_context(struct fs_context *fc)
{
	struct shmem_options *ctx = kzalloc(sizeof(*ctx), GFP_KERNEL);
	if (!ctx)
		return -ENOMEM;
	ctx->mode = 0777 | S_ISVTX;
	fc->fs_private = ctx;
	fc->ops = &shmem_fs_context_ops;
	return 0;
}

/* Linux's shmem_show_options: what differs from the defaults, and
 * inode64 as a kernel built with CONFIG_TMPFS_INODE64 (Debian's) shows
 * it: mmlab's inode numbers are never cut to 32 bits. */
static void shmem_show_options(struct seq_buf *m, struct super_block *sb)
{
	struct shmem_sb_info *sbinfo = SHMEM_SB(sb);
	spin_lock(&sbinfo->stat_lock);
	if (sbinfo->max_blocks != shmem_default_max_blocks())
		seq_buf_printf(m, ",size=%luk", sbinfo->max_blocks << (PAGE_SHIFT - 10));
	if (sbinfo->max_inodes != shmem_default_max_inodes())
		seq_buf_printf(m, ",nr_inodes=%lu", sbinfo->max_inodes);
	if (sbinfo->mode != (0777 | S_ISVTX))
		seq_buf_printf(m, ",mode=%03o", sbinfo->mode);
	if (sbinfo->uid)
		seq_buf_printf(m, ",uid=%u", sbinfo->uid);
	if (sbinfo->gid)
		seq_buf_printf(m, ",gid=%u", sbinfo->gid);
	seq_buf_puts(m, ",inode64");
	if (sbinfo->huge)
		seq_buf_printf(m, ",huge=%s", shmem_huge_names[sbinfo->huge]);
	struct mempolicy *pol = mpol_get(sbinfo->mpol);
	spin_unlock(&sbinfo->stat_lock);
	if (pol && pol->mode != MPOL_DEFAULT) {
		seq_buf_puts(m, ",mpol=");
		mpol_to_str(m, pol);
	}
	mpol_put(pol);
}

/* Linux's shmem_statfs: the limits and what is left of them (0 for no limit). */
static int shmem_statfs(struct dentry *dentry, struct kstatfs *buf)
{
	struct shmem_sb_info *sbinfo = SHMEM_SB(dentry->d_sb);
	simple_statfs(dentry, buf);
	spin_lock(&sbinfo->stat_lock);
	if (sbinfo->max_blocks) {
		long used = __atomic_load_n(&sbinfo->used_blocks, __ATOMIC_RELAXED);
		buf->f_blocks = sbinfo->max_blocks;
		buf->f_bavail = buf->f_bfree = sbinfo->max_blocks > (unsigned long)used ? sbinfo->max_blocks - (unsigned long)used : 0;
	}
	if (sbinfo->max_inodes) {
		buf->f_files = sbinfo->max_inodes;
		buf->f_ffree = sbinfo->free_inodes;
	}
	spin_unlock(&sbinfo->stat_lock);
	return 0;
}

/* Linux's kill_litter_super: every name's own reference dropped
 * (d_genocide), so that each file's last reference evicts it, pages and
 * all; then the root, the counts and the instance. */
static void shmem_kill_sb(struct super_block *sb)
{
	struct dentry *root = sb->s_root;
	d_genocide(root);
	dput(root);
	shmem_put_super(sb);
}

static const struct super_operations shmem_ops = {
	.evict_inode = shmem_evict_inode, .statfs = shmem_statfs, .show_options = shmem_show_options,
};

const struct file_system_type shmem_fs_type = {
	.name = "tmpfs", .init_fs_context = shmem_init_fs_context, .kill_sb = shmem_kill_sb,
};
