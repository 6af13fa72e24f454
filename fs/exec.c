/* The initial stack of a new program (Linux's fs/exec.c setup_arg_pages and
 * copy_strings, fs/binfmt_elf.c create_elf_tables), laid out as a static
 * x86_64 Linux program expects it.
 *
 * From STACK_TOP down: a NULL word, the file name (AT_EXECFN), the
 * environment strings (none: the environment is empty), the argument
 * strings, then, 16-byte aligned, the platform string "x86_64", AT_RANDOM's
 * 16 bytes, and below them, aligned so that rsp is 16-byte aligned at
 * _start, argc, argv[], NULL, envp[] (NULL), the auxiliary vector.
 *
 * The file name is "/<name>", the program's name as mmlab knows it (its
 * boot module's name): what AT_EXECFN points at and what
 * readlink("/proc/self/exe") gives. */
#include "fs/exec.h"
#include "arch/x86_64/cpu.h"
#include "arch/x86_64/processor.h"
#include "arch/x86_64/syscall.h"
#include "arch/x86_64/uaccess.h"
#include "fs/file.h"
#include "drivers/firmware/multiboot2.h"
#include "kernel/printk.h"
#include "drivers/char/random.h"
#include "kernel/sched.h"
#include "lib/string.h"
#include "kernel/unistd.h"
#include "mm/mmap.h"
#include "mm/page.h"

#define ELF_PLATFORM "x86_64"
#define CLOCKS_PER_SEC 100 /* USER_HZ */
#define EXECFN_MAX 64
#define BINPRM_MAX_ARGS 64

int setup_arg_pages(struct mm_struct *mm, const struct elf_image_info *elf, unsigned long stack_size)
{
	unsigned long prot = PROT_READ | PROT_WRITE | (elf->exec_stack ? PROT_EXEC : 0);
	unsigned long a = do_mmap(mm, STACK_TOP - stack_size, stack_size, prot,
				  MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE | MAP_GROWSDOWN);
	return IS_ERR_VALUE(a) ? (int)(long)a : 0;
}

/* ELF_HWCAP: CPUID leaf 1's EDX, as x86's boot_cpu_data.x86_capability
 * word 0. */
unsigned long elf_hwcap(void)
{
	u32 a, b, c, d;
	cpuid(1, &a, &b, &c, &d);
	return d;
}

/* ELF_HWCAP2 (arch/x86/kernel/cpu/common.c): FSGSBASE when the kernel
 * enabled it; RING3MWAIT is a Xeon Phi feature mmlab does not enable. */
unsigned long elf_hwcap2(void) { return fsgsbase_enabled() ? HWCAP2_FSGSBASE : 0; }

/* The program's file name: "/" and the name of the boot module the image
 * came from, or of the task when it came from elsewhere (a test's image). */
static void exec_filename(const struct elf_image_info *elf, char *buf, size_t size)
{
	const char *name = current->comm;
	for (unsigned i = 0; i < boot_info.nr_modules; i++) {
		const struct boot_module *m = &boot_info.modules[i];
		const char *space = m->cmdline ? strchr(m->cmdline, ' ') : NULL;
		if (space && __va(m->start) == elf->image) {
			name = space + 1;
			break;
		}
	}
	snprintf(buf, size, "/%s", name);
}

/* Pushes n bytes onto the new process's stack; 0 on failure. */
static unsigned long push_bytes(unsigned long *sp, const void *data, unsigned long n)
{
	*sp -= n;
	return copy_to_user((void *)*sp, data, n) ? 0 : *sp;
}

int create_elf_tables(const struct elf_image_info *elf, int argc, char *const argv[],
		      unsigned long *sp_out)
{
	unsigned long sp = STACK_TOP - sizeof(void *); /* exec's bprm->p: a NULL word on top */
	unsigned long argv_user[BINPRM_MAX_ARGS + 1];
	char execfn[EXECFN_MAX];

	if (argc < 0 || argc > BINPRM_MAX_ARGS)
		return -E2BIG;

	if (clear_user((void *)sp, sizeof(void *)))
		return -EFAULT;
	exec_filename(elf, execfn, sizeof(execfn));
	files_set_exe_path(current->files, execfn);
	unsigned long u_execfn = push_bytes(&sp, execfn, strlen(execfn) + 1);
	if (!u_execfn)
		return -EFAULT;
	/* copy_strings: the last argument first, so argv[0] is lowest. */
	for (int i = argc - 1; i >= 0; i--) {
		argv_user[i] = push_bytes(&sp, argv[i], strlen(argv[i]) + 1);
		if (!argv_user[i])
			return -EFAULT;
	}
	argv_user[argc] = 0;
	/* Linux's mm->arg_start..arg_end (argv[0]'s string up to the end of
	 * the last one, which the file name follows) and env_start..env_end
	 * (empty: no environment strings are passed). */
	struct mm_struct *mm = current->mm;
	mm->arg_start = argc ? argv_user[0] : u_execfn;
	mm->arg_end = mm->env_start = mm->env_end = u_execfn;

	/* create_elf_tables: arch_align_stack (16 bytes, no randomisation),
	 * the platform string, then the random bytes. */
	sp &= ~15ul;
	unsigned long u_platform = push_bytes(&sp, ELF_PLATFORM, sizeof(ELF_PLATFORM));
	u8 random[16];
	get_random_bytes(random, sizeof(random));
	unsigned long u_rand_bytes = push_bytes(&sp, random, sizeof(random));
	memset(random, 0, sizeof(random));
	if (!u_platform || !u_rand_bytes)
		return -EFAULT;

	const u64 auxv[] = {
		/* ARCH_DLINFO: AT_SYSINFO_EHDR only with a vDSO (none here). */
		AT_MINSIGSTKSZ, fpu_min_sigstack_size(),
		AT_HWCAP, elf_hwcap(),
		AT_PAGESZ, PAGE_SIZE,
		AT_CLKTCK, CLOCKS_PER_SEC,
		AT_PHDR, elf->phdr_addr,
		AT_PHENT, sizeof(Elf64_Phdr),
		AT_PHNUM, elf->phnum,
		AT_BASE, 0, /* the interpreter's base: there is none */
		AT_FLAGS, 0,
		AT_ENTRY, elf->entry,
		AT_UID, 0, AT_EUID, 0, AT_GID, 0, AT_EGID, 0,
		AT_SECURE, 0,
		AT_RANDOM, u_rand_bytes,
		AT_HWCAP2, elf_hwcap2(),
		AT_EXECFN, u_execfn,
		AT_PLATFORM, u_platform,
		AT_NULL, 0,
	};
	/* STACK_ROUND: argc, argv + NULL, envp's NULL, the vector. */
	unsigned long words = 1 + (unsigned long)argc + 1 + 1 + ARRAY_SIZE(auxv);
	sp = (sp - words * 8) & ~15ul;
	unsigned long p = sp;
	u64 argc64 = (u64)argc, zero = 0;
	if (copy_to_user((void *)p, &argc64, 8))
		return -EFAULT;
	p += 8;
	if (copy_to_user((void *)p, argv_user, ((unsigned long)argc + 1) * 8))
		return -EFAULT;
	p += ((unsigned long)argc + 1) * 8;
	if (copy_to_user((void *)p, &zero, 8)) /* envp: empty */
		return -EFAULT;
	p += 8;
	if (copy_to_user((void *)p, auxv, sizeof(auxv)))
		return -EFAULT;
	*sp_out = sp;
	return 0;
}
