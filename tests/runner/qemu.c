/*
 * qemu.c - builds the QEMU command line of one boot (qemu.h). Pure: reads
 * only the environment (QEMU, OVMF_CODE, OVMF_VARS) and which OVMF files
 * exist. Also makes and removes a boot's scratch disk image (running
 * mkswap on it for "disk-format = swap").
 */
#define _GNU_SOURCE
#include "qemu.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

static const char *ovmf_file(const char *env, const char *preferred, const char *fallback)
{
	const char *e = getenv(env);
	if (e && *e)
		return e;
	return access(preferred, R_OK) == 0 ? preferred : fallback;
}

static const char *ovmf_code(void)
{
	return ovmf_file("OVMF_CODE", "/usr/share/OVMF/OVMF_CODE_4M.fd", "/usr/share/OVMF/OVMF_CODE.fd");
}

const char *ovmf_vars(void)
{
	return ovmf_file("OVMF_VARS", "/usr/share/OVMF/OVMF_VARS_4M.fd", "/usr/share/OVMF/OVMF_VARS.fd");
}

static const char *qemu_binary(void)
{
	const char *q = getenv("QEMU");
	return q && *q ? q : "qemu-system-x86_64";
}

/* The kernel command line S passed through fw_cfg. */
static char *kernel_cmdline(const struct topology *t, bool test, const char *filter,
			    const char *extra)
{
	size_t cap = 64 + (filter ? strlen(filter) : 0) + (extra ? strlen(extra) : 0);
	for (size_t i = 0; i < t->ncmdline; i++)
		cap += strlen(t->cmdline[i]) + 1;
	char *s = xrealloc(NULL, cap);
	s[0] = '\0';
	if (test) {
		strcat(s, "ktest");
		if (filter) {
			strcat(s, " ktest.filter=");
			strcat(s, filter);
		}
	}
	for (size_t i = 0; i < t->ncmdline; i++) {
		if (s[0])
			strcat(s, " ");
		strcat(s, t->cmdline[i]);
	}
	if (extra && *extra) {
		if (s[0])
			strcat(s, " ");
		strcat(s, extra);
	}
	return s;
}

/* QEMU's option parser splits on ',': a literal comma is written ",,". */
static char *qemu_opt_escape(const char *s)
{
	char *r = xrealloc(NULL, 2 * strlen(s) + 1), *o = r;
	for (; *s; s++) {
		*o++ = *s;
		if (*s == ',')
			*o++ = ',';
	}
	*o = '\0';
	return r;
}

char *vars_copy_path(const struct opts *o, const struct topology *t)
{
	return xasprintf("%s/%s.OVMF_VARS.fd", o->results, t->name);
}

char *disk_image_path(const struct opts *o, const struct topology *t)
{
	return xasprintf("%s/%s.disk.img", o->results, t->name);
}

/* util-linux's mkswap (Debian's: tools/deps.sh installs it), which
 * Linux's swapon and mmlab's both read: the label mmlab-swap, the image
 * all of it, its output kept from the runner's (-q). The mkswap found
 * first of MKSWAP (the environment), /sbin, /usr/sbin, then the PATH. */
static int mkswap_image(const char *path, char *err, size_t errlen)
{
	const char *env = getenv("MKSWAP");
	const char *tool = env && *env ? env : access("/sbin/mkswap", X_OK) == 0 ? "/sbin/mkswap"
					    : access("/usr/sbin/mkswap", X_OK) == 0 ? "/usr/sbin/mkswap"
										      : "mkswap";
	pid_t pid = fork();
	if (pid < 0) {
		snprintf(err, errlen, "mkswap %s: fork: %s", path, strerror(errno));
		return -1;
	}
	if (pid == 0) {
		execlp(tool, tool, "-q", "-L", "mmlab-swap", path, (char *)NULL);
		_exit(127);
	}
	int status;
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR) {
			snprintf(err, errlen, "mkswap %s: waitpid: %s", path, strerror(errno));
			return -1;
		}
	if (!WIFEXITED(status) || WEXITSTATUS(status)) {
		snprintf(err, errlen, "%s %s failed (%s %d%s)", tool, path,
			 WIFEXITED(status) ? "exit status" : "signal",
			 WIFEXITED(status) ? WEXITSTATUS(status) : WTERMSIG(status),
			 WIFEXITED(status) && WEXITSTATUS(status) == 127 ? ": not found; tools/deps.sh installs util-linux" : "");
		return -1;
	}
	return 0;
}

