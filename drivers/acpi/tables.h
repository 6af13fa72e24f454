/* ACPI table discovery (RSDP -> XSDT or RSDT) and the tables mmlab reads:
 * MADT (CPUs, I/O APICs, interrupt overrides), SRAT (CPU and memory
 * affinity) and SLIT (node distances). Layouts: ACPI 6.5, chapter 5.2.
 *
 * Nothing here trusts the firmware: a table with a bad checksum or an
 * impossible length is reported and ignored, and the kernel carries on. */
#ifndef DRIVERS_ACPI_TABLES_H
#define DRIVERS_ACPI_TABLES_H

#include "drivers/firmware/memmap.h"
#include "mm/numa.h"

struct acpi_rsdp {
	char signature[8]; /* "RSD PTR " */
	u8 checksum;       /* over the first 20 bytes */
	char oem_id[6];
	u8 revision;       /* 0: ACPI 1.0 (RSDT only); 2+: XSDT fields valid */
	u32 rsdt_address;
	u32 length;
	u64 xsdt_address;
	u8 extended_checksum; /* over length bytes */
	u8 reserved[3];
} __packed;

struct acpi_table_header {
	char signature[4];
	u32 length;
	u8 revision;
	u8 checksum;
	char oem_id[6];
	char oem_table_id[8];
	u32 oem_revision;
	u32 creator_id;
	u32 creator_revision;
} __packed;

struct acpi_subtable_header {
	u8 type;
	u8 length;
} __packed;

/* MADT */
struct acpi_table_madt {
	struct acpi_table_header header;
	u32 lapic_address;
	u32 flags;
} __packed;
enum {
	ACPI_MADT_LOCAL_APIC = 0, ACPI_MADT_IO_APIC = 1, ACPI_MADT_INTERRUPT_OVERRIDE = 2,
	ACPI_MADT_NMI_SOURCE = 3, ACPI_MADT_LOCAL_APIC_NMI = 4,
	ACPI_MADT_LOCAL_APIC_OVERRIDE = 5, ACPI_MADT_LOCAL_X2APIC = 9,
};
struct acpi_madt_local_apic {
	struct acpi_subtable_header h;
	u8 processor_id;
	u8 id;
	u32 flags;
} __packed;
#define ACPI_MADT_ENABLED 1
#define ACPI_MADT_ONLINE_CAPABLE 2
struct acpi_madt_io_apic {
	struct acpi_subtable_header h;
	u8 id;
	u8 reserved;
	u32 address;
	u32 global_irq_base;
} __packed;
struct acpi_madt_interrupt_override {
	struct acpi_subtable_header h;
	u8 bus;
	u8 source_irq;
	u32 global_irq;
	u16 inti_flags;
} __packed;
struct acpi_madt_local_apic_override {
	struct acpi_subtable_header h;
	u16 reserved;
	u64 address;
} __packed;
struct acpi_madt_local_x2apic {
	struct acpi_subtable_header h;
	u16 reserved;
	u32 local_apic_id;
	u32 flags;
	u32 uid;
} __packed;

/* SRAT */
struct acpi_table_srat {
	struct acpi_table_header header;
	u32 table_revision; /* reserved, must be 1 */
	u64 reserved;
} __packed;
enum { ACPI_SRAT_CPU_AFFINITY = 0, ACPI_SRAT_MEMORY_AFFINITY = 1, ACPI_SRAT_X2APIC_CPU_AFFINITY = 2 };
struct acpi_srat_cpu_affinity {
	struct acpi_subtable_header h;
	u8 proximity_domain_lo;
	u8 apic_id;
	u32 flags;
	u8 local_sapic_eid;
	u8 proximity_domain_hi[3];
	u32 clock_domain;
} __packed;
#define ACPI_SRAT_CPU_ENABLED 1
struct acpi_srat_mem_affinity {
	struct acpi_subtable_header h;
	u32 proximity_domain;
	u16 reserved;
	u64 base_address;
	u64 length;
	u32 reserved1;
	u32 flags;
	u64 reserved2;
} __packed;
#define ACPI_SRAT_MEM_ENABLED 1
#define ACPI_SRAT_MEM_HOT_PLUGGABLE 2
#define ACPI_SRAT_MEM_NON_VOLATILE 4
struct acpi_srat_x2apic_cpu_affinity {
	struct acpi_subtable_header h;
	u16 reserved;
	u32 proximity_domain;
	u32 apic_id;
	u32 flags;
	u32 clock_domain;
	u32 reserved2;
} __packed;

