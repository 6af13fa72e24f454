/* The root's first contents from the boot modules (fs/bin.c): the
 * initramfs archive unpacked (the programs in /bin, their manifest), then
 * the registry of programs (fs/programs.h) filled from the manifest and
 * any program module a user added, which becomes /bin/<name>. */
#ifndef FS_BIN_H
#define FS_BIN_H

/* Boot, after the root is mounted: the module named "initramfs" unpacked
 * into the root (Linux's populate_rootfs), reported with its counts and
 * the offset of the first problem; nothing if there is none. */
void populate_rootfs(void);
/* Then the manifest read into the registry, and each program module added
 * to it and copied to /bin/<name> when the archive did not bring it. */
void populate_bin(void);

#endif
