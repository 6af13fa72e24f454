/* The root's first contents, from the boot loader's modules. First the
 * initramfs (the module named "initramfs": a cpio archive with /bin,
 * /etc, /dev's device nodes, /tmp), unpacked as Linux's populate_rootfs
 * does (fs/initramfs.c). Then the programs (grub.cfg's "module2 ...
 * <kind> <name>" lines) as regular tmpfs files, /bin/<name>, for each name
 * the archive did not bring: a program a user adds to the ISO as one more
 * module appears in /bin without a new archive. Their contents are page
 * cache like any file's, and execve reads the ELF file through them
 * (fs/exec.c): run=NAME and the tests start every program by execve of
 * /bin/NAME (kernel/process.c). The modules stay where the boot loader
 * put them (a few tests load a crafted image from memory). */
#include "fs/bin.h"
#include "fs/init.h"
#include "fs/initramfs.h"
#include "drivers/firmware/multiboot2.h"
#include "kernel/printk.h"
#include "kernel/unistd.h"
#include "lib/err.h"
#include "lib/string.h"
#include "mm/page.h"

void populate_rootfs(void)
{
	const struct boot_module *archive = NULL;
	for (unsigned i = 0; i < boot_info.nr_modules && !archive; i++)
		if (boot_info.modules[i].cmdline && !strcmp(boot_info.modules[i].cmdline, "initramfs"))
			archive = &boot_info.modules[i];
	if (!archive) {
		pr_info("initramfs: no module named 'initramfs': the root has only the kernel's directories\n");
		return;
	}
	struct initramfs_summary sum;
	unsigned long len = archive->end - archive->start;
	int err = unpack_to_rootfs(__va(archive->start), len, &sum);
	pr_info("initramfs: %lu of %lu bytes unpacked: %u directories, %u files, %u symlinks, %u device "
		"nodes, %u hard links, %u skipped\n",
		sum.consumed, len, sum.dirs, sum.files, sum.symlinks, sum.nodes, sum.hard_links, sum.skipped);
	if (err)
		pr_warn("initramfs: first problem at byte %lu: %s (error %d); the root keeps what was "
			"unpacked\n",
			sum.error_offset, sum.message, err);
}

void populate_bin(void)
{
	unsigned long bytes = 0;
	unsigned int files = 0, archived = 0;
	for (unsigned i = 0; i < boot_info.nr_modules; i++) {
		const struct boot_module *m = &boot_info.modules[i];
		const char *space = m->cmdline ? strchr(m->cmdline, ' ') : NULL;
		char path[80];
		/* "<kind> <name>[ <arguments>...]": the name is one word. */
		const char *name = space ? space + 1 : "", *end = strchr(name, ' ');
		int len = end ? (int)(end - name) : (int)strlen(name);
		const char *slash = strchr(name, '/');
		if (!len || (slash && slash < name + len) ||
		    snprintf(path, sizeof(path), "/bin/%.*s", len, space + 1) >= (int)sizeof(path))
			continue;
		struct file *f = filp_open(path, O_WRONLY | O_CREAT | O_EXCL, 0755);
		if (IS_ERR(f)) {
			if (PTR_ERR(f) == -EEXIST)
				archived++; /* the initramfs brought it */
			else
				pr_warn("bin: %s: %ld\n", path, PTR_ERR(f));
			continue;
		}
		long long pos = 0;
		unsigned long size = m->end - m->start;
		long n = kernel_write(f, __va(m->start), size, &pos);
		filp_close(f);
		if (n != (long)size) {
			pr_warn("bin: %s: wrote %ld of %lu bytes\n", path, n, size);
			init_unlink(path);
			continue;
		}
		bytes += size;
		files++;
	}
	pr_info("bin: %u programs from their own modules in /bin (%lu KiB of page cache), %u already "
		"there from the initramfs\n",
		files, bytes >> 10, archived);
}
