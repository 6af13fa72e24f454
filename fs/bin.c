/* The root's first contents, from the boot loader's modules. First the
 * initramfs (the module named "initramfs": a cpio archive with /bin and
 * every user program in it, /etc with the programs' manifest
 * /etc/mmlab/programs, /dev's device nodes, /tmp), unpacked as Linux's
 * populate_rootfs does (fs/initramfs.c), and its pages freed, as Linux
 * frees the initrd's (free_initrd_mem). Then the registry of programs
 * (fs/programs.c) reads the manifest, and every other module is a program
 * a user added to the ISO ("module2 /boot/x.elf <kind> x [args...]"): it
 * becomes /bin/<name> unless the archive brought that file, joins the
 * registry unless the manifest named it, and its pages are freed; one that
 * could not be copied keeps its module. The programs' contents are page
 * cache like any file's, and execve reads the ELF file through them
 * (fs/exec.c): run=NAME and the tests start every program by execve of
 * /bin/NAME (kernel/process.c). */
#include "fs/bin.h"
#include "fs/init.h"
#include "fs/initramfs.h"
#include "fs/programs.h"
#include "drivers/firmware/multiboot2.h"
#include "kernel/printk.h"
#include "kernel/unistd.h"
#include "lib/err.h"
#include "lib/string.h"
#include "mm/page.h"
#include "mm/page_alloc.h"
#include "mm/slab.h"

/* Linux's free_initrd_mem: the whole pages of a module whose contents
 * the root now holds go to the buddy allocator (the page a neighbour
 * shares stays reserved), and the module is marked freed so that nothing
 * reads it again. Returns the pages freed. */
static unsigned long free_boot_module(struct boot_module *m)
{
	unsigned long spfn = (m->start + PAGE_SIZE - 1) >> PAGE_SHIFT, epfn = m->end >> PAGE_SHIFT;
	m->freed = true;
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

/* The manifest the archive brought (PROGRAM_MANIFEST): each line feeds
 * the registry (fs/programs.c). Read whole into one buffer: a build's
 * manifest is a few KiB; one past PROGRAM_MANIFEST_MAX is refused. */
#define PROGRAM_MANIFEST_MAX (64 * 1024)
static void read_program_manifest(void)
{
	struct file *f = filp_open(PROGRAM_MANIFEST, O_RDONLY, 0);
	if (IS_ERR(f)) {
		pr_info("programs: no %s (%ld): programs come from modules only\n", PROGRAM_MANIFEST, PTR_ERR(f));
		return;
	}
	char *buf = kmalloc(PROGRAM_MANIFEST_MAX + 1, GFP_KERNEL);
	long long pos = 0;
	long n = buf ? kernel_read(f, buf, PROGRAM_MANIFEST_MAX + 1, &pos) : -ENOMEM;
	filp_close(f);
	if (n > PROGRAM_MANIFEST_MAX)
		pr_warn("programs: %s is longer than %d bytes: refused\n", PROGRAM_MANIFEST, PROGRAM_MANIFEST_MAX);
	else if (n < 0)
		pr_warn("programs: %s: read error %ld\n", PROGRAM_MANIFEST, n);
	if (n >= 0 && n <= PROGRAM_MANIFEST_MAX) {
		unsigned int refused;
		unsigned int added = register_program_manifest(buf, (size_t)n, &refused);
		pr_info("programs: %u from %s, %u lines refused\n", added, PROGRAM_MANIFEST, refused);
	}
	kfree(buf);
}

/* A module that is a program: its command line names it, "<kind> <name>
 * [<arguments>...]"; it becomes /bin/<name> unless the archive brought that
 * file, and joins the registry unless the manifest named it already. */
static bool module_to_bin(struct boot_module *m, unsigned int i, unsigned long *bytes, bool *archived)
{
	struct user_program p;
	const char *reason;
	char source[24], path[sizeof(p.name) + 8];
	snprintf(source, sizeof(source), "module %u", i);
	if (register_user_program(m->cmdline, source) == -EINVAL || parse_program_line(m->cmdline, &p, &reason))
		return false; /* logged by the registry */
	snprintf(path, sizeof(path), "/bin/%s", p.name);
	struct file *f = filp_open(path, O_WRONLY | O_CREAT | O_EXCL, 0755);
	if (IS_ERR(f)) {
		*archived = PTR_ERR(f) == -EEXIST; /* the initramfs brought it */
		if (!*archived)
			pr_warn("bin: %s: %ld\n", path, PTR_ERR(f));
		return *archived;
	}
	long long pos = 0;
	unsigned long size = m->end - m->start;
	long n = kernel_write(f, __va(m->start), size, &pos);
	filp_close(f);
	if (n != (long)size) {
		pr_warn("bin: %s: wrote %ld of %lu bytes\n", path, n, size);
		init_unlink(path);
		return false;
	}
	*bytes += size;
	return true;
}

void populate_bin(void)
{
	read_program_manifest();
	unsigned long bytes = 0, freed = 0;
	unsigned int files = 0, archived = 0;
	for (unsigned i = 0; i < boot_info.nr_modules; i++) {
		struct boot_module *m = &boot_info.modules[i];
		bool in_archive = false;
		if (m->freed || !m->cmdline || !strcmp(m->cmdline, "initramfs"))
			continue;
		if (!module_to_bin(m, i, &bytes, &in_archive))
			continue; /* a program that could not be copied keeps its module */
		files += !in_archive;
		archived += in_archive;
		freed += free_boot_module(m);
	}
	pr_info("bin: %u programs known; %u from their own modules in /bin (%lu KiB of page cache), %u "
		"already there from the initramfs; %lu KiB of modules freed\n",
		nr_user_programs(), files, bytes >> 10, archived, freed << (PAGE_SHIFT - 10));
}
