/* /bin/<program>: the boot modules as tmpfs files (fs/bin.c). */
#ifndef FS_BIN_H
#define FS_BIN_H

/* Boot, after the root is mounted: one file per program module. */
void populate_bin(void);

#endif
