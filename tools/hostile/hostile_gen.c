/*
 * hostile_gen - a deterministic generator of hostile firmware tables (SRAT,
 * SLIT, MADT) for mmlab's test runner.
 *
 *   hostile_gen --seed S --count N --out DIR --iso ISO
 *
 * writes, for case i of N (class i % number-of-classes, its values drawn
 * from a PRNG seeded with S and i, so the same S and N give the same bytes):
 *
 *   DIR/tables/NAME.dat          the table (a whole ACPI table, header too)
 *   DIR/iso/boot/hostile/NAME.cfg   for GRUB delivery: the `acpi` command
 *   DIR/topologies/NAME.topo     the boot: the machine, the delivery, the
 *                                tests to run and each warning expected
 *   DIR/cases.txt                one line per case: name, delivery, field
 *
 * Delivery. A table whose damage is in its body goes through QEMU's
 * -acpitable (QEMU rewrites the header's length and checksum, and builds no
 * SRAT or SLIT of its own without -numa). A damaged header, and every MADT
 * (QEMU always builds its own, which would come first), goes through GRUB's
 * `acpi [--exclude=APIC] FILE` on the hostile ISO, which copies the file as
 * it is: tools/hostile/grub.cfg reads the case's name from the SMBIOS
 * system serial number (-smbios type=1,serial=NAME) and sources NAME.cfg.
 *
 * Each case names the field it damages, and the text of the kernel's
 * warning that must name it (expect_log). The runner (tests/runner/
 * hostile.c) fails the boot if any is missing; the judge fails it unless
 * the kernel ends with its tests' own exit code (no reset, hang or panic).
 *
 * The machine: q35, MEM_MIB of RAM, one CPU (two for the cases that need a
 * second real one), BIOS, x2APIC off (so the xAPIC rules are the ones
 * tested whether the host CPU has it or not). Its APIC ids are QEMU's:
 * CPU n has id n.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define MIB (1ull << 20)
#define GIB (1ull << 30)
#define MEM_MIB 128ull
#define MEM (MEM_MIB * MIB)
#define PAGE 4096ull
#define APIC_DEFAULT 0xfee00000ull

/* --- deterministic randomness (splitmix64) ------------------------------ */

static uint64_t rng_state;