int disk_image_create(const struct opts *o, const struct topology *t, char *err, size_t errlen)
{
	if (!t->disk_bytes)
		return 0;
	char *path = disk_image_path(o, t);
	int rc = 0;
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0 || ftruncate(fd, (off_t)t->disk_bytes)) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		rc = -1;
	}
	if (fd >= 0)
		close(fd);
	if (!rc && t->disk_format == DISK_FORMAT_SWAP)
		rc = mkswap_image(path, err, errlen);
	free(path);
	return rc;
}

void disk_image_remove(const struct opts *o, const struct topology *t)
{
	if (!t->disk_bytes)
		return;
	char *path = disk_image_path(o, t);
	unlink(path);
	free(path);
}

/* QEMU asks for transparent huge pages for all guest RAM (MADV_HUGEPAGE).
 * On a host that is itself a virtual machine whose hypervisor takes free
 * memory back (free page reporting, which hands back free blocks of 2 MiB
 * and more), a huge page is always such a block, and its first touch
 * waits for the hypervisor to back all of it again; 4 KiB pages come
 * first from the smaller free blocks it never took. Measured on this
 * project's 2-core machines (2026-12-07), writing a byte per page of fresh
 * memory: 2 GiB took 7.4 to 7.8 s of system time in huge pages and 0.8 to
 * 1.6 s in 4 KiB pages, 4 GiB 13.9 to 14.5 s against 2.0 to 6.8 s. The
 * default machine's tests took 45.1 s of CPU (10.2 s of it system) with
 * QEMU's huge pages and 34.4 s (3.7 s) without, side by side; the whole
 * matrix's boots 575 to 660 s in the runs after, against 771 to 788 s
 * before (docs/testing.md). TCG's loads and stores of guest RAM do pay
 * for the smaller host pages, but less than that. The setting is
 * inherited across exec and applies to QEMU alone. */
void qemu_child_setup(void)
{
	prctl(PR_SET_THP_DISABLE, 1, 0, 0, 0);
}

/* One TCG thread per vCPU (MTTCG) runs the vCPUs truly in parallel, but
 * only as long as the host has a CPU for each: beyond that, a vCPU that
 * waits for another (a TLB-flush IPI's answer, a spinlock) waits for the
 * host to schedule that one's thread, and the machine spends its CPU time
 * waiting. Measured on a 2-core host beside other boots (load 5): eight-node
 * took 93 s of wall clock and 85 s of CPU with a thread per vCPU, 50 s and
 * 29 s with one thread for all; default (4 vCPUs) 94 s and 69 s against 53 s
 * and 26 s. So, unless told otherwise, a machine gets a thread per vCPU
 * only when its vCPUs fit in its share of the host (host CPUs / jobs). */
bool tcg_multi_threaded(const struct opts *o, const struct topology *t)
{
	if (o->tcg_threads != TCG_THREADS_AUTO)
		return o->tcg_threads == TCG_THREADS_MULTI;
	if (t->tcg_threads != TCG_THREADS_AUTO)
		return t->tcg_threads == TCG_THREADS_MULTI;
	long host = sysconf(_SC_NPROCESSORS_ONLN);
	long jobs = o->mode == MODE_TEST && o->jobs > 1 ? o->jobs : 1;
	long share = host > jobs ? host / jobs : 1;
	return topology_vcpus(t) <= share;
}

