/* What the machine was configured to be, as the topology file of the test
 * matrix tells the kernel on its command line (expect.*; docs/command_line.md
 * lists them). Any suite that needs a bound that depends on the machine
 * (how much RAM, how many nodes) takes it from here, or from what the
 * kernel found, never from a constant that holds only on the machines of
 * the matrix. Each value is "not given" (-1, or an empty string) when the
 * option is absent, as on a machine a user boots by hand. */
#ifndef TESTS_EXPECT_H
#define TESTS_EXPECT_H

#include "kernel/types.h"
#include "tests/kunit.h"

extern int expect_nodes, expect_cpus, expect_srat, expect_slit;
extern char expect_node_mem[256], expect_node_cpus[256], expect_dist[1024];

/* Parses "a,b,c" into out (at most max numbers); returns the count, or -1
 * if the text is malformed or longer than max. */
int expect_parse_list(const char *s, u64 *out, int max);

/* The RAM the machine was given, in bytes: the sum of expect.node_mem.
 * False when expect.node_mem is absent or malformed. */
bool expect_ram_bytes(u64 *bytes);

/* What the kernel found: the bytes of RAM the page allocator manages, on
 * all nodes (a lower bound for the RAM of any machine that booted). */
u64 managed_ram_bytes(void);

/* Expects ram, the RAM of the boot memory map, to be what the machine was
 * given (expect.node_mem) less at most what firmware keeps, when that is
 * known; and, on any machine, at least what the page allocator manages. */
void expect_boot_ram(struct kunit *test, u64 ram);

/* Firmware keeps some RAM of a node for itself (SeaBIOS a few KiB, OVMF a
 * few MiB); more than this missing means a parse error. */
#define FIRMWARE_RESERVE_SLACK MiB(32)

#endif
