/* hugetlb's boot options (mm/hugetlb.h has the rules): hugepagesz=,
 * hugepages= and default_hugepagesz=, read by the kernel's one parser
 * (kernel/cmdline.c) as Linux's hugepagesz_setup, hugepages_setup and
 * default_hugepagesz_setup read them, one word at a time in command-line
 * order, into a struct hugetlb_cmdline: the boot's, or a test's
 * (hugetlb_cmdline_begin). Linux checks a node of hugepages=<node>:N
 * against the online nodes as it reads the word; mmlab reads the command
 * line before it knows its nodes, so hugetlb_cmdline_finish makes that
 * check, with the rest of Linux's hugetlb_init. hugetlb_boot_pools then
 * sets the pools (Linux's hugetlb_hstate_alloc_pages).
 *
 * Locking: none; the handlers run while the command line is parsed at
 * boot (one CPU), or in a test case, which points them at its own request
 * and back. */
#include "mm/hugetlb.h"
#include "kernel/cmdline.h"
#include "kernel/printk.h"
#include "lib/string.h"
#include "mm/numa.h"

static struct hugetlb_cmdline boot_request = HUGETLB_CMDLINE_INIT;
static struct hugetlb_cmdline *request = &boot_request;

void hugetlb_cmdline_begin(struct hugetlb_cmdline *req)
{
	*req = (struct hugetlb_cmdline)HUGETLB_CMDLINE_INIT;
	request = req;
}

void hugetlb_cmdline_end(void)
{
	request = &boot_request;
}

/* "2M", "2048K", "1G", "2097152": bytes, or 0. Stricter than Linux's
 * memparse, which reads "2Mx" as 2M: anything after the suffix makes the
 * size unsupported. */
static unsigned long parse_size(const char *s)
{
	size_t len = strlen(s), digits = 0;
	u64 v;
	while (digits < len && s[digits] >= '0' && s[digits] <= '9')
		digits++;
	if (!digits || parse_u64(s, digits, &v))
		return 0;
	unsigned shift = 0;
	if (digits < len) {
		if (digits + 1 != len)
			return 0;
		switch (s[digits]) {
		case 'k': case 'K': shift = 10; break;
		case 'm': case 'M': shift = 20; break;
		case 'g': case 'G': shift = 30; break;
		default: return 0;
		}
	}
	return v > (~0ul >> shift) ? 0 : (unsigned long)v << shift;
}

/* Linux's hugetlb_add_hstate for a size named on the command line: the
 * first time, the hugepages= after it set that size. */
static void hugetlb_add_hstate(struct hugetlb_cmdline *req, int idx)
{
	if (req->added[idx])
		return;
	req->added[idx] = true;
	req->nr_added++;
	req->parsed_hstate = idx;
}

static int hugepagesz_setup(const char *s)
{
	struct hugetlb_cmdline *req = request;
	req->parsed_valid_hugepagesz = false;
	unsigned long size = s ? parse_size(s) : 0;
	if (!arch_hugetlb_valid_size(size)) {
		pr_err("HugeTLB: unsupported hugepagesz=%s\n", s ? s : "");
		return -EINVAL;
	}
	int idx = (int)(size_to_hstate(size) - hstates);
	if (req->added[idx]) {
		/* A size given twice is refused, but for the default size
		 * named by default_hugepagesz= before any hugepages= for it:
		 * then the hugepages= after this word are its. */
		if (!req->parsed_default_hugepagesz || idx != req->default_hstate_idx ||
		    req->max_huge_pages[idx]) {
			pr_warn("HugeTLB: hugepagesz=%s specified twice, ignoring\n", s);
			return -EEXIST;
		}
		req->parsed_hstate = idx;
		req->parsed_valid_hugepagesz = true;
		return 0;
	}
	hugetlb_add_hstate(req, idx);
	req->parsed_valid_hugepagesz = true;
	return 0;
}
kernel_param_setup("hugepagesz", hugepagesz_setup, NULL, "2M, or 1G on a CPU with 1 GiB pages (PDPE1GB)",
		   "the huge page size the hugepages= after it set (each size once)");

/* Linux's hugepages_clear_pages_in_node: a bad hugepages= leaves its size
 * with no pages asked. */
static void hugepages_clear_pages_in_node(struct hugetlb_cmdline *req)
{
	if (!req->nr_added) {
		req->default_hstate_max_huge_pages = 0;
		memset(req->default_hugepages_in_node, 0, sizeof(req->default_hugepages_in_node));
	} else {
		req->max_huge_pages[req->parsed_hstate] = 0;
		memset(req->max_huge_pages_node[req->parsed_hstate], 0,
		       sizeof(req->max_huge_pages_node[req->parsed_hstate]));
	}
}

