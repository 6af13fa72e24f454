/* ACPI table discovery and the MADT. Tables are read through the direct map;
 * a table outside it, shorter than its header or failing its checksum is
 * ignored with a warning. The MADT is checked against the hardware (the
 * boot CPU's APIC id, its APIC mode, its physical address width) and the
 * memory map: what it says wrongly is reported and left out, never used
 * (see acpi_parse_madt in acpi.h).
 *
 * x2APIC: mmlab runs x2APIC mode whenever CPUID has it (apic.c), so every
 * id below MAX_LOCAL_APIC but the broadcast is addressable there; a CPU
 * without x2APIC runs xAPIC mode and an id of 0xff or more is refused with
 * a message (Linux switches to x2APIC only where the CPU has it too; with
 * no x2APIC it refuses those entries the same way). */
#include "drivers/acpi/tables.h"
#include "arch/x86_64/boot_paging.h"
#include "arch/x86_64/cpufeature.h"
#include "arch/x86_64/page.h"
#include "kernel/printk.h"
#include "lib/string.h"

struct acpi_tables acpi_tables;
struct acpi_madt_info acpi_madt;

/* Largest table we accept; real SRATs/MADTs are a few KiB. */
#define ACPI_MAX_TABLE_LEN MiB(4)

bool acpi_checksum_ok(const void *p, size_t len)
{
	u8 sum = 0;
	for (size_t i = 0; i < len; i++)
		sum += ((const u8 *)p)[i];
	return sum == 0;
}

static bool phys_range_mapped(u64 phys, u64 len)
{
	u64 limit = direct_map_end ? direct_map_end : GiB(4);
	return phys < limit && len <= limit - phys;
}

/* Maps and validates one table; NULL (with a warning) if unusable. */
static const struct acpi_table_header *map_table(u64 phys, const char *what)
{
	if (!phys || !phys_range_mapped(phys, sizeof(struct acpi_table_header))) {
		pr_warn("ACPI: %s table address %#llx is not mapped, ignored\n", what,
			(unsigned long long)phys);
		return NULL;
	}
	const struct acpi_table_header *h = __va(phys);
	if (h->length < sizeof(*h) || h->length > ACPI_MAX_TABLE_LEN ||
	    !phys_range_mapped(phys, h->length)) {
		pr_warn("ACPI: %.4s header Length %u is bad (table at %#llx), ignored\n", h->signature,
			h->length, (unsigned long long)phys);
		return NULL;
	}
	if (!acpi_checksum_ok(h, h->length)) {
		pr_warn("ACPI: %.4s header Checksum 0x%02x is bad (table at %#llx), ignored\n",
			h->signature, h->checksum, (unsigned long long)phys);
		return NULL;
	}
	return h;
}

bool acpi_scan_tables(const void *rsdp_ptr, size_t len, struct acpi_tables *out)
{
	const struct acpi_rsdp *rsdp = rsdp_ptr;

	memset(out, 0, sizeof(*out));
	if (!rsdp || len < 20 || memcmp(rsdp->signature, "RSD PTR ", 8)) {
		pr_warn("ACPI: no RSDP\n");
		return false;
	}
	if (!acpi_checksum_ok(rsdp, 20)) {
		pr_warn("ACPI: RSDP has a bad checksum, ignored\n");
		return false;
	}
	out->rsdp = rsdp;

	bool use_xsdt = false;
	if (rsdp->revision >= 2) {
		if (len < sizeof(*rsdp) || rsdp->length < sizeof(*rsdp) || rsdp->length > len ||
		    !acpi_checksum_ok(rsdp, rsdp->length))
			pr_warn("ACPI: RSDP extended checksum or length is bad; using the RSDT\n");
		else
			use_xsdt = rsdp->xsdt_address != 0;
	}

	const struct acpi_table_header *root = NULL;
	if (use_xsdt) {
		root = map_table(rsdp->xsdt_address, "XSDT");
		if (root && memcmp(root->signature, "XSDT", 4)) {
			pr_warn("ACPI: XSDT pointer leads to '%.4s', ignored\n", root->signature);
			root = NULL;
		}
		if (!root)
			out->bad_tables++;
	}
	if (!root) {
		root = map_table(rsdp->rsdt_address, "RSDT");
		if (root && memcmp(root->signature, "RSDT", 4)) {
			pr_warn("ACPI: RSDT pointer leads to '%.4s', ignored\n", root->signature);
			root = NULL;
		}
		use_xsdt = false;
	}
	if (!root) {
		pr_warn("ACPI: no usable root table\n");
		return false;
	}
	out->root = root;

	size_t entry_size = use_xsdt ? 8 : 4;
	size_t count = (root->length - sizeof(*root)) / entry_size;
	const u8 *entries = (const u8 *)root + sizeof(*root);
	for (size_t i = 0; i < count; i++) {
		u64 phys = 0;
		memcpy(&phys, entries + i * entry_size, entry_size); /* may be unaligned */
		const struct acpi_table_header *h = map_table(phys, "listed");
		if (!h) {
			out->bad_tables++;
			continue;
		}
		if (out->nr_tables == ACPI_MAX_TABLES) {
			pr_warn("ACPI: more than %d tables; %.4s ignored\n", ACPI_MAX_TABLES, h->signature);
			continue;
		}
		out->tables[out->nr_tables++] = h;
	}
	return true;
}

