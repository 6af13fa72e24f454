/* /bin: the boot loader's programs (grub.cfg's "module2 ... <kind> <name>"
 * lines) as read-only files, /bin/<name>, until a real root filesystem
 * exists: what execve finds by path (fs/exec.c), and what open, read and
 * stat see of it (the ELF file's bytes). */
#include "fs/bin.h"
#include "fs/proc/proc_fs.h"
#include "arch/x86_64/uaccess.h"
#include "drivers/firmware/multiboot2.h"
#include "kernel/process.h"
#include "lib/string.h"
#include "mm/page.h"

static const struct proc_dir_entry bin_dir __proc_entry = {
	.parent = &root_dir, .name = "bin", .mode = S_IFDIR | 0555,
};

static bool bin_program_match(const char *s, size_t len, struct task_struct *task, struct proc_node *node)
{
	(void)task;
	char name[64];
	if (!len || len >= sizeof(name))
		return false;
	memcpy(name, s, len);
	name[len] = 0;
	node->module = find_user_program(name, NULL);
	return node->module != NULL;
}

static long bin_program_read(const struct proc_node *node, char *dst, size_t count, long *pos, bool user)
{
	const struct boot_module *m = node->module;
	unsigned long size = m->end - m->start;
	if (*pos < 0)
		return -EINVAL;
	if ((unsigned long)*pos >= size)
		return 0;
	if (count > size - (unsigned long)*pos)
		count = size - (unsigned long)*pos;
	const char *src = (const char *)__va(m->start) + *pos;
	if (user ? copy_to_user(dst, src, count) : (memcpy(dst, src, count), 0))
		return -EFAULT;
	*pos += (long)count;
	return (long)count;
}

static const struct proc_dir_entry bin_program __proc_entry = {
	.parent = &bin_dir, .match = bin_program_match, .mode = S_IFREG | 0555, .read = bin_program_read,
};

bool bin_program_entry(const struct proc_node *node) { return node->entry == &bin_program; }