/* The decimal number at *p (its digits only), past it; false if none. */
static bool parse_count_at(const char **p, unsigned long *out)
{
	size_t digits = 0;
	u64 v;
	while ((*p)[digits] >= '0' && (*p)[digits] <= '9')
		digits++;
	if (!digits || parse_u64(*p, digits, &v))
		return false;
	*out = (unsigned long)v;
	*p += digits;
	return true;
}

/* hugepages=N, or <node>:N[,<node>:N...] (Linux 5.13): the pages of the
 * size named by the hugepagesz= (or default_hugepagesz=) before it, or of
 * the default size when no size was named yet. */
static int hugepages_setup(const char *s)
{
	struct hugetlb_cmdline *req = request;
	unsigned long *mhp;
	const char *p = s ? s : "";

	if (!req->parsed_valid_hugepagesz) {
		pr_warn("HugeTLB: hugepages=%s does not follow a valid hugepagesz, ignoring\n", p);
		req->parsed_valid_hugepagesz = true;
		return -ENOENT;
	} else if (!req->nr_added) {
		mhp = &req->default_hstate_max_huge_pages;
	} else {
		mhp = &req->max_huge_pages[req->parsed_hstate];
	}
	if (mhp == req->last_mhp) {
		pr_warn("HugeTLB: hugepages= specified twice without interleaving hugepagesz=, ignoring "
			"hugepages=%s\n", p);
		return -EEXIST;
	}
	if (!*p)
		goto invalid;
	while (*p) {
		const char *item = p;
		unsigned long tmp;
		if (!parse_count_at(&p, &tmp))
			goto invalid;
		if (*p == ':') {
			/* Node format: the node must exist (checked against
			 * the online nodes by hugetlb_cmdline_finish). */
			if (tmp >= MAX_NUMNODES)
				goto invalid;
			int node = (int)tmp;
			p++;
			if (!parse_count_at(&p, &tmp))
				goto invalid;
			if (!req->nr_added)
				req->default_hugepages_in_node[node] = tmp;
			else
				req->max_huge_pages_node[req->parsed_hstate][node] = tmp;
			*mhp += tmp;
			if (*p == ',')
				p++;
			else if (*p)
				goto invalid; /* Linux ignores what follows; refused here */
		} else {
			/* A plain count stands alone: not after node items,
			 * nothing after it (which Linux would ignore). */
			if (item != s || *p)
				goto invalid;
			*mhp = tmp;
		}
	}
	req->last_mhp = mhp;
	return 0;

invalid:
	pr_warn("HugeTLB: Invalid hugepages parameter %s\n", p);
	hugepages_clear_pages_in_node(req);
	return -EINVAL;
}
kernel_param_setup("hugepages", hugepages_setup, NULL, "N, or <node>:N,<node>:N...",
		   "huge pages of the size named before it (none named: the default size)");

static int default_hugepagesz_setup(const char *s)
{
	struct hugetlb_cmdline *req = request;
	req->parsed_valid_hugepagesz = false;
	if (req->parsed_default_hugepagesz) {
		pr_err("HugeTLB: default_hugepagesz previously specified, ignoring %s\n", s ? s : "");
		return -EEXIST;
	}
	unsigned long size = s ? parse_size(s) : 0;
	if (!arch_hugetlb_valid_size(size)) {
		pr_err("HugeTLB: unsupported default_hugepagesz=%s\n", s ? s : "");
		return -EINVAL;
	}
	int idx = (int)(size_to_hstate(size) - hstates);
	hugetlb_add_hstate(req, idx);
	req->parsed_valid_hugepagesz = true;
	req->parsed_default_hugepagesz = true;
	req->default_hstate_idx = idx;
	/* A hugepages= before any size named was for the default size: it
	 * is this one's. */
	if (req->default_hstate_max_huge_pages) {
		req->max_huge_pages[idx] = req->default_hstate_max_huge_pages;
		memcpy(req->max_huge_pages_node[idx], req->default_hugepages_in_node,
		       sizeof(req->default_hugepages_in_node));
		req->default_hstate_max_huge_pages = 0;
	}
	return 0;
}

