/* The expect.* command-line options (tests/expect.h): parsed by the
 * kernel's parameter code at boot, read-only afterwards, so no locking. */
#include "tests/expect.h"
#include "kernel/cmdline.h"
#include "lib/string.h"
#include "mm/numa.h"
#include "mm/page_alloc.h"
#include "tests/kunit.h"

int expect_nodes = -1, expect_cpus = -1, expect_srat = -1, expect_slit = -1;
char expect_node_mem[256], expect_node_cpus[256], expect_dist[1024];
kernel_param_int("expect.nodes", expect_nodes, -1, MAX_NUMNODES, "test: expected NUMA nodes");
kernel_param_int("expect.cpus", expect_cpus, -1, NR_CPUS, "test: expected CPUs");
kernel_param_int("expect.srat", expect_srat, -1, 1, "test: 1 if an SRAT is expected, 0 if not");
kernel_param_int("expect.slit", expect_slit, -1, 1, "test: 1 if a SLIT is expected, 0 if not");
kernel_param_string("expect.node_mem", expect_node_mem, "test: MiB per node, comma-separated");
kernel_param_string("expect.node_cpus", expect_node_cpus, "test: CPUs per node, comma-separated");
kernel_param_string("expect.dist", expect_dist, "test: distance rows a,b,../c,d,.. ");

int expect_parse_list(const char *s, u64 *out, int max)
{
	int n = 0;
	while (*s) {
		const char *end = s;
		while (*end && *end != ',')
			end++;
		if (n == max || parse_u64(s, (size_t)(end - s), &out[n]))
			return -1;
		n++;
		s = *end ? end + 1 : end;
	}
	return n;
}

bool expect_ram_bytes(u64 *bytes)
{
	u64 mib[MAX_NUMNODES];
	int n = expect_node_mem[0] ? expect_parse_list(expect_node_mem, mib, MAX_NUMNODES) : -1;
	if (n <= 0)
		return false;
	*bytes = 0;
	for (int i = 0; i < n; i++)
		*bytes += MiB(mib[i]);
	return true;
}

u64 managed_ram_bytes(void)
{
	u64 pages = 0;
	for (int nid = 0; nid < MAX_NUMNODES; nid++)
		if (node_data[nid])
			pages += node_data[nid]->managed_pages;
	return pages << PAGE_SHIFT;
}

void expect_boot_ram(struct kunit *test, u64 ram)
{
	u64 given;
	if (expect_ram_bytes(&given)) {
		KUNIT_EXPECT_LE(test, ram, given + MiB(1));
		KUNIT_EXPECT_GE(test, ram + FIRMWARE_RESERVE_SLACK, given);
	}
	KUNIT_EXPECT_GE(test, ram, managed_ram_bytes());
}
