/* QEMU's firmware configuration device (fw_cfg), through its I/O ports. The
 * test runner passes kernel options in the file opt/mmlab/cmdline, so that
 * one ISO serves every topology and filter without a rebuild. */
#ifndef ARCH_X86_64_FW_CFG_H
#define ARCH_X86_64_FW_CFG_H

#include "kernel/types.h"

bool fw_cfg_present(void);
/* Reads the named file into buf (NUL-terminated, truncated to size - 1).
 * Returns its full length, or -ENOENT / -ENODEV. */
long fw_cfg_read_file(const char *name, char *buf, size_t size);

#endif