static void show_default_hugepagesz(char *buf, size_t size)
{
	snprintf(buf, size, "%s", request->default_hstate_idx == HSTATE_1G ? "1G" : "2M");
}
kernel_param_setup("default_hugepagesz", default_hugepagesz_setup, show_default_hugepagesz,
		   "2M, or 1G on a CPU with 1 GiB pages (PDPE1GB)",
		   "the size of MAP_HUGETLB without size bits, of /proc/sys/vm/nr_hugepages and of meminfo (once)");

/* "2.00 MiB", "1.00 GiB": Linux's string_get_size for these sizes. */
static const char *size_words(int idx)
{
	return idx == HSTATE_1G ? "1.00 GiB" : "2.00 MiB";
}

void hugetlb_cmdline_finish(struct hugetlb_cmdline *req)
{
	int online = (int)num_online_nodes();
	/* hugepages=<node>:N for a node that is not online: Linux refuses
	 * the word as it reads it (hugepages_clear_pages_in_node). */
	for (int n = online; n < MAX_NUMNODES; n++) {
		if (req->default_hugepages_in_node[n]) {
			pr_warn("HugeTLB: Invalid hugepages parameter %d:%lu (node %d is not online)\n", n,
				req->default_hugepages_in_node[n], n);
			req->default_hstate_max_huge_pages = 0;
			memset(req->default_hugepages_in_node, 0, sizeof(req->default_hugepages_in_node));
		}
		for (int i = 0; i < HUGE_MAX_HSTATE; i++)
			if (req->max_huge_pages_node[i][n]) {
				pr_warn("HugeTLB: Invalid hugepages parameter %d:%lu (node %d is not online)\n",
					n, req->max_huge_pages_node[i][n], n);
				req->max_huge_pages[i] = 0;
				memset(req->max_huge_pages_node[i], 0, sizeof(req->max_huge_pages_node[i]));
			}
	}
	/* Linux's hugetlb_init: without default_hugepagesz= the default is
	 * 2 MiB, and a hugepages= given before any size is its count, over
	 * one given after hugepagesz=2M. */
	if (!req->parsed_default_hugepagesz) {
		int d = req->default_hstate_idx = HSTATE_2M;
		if (req->default_hstate_max_huge_pages) {
			if (req->max_huge_pages[d]) {
				pr_warn("HugeTLB: Ignoring hugepages=%lu associated with %s page size\n",
					req->max_huge_pages[d], size_words(d));
				pr_warn("HugeTLB: Using hugepages=%lu for number of default huge pages\n",
					req->default_hstate_max_huge_pages);
			}
			req->max_huge_pages[d] = req->default_hstate_max_huge_pages;
			for (int n = 0; n < online; n++)
				req->max_huge_pages_node[d][n] = req->default_hugepages_in_node[n];
		}
	}
}

bool hugetlb_cmdline_node_specific(const struct hugetlb_cmdline *req, int idx)
{
	for (int n = 0; n < MAX_NUMNODES; n++)
		if (req->max_huge_pages_node[idx][n])
			return true;
	return false;
}

/* The pool of h that req asks for (Linux's hugetlb_hstate_alloc_pages:
 * node by node when nodes were named, else spread over the nodes). */
static void hugetlb_hstate_alloc_pages(struct hstate *h, const struct hugetlb_cmdline *req)
{
	int idx = (int)(h - hstates);
	if (hugetlb_cmdline_node_specific(req, idx)) {
		for (int n = 0; n < (int)num_online_nodes(); n++) {
			unsigned long want = req->max_huge_pages_node[idx][n];
			if (want && set_max_huge_pages(h, want, n) < (long)want)
				pr_warn("HugeTLB: allocating %lu of page size %s failed node%d.  Only allocated "
					"%lu hugepages.\n", want, size_words(idx), n, h->nr_huge_pages_node[n]);
		}
		return;
	}
	unsigned long want = req->max_huge_pages[idx];
	if (!want)
		return;
	long got = set_max_huge_pages(h, want, NUMA_NO_NODE);
	if (got < (long)want)
		pr_warn("HugeTLB: allocating %lu of page size %s failed.  Only allocated %ld hugepages.\n",
			want, size_words(idx), got < 0 ? 0 : got);
}

void hugetlb_boot_pools(void)
{
	hugetlb_cmdline_finish(&boot_request);
	default_hstate_idx = boot_request.default_hstate_idx;
	for (int i = 0; i < HUGE_MAX_HSTATE; i++)
		if (hstates[i].supported)
			hugetlb_hstate_alloc_pages(&hstates[i], &boot_request);
}