/* SLIT */
struct acpi_table_slit {
	struct acpi_table_header header;
	u64 locality_count;
	u8 entry[]; /* locality_count x locality_count */
} __packed;

/* MCFG (PCI Firmware Specification 3.0, 4.1.2): the ECAM windows. */
struct acpi_table_mcfg {
	struct acpi_table_header header;
	u8 reserved[8];
} __packed;
struct acpi_mcfg_allocation {
	u64 address;        /* ECAM base: bus N's space at address + (N << 20) */
	u16 pci_segment;
	u8 start_bus_number;
	u8 end_bus_number;
	u32 reserved;
} __packed;

/* The one ECAM window mmlab uses: segment 0's, covering bus 0. */
struct acpi_mcfg_info {
	u64 address; /* of bus 0, even when start_bus > 0 */
	u8 start_bus, end_bus;
};

#define ACPI_MAX_TABLES 64
#define ACPI_MAX_IOAPICS 8
#define ACPI_MAX_OVERRIDES 16

struct acpi_tables {
	const struct acpi_rsdp *rsdp;
	const struct acpi_table_header *root; /* XSDT or RSDT */
	const struct acpi_table_header *tables[ACPI_MAX_TABLES];
	unsigned nr_tables;
	unsigned bad_tables; /* rejected for checksum or length */
};

struct acpi_madt_info {
	u64 lapic_address; /* validated: the table's, or APIC_DEFAULT_PHYS_BASE */
	struct { u8 id; u32 address, gsi_base; } ioapics[ACPI_MAX_IOAPICS];
	unsigned nr_ioapics;
	struct { u8 bus, source_irq; u32 gsi; u16 flags; } overrides[ACPI_MAX_OVERRIDES];
	unsigned nr_overrides;
	unsigned disabled_cpus; /* listed but neither enabled nor online-capable */
	unsigned rejected_cpus; /* enabled, but left out: an id no IPI can name, a duplicate */
};

/* The architectural local APIC address (Linux's APIC_DEFAULT_PHYS_BASE). */
#define APIC_DEFAULT_PHYS_BASE 0xfee00000ull
/* APIC ids from here on are beyond what mmlab (as Linux: MAX_LOCAL_APIC on
 * x86_64) can have; such an entry is refused. */
#define MAX_LOCAL_APIC 32768u

/* What the MADT is checked against: facts of the boot CPU, from the
 * hardware (CPUID), never from the tables. */
struct acpi_boot_cpu {
	u32 apic_id;        /* CPUID leaf 0xb (x2APIC id) or leaf 1 */
	bool x2apic;        /* the APIC mode mmlab will run (apic.c: x2APIC iff CPUID has it) */
	unsigned phys_bits; /* CPUID 0x80000008 */
};
/* The running CPU's (boot_cpu_data and apic.c's choice of mode). */
void acpi_boot_cpu_from_hardware(struct acpi_boot_cpu *boot);
/* Whether an IPI can name apic_id in the mode boot->x2apic says (as Linux's
 * default_apic_id_valid / x2apic_apic_id_valid), and the id is below
 * MAX_LOCAL_APIC. */
bool acpi_apic_id_usable(const struct acpi_boot_cpu *boot, u32 apic_id);
/* Whether addr may be the local APIC's page: page-aligned, a page wholly
 * below the physical address width, and no RAM, ACPI data, ACPI NVS or
 * unusable memory of the memory map in it (reserved is allowed: MMIO).
 * Else *why says what is wrong (for the warning). */
bool acpi_lapic_address_ok(u64 addr, const struct memmap *map, unsigned phys_bits,
			   const char **why);

extern struct acpi_tables acpi_tables;
extern struct acpi_madt_info acpi_madt;

bool acpi_checksum_ok(const void *p, size_t len);
/* Validates the RSDP (len bytes available at rsdp) and collects every table
 * the root table lists whose checksum is right. Returns false when there is
 * no usable root table. */
