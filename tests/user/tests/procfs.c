/* The read-only files the kernel generates: /proc/self/status (the Vm*
 * fields in kB, consistent with each other and with what the program does),
 * /proc/meminfo, /proc/buddyinfo (one line per node and zone, a count of
 * free blocks per order) and every online node's
 * /sys/devices/system/node/node<N>/numastat. */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "check.h"

static char text[16384];

static void status(void)
{
	static const char *const fields[] = {
		"VmPeak", "VmSize", "VmHWM", "VmRSS", "RssAnon", "VmData", "VmStk", "VmPTE",
	};
	long len = read_file("/proc/self/status", text, sizeof(text));
	CHECK(len > 0);
	for (size_t i = 0; i < sizeof(fields) / sizeof(fields[0]); i++) {
		char key[32];
		snprintf(key, sizeof(key), "%s:", fields[i]);
		char *line = strstr(text, key);
		bool kb = false;
		if (line) {
			char *nl = strchr(line, '\n');
			kb = nl && nl - line > 3 && !strncmp(nl - 3, " kB", 3);
		}
		CHECKF(line && kb, "/proc/self/status has \"%s ... kB\" (%ld kB)", key, status_kb(fields[i]));
	}
	long peak = status_kb("VmPeak"), size = status_kb("VmSize"), hwm = status_kb("VmHWM"),
	     rss = status_kb("VmRSS"), anon = status_kb("RssAnon"), stk = status_kb("VmStk"),
	     pte = status_kb("VmPTE"), data = status_kb("VmData");
	CHECK_CMP(rss, <=, size);
	CHECK_CMP(size, <=, peak);
	CHECK_CMP(rss, <=, hwm);
	CHECK_CMP(anon, <=, rss);
	CHECK_CMP(data, <=, size);
	CHECK_CMP(stk, >, 0);
	CHECK_CMP(pte, >, 0);
	CHECK_CMP(rss, >, 0);

	/* 4 MiB written: VmRSS, RssAnon, VmData, VmSize and VmHWM rise by at
	 * least that; after munmap VmSize falls back but VmPeak stays. */
	size_t big = 4 * MiB;
	char *p = mmap(NULL, big, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (!CHECK(p != MAP_FAILED))
		return;
	touch_pages(p, big, 1);
	long size1 = status_kb("VmSize"), rss1 = status_kb("VmRSS"), hwm1 = status_kb("VmHWM"),
	     anon1 = status_kb("RssAnon"), data1 = status_kb("VmData"), peak1 = status_kb("VmPeak");
	note("4 MiB touched: VmSize %ld -> %ld, VmRSS %ld -> %ld, RssAnon %ld -> %ld, VmData %ld -> %ld kB",
	     size, size1, rss, rss1, anon, anon1, data, data1);
	CHECK_CMP(size1 - size, ==, (long)(big / KiB));
	/* Linux up to 6.1 syncs a thread's RSS counts into the mm every 64
	 * faults (SPLIT_RSS_COUNTING), so its status may lag by up to 63 pages
	 * (proc(5)); mmlab's counters, and Linux's since 6.2, are exact. */
	long lag = on_mmlab() ? 0 : 63 * 4;
	CHECK_CMP(rss1 - rss, >=, (long)(big / KiB) - lag);
	CHECK_CMP(anon1 - anon, >=, (long)(big / KiB) - lag);
	CHECK_CMP(data1 - data, ==, (long)(big / KiB));
	CHECK_CMP(hwm1, >=, rss1);
	CHECK_CMP(peak1, >=, size1);
	CHECK(munmap(p, big) == 0);
	CHECK_CMP(status_kb("VmSize"), ==, size);
	CHECK_CMP(status_kb("VmPeak"), >=, size1);
	long rss2 = status_kb("VmRSS"), hwm2 = status_kb("VmHWM");
	CHECK_CMP(rss2, <, rss1);
	CHECK_CMP(hwm2, >=, rss2);
	/* Linux records the RSS high-water mark lazily (in mm->hiwater_rss at
	 * a few points, plus the current RSS when the file is read), so after
	 * munmap VmHWM may be below the RSS seen before: not checked. */
	note("after munmap: VmRSS %ld kB, VmHWM %ld kB (was %ld)", rss2, hwm2, hwm1);
}

static void meminfo(void)
{
	long total = meminfo_kb("MemTotal"), free_kb = meminfo_kb("MemFree");
	note("/proc/meminfo: MemTotal %ld kB, MemFree %ld kB", total, free_kb);
	CHECK_CMP(total, >, 0);
	CHECK_CMP(free_kb, >, 0);
	CHECK_CMP(total, >=, free_kb);
}

/* "Node 0, zone   Normal      1      2 ..." */
static void buddyinfo(void)
{
	long len = read_file("/proc/buddyinfo", text, sizeof(text));
	if (!CHECK(len > 0))
		return;
	int lines = 0, good = 0, min_orders = 1000, max_orders = 0;
	for (char *line = text; *line;) {
		char *nl = strchr(line, '\n');
		if (nl)
			*nl = 0;
		lines++;
		char *end;
		if (!strncmp(line, "Node ", 5)) {
			strtol(line + 5, &end, 10);
			if (end > line + 5 && !strncmp(end, ", zone", 6)) {
				char *q = end + 6;
				while (*q == ' ')
					q++;
				while (*q && *q != ' ')
					q++; /* the zone's name */
				int orders = 0;
				for (;;) {
					long v = strtol(q, &end, 10);
					if (end == q || v < 0)
						break;
					orders++;
					q = end;
				}
				while (*q == ' ')
					q++;
				if (orders > 0 && !*q) {
					good++;
					min_orders = orders < min_orders ? orders : min_orders;
					max_orders = orders > max_orders ? orders : max_orders;
				}
			}
		}
		if (!nl)
			break;
		line = nl + 1;
	}
	note("/proc/buddyinfo: %d lines, %d..%d orders", lines, min_orders, max_orders);
	CHECK(lines > 0);
	CHECK_CMP(good, ==, lines);
}

/* Every online node's numastat (the nodes from /sys/devices/system/node/
 * online, "0" or "0-3" or "0,2-5"): each counter present and not negative,
 * and allocations counted somewhere. Not on node 0 alone: node 0 may have
 * CPUs and no memory, and then no allocation is ever a hit there. */
static void numastat(void)
{
	static const char *const keys[] = {
		"numa_hit ", "numa_miss ", "numa_foreign ", "interleave_hit ", "local_node ", "other_node ",
	};
	char online[256], path[80];
	long len = read_file("/sys/devices/system/node/online", online, sizeof(online));
	if (!CHECKF(len > 0, "/sys/devices/system/node/online can be read"))
		return;
	long hits = 0;
	int nodes = 0;
	for (char *p = online; *p && *p != '\n';) {
		char *end;
		long first = strtol(p, &end, 10), last = first;
		if (!CHECKF(end > p && first >= 0, "node list \"%s\" is well formed", online))
			return;
		p = end;
		if (*p == '-') {
			last = strtol(p + 1, &end, 10);
			if (!CHECKF(end > p + 1 && last >= first, "node list \"%s\" is well formed", online))
				return;
			p = end;
		}
		if (*p == ',')
			p++;
		for (long nid = first; nid <= last; nid++, nodes++) {
			snprintf(path, sizeof(path), "/sys/devices/system/node/node%ld/numastat", nid);
			if (!CHECKF(read_file(path, text, sizeof(text)) > 0, "%s can be read", path))
				continue;
			for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
				long v = field_after(text, keys[i]);
				CHECKF(v >= 0, "node %ld numastat: %s= %ld", nid, keys[i], v);
			}
			hits += field_after(text, "numa_hit ");
		}
	}
	note("numastat: %d node(s), numa_hit %ld in all", nodes, hits);
	CHECK_CMP(nodes, >, 0);
	CHECK_CMP(hits, >, 0);
}

int main(void)
{
	test_begin("procfs");
	status();
	meminfo();
	buddyinfo();
	numastat();
	return test_end();
}
