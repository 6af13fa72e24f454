/* Multiboot2 information parsing (layout: the Multiboot2 specification,
 * section 3.6). The memory map comes from the mmap tag; when a loader gives
 * only the EFI memory map, that is translated instead. */
#include "drivers/firmware/multiboot2.h"
#include "kernel/printk.h"
#include "lib/string.h"

struct boot_info boot_info;

struct mb2_tag {
	u32 type, size;
};

struct mb2_mmap_entry {
	u64 addr, len;
	u32 type, zero;
};

struct efi_memory_desc {
	u32 type, pad;
	u64 phys_start, virt_start, num_pages, attribute;
};

enum {
	EFI_LOADER_CODE = 1, EFI_LOADER_DATA = 2, EFI_BOOT_SERVICES_CODE = 3,
	EFI_BOOT_SERVICES_DATA = 4, EFI_CONVENTIONAL_MEMORY = 7, EFI_UNUSABLE_MEMORY = 8,
	EFI_ACPI_RECLAIM_MEMORY = 9, EFI_ACPI_MEMORY_NVS = 10,
};

static u32 efi_to_memmap_type(u32 efi)
{
	switch (efi) {
	case EFI_LOADER_CODE:
	case EFI_LOADER_DATA:
	case EFI_BOOT_SERVICES_CODE:
	case EFI_BOOT_SERVICES_DATA:
	case EFI_CONVENTIONAL_MEMORY:
		return MEMMAP_RAM; /* boot services have exited */
	case EFI_UNUSABLE_MEMORY: return MEMMAP_UNUSABLE;
	case EFI_ACPI_RECLAIM_MEMORY: return MEMMAP_ACPI;
	case EFI_ACPI_MEMORY_NVS: return MEMMAP_NVS;
	default: return MEMMAP_RESERVED;
	}
}

static void parse_mmap(const struct mb2_tag *tag, struct memmap *map)
{
	const u8 *p = (const u8 *)tag;
	u32 entry_size = *(const u32 *)(p + 8);
	if (entry_size < sizeof(struct mb2_mmap_entry) || tag->size < 16) {
		pr_warn("multiboot2: memory map entry size %u is too small, map ignored\n", entry_size);
		return;
	}
	for (u32 off = 16; off + entry_size <= tag->size; off += entry_size) {
		const struct mb2_mmap_entry *e = (const void *)(p + off);
		memmap_add(map, e->addr, e->len, e->type);
	}
}

static void parse_efi_mmap(const struct mb2_tag *tag, struct memmap *map)
{
	const u8 *p = (const u8 *)tag;
	u32 desc_size = *(const u32 *)(p + 8);
	for (u32 off = 16; off + desc_size <= tag->size; off += desc_size) {
		const struct efi_memory_desc *d = (const void *)(p + off);
		memmap_add(map, d->phys_start, d->num_pages << 12, efi_to_memmap_type(d->type));
	}
}

