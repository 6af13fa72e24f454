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

#include <stddef.h>

enum firmware { FIRMWARE_BIOS, FIRMWARE_UEFI };

/* What a boot must do: run KTAP and pass (exit 33), or crash (exit 37)
 * printing every expect_output line, in order (see ktap_expect_panic()). */
enum expect { EXPECT_PASS, EXPECT_PANIC };

#define TOPOLOGY_DEFAULT_TIMEOUT 120

struct topology {
	char *name;        /* file name without ".topo" */
	char *path;        /* path of the file */
	char *description; /* "" if absent */
	enum firmware firmware;
	char **qemu_args;  /* extra QEMU argument tokens, in file order */
	size_t nqemu;
	char **cmdline;    /* kernel command-line words, in file order */
	size_t ncmdline;
	int timeout_s;
	enum expect expect;
	char **expect_output; /* expected panic report lines, in file order */
	size_t nexpect_output; /* 0 unless expect == EXPECT_PANIC */
};

const char *firmware_name(enum firmware f); /* "bios" | "uefi" */
const char *expect_name(enum expect e);     /* "pass" | "panic" */

/* Parse one file. Returns 0, or -1 with a message in err. */
int topology_load(const char *path, struct topology *out, char *err, size_t errlen);

/* Load every *.topo file of dir, sorted by name. Returns 0, or -1 with a
 * message in err (nothing is returned on error). */
int topology_load_dir(const char *dir, struct topology **out, size_t *n, char *err,
		      size_t errlen);

void topology_free(struct topology *t);
void topology_free_all(struct topology *t, size_t n);

#endif /* MMLAB_TOPOLOGY_H */