void build_qemu_argv(struct strvec *av, const struct opts *o, const struct topology *t,
			    bool test, const char *vars_path)
{
	sv_push(av, qemu_binary());
	for (size_t i = 0; i < t->nqemu; i++)
		sv_push(av, t->qemu_args[i]);
	/* No network card (q35 has an e1000e by default): neither kernel
	 * uses one, and its option ROM cost the firmware 0.1 s of each BIOS
	 * boot under TCG and 0.7 s of a UEFI one. */
	static const char *const common[] = {"-display", "none", "-vga", "none", "-nic", "none", "-serial",
		"stdio", "-monitor", "none", "-no-reboot", "-device", "isa-debug-exit,iobase=0xf4,iosize=0x04",
		NULL};
	/* A session's machine boots as a user would (no "ktest"): its cases
	 * are the script's steps (session.c). */
	bool ktest = test && !t->session;
	char *cmd = kernel_cmdline(t, ktest, ktest ? (o->filter ? o->filter : t->filter) : NULL,
				   o->extra_cmdline);
	if (t->kernel == KERNEL_LINUX) {
		/* Linux: its image and the project's initramfs straight from QEMU
		 * (SeaBIOS's linuxboot), the serial port as its console, and a
		 * panic (e.g. init dying) ends the machine at once (-no-reboot):
		 * QEMU's exit 0 is then judged a crash. The same words follow:
		 * init reads ktest.filter from /proc/cmdline (tools/linux/init.c). */
		char *append = xasprintf("console=ttyS0 quiet panic=-1%s%s", cmd[0] ? " " : "", cmd);
		sv_push(av, "-kernel");
		sv_push(av, o->linux_kernel);
		sv_push(av, "-initrd");
		sv_push(av, t->initrd ? t->initrd : o->linux_initrd);
		sv_push(av, "-append");
		sv_push(av, append);
		free(append);
		cmd[0] = '\0'; /* no fw_cfg file: that is mmlab's */
	} else {
		sv_push(av, "-cdrom");
		sv_push(av, t->iso ? t->iso : o->iso);
	}
	for (int i = 0; common[i]; i++) /* make shell: the terminal is the guest's */
		sv_push(av, o->shell_log && !strcmp(common[i], "stdio") ? "mon:stdio" : common[i]);
	if (o->shell_log) {
		char *esc = qemu_opt_escape(o->shell_log);
		char *arg = xasprintf("file:%s", esc);
		sv_push(av, "-serial");
		sv_push(av, arg);
		free(arg);
		free(esc);
	}
	if (cmd[0]) { /* QEMU rejects an empty string=; no file means "" */
		char *esc = qemu_opt_escape(cmd);
		char *arg = xasprintf("name=opt/mmlab/cmdline,string=%s", esc);
		sv_push(av, "-fw_cfg");
		sv_push(av, arg);
		free(arg);
		free(esc);
	}
	free(cmd);
	if (!strcmp(o->accel, "kvm")) {
		sv_push(av, "-accel");
		sv_push(av, "kvm");
		sv_push(av, "-cpu");
		sv_push(av, "host");
	} else if (o->icount) {
		/* Instruction counting needs one TCG thread for every vCPU; with
		 * shift=0 the guest's clocks advance 1 ns per instruction, so the
		 * benchmarks' nanoseconds are instruction counts. */
		sv_push(av, "-accel");
		sv_push(av, "tcg,thread=single");
		sv_push(av, "-icount");
		sv_push(av, "shift=0");
		sv_push(av, "-cpu");
		sv_push(av, "max");
	} else {
		sv_push(av, "-accel");
		sv_push(av, tcg_multi_threaded(o, t) ? "tcg,thread=multi" : "tcg,thread=single");
		sv_push(av, "-cpu");
		sv_push(av, "max");
	}
	if (t->firmware == FIRMWARE_UEFI) {
		char *code = qemu_opt_escape(ovmf_code());
		char *vars = qemu_opt_escape(vars_path);
		char *a = xasprintf("if=pflash,format=raw,readonly=on,file=%s", code);
		char *b = xasprintf("if=pflash,format=raw,file=%s", vars);
		sv_push(av, "-drive");
		sv_push(av, a);
		sv_push(av, "-drive");
		sv_push(av, b);
		free(a);
		free(b);
		free(code);
		free(vars);
	}
	if (t->disk_bytes) {
		/* The scratch disk: a modern-only virtio-blk PCI function (device
		 * 0x1042) on the root bus, the same line for mmlab and Linux. */
		char *img = disk_image_path(o, t);
		char *esc = qemu_opt_escape(img);
		char *drive = xasprintf("file=%s,if=none,id=vd0,format=raw", esc);
		sv_push(av, "-drive");
		sv_push(av, drive);
		sv_push(av, "-device");
		sv_push(av, "virtio-blk-pci,drive=vd0,disable-legacy=on,serial=mmlab-vd0");
		free(drive);
		free(esc);
		free(img);
	}
	if (o->gdb) {
		sv_push(av, "-s");
		sv_push(av, "-S");
	}
}

/* Shell-quote one word for print-cmd. */
void print_quoted(FILE *f, const char *s)
{
	bool safe = *s != '\0';
	for (const char *p = s; *p; p++)
		if (!isalnum((unsigned char)*p) && !strchr("@%_+=:,./-", *p))
			safe = false;
	if (safe) {
		fputs(s, f);
		return;
	}
	fputc('\'', f);
	for (const char *p = s; *p; p++) {
		if (*p == '\'')
			fputs("'\\''", f);
		else
			fputc(*p, f);
	}
	fputc('\'', f);
}