const struct acpi_rsdp *acpi_find_rsdp_bios(void)
{
	/* The BIOS data area holds the EBDA's segment; trust it only if it
	 * points where an EBDA can be. */
	u64 ebda = (u64)*(const u16 *)__va(0x40e) << 4;
	struct { u64 start, len; } areas[] = { { ebda, 1024 }, { 0xe0000, 0x20000 } };

	for (unsigned a = 0; a < ARRAY_SIZE(areas); a++) {
		if (a == 0 && (ebda < 0x80000 || ebda >= 0xa0000))
			continue;
		for (u64 p = areas[a].start; p + 20 <= areas[a].start + areas[a].len; p += 16) {
			const struct acpi_rsdp *r = __va(p);
			if (!memcmp(r->signature, "RSD PTR ", 8) && acpi_checksum_ok(r, 20))
				return r;
		}
	}
	return NULL;
}

const struct acpi_table_header *acpi_get_table(const struct acpi_tables *tables, const char *sig)
{
	for (unsigned i = 0; i < tables->nr_tables; i++)
		if (!memcmp(tables->tables[i]->signature, sig, 4))
			return tables->tables[i];
	return NULL;
}

int acpi_parse_entries_array(const char *what, unsigned long table_size,
			     const struct acpi_table_header *table, struct acpi_subtable_proc *proc,
			     int proc_num, unsigned int max_entries)
{
	const u8 *p = (const u8 *)table + table_size, *end = (const u8 *)table + table->length;
	int count = 0;

	for (int i = 0; i < proc_num; i++)
		proc[i].count = 0;
	if (table->length < table_size)
		return -EINVAL; /* the caller reports it: no fixed part, no subtables */
	while (p + sizeof(struct acpi_subtable_header) <= end) {
		const struct acpi_subtable_header *sh = (const void *)p;
		if (sh->length < sizeof(*sh) || p + sh->length > end) {
			pr_warn("%s entry type %u has bad length %u; rest ignored\n", what, sh->type,
				sh->length);
			return -EINVAL;
		}
		for (int i = 0; i < proc_num; i++) {
			if (sh->type != proc[i].id)
				continue;
			if (!max_entries || (unsigned int)count < max_entries)
				if (proc[i].handler(sh, proc[i].arg, (unsigned long)end))
					return -EINVAL;
			proc[i].count++;
			count++;
			break;
		}
		p += sh->length;
	}
	if (max_entries && (unsigned int)count > max_entries)
		pr_warn("%s ignored %u entries of %d found\n", what, count - max_entries, count);
	return count;
}

void acpi_boot_cpu_from_hardware(struct acpi_boot_cpu *boot)
{
	boot->apic_id = boot_cpu_data.initial_apic_id;
	/* apic.c runs x2APIC mode exactly when CPUID has it. */
	boot->x2apic = boot_cpu_has(X86_FEATURE_X2APIC);
	boot->phys_bits = boot_cpu_data.phys_bits ? boot_cpu_data.phys_bits : 36;
}

bool acpi_apic_id_usable(const struct acpi_boot_cpu *boot, u32 apic_id)
{
	if (apic_id >= MAX_LOCAL_APIC)
		return false;
	return boot->x2apic ? apic_id != 0xffffffffu : apic_id < 0xff;
}