bool multiboot2_parse(const void *mbi, u32 max_size, struct boot_info *bi, struct memmap *map)
{
	const u8 *base = mbi;
	const struct mb2_tag *efi_mmap_tag = NULL;
	u32 total = *(const u32 *)base;

	memset(bi, 0, sizeof(*bi));
	if (total < 16 || total > max_size) {
		pr_err("multiboot2: information size %u is implausible\n", total);
		bi->bad_tags++;
		return false;
	}
	bi->info_size = total;

	u32 off = 8;
	bool saw_end = false;
	while (off + sizeof(struct mb2_tag) <= total) {
		const struct mb2_tag *tag = (const void *)(base + off);
		if (tag->size < sizeof(*tag) || tag->size > total - off) {
			pr_warn("multiboot2: tag type %u at offset %u has bad size %u; rest ignored\n",
				tag->type, off, tag->size);
			bi->bad_tags++;
			break;
		}
		const char *str = (const char *)tag + 8;
		u32 str_max = tag->size - 8;
		switch (tag->type) {
		case MB2_TAG_END:
			saw_end = true;
			break;
		case MB2_TAG_CMDLINE:
			if (strnlen(str, str_max) < str_max)
				bi->cmdline = str;
			break;
		case MB2_TAG_BOOT_LOADER_NAME:
			if (strnlen(str, str_max) < str_max)
				bi->loader_name = str;
			break;
		case MB2_TAG_MODULE:
			if (tag->size >= 16 && bi->nr_modules >= MB2_MAX_MODULES)
				bi->nr_modules_dropped++;
			if (tag->size >= 16 && bi->nr_modules < MB2_MAX_MODULES) {
				const u32 *m = (const u32 *)str;
				struct boot_module *mod = &bi->modules[bi->nr_modules++];
				mod->start = m[0];
				mod->end = m[1];
				mod->cmdline = strnlen((const char *)(m + 2), str_max - 8) < str_max - 8
						       ? (const char *)(m + 2)
						       : "";
			}
			break;
		case MB2_TAG_MMAP:
			parse_mmap(tag, map);
			bi->have_mmap = true;
			break;
		case MB2_TAG_EFI64:
		case MB2_TAG_EFI_BS:
			bi->efi = true;
			break;
		case MB2_TAG_ACPI_OLD:
			if (!bi->rsdp_is_v2) {
				bi->rsdp = str;
				bi->rsdp_len = str_max;
			}
			break;
		case MB2_TAG_ACPI_NEW:
			bi->rsdp = str;
			bi->rsdp_len = str_max;
			bi->rsdp_is_v2 = true;
			break;
		case MB2_TAG_EFI_MMAP:
			bi->efi = true;
			if (tag->size >= 16) {
				efi_mmap_tag = tag;
				bi->efi_mmap = (const u8 *)tag + 16;
				bi->efi_mmap_size = tag->size - 16;
				bi->efi_desc_size = *(const u32 *)str;
				if (bi->efi_desc_size < sizeof(struct efi_memory_desc)) {
					pr_warn("multiboot2: EFI descriptor size %u too small, ignored\n",
						bi->efi_desc_size);
					bi->efi_mmap = NULL;
					efi_mmap_tag = NULL;
				}
			}
			break;
		default:
			break;
		}
		if (saw_end)
			break;
		off += ALIGN_UP(tag->size, 8u);
	}
	if (!saw_end && !bi->bad_tags) {
		pr_warn("multiboot2: no end tag within %u bytes\n", total);
		bi->bad_tags++;
	}
	if (!bi->have_mmap && efi_mmap_tag) {
		pr_info("multiboot2: no memory map tag; using the EFI memory map\n");
		parse_efi_mmap(efi_mmap_tag, map);
		bi->have_mmap = true;
	}
	return true;
}

static const char *efi_type_name(u32 t)
{
	static const char *const names[] = {
		"reserved", "loader code", "loader data", "boot code", "boot data",
		"runtime code", "runtime data", "conventional", "unusable", "ACPI reclaim",
		"ACPI NVS", "MMIO", "MMIO port", "PAL code", "persistent",
	};
	return t < ARRAY_SIZE(names) ? names[t] : "other";
}

void multiboot2_print(const struct boot_info *bi)
{
	pr_info("Boot loader: %s, information at %#lx (%u bytes), %s firmware\n",
		bi->loader_name ? bi->loader_name : "(unnamed)", bi->info_phys, bi->info_size,
		bi->efi ? "UEFI" : "BIOS");
	for (unsigned i = 0; i < bi->nr_modules; i++)
		pr_info("  module %u: [%#lx-%#lx) %s%s\n", i, bi->modules[i].start, bi->modules[i].end,
			bi->modules[i].cmdline, bi->modules[i].freed ? " (freed: in /bin)" : "");
	if (bi->nr_modules_dropped)
		pr_warn("multiboot2: %u modules past the first %u ignored (MB2_MAX_MODULES)\n",
			bi->nr_modules_dropped, MB2_MAX_MODULES);
	if (bi->efi_mmap) {
		/* Summarise the EFI map per type: the full map is long. */
		u64 pages[16] = { 0 };
		unsigned count = 0;
		for (u32 off = 0; off + bi->efi_desc_size <= bi->efi_mmap_size; off += bi->efi_desc_size) {
			const struct efi_memory_desc *d = (const void *)((const u8 *)bi->efi_mmap + off);
			pages[d->type < 15 ? d->type : 15] += d->num_pages;
			count++;
		}
		pr_info("EFI memory map: %u descriptors\n", count);
		for (u32 t = 0; t < 16; t++)
			if (pages[t])
				pr_info("  %-13s %8llu KiB\n", t < 15 ? efi_type_name(t) : "other",
					(unsigned long long)pages[t] * 4);
	}
}
