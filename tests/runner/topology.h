/*
 * topology.h - reader for mmlab test topology files (tests/topologies/NAME.topo).
 *
 * A topology describes one machine the kernel is booted on: firmware, extra
 * QEMU arguments, kernel command-line words and a per-boot timeout.  The
 * reader either returns a fully validated topology or fails with a message
 * of the form "file:line: problem"; it never returns a half-parsed one.
 */
#ifndef MMLAB_TOPOLOGY_H
#define MMLAB_TOPOLOGY_H

#include <stdbool.h>
#include <stddef.h>

struct session;

enum firmware { FIRMWARE_BIOS, FIRMWARE_UEFI };

/* Which kernel the machine boots: mmlab's ISO, or Linux (Debian's image with
 * the project's initramfs, through QEMU's -kernel/-initrd/-append). */
enum kernel { KERNEL_MMLAB, KERNEL_LINUX };

/* What a boot must do: run KTAP and pass (exit 33), or crash (exit 37)
 * printing every expect_output line, in order (see ktap_expect_panic()). */
enum expect { EXPECT_PASS, EXPECT_PANIC };

#define TOPOLOGY_DEFAULT_TIMEOUT 120
#define TOPOLOGY_MAX_BASE_DEPTH 4

/* How TCG runs a machine's vCPUs: the command line's --tcg-threads, or a
 * topology's "tcg_threads = ..." when that is auto (qemu.c's
 * tcg_multi_threaded decides the rest). */
enum tcg_threads { TCG_THREADS_AUTO, TCG_THREADS_SINGLE, TCG_THREADS_MULTI };

struct topology {
	char *name;        /* file name without ".topo" */
	char *path;        /* path of the file */
	char *description; /* "" if absent */
	enum firmware firmware;
	enum kernel kernel;
	char *base;        /* "base = NAME": NULL if absent */
	char **qemu_args;  /* extra QEMU argument tokens: the base's, then this
			    * file's, in file order */
	size_t nqemu;
	char **cmdline;    /* kernel command-line words, in file order */
	size_t ncmdline;
	int timeout_s;
	enum expect expect;
	char **expect_output; /* expected panic report lines, in file order */
	size_t nexpect_output; /* 0 unless expect == EXPECT_PANIC */
	/* Hostile-firmware boots (tools/hostile/): "iso = PATH" boots that ISO
	 * instead of --iso (NULL: --iso); each "expect_log = TEXT" must occur
	 * in the serial output (hostile.c: case hostile.warnings). */
	char *iso;
	/* "initrd = PATH": a kernel = linux boot's initramfs instead of
	 * --linux-initrd (NULL: --linux-initrd). "filter = GLOB": the cases
	 * this machine runs when the run has no --filter (NULL: all); a
	 * --filter replaces it. Together they give a machine a suite of its
	 * own (tests/mm_selftests/: Linux's mm selftests, one machine). */
	char *initrd;
	char *filter;
	/* "on_request = yes": booted only when --topology names it (a long
	 * machine with a make target of its own), never by a run of all. */
	bool on_request;
	/* "tcg_threads = single|multi": how TCG runs this machine when the
	 * command line leaves it to auto (TCG_THREADS_AUTO: the host decides,
	 * qemu.c's tcg_multi_threaded). */
	enum tcg_threads tcg_threads;
	char **expect_log;
	size_t nexpect_log;
	/* "session = PATH": a scripted session on the serial port
	 * (tests/sessions/, session.h) instead of KTAP from the kernel: the
	 * script is read with the topology; the boot gets no "ktest". */
	struct session *session;
	/* "disk = SIZE": bytes of the scratch virtio-blk disk the machine
	 * gets (qemu.c: disk_image_path), 0 for none. Not taken from a base. */
	unsigned long long disk_bytes;
	/* "disk-format = swap": the scratch image is made a Linux swap area
	 * by util-linux's mkswap before each boot (qemu.c); DISK_FORMAT_NONE
	 * (the default, or "disk-format = none"): left empty. Needs a disk. */
	enum disk_format { DISK_FORMAT_NONE, DISK_FORMAT_SWAP } disk_format;
};

const char *firmware_name(enum firmware f); /* "bios" | "uefi" */
const char *expect_name(enum expect e);     /* "pass" | "panic" */
const char *kernel_name(enum kernel k);     /* "mmlab" | "linux" */

/* Parse one file. "base = NAME" reads NAME.topo in the same folder (which
 * may have a base itself, up to TOPOLOGY_MAX_BASE_DEPTH files deep) and
 * puts its qemu tokens first: nothing else of the base is taken. Returns 0,
 * or -1 with a message in err. */
int topology_load(const char *path, struct topology *out, char *err, size_t errlen);

/* Load every *.topo file of dir, sorted by name. Returns 0, or -1 with a
 * message in err (nothing is returned on error). */
int topology_load_dir(const char *dir, struct topology **out, size_t *n, char *err,
		      size_t errlen);

/* The machine's vCPUs: the number that "-smp N" or "-smp cpus=N" gives in
 * its QEMU arguments (the last one wins, as in QEMU), 1 without one. */
int topology_vcpus(const struct topology *t);

void topology_free(struct topology *t);
void topology_free_all(struct topology *t, size_t n);

#endif /* MMLAB_TOPOLOGY_H */
