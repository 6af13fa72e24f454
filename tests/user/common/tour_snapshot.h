/* The memory-map tour's programs (make tour, docs/memmap.md): each makes
 * something to look at, then asks mmlab to print the map of page owners
 * while it still holds it, by writing a title to /proc/mmlab/page_owner_map
 * (on other kernels the file does not exist, and the program says so). */
#ifndef MMLAB_USER_TOUR_SNAPSHOT_H
#define MMLAB_USER_TOUR_SNAPSHOT_H

#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "check.h"

static inline int tour_snapshot(const char *title)
{
	int fd = open("/proc/mmlab/page_owner_map", O_WRONLY);
	if (fd < 0) {
		printf("tour: no /proc/mmlab/page_owner_map (%s): not mmlab\n", errno_name(errno));
		return 1;
	}
	ssize_t n = write(fd, title, strlen(title));
	close(fd);
	if (n != (ssize_t)strlen(title)) {
		printf("tour: the snapshot was refused: %s\n", errno_name(errno));
		return 1;
	}
	return 0;
}

/* The first line of a small file (a /proc/sys value), without its newline. */
static inline void tour_read_line(const char *path, char *buf, size_t size)
{
	buf[0] = 0;
	int fd = open(path, O_RDONLY);
	if (fd < 0)
		return;
	ssize_t n = read(fd, buf, size - 1);
	close(fd);
	buf[n > 0 ? n : 0] = 0;
	buf[strcspn(buf, "\n")] = 0;
}

#endif