bool acpi_scan_tables(const void *rsdp, size_t len, struct acpi_tables *out);
/* Looks for the RSDP in the BIOS areas (EBDA, 0xE0000-0xFFFFF). */
const struct acpi_rsdp *acpi_find_rsdp_bios(void);
const struct acpi_table_header *acpi_get_table(const struct acpi_tables *tables, const char *sig);

/* The subtables of a MADT or SRAT (Linux's acpi_parse_entries_array): one
 * handler per subtable type, given the subtable, its arg and the table's
 * end; a handler returning nonzero ends the walk (-EINVAL). */
typedef int (*acpi_tbl_entry_handler_arg)(const struct acpi_subtable_header *header, void *arg,
					  const unsigned long end);
struct acpi_subtable_proc {
	int id; /* the subtable type */
	acpi_tbl_entry_handler_arg handler;
	void *arg;
	int count; /* set by the walk: how many of this type it found */
};
/* Walks the subtables that follow the first table_size bytes of table,
 * calling the handler of proc[] whose id is the subtable's type (other
 * types are skipped), on the first max_entries matching subtables (0: no
 * limit; the ones past it are counted, not handled, and a warning names
 * them). Nothing is read that the table's Length does not cover: a
 * subtable whose length is shorter than its header or runs past the end
 * stops the walk with "<what> entry type T has bad length L; rest
 * ignored" and -EINVAL. A handler checks its own subtable's length
 * against its structure (as Linux's BAD_MADT_ENTRY). Returns the number of
 * matching subtables, or -EINVAL (also, silently, for a table shorter than
 * table_size). */
int acpi_parse_entries_array(const char *what, unsigned long table_size,
			     const struct acpi_table_header *table, struct acpi_subtable_proc *proc,
			     int proc_num, unsigned int max_entries);

/* Fills t->cpus from the MADT and *info with the rest of it. A CPU entry
 * is left out, with a warning, when its APIC id cannot be addressed in the
 * APIC mode boot says, is a duplicate or is beyond MAX_LOCAL_APIC; the
 * boot CPU, if the MADT does not list it enabled, is added (warning); the
 * local APIC address (header field, then the override entry) is used only
 * if acpi_lapic_address_ok(), else APIC_DEFAULT_PHYS_BASE (warning). */
void acpi_parse_madt(const struct acpi_table_header *madt, const struct memmap *map,
		     const struct acpi_boot_cpu *boot, struct numa_topology *t,
		     struct acpi_madt_info *info);
/* SRAT and SLIT into the topology (drivers/acpi/numa/srat.c). */
void acpi_parse_srat(const struct acpi_table_header *srat, const struct memmap *map,
		     struct numa_topology *t);
void acpi_parse_slit(const struct acpi_table_header *slit, struct numa_topology *t);
/* The whole topology from a set of tables: MADT, SRAT, SLIT, fallbacks.
 * acpi_numa_init takes the boot CPU's other facts from the hardware;
 * acpi_numa_init_boot_cpu is given them (tests). */
void acpi_numa_init(const struct acpi_tables *tables, const struct memmap *map, u32 boot_apic_id,
		    struct numa_topology *t, struct acpi_madt_info *info);
void acpi_numa_init_boot_cpu(const struct acpi_tables *tables, const struct memmap *map,
			     const struct acpi_boot_cpu *boot, struct numa_topology *t,
			     struct acpi_madt_info *info);

/* Segment 0's ECAM window from the MCFG (Linux's pci_mcfg_parse and the
 * checks of pci_mmcfg_check_reserved, simplified): false, with a warning,
 * when the table is too short, its length is not a whole number of
 * entries, no entry is for segment 0 from bus 0, the entry's buses run
 * backwards, or its window is misaligned, beyond the CPU's physical address
 * width or over RAM, ACPI data or NVS of the memory map. The caller then
 * uses the legacy port access. */
bool acpi_parse_mcfg(const struct acpi_table_header *mcfg, const struct memmap *map,
		     unsigned phys_bits, struct acpi_mcfg_info *out);

void acpi_print_tables(const struct acpi_tables *tables);

#endif
