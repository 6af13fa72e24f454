/* The smallest whole program: the C library's start-up on this kernel. It
 * prints its arguments, its pid and a malloc'd string, checks the parts of
 * the initial stack a C library reads (argc/argv, the environment's end,
 * the auxiliary vector: AT_PAGESZ, AT_PHDR, AT_ENTRY, AT_RANDOM's 16 bytes)
 * and exits 0. Built three ways from this one source (tests/user/user.mk):
 * `hello` (musl-gcc -static), `hello_glibc` (gcc -static), `hello_glibc_pie`
 * (gcc -static-pie): each C library's start-up asks the kernel for
 * different things (TLS through arch_prctl, set_tid_address, and glibc's
 * set_robust_list, rseq, prlimit64, ...), and the static-PIE one must be
 * loaded at an address of the kernel's choice. */
#include <elf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <unistd.h>

#include "check.h"

extern char **environ;

int main(int argc, char **argv)
{
	test_begin("hello");
	CHECK_CMP(argc, >=, 1);
	for (int i = 0; i < argc; i++)
		note("argv[%d] = \"%s\"", i, argv[i]);
	CHECK(argv[argc] == NULL);
	CHECK(environ != NULL);
	pid_t pid = getpid();
	note("pid %d", (int)pid);
	CHECK_CMP(pid, >, 0);

	char *s = malloc(64);
	if (CHECK(s != NULL)) {
		snprintf(s, 64, "hello from pid %d, %d argument(s)", (int)pid, argc - 1);
		note("malloc'd at %p: \"%s\"", (void *)s, s);
		CHECK(!strncmp(s, "hello from pid ", 15));
		free(s);
	}
	/* A block the size of which goes to mmap in both C libraries. */
	char *big = malloc(1 << 20);
	if (CHECK(big != NULL)) {
		memset(big, 0x5a, 1 << 20);
		CHECK(all_bytes(big, 1 << 20, 0x5a));
		free(big);
	}

	CHECK_CMP(getauxval(AT_PAGESZ), ==, PAGE_4K);
	CHECK(getauxval(AT_PHDR) != 0);
	CHECK_CMP(getauxval(AT_PHENT), ==, sizeof(Elf64_Phdr));
	CHECK(getauxval(AT_ENTRY) != 0);
	const unsigned char *random = (const unsigned char *)getauxval(AT_RANDOM);
	if (CHECK(random != NULL)) {
		/* 16 bytes all zero would be 1 in 2^128: not random. */
		bool any = false;
		for (int i = 0; i < 16; i++)
			any |= random[i] != 0;
		CHECKF(any, "AT_RANDOM's 16 bytes are not all zero");
	}
	return test_end();
}
