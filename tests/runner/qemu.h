/*
 * qemu.h - the QEMU command line of one boot (qemu.c): the topology's
 * machine, the ISO, the serial port on stdio, isa-debug-exit, the kernel
 * command line through fw_cfg, the accelerator, UEFI firmware, a GDB stub.
 * tests/runner/README.md ("QEMU command line") describes it.
 */
#ifndef MMLAB_QEMU_H
#define MMLAB_QEMU_H

#include <stdbool.h>
#include <stdio.h>

#include "options.h"
#include "topology.h"
#include "xalloc.h"

/* Appends the command for topology t to av; test adds "ktest" (and the
 * filter) to the kernel command line; vars_path is the boot's own copy of
 * the UEFI variables (UEFI topologies only). A kernel = linux topology boots
 * o->linux_kernel with o->linux_initrd (the caller checks they are given). */
void build_qemu_argv(struct strvec *av, const struct opts *o, const struct topology *t,
		     bool test, const char *vars_path);
/* In a boot's child, just before QEMU is exec'd: QEMU's guest RAM on
 * the host's 4 KiB pages, not transparent huge pages (qemu.c says why). */
void qemu_child_setup(void);

/* Whether TCG gives t's machine a host thread per vCPU (else one thread
 * runs them all, in turns): o->tcg_threads, else the topology's
 * tcg_threads, else yes exactly when its vCPUs fit in host CPUs / jobs. */
bool tcg_multi_threaded(const struct opts *o, const struct topology *t);
/* Where a UEFI boot's copy of OVMF_VARS goes (malloc'd). */
char *vars_copy_path(const struct opts *o, const struct topology *t);
/* Where a boot's scratch disk image goes ("disk = SIZE"; malloc'd):
 * RESULTS/NAME.disk.img. disk_image_create makes it anew, empty (sparse),
 * of t->disk_bytes, made a swap area by mkswap for "disk-format = swap"
 * (-L mmlab-swap): 0, or -1 with a message in err; disk_image_remove
 * deletes it after the boot. Both do nothing for a machine without a disk. */
char *disk_image_path(const struct opts *o, const struct topology *t);
int disk_image_create(const struct opts *o, const struct topology *t, char *err, size_t errlen);
void disk_image_remove(const struct opts *o, const struct topology *t);
/* The OVMF_VARS image to copy ($OVMF_VARS, else Debian's). */
const char *ovmf_vars(void);
/* Writes one word shell-quoted when it needs it (print-cmd, log headers). */
void print_quoted(FILE *f, const char *s);

#endif /* MMLAB_QEMU_H */
