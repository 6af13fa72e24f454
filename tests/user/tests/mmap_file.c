/* mmap of a file: MAP_SHARED writes reach the file and write(2) reaches
 * the mapping, across fork too; MAP_PRIVATE writes stay the process's;
 * a page past the end is SIGBUS, the tail of the last page reads zeros;
 * the descriptor's access decides what may be mapped (EACCES), a file
 * that cannot be mapped is ENODEV (EIO for /proc's own files, as Linux's); /proc/self/maps names the file; a
 * mapping outlives the descriptor and the name. The file is in /tmp. */
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check.h"

static long page;

/* Whether touching p in a child dies of SIGBUS. */
static bool touch_is_sigbus(volatile char *p)
{
	pid_t pid = fork();
	if (pid == 0) {
		(void)*p;
		_exit(0);
	}
	int status;
	return pid > 0 && waitpid(pid, &status, 0) == pid && WIFSIGNALED(status) && WTERMSIG(status) == SIGBUS;
}

int main(void)
{
	test_begin("mmap_file");
	page = sysconf(_SC_PAGESIZE);
	char path[64], buf[64];
	snprintf(path, sizeof(path), "/tmp/mmap_file.%d", (int)getpid());
	int fd = open(path, O_CREAT | O_EXCL | O_RDWR, 0600);
	CHECK(fd >= 0);
	CHECK(ftruncate(fd, page + 100) == 0);
	CHECK_CMP(pwrite(fd, "file", 4, 0), ==, 4);

	char *shared = mmap(NULL, 3 * page, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	CHECK(shared != MAP_FAILED);
	CHECK(!memcmp(shared, "file", 4));
	memcpy(shared + 10, "mapped", 6);
	CHECK_CMP(pread(fd, buf, 6, 10), ==, 6);
	CHECK(!memcmp(buf, "mapped", 6)); /* the mapping is the page cache */
	CHECK_CMP(pwrite(fd, "written", 7, page + 1), ==, 7);
	CHECK(!memcmp(shared + page + 1, "written", 7));
	CHECK(shared[page + 100] == 0 && shared[2 * page - 1] == 0); /* past i_size in the last page */
	CHECK(touch_is_sigbus(shared + 2 * page));                   /* a page past the end */
	CHECK(ftruncate(fd, 3 * page) == 0);
	CHECK(!touch_is_sigbus(shared + 2 * page));
	pid_t pid = fork();
	if (pid == 0) {
		memcpy(shared + 2 * page, "child", 5);
		_exit(0);
	}
	int status;
	CHECK(pid > 0 && waitpid(pid, &status, 0) == pid && WIFEXITED(status));
	CHECK(!memcmp(shared + 2 * page, "child", 5)); /* shared across fork */

	/* MAP_PRIVATE: a copy of its own once written. */
	char *priv = mmap(NULL, page, PROT_READ | PROT_WRITE, MAP_PRIVATE, fd, page);
	CHECK(priv != MAP_FAILED);
	CHECK(!memcmp(priv + 1, "written", 7)); /* offset page of the file */
	memcpy(priv + 1, "PRIVATE", 7);
	CHECK_CMP(pread(fd, buf, 7, page + 1), ==, 7);
	CHECK(!memcmp(buf, "written", 7));
	CHECK(!memcmp(shared + page + 1, "written", 7));
	pid = fork();
	if (pid == 0)
		_exit(memcmp(priv + 1, "PRIVATE", 7) ? 1 : 0); /* the child has the copy too */
	CHECK(pid > 0 && waitpid(pid, &status, 0) == pid && WIFEXITED(status) && WEXITSTATUS(status) == 0);

	/* /proc/self/maps names the file, with the offset. */
	static char maps[65536];
	CHECK(read_file("/proc/self/maps", maps, sizeof(maps)) > 0);
	char line[128];
	snprintf(line, sizeof(line), "%lx-%lx rw-p %08lx ", (unsigned long)priv, (unsigned long)priv + page,
		 (unsigned long)page);
	char *at = strstr(maps, line);
	CHECK(at != NULL);
	char *eol = at ? strchr(at, '\n') : NULL;
	CHECK(eol && eol - at > (long)strlen(path) && !memcmp(eol - strlen(path), path, strlen(path)));

	/* What the descriptor allows. */
	int ro = open(path, O_RDONLY), wo = open(path, O_WRONLY);
	CHECK_ERRNO(mmap(NULL, page, PROT_READ, MAP_SHARED, wo, 0), EACCES);
	CHECK_ERRNO(mmap(NULL, page, PROT_READ, MAP_PRIVATE, wo, 0), EACCES);
	CHECK_ERRNO(mmap(NULL, page, PROT_READ | PROT_WRITE, MAP_SHARED, ro, 0), EACCES);
	char *rosh = mmap(NULL, page, PROT_READ, MAP_SHARED, ro, 0);
	CHECK(rosh != MAP_FAILED);
	CHECK_ERRNO(mprotect(rosh, page, PROT_READ | PROT_WRITE), EACCES);
	char *ropriv = mmap(NULL, page, PROT_READ | PROT_WRITE, MAP_PRIVATE, ro, 0);
	CHECK(ropriv != MAP_FAILED); /* a private copy may be written */
	ropriv[0] = 'X';
	CHECK(shared[0] == 'f');
	int proc = open("/proc/meminfo", O_RDONLY); /* procfs's proc_reg_mmap: EIO */
	CHECK_ERRNO(mmap(NULL, page, PROT_READ, MAP_PRIVATE, proc, 0), EIO);
	close(proc);
	proc = open("/proc/self/status", O_RDONLY); /* no mmap method at all */
	CHECK_ERRNO(mmap(NULL, page, PROT_READ, MAP_PRIVATE, proc, 0), ENODEV);
	CHECK_ERRNO(mmap(NULL, page, PROT_READ, MAP_SHARED, 99, 0), EBADF);
	close(proc);
	close(ro);
	close(wo);
	CHECK(munmap(rosh, page) == 0 && munmap(ropriv, page) == 0);

	/* mremap moves a shared mapping with its offset: the same pages,
	 * of the file and of shared anonymous memory. */
	char *hole = mmap(NULL, 8 * page, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	CHECK(hole != MAP_FAILED);
	char *moved = mremap(shared + page, page, page, MREMAP_MAYMOVE | MREMAP_FIXED, hole + 4 * page);
	CHECK(moved == hole + 4 * page);
	CHECK(moved != MAP_FAILED && !memcmp(moved + 1, "written", 7));
	char *anon = mmap(NULL, 2 * page, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	CHECK(anon != MAP_FAILED);
	memcpy(anon + page, "anon", 4);
	char *anon_moved = mremap(anon + page, page, page, MREMAP_MAYMOVE | MREMAP_FIXED, hole + 6 * page);
	CHECK(anon_moved != MAP_FAILED && !memcmp(anon_moved, "anon", 4));
	CHECK(munmap(hole, 8 * page) == 0 && munmap(anon, page) == 0);

	/* A shared file mapping grows in place when the room after it is
	 * free (Linux's expand_vma_in_place: the same file at the offsets
	 * that follow), without MREMAP_MAYMOVE; the new page is the file's
	 * third. */
	char *room = mmap(NULL, 3 * page, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	CHECK(room != MAP_FAILED);
	char *grow = mmap(room, 2 * page, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED, fd, 0);
	CHECK(grow == room);
	CHECK(munmap(room + 2 * page, page) == 0);
	char *grown = mremap(grow, 2 * page, 3 * page, 0);
	CHECK(grown == grow);
	CHECK(grown != MAP_FAILED && !memcmp(grown + 2 * page, "child", 5));
	CHECK(munmap(room, 3 * page) == 0);

	/* The mapping outlives the descriptor and the name. */
	close(fd);
	CHECK(unlink(path) == 0);
	memcpy(shared, "still", 5);
	CHECK(!memcmp(shared, "still", 5) && !memcmp(shared + 2 * page, "child", 5));
	CHECK(munmap(shared, 3 * page) == 0); /* the middle page was moved: a hole now */
	CHECK(munmap(priv, page) == 0);
	return test_end();
}
