/* /bin: the boot loader's programs (grub.cfg's "module2 ... <kind> <name>"
 * lines) as regular tmpfs files, /bin/<name>, written at boot from the
 * modules' bytes: their contents are page cache like any file's, and
 * execve reads the ELF file through them (fs/exec.c). The modules stay
 * where the boot loader put them (the tests and run=NAME start programs
 * from them directly). */
#include "fs/bin.h"
#include "fs/init.h"
#include "drivers/firmware/multiboot2.h"
#include "kernel/printk.h"
#include "kernel/unistd.h"
#include "lib/err.h"
#include "lib/string.h"
#include "mm/page.h"

void populate_bin(void)
{
	unsigned long bytes = 0;
	unsigned int files = 0;
	for (unsigned i = 0; i < boot_info.nr_modules; i++) {
		const struct boot_module *m = &boot_info.modules[i];
		const char *space = m->cmdline ? strchr(m->cmdline, ' ') : NULL;
		char path[80];
		if (!space || !space[1] || strchr(space + 1, '/') ||
		    snprintf(path, sizeof(path), "/bin/%s", space + 1) >= (int)sizeof(path))
			continue;
		struct file *f = filp_open(path, O_WRONLY | O_CREAT | O_EXCL, 0755);
		if (IS_ERR(f)) {
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
	pr_info("bin: %u programs in /bin (%lu KiB of page cache)\n", files, bytes >> 10);
}
