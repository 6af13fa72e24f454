/* File system types and the context a mount is made in (Linux's
 * include/linux/fs_context.h and the file_system_type of
 * include/linux/fs.h), reduced to what mount(2) needs: a type is found
 * by name (get_fs_type), a fs_context collects the options of one
 * mount(2) or remount (each "key[=value]" of the data string goes to the
 * type's parse_param, after the generic super-block flags "ro", "rw",
 * "sync"...), then get_tree makes a new super_block or reconfigure
 * changes the existing one.
 *
 * Errors are Linux's: an option the type does not know, or a value it
 * does not take, is -EINVAL (Linux logs why with invalf); a type no one
 * registered is -ENODEV. */
#ifndef FS_FS_CONTEXT_H
#define FS_FS_CONTEXT_H

#include "fs/fs.h"

/* Linux's kernel-internal errno for "not my parameter" (include/linux/errno.h). */
#define ENOPARAM 519

/* Super-block flags (Linux's SB_*, the same bits as MS_*). */
#define SB_RDONLY 1u
#define SB_SYNCHRONOUS 16u
#define SB_MANDLOCK 64u
#define SB_DIRSYNC 128u
#define SB_SILENT 32768u
#define SB_POSIXACL (1u << 16)
#define SB_I_VERSION (1u << 23)
#define SB_KERNMOUNT (1u << 22) /* the kernel's own instance, in no mount table */
#define SB_LAZYTIME (1u << 25)
/* What mount(2)'s flags may set or a remount may change (Linux's MS_RMT_MASK). */
#define MS_RMT_MASK (SB_RDONLY | SB_SYNCHRONOUS | SB_MANDLOCK | SB_I_VERSION | SB_LAZYTIME)

struct fs_context;
struct seq_buf;

struct fs_context_operations {
	void (*free)(struct fs_context *fc);
	/* One option: 0, -ENOPARAM (not this type's), or -EINVAL. value is
	 * NULL for a bare "key". */
	int (*parse_param)(struct fs_context *fc, const char *key, const char *value);
	/* The whole data string, when the type splits it its own way
	 * (tmpfs: mpol's node lists hold commas). NULL: split at commas. */
	int (*parse_monolithic)(struct fs_context *fc, char *data);
	/* A new instance: fc->sb, with its root. */
	int (*get_tree)(struct fs_context *fc);
	/* A remount: fc->sb's options changed in place. */
	int (*reconfigure)(struct fs_context *fc);
};

struct file_system_type {
	const char *name;
	int (*init_fs_context)(struct fs_context *fc);
	/* The last mount of an instance went: its files and memory go. */
	void (*kill_sb)(struct super_block *sb);
};

struct fs_context {
	const struct fs_context_operations *ops;
	const struct file_system_type *fs_type;
	void *fs_private;          /* the type's parsed options */
	struct super_block *sb;    /* made by get_tree; the one reconfigured */
	unsigned int sb_flags;     /* SB_* asked for */
	unsigned int sb_flags_mask; /* which SB_* the caller or the options set */
	bool for_reconfigure;
};

/* The registered types (fs/filesystems.c): tmpfs, proc, sysfs. NULL for
 * a name no one registered. */
const struct file_system_type *get_fs_type(const char *name);

/* Linux's fs_context_for_mount / fs_context_for_reconfigure: 0 or an
 * errno; put_fs_context frees what parsing made. */
int fs_context_for_mount(struct fs_context *fc, const struct file_system_type *type, unsigned int sb_flags);
int fs_context_for_reconfigure(struct fs_context *fc, struct super_block *sb, unsigned int sb_flags,
			       unsigned int sb_flags_mask);
void put_fs_context(struct fs_context *fc);
/* Linux's parse_monolithic_mount_data: data (may be NULL, and is
 * changed) as the type splits it, each option through
 * vfs_parse_fs_string. */
int parse_monolithic_mount_data(struct fs_context *fc, char *data);
/* Linux's generic_parse_monolithic: comma-separated "key[=value]";
 * vfs_parse_monolithic_sep: cut into options by sep, which returns the
 * next one and moves *s past it (NULL after the last). */
int generic_parse_monolithic(struct fs_context *fc, char *data);
int vfs_parse_monolithic_sep(struct fs_context *fc, char *data, char *(*sep)(char **));
/* One option: the generic super-block flags, then the type's. */
int vfs_parse_fs_string(struct fs_context *fc, const char *key, const char *value);

/* Linux's memparse: a number (base 0: 0x.., 0..) with an optional K, M,
 * G, T, P or E suffix; *end past what was read. */
unsigned long long memparse(const char *s, const char **end);
/* A u32 in base (0: as the prefix says), the whole string: 0 or -EINVAL
 * (Linux's kstrtouint, as fs_param_is_u32 uses it). */
int kstrtouint(const char *s, unsigned int base, unsigned int *out);

#endif
