/* The root's first contents from the boot modules (fs/bin.c): the
 * initramfs archive unpacked, then each program module as /bin/<name>. */
#ifndef FS_BIN_H
#define FS_BIN_H

/* Boot, after the root is mounted: the module named "initramfs" unpacked
 * into the root (Linux's populate_rootfs), reported with its counts and
 * the offset of the first problem; nothing if there is none. */
void populate_rootfs(void);
/* Then one file per program module not already in /bin. */
void populate_bin(void);

#endif
