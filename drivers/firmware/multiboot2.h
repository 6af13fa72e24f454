/* What the boot loader told us, from the multiboot2 information structure.
 * The parser never trusts a tag's size: a tag that runs past the end of the
 * structure, or is shorter than its header, ends parsing with a warning. */
#ifndef DRIVERS_FIRMWARE_MULTIBOOT2_H
#define DRIVERS_FIRMWARE_MULTIBOOT2_H

#include "drivers/firmware/memmap.h"
#include "kernel/types.h"

#define MULTIBOOT2_BOOTLOADER_MAGIC 0x36d76289

enum {
	MB2_TAG_END = 0,
	MB2_TAG_CMDLINE = 1,
	MB2_TAG_BOOT_LOADER_NAME = 2,
	MB2_TAG_MODULE = 3,
	MB2_TAG_BASIC_MEMINFO = 4,
	MB2_TAG_MMAP = 6,
	MB2_TAG_EFI64 = 12,
	MB2_TAG_ACPI_OLD = 14,
	MB2_TAG_ACPI_NEW = 15,
	MB2_TAG_EFI_MMAP = 17,
	MB2_TAG_EFI_BS = 18,
	MB2_TAG_LOAD_BASE_ADDR = 21,
};

/* The ISO carries every user program (tests/user/user.mk): more than 48 by
 * hostile firmware. One past the table is counted and warned about, never silent. */
#define MB2_MAX_MODULES 128

struct boot_module {
	phys_addr_t start, end;
	const char *cmdline;
	bool freed; /* its pages went back to the allocator (fs/bin.c): never read it */
};

struct boot_info {
	phys_addr_t info_phys;
	u32 info_size;
	const char *cmdline;
	const char *loader_name;
	struct boot_module modules[MB2_MAX_MODULES];
	unsigned nr_modules;
	unsigned nr_modules_dropped; /* past MB2_MAX_MODULES */
	const void *rsdp;     /* copy of the RSDP inside the info, or NULL */
	u32 rsdp_len;
	bool rsdp_is_v2;
	bool efi;             /* booted through UEFI (EFI system table or map tag) */
	const void *efi_mmap; /* EFI memory descriptors, or NULL */
	u32 efi_mmap_size, efi_desc_size;
	bool have_mmap;
	unsigned bad_tags;
};

extern struct boot_info boot_info;

/* Parses the info at virtual address mbi (size taken from its header, at
 * most max_size bytes) into *bi and adds the memory map to *map. Returns
 * false if the structure is unusable as a whole. */
bool multiboot2_parse(const void *mbi, u32 max_size, struct boot_info *bi, struct memmap *map);
void multiboot2_print(const struct boot_info *bi);

#endif