bool acpi_lapic_address_ok(u64 addr, const struct memmap *map, unsigned phys_bits,
			   const char **why)
{
	if (phys_bits < 32 || phys_bits > 52)
		phys_bits = 36;
	if (addr & (PAGE_SIZE - 1)) {
		*why = "is not page-aligned";
		return false;
	}
	if (addr >= (1ull << phys_bits) || (1ull << phys_bits) - addr < PAGE_SIZE) {
		/* Also every non-canonical or reserved-bit value. */
		*why = "is beyond the CPU's physical address width";
		return false;
	}
	if (memmap_ram_within(map, addr, addr + PAGE_SIZE)) {
		*why = "is RAM in the memory map";
		return false;
	}
	/* Memory too, though not free RAM: the APIC's registers written
	 * there would overwrite ACPI tables or NVS. Reserved ranges are where
	 * firmware maps MMIO (0xfee00000 among them) and stay allowed. */
	static const struct { u32 type; const char *why; } memory[] = {
		{ MEMMAP_ACPI, "is ACPI data in the memory map" },
		{ MEMMAP_NVS, "is ACPI NVS in the memory map" },
		{ MEMMAP_UNUSABLE, "is unusable (defective) memory in the memory map" },
	};
	for (unsigned i = 0; i < sizeof(memory) / sizeof(memory[0]); i++)
		if (memmap_type_within(map, addr, addr + PAGE_SIZE, memory[i].type)) {
			*why = memory[i].why;
			return false;
		}
	return true;
}

/* As Linux's topology_register_apic: an enabled CPU entry is refused when
 * no IPI can name its APIC id (never sent INIT/SIPI: xAPIC's 8-bit field
 * would deliver it to another CPU, or to all through 0xff), when its id is
 * beyond MAX_LOCAL_APIC, or when the id is listed twice. */
static void add_cpu(struct numa_topology *t, struct acpi_madt_info *info,
		    const struct acpi_boot_cpu *boot, u32 apic_id, u32 uid, bool x2apic)
{
	const char *entry = x2apic ? "local x2APIC" : "local APIC";
	if (apic_id >= MAX_LOCAL_APIC) {
		pr_warn("ACPI: MADT %s entry (UID %u): APIC ID %#x is beyond the %u APIC ids a "
			"machine can have; CPU left out\n", entry, uid, apic_id, MAX_LOCAL_APIC);
		goto rejected;
	}
	/* Linux's acpi_parse_lapic ignores 0xff in an xAPIC entry whatever
	 * the mode: it is that entry type's broadcast. */
	if (!x2apic && apic_id == 0xff) {
		pr_warn("ACPI: MADT %s entry (UID %u): APIC ID %#x is the broadcast id; CPU left out\n",
			entry, uid, apic_id);
		goto rejected;
	}
	if (!acpi_apic_id_usable(boot, apic_id)) {
		pr_warn("ACPI: MADT %s entry (UID %u): APIC ID %#x cannot be addressed in %s mode "
			"(this CPU has no x2APIC); CPU left out\n", entry, uid, apic_id,
			boot->x2apic ? "x2APIC" : "xAPIC");
		goto rejected;
	}
	for (unsigned c = 0; c < t->nr_cpus; c++) {
		if (t->cpus[c].apic_id == apic_id) {
			pr_warn("ACPI: MADT lists APIC ID %u twice, second entry (UID %u) ignored\n",
				apic_id, uid);
			goto rejected;
		}
	}
	if (t->nr_cpus == NR_CPUS) {
		pr_warn("ACPI: more than %d CPUs; APIC ID %u ignored\n", NR_CPUS, apic_id);
		goto rejected;
	}
	t->cpus[t->nr_cpus++] = (struct numa_cpu){
		.apic_id = apic_id, .acpi_uid = uid, .nid = NUMA_NO_NODE, .x2apic = x2apic };
	return;
rejected:
	t->warnings++;
	info->rejected_cpus++;
}

/* The boot CPU is running whatever the MADT says: if the table does not
 * list it as an enabled CPU, it is added (else it would take another
 * entry's place, and IPIs to "itself" would go to a CPU never started). */
static void add_boot_cpu_if_missing(struct numa_topology *t, const struct acpi_boot_cpu *boot)
{
	for (unsigned c = 0; c < t->nr_cpus; c++)
		if (t->cpus[c].apic_id == boot->apic_id)
			return;
	pr_warn("ACPI: the boot CPU's APIC ID %u (from CPUID) is not an enabled CPU of the MADT; "
		"added\n", boot->apic_id);
	t->warnings++;
	if (t->nr_cpus == NR_CPUS) {
		pr_warn("ACPI: APIC ID %u left out to make room for the boot CPU\n",
			t->cpus[NR_CPUS - 1].apic_id);
		t->nr_cpus--;
	}
	t->cpus[t->nr_cpus++] = (struct numa_cpu){
		.apic_id = boot->apic_id, .acpi_uid = ~0u, .nid = NUMA_NO_NODE, .x2apic = !!boot->x2apic };
}

