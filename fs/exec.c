/* The initial stack of a new program (Linux's fs/exec.c setup_arg_pages and
 * copy_strings, fs/binfmt_elf.c create_elf_tables), laid out as a static
 * x86_64 Linux program expects it.
 *
 * From STACK_TOP down: a NULL word, the file name (AT_EXECFN), the
 * environment strings, the argument strings, then, 16-byte aligned, the platform string "x86_64", AT_RANDOM's
 * 16 bytes, and below them, aligned so that rsp is 16-byte aligned at
 * _start, argc, argv[], NULL, envp[], NULL, the auxiliary vector.
 *
 * The file name is the path execve was given, or, for a program the
 * kernel starts, "/<name>", the program's name as mmlab knows it (its
 * boot module's name): what AT_EXECFN points at and what
 * readlink("/proc/self/exe") gives. */
#include "fs/binprm.h"
#include "fs/dcache.h"
#include "fs/fs_struct.h"
#include "fs/exec.h"
#include "kernel/cred.h"
#include "fs/mount.h"
#include "lib/err.h"
#include "fs/init.h"
#include "fs/fdtable.h"
#include "fs/internal.h"
#include "fs/proc/proc_fs.h"
#include "arch/x86_64/cpu.h"
#include "arch/x86_64/processor.h"
#include "arch/x86_64/syscall.h"
#include "arch/x86_64/uaccess.h"
#include "fs/file.h"
#include "drivers/firmware/multiboot2.h"
#include "kernel/printk.h"
#include "drivers/char/random.h"
#include "arch/x86_64/traps.h"
#include "kernel/futex.h"
#include "kernel/process.h"
#include "kernel/sched.h"
#include "kernel/signal.h"
#include "kernel/syscall.h"
#include "lib/string.h"
#include "lib/vsprintf.h"
#include "kernel/unistd.h"
#include "mm/mmap.h"
#include "mm/mmu_context.h"
#include "mm/page.h"
#include "mm/slab.h"
#include "mm/util.h"