static uint64_t rnd(void)
{
	uint64_t z = (rng_state += 0x9e3779b97f4a7c15ull);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

/* Uniform in [lo, hi]. */
static uint64_t rnd_range(uint64_t lo, uint64_t hi)
{
	return lo + rnd() % (hi - lo + 1);
}

/* --- tables ---------------------------------------------------------------- */

struct table {
	uint8_t b[8192];
	size_t len;
};

static void put(struct table *t, const void *p, size_t n)
{
	if (t->len + n > sizeof(t->b)) {
		fprintf(stderr, "hostile_gen: table too large\n");
		exit(1);
	}
	memcpy(t->b + t->len, p, n);
	t->len += n;
}

static void put8(struct table *t, uint8_t v) { put(t, &v, 1); }
static void put16(struct table *t, uint16_t v) { put(t, &v, 2); } /* x86: little-endian */
static void put32(struct table *t, uint32_t v) { put(t, &v, 4); }
static void put64(struct table *t, uint64_t v) { put(t, &v, 8); }

static void header(struct table *t, const char *sig, uint8_t rev)
{
	t->len = 0;
	put(t, sig, 4);
	put32(t, 0); /* length: finish() */
	put8(t, rev);
	put8(t, 0); /* checksum: finish() */
	put(t, "MMLABH", 6);
	put(t, "HOSTILE ", 8);
	put32(t, 1);
	put(t, "MMLB", 4);
	put32(t, 1);
}

static uint8_t sum(const uint8_t *p, size_t n)
{
	uint8_t s = 0;
	for (size_t i = 0; i < n; i++)
		s += p[i];
	return s;
}

/* Sets Length to `length` and the checksum over that many bytes (or over
 * the whole buffer when the length lies beyond it). */
static void finish_as(struct table *t, uint32_t length)
{
	memcpy(t->b + 4, &length, 4);
	t->b[9] = 0;
	t->b[9] = (uint8_t)-sum(t->b, length <= t->len ? length : t->len);
}

static void finish(struct table *t) { finish_as(t, (uint32_t)t->len); }

/* SRAT */
static void srat_begin(struct table *t)
{
	header(t, "SRAT", 3);
	put32(t, 1);
	put64(t, 0);
}

static void srat_mem(struct table *t, uint32_t pxm, uint64_t base, uint64_t len)
{
	put8(t, 1);
	put8(t, 40);
	put32(t, pxm);
	put16(t, 0);
	put64(t, base);
	put64(t, len);
	put32(t, 0);
	put32(t, 1); /* enabled */
	put64(t, 0);
}

static void srat_cpu(struct table *t, uint32_t pxm, uint8_t apic_id)
{
	put8(t, 0);
	put8(t, 16);
	put8(t, (uint8_t)pxm);
	put8(t, apic_id);
	put32(t, 1); /* enabled */
	put8(t, 0);
	put8(t, (uint8_t)(pxm >> 8));
	put8(t, (uint8_t)(pxm >> 16));
	put8(t, (uint8_t)(pxm >> 24));
	put32(t, 0);
}

/* Two nodes that cover all RAM: [0, MEM/2) and [MEM/2, 4 GiB). */
static void srat_two_nodes(struct table *t)
{
	srat_begin(t);
	srat_cpu(t, 0, 0);
	srat_mem(t, 0, 0, MEM / 2);
	srat_mem(t, 1, MEM / 2, 4 * GIB - MEM / 2);
}

/* SLIT */
static void slit(struct table *t, unsigned n, const uint8_t *d, uint64_t count)
{
	header(t, "SLIT", 1);
	put64(t, count);
	put(t, d, (size_t)n * n);
}

/* MADT: the machine's own CPUs (ids 0..ncpus-1), an I/O APIC and QEMU's
 * interrupt override; callers add the damage. */
static void madt_begin(struct table *t, uint32_t lapic_address)
{
	header(t, "APIC", 4);
	put32(t, lapic_address);
	put32(t, 1); /* PCAT_COMPAT */
}

static void madt_lapic(struct table *t, uint8_t uid, uint8_t id, uint32_t flags)
{
	put8(t, 0);
	put8(t, 8);
	put8(t, uid);
	put8(t, id);
	put32(t, flags);
}

static void madt_x2apic(struct table *t, uint32_t uid, uint32_t id)
{
	put8(t, 9);
	put8(t, 16);
	put16(t, 0);
	put32(t, id);
	put32(t, 1);
	put32(t, uid);
}

static void madt_ioapic(struct table *t)
{
	put8(t, 1);
	put8(t, 12);
	put8(t, 0);
	put8(t, 0);
	put32(t, 0xfec00000);
	put32(t, 0);
	/* ISA IRQ 0 -> GSI 2, as QEMU's */
	put8(t, 2);
	put8(t, 10);
	put8(t, 0);
	put8(t, 0);
	put32(t, 2);
	put16(t, 0);
}

/* An I/O APIC entry (id 0) and an Interrupt Source Override of ISA irq. */
static void madt_ioapic_at(struct table *t, uint32_t address, uint32_t gsi_base)
{
	put8(t, 1);
	put8(t, 12);
	put8(t, 0);
	put8(t, 0);
	put32(t, address);
	put32(t, gsi_base);
}

static void madt_int_override(struct table *t, uint8_t irq, uint32_t gsi, uint16_t flags)
{
	put8(t, 2);
	put8(t, 10);
	put8(t, 0);
	put8(t, irq);
	put32(t, gsi);
	put16(t, flags);
}

static void madt_override(struct table *t, uint64_t address)
{
	put8(t, 5);
	put8(t, 12);
	put16(t, 0);
	put64(t, address);
}

static void madt_machine(struct table *t, unsigned ncpus, uint32_t lapic_address)
{
	madt_begin(t, lapic_address);
	for (unsigned c = 0; c < ncpus; c++)
		madt_lapic(t, (uint8_t)c, (uint8_t)c, 1);
	madt_ioapic(t);
}

/* --- cases ------------------------------------------------------------------ */

enum delivery { QEMU_ACPITABLE, GRUB_ACPI };

struct hcase {
	char name[96];
	const char *field; /* the malformed field, as the ACPI spec names it */
	enum delivery how;
	const char *exclude; /* GRUB: host table to drop ("APIC"), or NULL */
	unsigned ncpus;
	const char *filter; /* ktest.filter: a small suite that checks what was accepted */
	unsigned long long mem_mib; /* the machine's RAM (0: MEM_MIB) */
	char expect[4][200];
	unsigned nexpect;
	struct table t;
};

static void expect(struct hcase *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void expect(struct hcase *c, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(c->expect[c->nexpect++], sizeof(c->expect[0]), fmt, ap);
	va_end(ap);
}

#define TOPO "topology.*"
#define SMP "smp.every_cpu_is_up_on_its_node"
#define PCI "virtio_blk.pci_scan_matches_config_space"
/* A line typed on ttyS0 still reaches a reader (by the tick's polling
 * when no I/O APIC takes the UART's interrupt). */
#define TTY "tty.serial_line_by_loopback"

/* Each builder fills c->t, c->field, c->how and the expected warnings. */

static void srat_same_node_overlap(struct hcase *c)
{
	c->field = "SRAT Memory Affinity Base Address/Length (same domain twice)";
	srat_two_nodes(&c->t);
	uint64_t a = rnd_range(0, MEM / 2 / PAGE - 1) * PAGE;
	uint64_t b = rnd_range(a / PAGE + 1, MEM / 2 / PAGE) * PAGE;
	srat_mem(&c->t, 0, a, b - a);
	finish(&c->t);
	expect(c, "SRAT: [0x%" PRIx64 "-0x%" PRIx64 ") of domain 0 overlaps an earlier range of the same "
		  "node; merged, counted once", a, b - 1);
}

static void srat_double_count_hides_ram(struct hcase *c)
{
	c->field = "SRAT Memory Affinity Length (a range listed twice, RAM left out)";
	srat_begin(&c->t);
	uint64_t len = rnd_range(1, MEM / 4 / MIB) * MIB;
	srat_mem(&c->t, 0, 0, len);
	srat_mem(&c->t, 0, 0, len);
	srat_mem(&c->t, 1, MEM / 2, 4 * GIB - MEM / 2);
	finish(&c->t);
	expect(c, "overlaps an earlier range of the same node");
	expect(c, "falling back to one node");
}

static void srat_other_node_overlap(struct hcase *c)
{
	c->field = "SRAT Memory Affinity Proximity Domain (a range of two nodes)";
	srat_two_nodes(&c->t);
	uint64_t a = rnd_range(0, MEM / PAGE - 2) * PAGE;
	uint64_t b = rnd_range(a / PAGE + 1, MEM / PAGE - 1) * PAGE;
	uint32_t pxm = (uint32_t)rnd_range(2, 255);
	srat_mem(&c->t, pxm, a, b - a);
	finish(&c->t);
	expect(c, "SRAT: [0x%" PRIx64 "-0x%" PRIx64 ") of domain %u overlaps another node, ignored", a,
	       b - 1, pxm);
}

static void srat_not_ram(struct hcase *c)
{
	c->field = "SRAT Memory Affinity Base Address (no RAM there)";
	srat_two_nodes(&c->t);
	uint64_t base = rnd_range(64, 4096) * GIB, len = rnd_range(1, 64) * GIB;
	srat_mem(&c->t, 2, base, len);
	finish(&c->t);
	expect(c, "SRAT: [0x%" PRIx64 "-0x%" PRIx64 ") of domain 2 is not RAM in the memory map, ignored",
	       base, base + len - 1);
}

static void srat_wraps(struct hcase *c)
{
	c->field = "SRAT Memory Affinity Base Address + Length (wraps around)";
	srat_two_nodes(&c->t);
	uint64_t base = UINT64_MAX - rnd_range(0, 1u << 20) * PAGE;
	srat_mem(&c->t, 1, base, rnd_range(1, 1024) * GIB);
	finish(&c->t);
	expect(c, "SRAT: memory range at 0x%" PRIx64 " wraps around", base);
}

static void srat_too_many_domains(struct hcase *c)
{
	c->field = "SRAT Processor Affinity Proximity Domain (more domains than nodes)";
	srat_two_nodes(&c->t);
	/* Distinct domains until one is refused: the kernel's node limit is
	 * not assumed, 255 are offered (the SRAT has room for them). */
	uint32_t first = (uint32_t)rnd_range(2, 1u << 20);
	for (uint32_t i = 0; i < 255; i++)
		srat_cpu(&c->t, first + i, (uint8_t)(i + 1));
	finish(&c->t);
	expect(c, "for APIC id 255 is beyond");
}

static void srat_entry_length(struct hcase *c)
{
	c->field = "SRAT subtable Length";
	srat_two_nodes(&c->t);
	uint8_t len = rnd() & 1 ? (uint8_t)rnd_range(0, 1) : (uint8_t)rnd_range(41, 255);
	put8(&c->t, 1);
	put8(&c->t, len);
	for (int i = 0; i < 38; i++)
		put8(&c->t, 0);
	finish(&c->t);
	expect(c, "SRAT: entry type 1 has bad length %u; rest ignored", len);
}

static void srat_uncovered(struct hcase *c)
{
	c->field = "SRAT Memory Affinity Length (RAM left out)";
	srat_begin(&c->t);
	srat_mem(&c->t, 0, 0, rnd_range(1, MEM / MIB / 2) * MIB);
	finish(&c->t);
	expect(c, "falling back to one node");
}

/* A node too small for its own struct pages and watermarks: 4 KiB to
 * 640 KiB at the bottom of RAM (firmware keeps some of it). */
static void srat_tiny_node(struct hcase *c)
{
	c->field = "SRAT Memory Affinity Length (a node of a few pages)";
	static const uint64_t sizes[] = { 4096, 65536, 0xa0000 };
	uint64_t tiny = sizes[rnd() % 3];
	srat_begin(&c->t);
	srat_cpu(&c->t, 0, 0);
	srat_mem(&c->t, 0, tiny, 4 * GIB - tiny);
	srat_mem(&c->t, 1, 0, tiny);
	finish(&c->t);
	/* How much of it is RAM is the firmware's to say: the message's
	 * fixed part, and the node. */
	expect(c, "NUMA: node 1 has ");
	expect(c, "too small for its own struct pages");
}


/* --- NUMA layouts --------------------------------------------------------
 *
 * Legal SRATs that place memory unusually: nodes whose ranges interleave
 * at a grain from one page to 1 GiB, node boundaries off any alignment,
 * nodes of less than a page, and random layouts. None is damaged, so no
 * warning is expected but the memoryless node's; the suite numa_layout
 * checks, from the SRAT the kernel parsed, that every page each allocator
 * hands out for a node lies in that node's ranges. The machine's RAM on
 * q35: [0, 640 KiB), [1 MiB, min(MEM, 2 GiB)) (below 2.75 GiB all of it
 * low) and, for 4 GiB, [4 GiB, 6 GiB).
 */
#define LAYOUT "numa_layout.*"

/* Gives [start, end) to the domains round robin in grain-sized pieces
 * (the last piece cut at end). Returns the number of entries written. */
static unsigned srat_interleave(struct table *t, uint64_t start, uint64_t end, uint64_t grain,
				unsigned domains)
{
	unsigned n = 0;
	for (uint64_t a = start; a < end; a += grain, n++)
		srat_mem(t, n % domains, a, end - a < grain ? end - a : grain);
	return n;
}

/* One CPU on domain 0, the other (if any) on the last domain, which may
 * have less memory or none to the allocator. */
static void srat_layout_cpus(struct hcase *c, unsigned domains)
{
	srat_begin(&c->t);
	srat_cpu(&c->t, 0, 0);
	if (c->ncpus > 1)
		srat_cpu(&c->t, domains - 1, 1);
}

/* 4 KiB pages alternating between two nodes in a window of 96 pages (the
 * SRAT's entries are what limits the window: 128 ranges, as Linux's
 * NR_NODE_MEMBLKS for 64 nodes), the rest in two large ranges. */
static void layout_interleave_4k(struct hcase *c)
{
	c->field = "SRAT Memory Affinity (4 KiB pages alternating between 2 nodes)";
	srat_layout_cpus(c, 2);
	uint64_t w = rnd_range(4, MEM / MIB - 8) * MIB;
	srat_mem(&c->t, 0, 0, w);
	srat_interleave(&c->t, w, w + 96 * PAGE, PAGE, 2);
	srat_mem(&c->t, 1, w + 96 * PAGE, 4 * GIB - w - 96 * PAGE);
	finish(&c->t);
}

/* As the firmware of the report: 120 ranges of 2 MiB round robin over 4
 * domains, then the rest on domain 0 (a 512 MiB, 2-CPU machine). */
static void layout_interleave_2m(struct hcase *c)
{
	c->field = "SRAT Memory Affinity (2 MiB round robin over 4 nodes)";
	c->mem_mib = 512;
	c->ncpus = 2;
	srat_layout_cpus(c, 4);
	srat_interleave(&c->t, 0, 240 * MIB, 2 * MIB, 4);
	srat_mem(&c->t, 0, 240 * MIB, 4 * GIB - 240 * MIB);
	finish(&c->t);
}

/* 4 MiB round robin over 16 domains, 7 rounds, the rest on domain 0: 15
 * CPU-less nodes of 28 MiB each. */
static void layout_interleave_4m(struct hcase *c)
{
	c->field = "SRAT Memory Affinity (4 MiB round robin over 16 nodes)";
	c->mem_mib = 512;
	srat_layout_cpus(c, 16);
	srat_interleave(&c->t, 0, 7 * 16 * 4 * MIB, 4 * MIB, 16);
	srat_mem(&c->t, 0, 7 * 16 * 4 * MIB, 4 * GIB - 7 * 16 * 4 * MIB);
	finish(&c->t);
}

/* Section-sized (128 MiB) ranges round robin over 4 domains: every node's
 * span overlaps the others', its ranges apart. */
static void layout_interleave_128m(struct hcase *c)
{
	c->field = "SRAT Memory Affinity (128 MiB round robin over 4 nodes)";
	c->mem_mib = 1024;
	c->ncpus = 2;
	srat_layout_cpus(c, 4);
	srat_interleave(&c->t, 0, 4 * GIB, 128 * MIB, 4);
	finish(&c->t);
}

/* 1 GiB round robin over 2 domains on a 4 GiB machine: node 0 has
 * [0, 1 GiB) and [4, 5 GiB), node 1 [1, 2 GiB) and [5, 6 GiB); node 1's
 * [2, 4 GiB) (the PCI hole, not RAM) lies between its ranges. */
static void layout_interleave_1g(struct hcase *c)
{
	c->field = "SRAT Memory Affinity (1 GiB round robin over 2 nodes)";
	c->mem_mib = 4096;
	srat_layout_cpus(c, 2);
	srat_mem(&c->t, 0, 0, GIB);
	srat_mem(&c->t, 1, GIB, 3 * GIB);
	srat_mem(&c->t, 0, 4 * GIB, GIB);
	srat_mem(&c->t, 1, 5 * GIB, GIB);
	finish(&c->t);
}

/* Boundaries at any byte: 4 domains, each given pieces that start and end
 * off a page (so no page of the two that straddle a boundary is whole in
 * either node), one node of less than a page among them, and holes
 * between a node's ranges (the others' pieces). */
static void layout_unaligned(struct hcase *c)
{
	c->field = "SRAT Memory Affinity (boundaries off any page, a node without a whole page)";
	c->mem_mib = 256;
	c->ncpus = 2;
	srat_layout_cpus(c, 4);
	uint64_t a = 0, end = c->mem_mib * MIB;
	unsigned n = 0;
	/* Domain 3 (the second CPU's) is [x + 100, x + 4000) in one page. */
	uint64_t tiny = rnd_range(8, end / PAGE - 8) * PAGE;
	while (a < tiny) {
		uint64_t len = rnd_range(PAGE / 2, 24 * MIB);
		if (a + len > tiny)
			len = tiny - a;
		srat_mem(&c->t, n++ % 3, a, len);
		a += len;
	}
	srat_mem(&c->t, n++ % 3, tiny, 100);
	srat_mem(&c->t, 3, tiny + 100, 3900);
	a = tiny + 4000;
	while (a < end) {
		uint64_t len = rnd_range(PAGE / 2, 24 * MIB);
		if (a + len > end)
			len = end - a;
		srat_mem(&c->t, n++ % 3, a, len);
		a += len;
	}
	finish(&c->t);
	expect(c, "(pxm 3) has no whole page of memory");
	expect(c, "memoryless to the allocator, its CPUs allocate from the nearest node");
}

/* A node that the firmware or the kernel keeps whole: [0, 640 KiB) (the
 * BIOS's), the kernel image's [1 MiB, 3 MiB), or one page. */
static void layout_reserved_node(struct hcase *c)
{
	c->field = "SRAT Memory Affinity (a node of memory the allocator never gets)";
	static const uint64_t ranges[][2] = { { 0, 0xa0000 }, { MIB, 3 * MIB }, { 64 * MIB, 64 * MIB + PAGE } };
	const uint64_t *r = ranges[rnd() % 3];
	c->ncpus = 2;
	srat_layout_cpus(c, 2);
	if (r[0])
		srat_mem(&c->t, 0, 0, r[0]);
	srat_mem(&c->t, 1, r[0], r[1] - r[0]);
	srat_mem(&c->t, 0, r[1], 4 * GIB - r[1]);
	finish(&c->t);
}

/* Random layouts: 2 to 16 domains, ranges of up to a sixteenth of memory
 * in a grain drawn from 4 KiB to 64 MiB (or any byte) given to random
 * domains (the first range of each domain in turn), at most 120 of them. */
static void layout_random(struct hcase *c)
{
	c->field = "SRAT Memory Affinity (a random layout)";
	c->mem_mib = 512;
	unsigned domains = (unsigned)rnd_range(2, 16);
	c->ncpus = (unsigned)rnd_range(1, 2);
	srat_layout_cpus(c, domains);
	static const uint64_t grains[] = { 1, PAGE, 64 * 1024, 2 * MIB, 4 * MIB, 64 * MIB };
	uint64_t grain = grains[rnd() % 6], end = c->mem_mib * MIB, a = 0;
	unsigned n = 0;
	while (a < end) {
		uint64_t grains_max = end / grain / 16 < 1 ? 1 : end / grain / 16 > 120 ? 120 : end / grain / 16;
		uint64_t len = rnd_range(1, grains_max) * grain;
		if (grain == 1)
			len = rnd_range(1, 16 * MIB);
		if (n == 119 || a + len > end)
			len = end - a;
		srat_mem(&c->t, n < domains ? n : (uint32_t)rnd_range(0, domains - 1), a, len);
		a += len;
		n++;
	}
	finish(&c->t);
}

static struct table second; /* a second table of the case (SRAT beside a SLIT) */
static bool have_second;

/* A SLIT is read only beside an SRAT the kernel accepted: a good one goes
 * along as the case's second table. */
static void slit_beside_srat(void)
{
	srat_two_nodes(&second);
	finish(&second);
	have_second = true;
}

static void slit_local(struct hcase *c)
{
	c->field = "SLIT Entry[i][i] (local distance not 10)";
	slit_beside_srat();
	uint8_t local = (uint8_t)rnd_range(0, 254);
	if (local == 10)
		local = 0;
	uint8_t d[4] = { local, 20, 20, 10 };
	slit(&c->t, 2, d, 2);
	finish(&c->t);
	expect(c, "SLIT: distance %u from locality 0 to 0 is invalid", local);
}

static void slit_remote(struct hcase *c)
{
	c->field = "SLIT Entry[i][j] (remote distance 10 or less)";
	slit_beside_srat();
	uint8_t remote = (uint8_t)rnd_range(0, 10);
	uint8_t d[4] = { 10, 20, remote, 10 };
	slit(&c->t, 2, d, 2);
	finish(&c->t);
	expect(c, "SLIT: distance %u from locality 1 to 0 is invalid", remote);
}

static void slit_count(struct hcase *c)
{
	c->field = "SLIT Number of System Localities";
	slit_beside_srat();
	uint64_t count = rnd() & 1 ? 0 : rnd_range(3, 1ull << 40);
	uint8_t d[4] = { 10, 20, 20, 10 };
	slit(&c->t, 2, d, count);
	finish(&c->t);
	expect(c, "SLIT: %" PRIu64 " localities do not fit", count);
}

static void madt_broadcast(struct hcase *c)
{
	c->field = "MADT Processor Local APIC APIC ID (0xff, the broadcast)";
	madt_machine(&c->t, 1, APIC_DEFAULT);
	uint8_t uid = (uint8_t)rnd_range(1, 254);
	madt_lapic(&c->t, uid, 0xff, 1);
	finish(&c->t);
	expect(c, "MADT local APIC entry (UID %u): APIC ID 0xff is the broadcast id; CPU left out", uid);
}

static void madt_x2apic_unaddressable(struct hcase *c)
{
	c->field = "MADT Processor Local x2APIC X2APIC ID (beyond xAPIC's 8 bits)";
	madt_machine(&c->t, 1, APIC_DEFAULT);
	static const uint32_t ids[] = { 255, 256, 257 };
	uint32_t id = rnd() & 1 ? ids[rnd() % 3] : (uint32_t)rnd_range(258, 32767);
	uint32_t uid = (uint32_t)rnd_range(1, 1000);
	madt_x2apic(&c->t, uid, id);
	finish(&c->t);
	expect(c, "MADT local x2APIC entry (UID %u): APIC ID 0x%x cannot be addressed in xAPIC mode",
	       uid, id);
}

static void madt_id_beyond(struct hcase *c)
{
	c->field = "MADT Processor Local x2APIC X2APIC ID (beyond what a machine can have)";
	madt_machine(&c->t, 1, APIC_DEFAULT);
	uint32_t id = rnd() & 1 ? 0xffffffffu : (uint32_t)rnd_range(32768, 0xfffffffe);
	uint32_t uid = (uint32_t)rnd_range(1, 1000);
	madt_x2apic(&c->t, uid, id);
	finish(&c->t);
	expect(c, "MADT local x2APIC entry (UID %u): APIC ID 0x%x is beyond", uid, id);
}

static void madt_duplicate(struct hcase *c)
{
	c->field = "MADT Processor Local APIC APIC ID (listed twice)";
	c->ncpus = 2;
	madt_machine(&c->t, 2, APIC_DEFAULT);
	uint8_t id = (uint8_t)(rnd() & 1), uid = (uint8_t)rnd_range(2, 254);
	if (rnd() & 1)
		madt_lapic(&c->t, uid, id, 1);
	else
		madt_x2apic(&c->t, uid, id);
	finish(&c->t);
	expect(c, "MADT lists APIC ID %u twice, second entry (UID %u) ignored", id, uid);
}

/* An enabled CPU whose APIC id every IPI can name, but no CPU has: INIT
 * and SIPI go nowhere, the kernel waits its 10 s for an answer, reports the
 * CPU and leaves it out of cpu_present_mask; the machine runs on its own
 * CPU (expect.cpus=1: what must be online). */
static void madt_phantom_cpu(struct hcase *c)
{
	c->field = "MADT Processor Local APIC (an enabled CPU that does not exist)";
	uint8_t id = (uint8_t)rnd_range(1, 254), uid = (uint8_t)rnd_range(1, 254);
	madt_machine(&c->t, 1, APIC_DEFAULT);
	madt_lapic(&c->t, uid, id, 1);
	finish(&c->t);
	expect(c, "smp: CPU 1 (APIC id %u) did not answer; left out", id);
}

/* Firmware that lists more enabled CPUs than the machine has, and more than
 * NR_CPUS (64): 70 enabled entries on a 2-CPU machine, the machine's own ids
 * first, then 68 distinct ids no CPU has. The kernel keeps 64, starts the
 * 63 others together and waits once for all of them: the 62 that never
 * answer cost one 10 s timeout, not one each (ten minutes, past the
 * boot's timeout). */
#define ABSENT_LISTED 70
#define KERNEL_NR_CPUS 64 /* kernel/topology.h's NR_CPUS */
static void madt_absent_cpus(struct hcase *c)
{
	c->field = "MADT Processor Local APIC (more enabled CPUs than NR_CPUS, most of them absent)";
	c->ncpus = 2;
	uint8_t ids[ABSENT_LISTED], pool[253];
	for (unsigned i = 0; i < 253; i++)
		pool[i] = (uint8_t)(i + 2);
	for (unsigned i = 0; i < ABSENT_LISTED - 2; i++) { /* a partial Fisher-Yates shuffle */
		unsigned j = (unsigned)rnd_range(i, 252);
		uint8_t x = pool[i];
		pool[i] = pool[j];
		pool[j] = x;
	}
	ids[0] = 0;
	ids[1] = 1;
	memcpy(ids + 2, pool, ABSENT_LISTED - 2);
	madt_begin(&c->t, APIC_DEFAULT);
	for (unsigned i = 0; i < ABSENT_LISTED; i++)
		madt_lapic(&c->t, (uint8_t)i, ids[i], 1);
	madt_ioapic(&c->t);
	finish(&c->t);
	expect(c, "ACPI: more than %d CPUs; APIC ID %u ignored", KERNEL_NR_CPUS, ids[KERNEL_NR_CPUS]);
	expect(c, "smp: CPU 2 (APIC id %u) did not answer; left out", ids[2]);
	expect(c, "smp: CPU %d (APIC id %u) did not answer; left out", KERNEL_NR_CPUS - 1,
	       ids[KERNEL_NR_CPUS - 1]);
	expect(c, "smp: %d of %d application processors never answered", KERNEL_NR_CPUS - 2,
	       KERNEL_NR_CPUS - 1);
}

static void madt_boot_cpu_missing(struct hcase *c)
{
	c->field = "MADT Processor Local APIC (the boot CPU missing or disabled)";
	c->ncpus = 2;
	madt_begin(&c->t, APIC_DEFAULT);
	if (rnd() & 1)
		madt_lapic(&c->t, 0, 0, 0); /* listed disabled */
	madt_lapic(&c->t, 1, 1, 1);
	madt_ioapic(&c->t);
	finish(&c->t);
	expect(c, "the boot CPU's APIC ID 0 (from CPUID) is not an enabled CPU of the MADT; added");
}

static void madt_lapic_header(struct hcase *c)
{
	c->field = "MADT Local Interrupt Controller Address";
	uint32_t addr;
	const char *why;
	switch (rnd() % 4) {
	case 0: addr = 0x1000; why = "is RAM in the memory map"; break;
	case 1: /* inside the kernel image (loaded at 1 MiB and up) */
		addr = (uint32_t)rnd_range(0x100000 / PAGE, 0x400000 / PAGE) * PAGE;
		why = "is RAM in the memory map";
		break;
	case 2: addr = (uint32_t)rnd_range(MEM / 2 / PAGE, MEM * 3 / 4 / PAGE) * PAGE;
		why = "is RAM in the memory map";
		break;
	default: addr = (uint32_t)(APIC_DEFAULT + rnd_range(1, PAGE - 1)); why = "is not page-aligned"; break;
	}
	madt_machine(&c->t, 1, addr);
	finish(&c->t);
	expect(c, "MADT Local APIC Address (header) 0x%x %s; not used", addr, why);
	expect(c, "using the architectural local APIC address 0xfee00000");
}

/* A page that passes every check of the address (aligned, below the
 * address width, no memory of the map in it) but is not where the CPU's
 * xAPIC is: the kernel must use IA32_APIC_BASE's page, not the table's. */
static void madt_lapic_elsewhere(struct hcase *c)
{
	c->field = "MADT Local Interrupt Controller Address";
	uint32_t addr = (uint32_t)rnd_range(0xfed10000u / PAGE, 0xfedf0000u / PAGE) * PAGE;
	madt_machine(&c->t, 1, addr);
	finish(&c->t);
	expect(c, "apic: the MADT's local APIC address 0x%x is not the CPU's (IA32_APIC_BASE 0xfee00000); "
		  "using the CPU's", addr);
}

static void madt_lapic_override(struct hcase *c)
{
	c->field = "MADT Local APIC Address Override Local APIC Address";
	uint64_t addr;
	const char *why;
	switch (rnd() % 4) {
	case 0: addr = 0xffff8000fee00000ull; why = "is beyond the CPU's physical address width"; break;
	case 1: addr = (1ull << rnd_range(52, 63)) | APIC_DEFAULT;
		why = "is beyond the CPU's physical address width";
		break;
	case 2: addr = rnd_range(1, MEM / 2 / PAGE) * PAGE; why = "is RAM in the memory map"; break;
	default: addr = APIC_DEFAULT | rnd_range(1, PAGE - 1); why = "is not page-aligned"; break;
	}
	madt_machine(&c->t, 1, APIC_DEFAULT);
	madt_override(&c->t, addr);
	finish(&c->t);
	expect(c, "MADT Local APIC Address Override 0x%" PRIx64 " %s; not used", addr, why);
}

static void madt_entry_length(struct hcase *c)
{
	c->field = "MADT subtable Length";
	madt_machine(&c->t, 1, APIC_DEFAULT);
	uint8_t type = (uint8_t)(rnd() & 1 ? 0 : 9), len = (uint8_t)rnd_range(0, 1);
	if (rnd() & 1)
		len = (uint8_t)rnd_range(30, 255); /* beyond the table's end */
	put8(&c->t, type);
	put8(&c->t, len);
	for (int i = 0; i < 14; i++)
		put8(&c->t, 0);
	finish(&c->t);
	expect(c, "MADT entry type %u has bad length %u; rest ignored", type, len);
}

/* An I/O APIC the kernel must not use: skipped, the serial ports polled. */
static void madt_ioapic_address(struct hcase *c)
{
	c->field = "MADT I/O APIC Address";
	uint32_t addr;
	madt_begin(&c->t, APIC_DEFAULT);
	madt_lapic(&c->t, 0, 0, 1);
	switch (rnd() % 3) {
	case 0:
		addr = 0;
		expect(c, "ioapic: I/O APIC 0 (id 0) at 0: bogus, skipped");
		break;
	case 1:
		addr = (uint32_t)(rnd_range(1, MEM / 2 / PAGE) * PAGE);
		expect(c, "ioapic: I/O APIC 0 (id 0) at 0x%x is RAM, skipped", addr);
		break;
	default:
		addr = (uint32_t)(0xfec00000u | rnd_range(1, 15));
		expect(c, "ioapic: I/O APIC 0 (id 0) at 0x%x is not aligned, skipped", addr);
		break;
	}
	madt_ioapic_at(&c->t, addr, 0);
	madt_int_override(&c->t, 0, 2, 0);
	finish(&c->t);
	expect(c, "serial: ttyS0: IRQ 4 (GSI 4) reaches no usable I/O APIC; its input is polled from the tick");
}

/* COM1's IRQ sent to a GSI no I/O APIC has: its input is polled. (A
 * level-triggered, active-low override is no test under QEMU: its I/O
 * APIC does not invert the line, so no interrupt storm follows.) */
static void madt_isa_override(struct hcase *c)
{
	c->field = "MADT Interrupt Source Override (ISA IRQ 4)";
	madt_machine(&c->t, 1, APIC_DEFAULT);
	uint32_t gsi = (uint32_t)rnd_range(24, 0xffffff);
	madt_int_override(&c->t, 4, gsi, 0);
	finish(&c->t);
	expect(c, "serial: ttyS0: IRQ 4 (GSI %u) reaches no usable I/O APIC; its input is polled from the tick",
	       gsi);
}

static void header_checksum(struct hcase *c, const char *sig)
{
	if (!strcmp(sig, "APIC"))
		madt_machine(&c->t, 1, APIC_DEFAULT);
	else
		srat_two_nodes(&c->t);
	finish(&c->t);
	c->t.b[9] += (uint8_t)rnd_range(1, 255);
	expect(c, "ACPI: %s header Checksum 0x%02x is bad", sig, c->t.b[9]);
}

static void madt_header_checksum(struct hcase *c)
{
	c->field = "MADT header Checksum";
	header_checksum(c, "APIC");
	expect(c, "ACPI: no MADT");
}

static void slit_header_checksum(struct hcase *c)
{
	c->field = "SLIT header Checksum";
	slit_beside_srat();
	uint8_t d[4] = { 10, 20, 20, 10 };
	slit(&c->t, 2, d, 2);
	finish(&c->t);
	c->t.b[9] += (uint8_t)rnd_range(1, 255);
	expect(c, "ACPI: SLIT header Checksum 0x%02x is bad", c->t.b[9]);
	expect(c, "NUMA: no SLIT");
}

static void srat_header_checksum(struct hcase *c)
{
	c->field = "SRAT header Checksum";
	header_checksum(c, "SRAT");
}

static void header_length(struct hcase *c, const char *sig)
{
	if (!strcmp(sig, "APIC"))
		madt_machine(&c->t, 1, APIC_DEFAULT);
	else
		srat_two_nodes(&c->t);
	uint32_t len;
	switch (rnd() % 3) {
	case 0: len = (uint32_t)rnd_range(0, 35); break;             /* shorter than a header */
	case 1: len = (uint32_t)rnd_range(4u << 20 | 1, UINT32_MAX); break; /* absurd */
	default: len = (uint32_t)rnd_range(36, 43); break;           /* a header, no body */
	}
	finish_as(&c->t, len);
	if (len < 36 || len > (4u << 20))
		expect(c, "ACPI: %s header Length %u is bad", sig, len);
	else if (!strcmp(sig, "APIC"))
		expect(c, "MADT header Length %u is too short", len);
	else
		expect(c, "SRAT: header Length %u is too short", len);
}

static void madt_header_length(struct hcase *c)
{
	c->field = "MADT header Length";
	header_length(c, "APIC");
}

static void srat_header_length(struct hcase *c)
{
	c->field = "SRAT header Length";
	header_length(c, "SRAT");
}

/* MCFG: segment 0's ECAM window wrong in one of four ways. The kernel
 * must say which, and scan PCI through the type 1 ports instead
 * (drivers/pci/access.c); the pci suite checks what it found. */
static void mcfg_window(struct hcase *c)
{
	header(&c->t, "MCFG", 1);
	put64(&c->t, 0); /* reserved */
	uint64_t base = 0xb0000000ull;
	uint8_t start = 0, end = 0xff;
	uint32_t extra = 0;
	switch (rnd() % 4) {
	case 0: /* over RAM */
		c->field = "MCFG Base Address";
		base = rnd_range(1, MEM / MIB / 2) * MIB;
		expect(c, "ACPI: MCFG entry 0 (ECAM %#llx, buses 00-ff) overlaps memory of the memory map; "
		       "ignored", (unsigned long long)base);
		break;
	case 1: /* in the MMIO hole, where nothing answers as ECAM */
		c->field = "MCFG Base Address";
		base = rnd_range(0xc00, 0xdff) * MIB;
		expect(c, "PCI: ECAM at %#llx reads", (unsigned long long)base);
		break;
	case 2: /* no window from bus 0, where the scan starts */
		c->field = "MCFG Start Bus Number";
		start = (uint8_t)rnd_range(1, 0xff);
		expect(c, "ACPI: MCFG has no usable entry for segment 0 from bus 0");
		break;
	default:
		c->field = "MCFG header Length";
		extra = (uint32_t)rnd_range(1, 15);
		break;
	}
	put64(&c->t, base);
	put16(&c->t, 0);
	put8(&c->t, start);
	put8(&c->t, end);
	put32(&c->t, 0);
	for (uint32_t i = 0; i < extra; i++)
		put8(&c->t, 0);
	finish(&c->t);
	if (extra)
		expect(c, "ACPI: MCFG Length %u is not its header and a whole number of 16-byte entries",
		       (unsigned)c->t.len);
	expect(c, "PCI: scanning bus 00 through type 1 ports");
}

struct hclass {
	const char *name;
	void (*build)(struct hcase *);
	enum delivery how;
	const char *exclude;
	const char *filter;
};

static const struct hclass classes[] = {
	{ "srat-same-node-overlap", srat_same_node_overlap, QEMU_ACPITABLE, NULL, TOPO },
	{ "madt-broadcast-id", madt_broadcast, GRUB_ACPI, "APIC", SMP },
	{ "slit-local-distance", slit_local, QEMU_ACPITABLE, NULL, TOPO },
	{ "madt-x2apic-unaddressable", madt_x2apic_unaddressable, GRUB_ACPI, "APIC", SMP },
	{ "srat-double-count", srat_double_count_hides_ram, QEMU_ACPITABLE, NULL, TOPO },
	{ "madt-id-beyond", madt_id_beyond, GRUB_ACPI, "APIC", SMP },
	{ "srat-other-node-overlap", srat_other_node_overlap, QEMU_ACPITABLE, NULL, TOPO },
	{ "madt-duplicate-id", madt_duplicate, GRUB_ACPI, "APIC", SMP },
	{ "srat-not-ram", srat_not_ram, QEMU_ACPITABLE, NULL, TOPO },
	{ "madt-boot-cpu-missing", madt_boot_cpu_missing, GRUB_ACPI, "APIC", SMP },
	{ "srat-wraps", srat_wraps, QEMU_ACPITABLE, NULL, TOPO },
	{ "madt-lapic-address", madt_lapic_header, GRUB_ACPI, "APIC", SMP },
	{ "srat-too-many-domains", srat_too_many_domains, QEMU_ACPITABLE, NULL, TOPO },
	{ "madt-lapic-override", madt_lapic_override, GRUB_ACPI, "APIC", SMP },
	{ "madt-lapic-elsewhere", madt_lapic_elsewhere, GRUB_ACPI, "APIC", SMP },
	{ "madt-phantom-cpu", madt_phantom_cpu, GRUB_ACPI, "APIC", SMP },
	{ "srat-entry-length", srat_entry_length, QEMU_ACPITABLE, NULL, TOPO },
	{ "madt-entry-length", madt_entry_length, GRUB_ACPI, "APIC", SMP },
	{ "srat-uncovered", srat_uncovered, QEMU_ACPITABLE, NULL, TOPO },
	{ "madt-header-checksum", madt_header_checksum, GRUB_ACPI, "APIC", SMP },
	{ "slit-remote-distance", slit_remote, QEMU_ACPITABLE, NULL, TOPO },
	{ "madt-header-length", madt_header_length, GRUB_ACPI, "APIC", SMP },
	{ "slit-locality-count", slit_count, QEMU_ACPITABLE, NULL, TOPO },
	{ "srat-header-checksum", srat_header_checksum, GRUB_ACPI, NULL, TOPO },
	{ "srat-tiny-node", srat_tiny_node, QEMU_ACPITABLE, NULL, TOPO },
	{ "srat-header-length", srat_header_length, GRUB_ACPI, NULL, TOPO },
	{ "slit-header-checksum", slit_header_checksum, GRUB_ACPI, NULL, TOPO },
	{ "madt-absent-cpus", madt_absent_cpus, GRUB_ACPI, "APIC", SMP },
	{ "layout-interleave-2m", layout_interleave_2m, QEMU_ACPITABLE, NULL, LAYOUT },
	{ "layout-unaligned", layout_unaligned, QEMU_ACPITABLE, NULL, LAYOUT },
	{ "layout-interleave-4k", layout_interleave_4k, QEMU_ACPITABLE, NULL, LAYOUT },
	{ "layout-interleave-4m", layout_interleave_4m, QEMU_ACPITABLE, NULL, LAYOUT },
	{ "layout-interleave-128m", layout_interleave_128m, QEMU_ACPITABLE, NULL, LAYOUT },
	{ "layout-interleave-1g", layout_interleave_1g, QEMU_ACPITABLE, NULL, LAYOUT },
	{ "layout-reserved-node", layout_reserved_node, QEMU_ACPITABLE, NULL, LAYOUT },
	{ "layout-random", layout_random, QEMU_ACPITABLE, NULL, LAYOUT },
	{ "mcfg-window", mcfg_window, GRUB_ACPI, "MCFG", PCI },
	{ "madt-ioapic-address", madt_ioapic_address, GRUB_ACPI, "APIC", TTY },
	{ "madt-isa-override", madt_isa_override, GRUB_ACPI, "APIC", TTY },
};
#define NR_CLASSES (sizeof(classes) / sizeof(classes[0]))

/* --- output ------------------------------------------------------------------ */

static const char *out_dir, *iso_path;

static void mkdirs(const char *path)
{
	char buf[4096];
	snprintf(buf, sizeof(buf), "%s", path);
	for (char *p = buf + 1; *p; p++)
		if (*p == '/') {
			*p = 0;
			mkdir(buf, 0777);
			*p = '/';
		}
	if (mkdir(buf, 0777) && errno != EEXIST) {
		fprintf(stderr, "hostile_gen: mkdir %s: %s\n", buf, strerror(errno));
		exit(1);
	}
}

static FILE *create(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static FILE *create(const char *fmt, ...)
{
	char path[4096];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(path, sizeof(path), fmt, ap);
	va_end(ap);
	FILE *f = fopen(path, "wb");
	if (!f) {
		fprintf(stderr, "hostile_gen: %s: %s\n", path, strerror(errno));
		exit(1);
	}
	return f;
}

static void write_table(const char *name, const struct table *t)
{
	FILE *f = create("%s/tables/%s.dat", out_dir, name);
	fwrite(t->b, 1, t->len, f);
	if (fclose(f))
		exit(1);
	f = create("%s/iso/boot/hostile/%s.dat", out_dir, name);
	fwrite(t->b, 1, t->len, f);
	if (fclose(f))
		exit(1);
}

static void write_case(const struct hcase *c, uint64_t seed, unsigned index, FILE *list)
{
	char second_name[128];
	write_table(c->name, &c->t);
	if (have_second) {
		snprintf(second_name, sizeof(second_name), "%s.2", c->name);
		write_table(second_name, &second);
	}
	if (c->how == GRUB_ACPI) {
		FILE *f = create("%s/iso/boot/hostile/%s.cfg", out_dir, c->name);
		fprintf(f, "acpi%s%s /boot/hostile/%s.dat%s%s%s\n", c->exclude ? " --exclude=" : "",
			c->exclude ? c->exclude : "", c->name, have_second ? " /boot/hostile/" : "",
			have_second ? second_name : "", have_second ? ".dat" : "");
		fclose(f);
	}
	FILE *f = create("%s/topologies/%s.topo", out_dir, c->name);
	fprintf(f, "# Generated by tools/hostile/hostile_gen (seed %" PRIu64 ", case %u): do not edit.\n",
		seed, index);
	fprintf(f, "# Damaged: %s. Delivered through %s.\n", c->field,
		c->how == GRUB_ACPI ? "GRUB's acpi command" : "QEMU's -acpitable");
	fprintf(f, "description = hostile %s: %s\n", c->how == GRUB_ACPI ? "(GRUB)" : "(-acpitable)",
		c->field);
	fprintf(f, "firmware = bios\n");
	fprintf(f, "iso = %s\n", iso_path);
	fprintf(f, "qemu = -machine q35 -m %lluM -smp %u\n", c->mem_mib ? c->mem_mib : MEM_MIB, c->ncpus);
	fprintf(f, "qemu = -global max-x86_64-cpu.x2apic=off -global host-x86_64-cpu.x2apic=off\n");
	if (c->how == GRUB_ACPI) {
		fprintf(f, "qemu = -smbios type=1,serial=%s\n", c->name);
	} else {
		fprintf(f, "qemu = -acpitable file=%s/tables/%s.dat\n", out_dir, c->name);
		if (have_second)
			fprintf(f, "qemu = -acpitable file=%s/tables/%s.dat\n", out_dir, second_name);
	}
	fprintf(f, "cmdline = ktest.filter=%s\n", c->filter);
	/* The CPUs the kernel must accept and bring online: the machine's
	 * own, whatever the MADT adds (topology.cpu_count;
	 * smp.every_cpu_is_up_on_its_node checks that every accepted CPU that
	 * answered came up, and that these many are online). */
	fprintf(f, "cmdline = expect.cpus=%u\n", c->ncpus);
	for (unsigned i = 0; i < c->nexpect; i++)
		fprintf(f, "expect_log = %s\n", c->expect[i]);
	fprintf(f, "timeout = 60\n");
	fclose(f);
	fprintf(list, "%s\t%s\t%s\n", c->name, c->how == GRUB_ACPI ? "grub" : "acpitable", c->field);
}

static void usage(void)
{
	fprintf(stderr, "usage: hostile_gen --seed S --count N --out DIR --iso ISO\n");
	exit(2);
}

int main(int argc, char **argv)
{
	uint64_t seed = 0;
	long count = -1;
	for (int i = 1; i < argc; i++) {
		if (i + 1 >= argc)
			usage();
		if (!strcmp(argv[i], "--seed"))
			seed = strtoull(argv[++i], NULL, 0);
		else if (!strcmp(argv[i], "--count"))
			count = strtol(argv[++i], NULL, 0);
		else if (!strcmp(argv[i], "--out"))
			out_dir = argv[++i];
		else if (!strcmp(argv[i], "--iso"))
			iso_path = argv[++i];
		else
			usage();
	}
	if (count < 0 || !out_dir || !iso_path)
		usage();

	char path[4096];
	const char *sub[] = { "tables", "topologies", "iso/boot/hostile" };
	for (unsigned i = 0; i < 3; i++) {
		snprintf(path, sizeof(path), "%s/%s", out_dir, sub[i]);
		mkdirs(path);
	}
	FILE *list = create("%s/cases.txt", out_dir);
	for (long i = 0; i < count; i++) {
		const struct hclass *k = &classes[(size_t)i % NR_CLASSES];
		static struct hcase c;
		memset(&c, 0, sizeof(c));
		have_second = false;
		rng_state = seed * 0x100000001b3ull + (uint64_t)i;
		snprintf(c.name, sizeof(c.name), "hostile-%03ld-%s", i, k->name);
		c.how = k->how;
		c.exclude = k->exclude;
		c.filter = k->filter;
		c.ncpus = 1;
		k->build(&c);
		write_case(&c, seed, (unsigned)i, list);
	}
	fclose(list);
	return 0;
}
