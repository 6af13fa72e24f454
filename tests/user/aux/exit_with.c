/* For the kernel's process tests (tests/process_test.c): prints its
 * arguments and exits with the status given as argv[1]. */
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
	printf("exit_with: argc %d", argc);
	for (int i = 0; i < argc; i++)
		printf(" [%s]", argv[i]);
	printf("\n");
	return argc > 1 ? atoi(argv[1]) : 0;
}
