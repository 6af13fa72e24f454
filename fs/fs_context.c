/* The options of a mount (Linux's fs/fs_context.c and the number parsers
 * of lib/cmdline.c and lib/kstrtox.c): fs/fs_context.h has the rules. */
#include "fs/fs_context.h"
#include "lib/string.h"

/* Linux's forbidden_sb_flag: per-mount flags, given as mount(2)'s flags,
 * never in the data string. */
static const char *const forbidden_sb_flag[] = {
	"bind", "dev", "exec", "move", "noatime", "nodev", "nodiratime", "noexec", "norelatime",
	"nostrictatime", "nosuid", "private", "rec", "relatime", "remount", "shared", "slave",
	"strictatime", "suid", "unbindable",
};

static const struct { const char *name; unsigned int flag; bool set; } common_sb_flags[] = {
	{ "dirsync", SB_DIRSYNC, true }, { "lazytime", SB_LAZYTIME, true }, { "mand", SB_MANDLOCK, true },
	{ "posixacl", SB_POSIXACL, true }, { "ro", SB_RDONLY, true }, { "sync", SB_SYNCHRONOUS, true },
	{ "async", SB_SYNCHRONOUS, false }, { "nolazytime", SB_LAZYTIME, false },
	{ "nomand", SB_MANDLOCK, false }, { "rw", SB_RDONLY, false },
};

/* Linux's vfs_parse_sb_flag. */
static int vfs_parse_sb_flag(struct fs_context *fc, const char *key)
{
	for (size_t i = 0; i < ARRAY_SIZE(forbidden_sb_flag); i++)
		if (!strcmp(key, forbidden_sb_flag[i]))
			return -EINVAL;
	for (size_t i = 0; i < ARRAY_SIZE(common_sb_flags); i++) {
		if (strcmp(key, common_sb_flags[i].name))
			continue;
		if (common_sb_flags[i].set)
			fc->sb_flags |= common_sb_flags[i].flag;
		else
			fc->sb_flags &= ~common_sb_flags[i].flag;
		fc->sb_flags_mask |= common_sb_flags[i].flag;
		return 0;
	}
	return -ENOPARAM;
}

int vfs_parse_fs_string(struct fs_context *fc, const char *key, const char *value)
{
	if (!*key)
		return -EINVAL; /* Linux: "Unnamed parameter" */
	int ret = vfs_parse_sb_flag(fc, key);
	if (ret != -ENOPARAM)
		return ret;
	if (fc->ops->parse_param) {
		ret = fc->ops->parse_param(fc, key, value);
		if (ret != -ENOPARAM)
			return ret;
	}
	/* Linux's vfs_parse_fs_param_source: "source" names the device,
	 * which mount(2) gives as its first argument instead. */
	if (!strcmp(key, "source"))
		return value ? 0 : -EINVAL;
	return -EINVAL; /* Linux: "Unknown parameter" */
}

/* Linux's vfs_parse_comma_sep: the next option, cut at its comma. */
static char *vfs_parse_comma_sep(char **s)
{
	char *key = *s, *comma = strchr(key, ',');
	if (comma)
		*comma++ = 0;
	*s = comma;
	return key;
}

int vfs_parse_monolithic_sep(struct fs_context *fc, char *data, char *(*sep)(char **))
{
	while (data) {
		char *key = sep(&data);
		if (!*key)
			continue;
		char *value = strchr(key, '=');
		if (value)
			*value++ = 0;
		int err = vfs_parse_fs_string(fc, key, value);
		if (err)
			return err;
	}
	return 0;
}

int generic_parse_monolithic(struct fs_context *fc, char *data)
{
	return vfs_parse_monolithic_sep(fc, data, vfs_parse_comma_sep);
}

int parse_monolithic_mount_data(struct fs_context *fc, char *data)
{
	if (fc->ops->parse_monolithic)
		return fc->ops->parse_monolithic(fc, data);
	return generic_parse_monolithic(fc, data);
}

int fs_context_for_mount(struct fs_context *fc, const struct file_system_type *type, unsigned int sb_flags)
{
	memset(fc, 0, sizeof(*fc));
	fc->fs_type = type;
	fc->sb_flags = sb_flags;
	return type->init_fs_context(fc);
}

int fs_context_for_reconfigure(struct fs_context *fc, struct super_block *sb, unsigned int sb_flags,
			       unsigned int sb_flags_mask)
{
	memset(fc, 0, sizeof(*fc));
	fc->fs_type = sb->s_fs_type;
	fc->sb = sb;
	fc->sb_flags = sb_flags;
	fc->sb_flags_mask = sb_flags_mask;
	fc->for_reconfigure = true;
	return fc->fs_type->init_fs_context(fc);
}

void put_fs_context(struct fs_context *fc)
{
	if (fc->ops && fc->ops->free)
		fc->ops->free(fc);
	fc->fs_private = NULL;
}

/* A digit's value, past every base for what is none. */
static int digit_value(char c)
{
	int v = hex_to_bin(c);
	return v < 0 ? 99 : v;
}

/* Linux's simple_strtoull (base 0: "0x" hex, "0" octal, else decimal);
 * *overflow set when the value does not fit 64 bits. */
static unsigned long long parse_ull(const char *s, const char **end, unsigned int base, bool *overflow)
{
	if (base == 0 || base == 16) {
		if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X') && digit_value(s[2]) < 16) {
			s += 2;
			base = 16;
		} else if (base == 0) {
			base = s[0] == '0' ? 8 : 10;
		}
	}
	unsigned long long v = 0;
	*overflow = false;
	for (int d; (d = digit_value(*s)) < (int)base; s++) {
		if (v > (~0ull - (unsigned)d) / base)
			*overflow = true;
		v = v * base + (unsigned)d;
	}
	*end = s;
	return v;
}

unsigned long long memparse(const char *s, const char **end)
{
	bool overflow;
	unsigned long long v = parse_ull(s, end, 0, &overflow);
	static const char suffixes[] = "KMGTPE";
	for (int i = 0; suffixes[i]; i++) {
		if (**end == suffixes[i] || **end == suffixes[i] + 'a' - 'A') {
			v <<= 10 * (i + 1);
			(*end)++;
			break;
		}
	}
	return v;
}

int kstrtouint(const char *s, unsigned int base, unsigned int *out)
{
	if (*s == '+')
		s++;
	if (base == 8 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X'))
		return -EINVAL;
	const char *end;
	bool overflow;
	unsigned long long v = parse_ull(s, &end, base, &overflow);
	if (end == s)
		return -EINVAL;
	if (*end == '\n')
		end++;
	if (*end)
		return -EINVAL;
	if (overflow || v > 0xffffffffull)
		return -ERANGE;
	*out = (unsigned int)v;
	return 0;
}
