/* The initramfs unpacker (fs/initramfs.c): a cpio archive in memory made
 * into files of the root filesystem, as Linux's init/initramfs.c. */
#ifndef FS_INITRAMFS_H
#define FS_INITRAMFS_H

#include "kernel/types.h"

/* What one unpack did. Entries unpacked are counted by kind; an
 * entry refused or failed is counted in skipped and has had its message
 * printed. error is the first problem (a negative errno, 0 for none),
 * error_offset the byte offset in the buffer where it lies (the header of
 * the entry it belongs to, or the byte that could not be read) and
 * message its text. */
struct initramfs_summary {
	unsigned int dirs, files, symlinks, nodes; /* unpacked (a directory already there counts) */
	unsigned int hard_links;                   /* names linked to an earlier entry */
	unsigned int skipped;                      /* entries refused or failed */
	unsigned int archives;                     /* TRAILER!!! entries seen */
	unsigned long consumed;                    /* bytes parsed before stopping */
	int error;
	unsigned long error_offset;
	char message[96];
};

/* Unpacks the newc (070701) or crc (070702) archives in buf, one after
 * another with zero padding between them, into the root filesystem
 * through fs/init.h's helpers. Never gives up on the first bad entry: a
 * malformed or refused entry is reported and skipped; only a break in the
 * archive's framing (bad magic, a header or data running past the end,
 * junk between archives) ends the unpack, and what was made before it
 * stays. sum (may be NULL) receives the counts. Returns 0 when every
 * entry was unpacked and the last archive had its trailer, else the first
 * error (also in sum->error). */
int unpack_to_rootfs(const void *buf, unsigned long len, struct initramfs_summary *sum);

#endif
