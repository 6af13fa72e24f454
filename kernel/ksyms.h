/* The kernel's own symbol table, embedded at build time (tools/gensyms.c
 * turns `nm` output of a first link into .ksyms), so that backtraces name
 * functions without a debugger. */
#ifndef KERNEL_KSYMS_H
#define KERNEL_KSYMS_H

#include "kernel/types.h"

struct ksym {
	u64 addr;
	u32 size;
	u32 name_offset; /* into ksym_names */
};

/* Finds the function containing addr. Returns its name (NULL if none) and
 * sets *offset and *size. */
const char *ksym_lookup(u64 addr, u64 *offset, u64 *size);
/* Finds a symbol's address by name (0 if none). */
u64 ksym_address(const char *name);
size_t ksym_count(void);

#endif