/* The header's Local Interrupt Controller Address, replaced by a valid
 * Local APIC Address Override (as Linux's acpi_parse_lapic_addr_ovr);
 * a value that fails acpi_lapic_address_ok() is reported and not used. */
static bool lapic_address_usable(u64 addr, const char *field, const struct memmap *map,
				 const struct acpi_boot_cpu *boot, struct numa_topology *t)
{
	const char *why;
	if (acpi_lapic_address_ok(addr, map, boot->phys_bits, &why))
		return true;
	pr_warn("ACPI: MADT %s %#llx %s; not used\n", field, (unsigned long long)addr, why);
	t->warnings++;
	return false;
}

/* What the MADT's handlers share. */
struct madt_parse {
	const struct memmap *map;
	const struct acpi_boot_cpu *boot;
	struct numa_topology *t;
	struct acpi_madt_info *info;
	bool lapic_from_table;
};

static int acpi_parse_lapic(const struct acpi_subtable_header *header, void *arg,
			    const unsigned long end)
{
	const struct acpi_madt_local_apic *e = (const void *)header;
	struct madt_parse *m = arg;
	(void)end;
	if (header->length < sizeof(*e))
		return 0;
	if (e->flags & (ACPI_MADT_ENABLED))
		add_cpu(m->t, m->info, m->boot, e->id, e->processor_id, false);
	else
		m->info->disabled_cpus++;
	return 0;
}

static int acpi_parse_x2apic(const struct acpi_subtable_header *header, void *arg,
			     const unsigned long end)
{
	const struct acpi_madt_local_x2apic *e = (const void *)header;
	struct madt_parse *m = arg;
	(void)end;
	if (header->length < sizeof(*e))
		return 0;
	if (e->flags & ACPI_MADT_ENABLED)
		add_cpu(m->t, m->info, m->boot, e->local_apic_id, e->uid, true);
	else
		m->info->disabled_cpus++;
	return 0;
}

static int acpi_parse_ioapic(const struct acpi_subtable_header *header, void *arg,
			     const unsigned long end)
{
	const struct acpi_madt_io_apic *e = (const void *)header;
	struct acpi_madt_info *info = ((struct madt_parse *)arg)->info;
	(void)end;
	if (header->length >= sizeof(*e) && info->nr_ioapics < ACPI_MAX_IOAPICS) {
		info->ioapics[info->nr_ioapics].id = e->id;
		info->ioapics[info->nr_ioapics].address = e->address;
		info->ioapics[info->nr_ioapics].gsi_base = e->global_irq_base;
		info->nr_ioapics++;
	}
	return 0;
}

static int acpi_parse_int_src_ovr(const struct acpi_subtable_header *header, void *arg,
				  const unsigned long end)
{
	const struct acpi_madt_interrupt_override *e = (const void *)header;
	struct acpi_madt_info *info = ((struct madt_parse *)arg)->info;
	(void)end;
	if (header->length >= sizeof(*e) && info->nr_overrides < ACPI_MAX_OVERRIDES) {
		info->overrides[info->nr_overrides].bus = e->bus;
		info->overrides[info->nr_overrides].source_irq = e->source_irq;
		info->overrides[info->nr_overrides].gsi = e->global_irq;
		info->overrides[info->nr_overrides].flags = e->inti_flags;
		info->nr_overrides++;
	}
	return 0;
}

static int acpi_parse_lapic_addr_ovr(const struct acpi_subtable_header *header, void *arg,
				     const unsigned long end)
{
	const struct acpi_madt_local_apic_override *e = (const void *)header;
	struct madt_parse *m = arg;
	(void)end;
	if (header->length >= sizeof(*e) &&
	    lapic_address_usable(e->address, "Local APIC Address Override", m->map, m->boot, m->t)) {
		m->info->lapic_address = e->address;
		m->lapic_from_table = true;
	}
	return 0;
}

void acpi_parse_madt(const struct acpi_table_header *hdr, const struct memmap *map,
		     const struct acpi_boot_cpu *boot, struct numa_topology *t,
		     struct acpi_madt_info *info)
{
	const struct acpi_table_madt *madt = (const void *)hdr;

	memset(info, 0, sizeof(*info));
	info->lapic_address = APIC_DEFAULT_PHYS_BASE;
	if (hdr->length < sizeof(*madt)) {
		pr_warn("ACPI: MADT header Length %u is too short for a MADT, ignored\n", hdr->length);
		t->warnings++;
		add_boot_cpu_if_missing(t, boot);
		return;
	}
	struct madt_parse m = { .map = map, .boot = boot, .t = t, .info = info };
	if (lapic_address_usable(madt->lapic_address, "Local APIC Address (header)", map, boot, t)) {
		info->lapic_address = madt->lapic_address;
		m.lapic_from_table = true;
	}

