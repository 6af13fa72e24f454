/* The root's first contents, from the boot loader's modules. First the
 * initramfs (the module named "initramfs": a cpio archive with /bin,
 * /etc, /dev's device nodes, /tmp), unpacked as Linux's populate_rootfs
 * does (fs/initramfs.c). Then the programs (grub.cfg's "module2 ...
 * <kind> <name>" lines) as regular tmpfs files, /bin/<name>, for each name
 * the archive did not bring: a program a user adds to the ISO as one more
 * module appears in /bin without a new archive. Their contents are page
 * cache like any file's, and execve reads the ELF file through them
 * (fs/exec.c): run=NAME and the tests start every program by execve of
 * /bin/NAME (kernel/process.c). Then each module's memory is freed, as
 * Linux frees the initrd's (free_initrd_mem): the archive once unpacked,
 * a program once /bin holds it; a program that could not be copied keeps
 * its module. */
#include "fs/bin.h"
#include "fs/init.h"
#include "fs/initramfs.h"
#include "drivers/firmware/multiboot2.h"
#include "kernel/printk.h"
#include "kernel/unistd.h"
#include "lib/err.h"
#include "lib/string.h"
#include "mm/page.h"
#include "mm/page_alloc.h"

/* Linux's free_initrd_mem: the whole pages of a module whose contents
 * the root now holds go to the buddy allocator (the page a neighbour
 * shares stays reserved), and the module is marked empty so that nothing
 * reads it again. Returns the pages freed. */
static unsigned long free_boot_module(struct boot_module *m)
{
	unsigned long spfn = (m->start + PAGE_SIZE - 1) >> PAGE_SHIFT, epfn = m->end >> PAGE_SHIFT;
	m->start = m->end = 0;
	if (spfn >= epfn)
		return 0;
	free_boot_range(spfn, epfn);
	return epfn - spfn;
}

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
	unsigned long freed = free_boot_module((struct boot_module *)archive);
	pr_info("initramfs: the archive's %lu KiB freed (free_initrd_mem)\n", freed << (PAGE_SHIFT - 10));
}

void populate_bin(void)
{
	unsigned long bytes = 0;
	unsigned long freed = 0;
	unsigned int files = 0, archived = 0;
	for (unsigned i = 0; i < boot_info.nr_modules; i++) {
		struct boot_module *m = &boot_info.modules[i];
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
			if (PTR_ERR(f) == -EEXIST) {
				archived++; /* the initramfs brought it */
				freed += free_boot_module(m);
			} else {
				pr_warn("bin: %s: %ld\n", path, PTR_ERR(f));
			}
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
		freed += free_boot_module(m);
	}
	pr_info("bin: %u programs from their own modules in /bin (%lu KiB of page cache), %u already "
		"there from the initramfs; %lu KiB of modules freed\n",
		files, bytes >> 10, archived, freed << (PAGE_SHIFT - 10));
}