#define ELF_PLATFORM "x86_64"
#define CLOCKS_PER_SEC 100 /* USER_HZ */
#define EXECFN_MAX 64

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
		if (space && !m->freed && __va(m->start) == elf->image) {
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

/* copy_strings: the last string first, so that [0] is lowest; fills
 * user[] and its NULL. 0 or -EFAULT. */
static int copy_strings(unsigned long *sp, int n, char *const strs[], unsigned long *user)
{
	for (int i = n - 1; i >= 0; i--) {
		user[i] = push_bytes(sp, strs[i], strlen(strs[i]) + 1);
		if (!user[i])
			return -EFAULT;
	}
	user[n] = 0;
	return 0;
}

static int build_stack(const struct elf_image_info *elf, int argc, char *const argv[], int envc,
		       char *const envp[], const char *filename, char *execfn, unsigned long *argv_user,
		       unsigned long *envp_user, unsigned long *sp_io)
{
	unsigned long sp = *sp_io;
	if (clear_user((void *)sp, sizeof(void *)))
		return -EFAULT;
	if (filename)
		strlcpy(execfn, filename, EXECFN_MAX);
	else
		exec_filename(elf, execfn, EXECFN_MAX);
	files_set_exe_path(current->files, execfn);
	unsigned long u_execfn = push_bytes(&sp, filename ? filename : execfn, strlen(filename ? filename : execfn) + 1);
	if (!u_execfn)
		return -EFAULT;
	/* The environment's strings, then the arguments' (Linux's order). */
	if (copy_strings(&sp, envc, envp, envp_user) || copy_strings(&sp, argc, argv, argv_user))
		return -EFAULT;
	/* Linux's mm->arg_start..arg_end (argv[0]'s string up to the end of
	 * the last one, where the environment's begin) and env_start..env_end
	 * (up to the file name). */
	struct mm_struct *mm = current->mm;
	mm->env_start = envc ? envp_user[0] : u_execfn;
	mm->arg_start = argc ? argv_user[0] : mm->env_start;
	mm->arg_end = mm->env_start;
	mm->env_end = u_execfn;

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
	/* STACK_ROUND: argc, argv + NULL, envp + NULL, the vector. */
	unsigned long words = 1 + (unsigned long)argc + 1 + (unsigned long)envc + 1 + ARRAY_SIZE(auxv);
	sp = (sp - words * 8) & ~15ul;
	unsigned long p = sp;
	u64 argc64 = (u64)argc;
	if (copy_to_user((void *)p, &argc64, 8))
		return -EFAULT;
	p += 8;
	if (copy_to_user((void *)p, argv_user, ((unsigned long)argc + 1) * 8))
		return -EFAULT;
	p += ((unsigned long)argc + 1) * 8;
	if (copy_to_user((void *)p, envp_user, ((unsigned long)envc + 1) * 8))
		return -EFAULT;
	p += ((unsigned long)envc + 1) * 8;
	if (copy_to_user((void *)p, auxv, sizeof(auxv)))
		return -EFAULT;
	*sp_io = sp;
	return 0;
}

int create_elf_tables(const struct elf_image_info *elf, int argc, char *const argv[], int envc,
		      char *const envp[], const char *filename, unsigned long *sp_out)
{
	unsigned long sp = STACK_TOP - sizeof(void *); /* exec's bprm->p: a NULL word on top */
	char execfn[EXECFN_MAX];

	if (argc < 0 || envc < 0)
		return -E2BIG;
	/* The strings' user addresses, argv's then envp's, each list NULL-ended. */
	unsigned long *argv_user = kvmalloc_array((size_t)argc + envc + 2, sizeof(unsigned long), GFP_KERNEL);
	if (!argv_user)
		return -ENOMEM;
	unsigned long *envp_user = argv_user + argc + 1;
	int err = build_stack(elf, argc, argv, envc, envp, filename, execfn, argv_user, envp_user, &sp);
	kvfree(argv_user);
	if (!err)
		*sp_out = sp;
	return err;
}

/* ---- execve 59 and execveat 322 (Linux's do_execveat_common,
 * bprm_execve, begin_new_exec, setup_new_exec) ----
 *
 * What can fail is done before the point of no return: the file opened
 * and read whole through the page cache (-ENOENT, -ENOTDIR, -ELOOP...;
 * -EACCES for what is not a regular file with an x bit),
 * the arguments and environment copied (fs/binprm.c: -EFAULT, -E2BIG past
 * Linux's limits), the image checked (a #! line names the next file:
 * fs/binfmt_script.c; -ENOEXEC), the other threads ended (de_thread), the new mm, descriptor
 * table and actions allocated. Then the old mm goes (a vfork parent goes
 * on), the new program is loaded into the new one; a failure from there
 * on kills the process with SIGSEGV, as Linux's. The new program keeps
 * the pid, parent, process group, limits, blocked mask and pending
 * signals; its handlers are SIG_DFL (SIG_IGN stays), its alternate stack
 * and close-on-exec descriptors are gone. */

/* A directory, a device, a generated file, one without an x bit (root
 * needs one too): -EACCES. */
static int may_exec_inode(const struct inode *inode)
{
	return inode && S_ISREG(inode->i_mode) && (inode->i_mode & 0111) ? 0 : -EACCES;
}

int program_file_check(const char *path)
{
	struct file *f = filp_open(path, O_RDONLY, 0);
	if (IS_ERR(f))
		return (int)PTR_ERR(f);
	int err = may_exec_inode(f->f_inode);
	filp_close(f);
	return err;
}

/* Linux's do_open_execat and the read of the file (kernel_read): a
 * regular file with an x bit (root needs one too), read whole into *image
 * (kvmalloc'd, the caller kvfrees it). */
#define EXEC_FILE_MAX (256ul << 20)
/* The opened program's path from the process's root into exe (PATH_MAX
 * bytes), as Linux's /proc/<pid>/exe shows bprm->file: d_path, so a
 * symbolic link such as /bin/sh -> /bin/busybox shows its target; "" when
 * the file has no path there. */
static void program_path(struct file *f, char *exe)
{
	exe[0] = '\0';
	if (!f->f_path.dentry)
		return;
	struct path root;
	get_fs_root(current_fs(), &root);
	char *page = kmalloc(PATH_MAX, GFP_KERNEL);
	const char *p = page ? d_path(&f->f_path, &root, page, PATH_MAX) : NULL;
	if (p && !IS_ERR(p))
		strlcpy(exe, p, PATH_MAX);
	kfree(page);
	path_put(&root);
}

static int read_program(int fd, const char *filename, int flags, void **image, unsigned long *size,
			char *exe)
{
	struct file *f;
	int err;
	if (!filename[0] && (flags & AT_EMPTY_PATH)) { /* execveat(fd, "", AT_EMPTY_PATH): fd's file */
		f = fd < 0 ? NULL : fget(current->files, (unsigned int)fd);
		if (!f)
			return -EBADF;
	} else if ((err = do_filp_open(current->files, fd, filename,
				       O_RDONLY | (flags & AT_SYMLINK_NOFOLLOW ? O_NOFOLLOW : 0), 0, &f))) {
		return err;
	}
	struct inode *inode = f->f_inode;
	err = may_exec_inode(inode);
	if (err)
		goto out;
	program_path(f, exe);
	if (f->f_path.mnt && (f->f_path.mnt->mnt_flags & MNT_NOEXEC))
		goto out; /* Linux's path_noexec: a mount with noexec */
	long len = READ_ONCE(inode->i_size);
	err = -ENOEXEC;
	if (len <= 0 || (unsigned long)len > EXEC_FILE_MAX)
		goto out;
	err = -ENOMEM;
	void *buf = kvmalloc((size_t)len, GFP_KERNEL);
	if (!buf)
		goto out;
	long long pos = 0;
	long n = kernel_read(f, buf, (size_t)len, &pos);
	if (n != len) {
		kvfree(buf);
		err = n < 0 ? (int)n : -ENOEXEC;
		goto out;
	}
	*image = buf;
	*size = (unsigned long)len;
	err = 0;
out:
	fput(f);
	return err;
}

/* What the new program gets of its own (Linux's unshare_files and
 * unshare_sighand, ahead of the point of no return). */
struct exec_private {
	struct mm_struct *mm;
	struct files_struct *files;     /* NULL: the table is this process's alone */
	struct sighand_struct *sighand; /* NULL: the actions are this process's alone */
	struct cred *cred;              /* the program's (prepare_exec_creds) */
};

static int exec_prepare(struct exec_private *x)
{
	struct task_struct *tsk = current;
	memset(x, 0, sizeof(*x));
	x->cred = prepare_exec_creds();
	if (!x->cred)
		return -ENOMEM;
	x->mm = mm_alloc();
	if (!x->mm) {
		abort_creds(x->cred);
		return -ENOMEM;
	}
	if (__atomic_load_n(&tsk->files->count, __ATOMIC_ACQUIRE) > 1 &&
	    !(x->files = dup_fd(tsk->files, process_console_prefix(tsk))))
		goto nomem;
	if (__atomic_load_n(&tsk->sighand->count, __ATOMIC_ACQUIRE) > 1 && !(x->sighand = copy_sighand(false)))
		goto nomem;
	return 0;
nomem:
	files_release(x->files);
	mmput(x->mm);
	abort_creds(x->cred);
	return -ENOMEM;
}

/* Linux's begin_new_exec and setup_new_exec: the point of no return. */
static void begin_new_exec(struct exec_private *x, const char *filename)
{
	struct task_struct *tsk = current;
	struct mm_struct *old = tsk->mm;
	/* exec_mm_release: the robust list and CLEARTID word of the old mm. */
	futex_exit_release(tsk);
	mm_release(tsk, old);
	task_lock(tsk); /* against get_task_mm of a /proc reader */
	__asm__ volatile("cli" ::: "memory");
	tsk->mm = x->mm;
	switch_mm(old, x->mm);
	__asm__ volatile("sti" ::: "memory");
	task_unlock(tsk);
	/* Linux's setmax_mm_hiwater_rss: the old program's peak stays the
	 * process's (getrusage's ru_maxrss). */
	struct signal_struct *sig = tsk->signal;
	spin_lock(&sig->siglock);
	sig->maxrss = max(sig->maxrss, __atomic_load_n(&old->hiwater_rss, __ATOMIC_RELAXED));
	spin_unlock(&sig->siglock);
	/* A vfork parent goes on: the memory it lent is no longer used. */
	if (tsk->in_vfork) {
		tsk->in_vfork = false;
		complete_all(&tsk->vfork_done);
	}
	mmput(old);
	if (x->files) {
		struct files_struct *shared = tsk->files;
		task_lock(tsk);
		tsk->files = x->files;
		task_unlock(tsk);
		files_release(shared);
	}
	do_close_on_exec(tsk->files);
	if (x->sighand) {
		struct sighand_struct *shared = tsk->sighand;
		spin_lock(&shared->siglock);
		tsk->sighand = x->sighand;
		spin_unlock(&shared->siglock);
		sighand_put(shared);
	}
	flush_signal_handlers(tsk);
	commit_creds(x->cred); /* Linux's commit_creds from begin_new_exec */
	tsk->sas_ss_sp = tsk->sas_ss_size = 0;
	tsk->sas_ss_flags = SS_DISABLE;
	restart_block_reset(tsk);
	tsk->flags &= ~PF_FORKNOEXEC;
	/* kbasename: what follows the last '/'. */
	const char *base = filename;
	for (const char *c = filename; *c; c++)
		if (*c == '/')
			base = c + 1;
	__set_task_comm(tsk, base);
}

void __set_task_comm(struct task_struct *tsk, const char *buf)
{
	size_t n = strnlen(buf, sizeof(tsk->comm) - 1);
	memcpy(tsk->comm, buf, n);
	memset(tsk->comm + n, 0, sizeof(tsk->comm) - n);
}

/* Linux's exec_binprm: the loaders in turn, an ELF image or a #! line
 * naming the next file to read, up to 4 rewrites past the first (-ELOOP
 * beyond, as Linux's depth > 5). On success *image holds the ELF file. */
static int exec_binprm(struct linux_binprm *bprm, bool path_inaccessible, void **image, unsigned long *size)
{
	for (int depth = 0;; depth++) {
		if (depth > 5)
			return -ELOOP;
		if (*size < 2 || memcmp(*image, "#!", 2))
			return elf_check(*image, *size);
		/* Linux's BINPRM_FLAGS_PATH_INACCESSIBLE: /dev/fd/N of a
		 * close-on-exec descriptor is gone when the interpreter opens it. */
		if (path_inaccessible)
			return -ENOENT;
		int err = load_script(bprm, *image, *size);
		if (err)
			return err;
		kvfree(*image);
		*image = NULL;
		err = read_program(AT_FDCWD, bprm->interp, 0, image, size, bprm->exe);
		if (err)
			return err;
	}
}

/* Linux's bprm_execve and what follows it: the program at filename
 * (relative to fd) replaces the caller's, with the strings bprm holds. 0
 * (the task's user registers then start the new program), a negative errno
 * before the point of no return, or no return at all after it (SIGSEGV). */
static int bprm_execve(struct linux_binprm *bprm, int fd, char *filename, int flags)
{
	struct task_struct *tsk = current;
	void *image = NULL;
	unsigned long size = 0;
	struct exec_private x;
	char **argv = NULL;
	int err = read_program(fd, filename, flags, &image, &size, bprm->exe);
	if (err)
		return err;
	/* Linux's alloc_bprm: a program found from a descriptor other than
	 * the working directory is named through it, /dev/fd/N or
	 * /dev/fd/N/name; a path an interpreter cannot open after exec, if the
	 * descriptor is close-on-exec. */
	bool path_inaccessible = false;
	if (fd != AT_FDCWD && filename[0] != '/') {
		char *rel = kmalloc(PATH_MAX, GFP_KERNEL);
		if (rel)
			strlcpy(rel, filename, PATH_MAX);
		else {
			kvfree(image);
			return -ENOMEM;
		}
		if (snprintf(filename, PATH_MAX, rel[0] ? "/dev/fd/%d/%s" : "/dev/fd/%d", fd, rel) >= PATH_MAX)
			err = -ENAMETOOLONG;
		kfree(rel);
		path_inaccessible = fd >= 0 && fd < NR_OPEN_DEFAULT &&
				    (READ_ONCE(tsk->files->close_on_exec) >> fd & 1);
	}
	/* Linux 5.18+: an empty argv becomes { "" }. */
	if (!err && !bprm->argc)
		err = bprm_prepend_arg(bprm, "");
	strlcpy(bprm->interp, filename, PATH_MAX);
	if (!err)
		err = exec_binprm(bprm, path_inaccessible, &image, &size);
	if (!err && !(argv = bprm_pointers(bprm)))
		err = -ENOMEM;
	if (!err)
		err = de_thread(tsk);
	if (!err)
		err = exec_prepare(&x);
	if (err) {
		kvfree(argv);
		kvfree(image);
		return err;
	}

	begin_new_exec(&x, filename);
	struct elf_image_info elf;
	unsigned long sp = 0;
	err = elf_load(tsk->mm, image, size, &elf);
	if (!err)
		err = setup_arg_pages(tsk->mm, &elf, stack_vma_size(tsk->signal));
	if (!err)
		err = create_elf_tables(&elf, bprm->argc, argv, bprm->envc, argv + bprm->argc + 1, filename, &sp);
	/* The file loaded, links resolved: a script's process is its
	 * interpreter's (Linux's bprm->file). */
	if (!err && bprm->exe[0])
		files_set_exe_path(tsk->files, bprm->exe);
	kvfree(argv);
	kvfree(image); /* loaded: the segments are copies */
	if (err) {
		bprm_free(bprm);
		kfree(bprm);
		kfree(filename);
		/* Past the point of no return: Linux's force_fatal_sig(SIGSEGV). */
		do_group_exit_signal(SIGSEGV, "execve failed after the old program was gone");
	}
	tsk->mm->start_stack = sp;
	start_thread(task_pt_regs(tsk), elf.entry, sp);
	return 0;
}

static int do_execveat_common(int fd, const char __user *ufilename, const char __user *const __user *uargv,
			      const char __user *const __user *uenvp, int flags)
{
	char *filename;
	if (!current->signal)
		return -EINVAL; /* a kernel thread (a test) has no program to replace */
	if (flags & ~(AT_SYMLINK_NOFOLLOW | AT_EMPTY_PATH))
		return -EINVAL;
	long err = getname(ufilename, flags & AT_EMPTY_PATH, &filename);
	if (err)
		return err;
	struct linux_binprm *bprm = kmalloc(sizeof(*bprm), GFP_KERNEL);
	err = -ENOMEM;
	if (bprm && !(err = bprm_init(bprm))) {
		err = copy_user_strings(bprm, uargv, &bprm->argc);
		if (!err)
			err = copy_user_strings(bprm, uenvp, &bprm->envc);
		if (!err)
			err = bprm_execve(bprm, fd, filename, flags);
	}
	if (bprm)
		bprm_free(bprm);
	kfree(bprm);
	kfree(filename);
	return err;
}

int kernel_execve(const char *path, const char *const *argv, const char *const *envp)
{
	if (!current->signal)
		return -EINVAL;
	char *filename = kmalloc(PATH_MAX, GFP_KERNEL);
	struct linux_binprm *bprm = kmalloc(sizeof(*bprm), GFP_KERNEL);
	int err = -ENOMEM;
	if (filename && bprm && !(err = bprm_init(bprm))) {
		err = strlcpy(filename, path, PATH_MAX) < PATH_MAX ? 0 : -ENAMETOOLONG;
		for (int i = 0; !err && argv && argv[i]; i++)
			err = copy_kernel_string(bprm, argv[i], &bprm->argc);
		for (int i = 0; !err && envp && envp[i]; i++)
			err = copy_kernel_string(bprm, envp[i], &bprm->envc);
		if (!err)
			err = bprm_execve(bprm, AT_FDCWD, filename, 0);
	}
	if (bprm)
		bprm_free(bprm);
	kfree(bprm);
	kfree(filename);
	return err;
}

SYSCALL_DEFINE3(execve, const char __user *, filename, const char __user *const __user *, argv,
		const char __user *const __user *, envp)
{
	return do_execveat_common(AT_FDCWD, filename, argv, envp, 0);
}

SYSCALL_DEFINE5(execveat, int, fd, const char __user *, filename, const char __user *const __user *, argv,
		const char __user *const __user *, envp, int, flags)
{
	return do_execveat_common(fd, filename, argv, envp, flags);
}