	/* One walk in table order: the CPUs keep the MADT's order, and an
	 * override entry replaces the address wherever it sits. */
	struct acpi_subtable_proc proc[] = {
		{ .id = ACPI_MADT_LOCAL_APIC, .handler = acpi_parse_lapic, .arg = &m },
		{ .id = ACPI_MADT_LOCAL_X2APIC, .handler = acpi_parse_x2apic, .arg = &m },
		{ .id = ACPI_MADT_IO_APIC, .handler = acpi_parse_ioapic, .arg = &m },
		{ .id = ACPI_MADT_INTERRUPT_OVERRIDE, .handler = acpi_parse_int_src_ovr, .arg = &m },
		{ .id = ACPI_MADT_LOCAL_APIC_OVERRIDE, .handler = acpi_parse_lapic_addr_ovr, .arg = &m },
	};
	if (acpi_parse_entries_array("ACPI: MADT", sizeof(*madt), hdr, proc, ARRAY_SIZE(proc), 0) < 0)
		t->warnings++;
	if (!m.lapic_from_table)
		pr_warn("ACPI: using the architectural local APIC address %#llx\n",
			(unsigned long long)APIC_DEFAULT_PHYS_BASE);
	add_boot_cpu_if_missing(t, boot);
}

bool acpi_parse_mcfg(const struct acpi_table_header *hdr, const struct memmap *map,
		     unsigned phys_bits, struct acpi_mcfg_info *out)
{
	size_t fixed = sizeof(struct acpi_table_mcfg), entry = sizeof(struct acpi_mcfg_allocation);
	if (hdr->length < fixed + entry || (hdr->length - fixed) % entry) {
		pr_warn("ACPI: MCFG Length %u is not its header and a whole number of %zu-byte "
			"entries; ignored\n", hdr->length, entry);
		return false;
	}
	if (phys_bits < 32 || phys_bits > 52)
		phys_bits = 36;
	size_t n = (hdr->length - fixed) / entry;
	for (size_t i = 0; i < n; i++) {
		struct acpi_mcfg_allocation a;
		memcpy(&a, (const u8 *)hdr + fixed + i * entry, sizeof(a));
		if (a.pci_segment != 0 || a.start_bus_number != 0)
			continue; /* only segment 0's bus 0 is scanned */
		u64 size = ((u64)a.end_bus_number - a.start_bus_number + 1) << 20;
		const char *why = NULL;
		if (a.end_bus_number < a.start_bus_number)
			why = "has its buses backwards";
		else if (!a.address || (a.address & ((1ull << 20) - 1)))
			why = "is not 1 MiB-aligned";
		else if (a.address >= (1ull << phys_bits) || size > (1ull << phys_bits) - a.address)
			why = "is beyond the CPU's physical address width";
		else if (memmap_ram_within(map, a.address, a.address + size) ||
			 memmap_type_within(map, a.address, a.address + size, MEMMAP_ACPI) ||
			 memmap_type_within(map, a.address, a.address + size, MEMMAP_NVS))
			why = "overlaps memory of the memory map";
		if (why) {
			pr_warn("ACPI: MCFG entry %zu (ECAM %#llx, buses %02x-%02x) %s; ignored\n", i,
				(unsigned long long)a.address, a.start_bus_number, a.end_bus_number, why);
			continue;
		}
		*out = (struct acpi_mcfg_info){ .address = a.address, .start_bus = a.start_bus_number,
						.end_bus = a.end_bus_number };
		return true;
	}
	pr_warn("ACPI: MCFG has no usable entry for segment 0 from bus 0\n");
	return false;
}

void acpi_print_tables(const struct acpi_tables *tables)
{
	if (!tables->root) {
		pr_info("ACPI: no tables\n");
		return;
	}
	const struct acpi_rsdp *r = tables->rsdp;
	pr_info("ACPI: RSDP revision %u, OEM '%.6s', root table %.4s\n", r->revision, r->oem_id,
		tables->root->signature);
	for (unsigned i = 0; i < tables->nr_tables; i++) {
		const struct acpi_table_header *h = tables->tables[i];
		pr_info("  %.4s %#011lx %6u bytes rev %u '%.6s' '%.8s'\n", h->signature, __pa(h),
			h->length, h->revision, h->oem_id, h->oem_table_id);
	}
	if (tables->bad_tables)
		pr_warn("ACPI: %u table(s) rejected\n", tables->bad_tables);
}
