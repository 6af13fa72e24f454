/* start_kernel: the boot CPU's path from the first C instruction to the boot
 * report, then the late initcalls (the benchmarks and the test run register
 * there, from tests/), then the boot programs. The order matters and is
 * commented where it does. */
#include "arch/x86_64/boot_paging.h"
#include "arch/x86_64/cpu.h"
#include "arch/x86_64/cpufeature.h"
#include "arch/x86_64/gdt.h"
#include "arch/x86_64/io_apic.h"
#include "arch/x86_64/page.h"
#include "arch/x86_64/qemu_exit.h"
#include "arch/x86_64/serial.h"
#include "arch/x86_64/smpboot.h"
#include "arch/x86_64/apic.h"
#include "arch/x86_64/traps.h"
#include "drivers/acpi/tables.h"
#include "kernel/cmdline.h"
#include "kernel/crash.h"
#include "kernel/init.h"
#include "fs/bin.h"
#include "fs/mount.h"
#include "kernel/ksyms.h"
#include "drivers/firmware/memmap.h"
#include "drivers/firmware/multiboot2.h"
#include "kernel/panic.h"
#include "kernel/printk.h"
#include "kernel/process.h"
#include "kernel/sections.h"
#include "kernel/syscall.h"
#include "mm/memblock.h"
#include "mm/memory.h"
#include "kernel/rcu.h"
#include "kernel/sched.h"
#include "lib/string.h"
#include "lib/xarray.h"
#include "kernel/smp.h"
#include "kernel/spinlock.h"
#include "kernel/time.h"
#include "mm/mm_init.h"
#include "mm/numa.h"
#include "mm/page_alloc.h"
#include "mm/pte_ref.h"

kernel_param_int("loglevel", console_loglevel, 0, 7, "console log level (0 emerg .. 7 debug)");
static bool numa_enabled = true;
kernel_param_flag("numa", numa_enabled, "numa=off ignores the SRAT: one node");
static bool show_help;
kernel_param_flag("help", show_help, "list the command-line options at boot");

static void setup_acpi_and_numa(void)
{
	const void *rsdp = boot_info.rsdp;
	size_t len = boot_info.rsdp_len;

	if (!rsdp && !boot_info.efi) {
		rsdp = acpi_find_rsdp_bios();
		len = sizeof(struct acpi_rsdp);
		if (rsdp)
			pr_info("ACPI: RSDP found in the BIOS area at %#lx\n", __pa(rsdp));
	}
	if (!acpi_scan_tables(rsdp, len, &acpi_tables))
		pr_warn("ACPI: no usable tables; assuming one CPU and one node\n");

	struct acpi_tables numa_tables = acpi_tables;
	if (!numa_enabled) {
		/* Hide SRAT and SLIT from the topology code: one node. */
		numa_tables.nr_tables = 0;
		for (unsigned i = 0; i < acpi_tables.nr_tables; i++) {
			const char *sig = acpi_tables.tables[i]->signature;
			if (memcmp(sig, "SRAT", 4) && memcmp(sig, "SLIT", 4))
				numa_tables.tables[numa_tables.nr_tables++] = acpi_tables.tables[i];
		}
		pr_info("NUMA: disabled on the command line\n");
	}
	acpi_numa_init(&numa_tables, &boot_memmap, boot_cpu_data.initial_apic_id, &numa_topology,
		       &acpi_madt);
	numa_publish_cpus(&numa_topology);
	for (unsigned c = 0; c < numa_topology.nr_cpus; c++)
		if (numa_topology.cpus[c].boot_cpu)
			boot_cpu_index = c;
	this_cpu_write(cpu_number, boot_cpu_index);
}

/* What mm is handed (mm_init.c, step 1): memblock learns the RAM of every
 * node, and what the boot left in memory is reserved before anything is
 * allocated, the AP trampoline's page included. */
static void setup_memblock(void)
{
	/* Only what the direct map reaches (everything is used through it). */
	u64 dropped = numa_memblks_to_memblock(&numa_topology, direct_map_end);
	if (dropped)
		pr_warn("memblock: %llu MiB of RAM above the direct map (%#llx) is not used\n",
			(unsigned long long)(dropped >> 20), (unsigned long long)direct_map_end);

	phys_addr_t image_start = (phys_addr_t)(uintptr_t)__boot_start; /* .boot is at its physical address */
	memblock_reserve(image_start, __pa(_end) - image_start, "kernel image");
	memblock_reserve(boot_info.info_phys, boot_info.info_size, "multiboot2 information");
	for (unsigned i = 0; i < boot_info.nr_modules; i++)
		memblock_reserve(boot_info.modules[i].start,
				 boot_info.modules[i].end - boot_info.modules[i].start, "boot module");
	if (acpi_tables.root)
		memblock_reserve(__pa(acpi_tables.root), acpi_tables.root->length, "ACPI root table");
	for (unsigned i = 0; i < acpi_tables.nr_tables; i++)
		memblock_reserve(__pa(acpi_tables.tables[i]), acpi_tables.tables[i]->length, "ACPI table");

	/* The AP trampoline needs a page below 1 MiB (real mode): take it
	 * before the rest of the first MiB is put aside for the firmware. */
	trampoline_phys = memblock_phys_alloc_range(PAGE_SIZE, PAGE_SIZE, PAGE_SIZE, MiB(1),
						    NUMA_NO_NODE, true);
	if (trampoline_phys) {
		memblock_reserve(0, trampoline_phys, "first 1 MiB (BIOS data)");
		memblock_reserve(trampoline_phys + PAGE_SIZE, MiB(1) - trampoline_phys - PAGE_SIZE,
				 "first 1 MiB (BIOS data)");
	} else {
		memblock_reserve(0, MiB(1), "first 1 MiB (BIOS data)");
	}
}

/* Interrupts, the tick and the other CPUs, once memory management is up. */
static void smp_bringup(void)
{
	time_init();
	legacy_pic_disable();
	lapic_init();
	io_apic_init();
	smp_prepare_this_cpu();
	__atomic_fetch_or(&cpu_online_mask.bits, 1ull << boot_cpu_index, __ATOMIC_RELEASE);
	tick_start_this_cpu();
	__asm__ volatile("sti" ::: "memory");
	ist_stacks_move_to_vmalloc();
	unsigned started = smp_boot_secondaries();
	pr_info("smp: %u of %u CPUs online\n", started + 1, numa_topology.nr_cpus);
}

static const char *spinlock_mode_chosen;

/* The checks that are there for the tests and cost every run something:
 * a benchmark's figures mean the kernel only with all of them off (make
 * bench boots with page_poison=off pte_ref.debug=0 spinlock_debug=off, on a
 * DEBUG_VM=0 build), and its output carries this line to say so. */
static void debug_aids_report(void)
{
#ifdef CONFIG_DEBUG_VM
	const char *debug_vm = "y";
#else
	const char *debug_vm = "n";
#endif
	pr_info("Debug aids: page_poison=%s pte_ref.debug=%s spinlock_debug=%s CONFIG_DEBUG_VM=%s\n",
		page_poisoning ? "on" : "off", pte_ref_debug ? "on" : "off",
		spinlock_debug ? "on" : "off", debug_vm);
}

static void boot_report(void)
{
	pr_info("\n==== mmlab boot report ====\n");
	pr_info("Command line: %s\n", boot_command_line[0] ? boot_command_line : "(empty)");
	multiboot2_print(&boot_info);
	print_cpu_info(&boot_cpu_data);
	memmap_print(&boot_memmap);
	pr_info("Direct map: %llu MiB at %#lx with %lu KiB pages; kernel image %lu KiB at %#lx\n",
		(unsigned long long)(direct_map_end >> 20), PAGE_OFFSET, direct_map_page_size >> 10,
		(unsigned long)(_end - _text) >> 10, (unsigned long)_text);
	acpi_print_tables(&acpi_tables);
	pr_info("MADT: %u CPU(s) enabled, %u disabled; %u I/O APIC(s), %u override(s), "
		"local APIC at %#llx\n",
		numa_topology.nr_cpus, acpi_madt.disabled_cpus, acpi_madt.nr_ioapics,
		acpi_madt.nr_overrides, (unsigned long long)acpi_madt.lapic_address);
	numa_print(&numa_topology);
	pr_info("Spinlocks: %s\n", spinlock_mode_chosen);
	mm_report();
	debug_aids_report();
	pr_info("==== end of boot report ====\n");
}

/* Linux's do_initcalls, for the one level we have: linker.ld puts level 7s
 * after level 7. */
static void do_late_initcalls(void)
{
	for (const initcall_t *fn = __initcall7_start; fn < __initcall_end; fn++) {
		int ret = (*fn)();
		if (ret) {
			u64 off, size;
			const char *name = ksym_lookup((u64)(uintptr_t)*fn, &off, &size);
			pr_err("init: initcall %s returned %d\n", name ? name : "?", ret);
		}
	}
}

void start_kernel(u32 magic, u32 mbi_phys)
{
	/* The APs' per-CPU areas start from the template as the image has it. */
	save_per_cpu_template();
	/* smp_processor_id() (printk and spinlocks use it) reads the per-CPU
	 * area through GS: point GS at the boot CPU's before anything runs. */
	load_per_cpu_base(0);
	serial_init();
	printk_set_line_prefix(NULL);
	pr_info("\nmmlab: booting\n");

	/* Traps first: from here on a bug prints a report instead of a
	 * silent triple fault. */
	gdt_init();
	load_per_cpu_base(0); /* loading the segments cleared the GS base */
	idt_init();

	cpu_detect(&boot_cpu_data);
	cpu_init_features();

	if (magic != MULTIBOOT2_BOOTLOADER_MAGIC)
		panic("not booted by a multiboot2 loader (magic %#x)", magic);
	/* The boot page tables map the first 4 GiB at PAGE_OFFSET, where GRUB
	 * leaves the information structure. */
	if (mbi_phys >= GiB(4) - 16)
		panic("multiboot2 information at %#x is out of reach", mbi_phys);
	multiboot2_parse(__va(mbi_phys), (u32)(GiB(4) - mbi_phys), &boot_info, &boot_memmap);
	boot_info.info_phys = mbi_phys;

	/* The command line decides the log level, so it comes early; it only
	 * needs the multiboot2 string and fw_cfg. */
	cmdline_init(boot_info.cmdline);
	if (show_help)
		cmdline_print_help();
	/* Before any other CPU can contend for a lock. */
	spinlock_mode_chosen = spinlock_init_mode(boot_cpu_has(X86_FEATURE_HYPERVISOR));

	if (!boot_info.have_mmap)
		panic("the boot loader gave no memory map");
	unsigned overlaps = memmap_sanitize(&boot_memmap);
	if (overlaps)
		pr_warn("memmap: %u overlapping entries resolved\n", overlaps);

	/* The final kernel page tables: after this the identity map is gone
	 * and the direct map covers all RAM. */
	boot_paging_init(memmap_ram_end(&boot_memmap));

	setup_acpi_and_numa();
	setup_memblock();
	mm_init();
	memory_init();
	radix_tree_init(); /* the xarray's node cache, before any file */
	syscall_init();
	/* From here on start_kernel runs as the task "init" (it can sleep); the
	 * APs become their idle tasks as they come up. */
	sched_init();
	smp_bringup();
	sched_init_smp();
	kthreadd_init();
	rcu_init();
	/* The root file system (Linux's vfs_caches_init -> mnt_init): tmpfs
	 * as "/", the initramfs unpacked into it (Linux's populate_rootfs,
	 * before anything is mounted on the archive's directories), procfs
	 * and sysfs on it, and the boot programs the archive lacks in /bin. */
	init_mount_tree();
	populate_rootfs();
	mount_proc_and_sysfs();
	populate_bin();
	boot_report();
	crash_if_requested();
	/* The benchmarks ("bench"), then the test run ("ktest", which exits
	 * QEMU and does not return). */
	do_late_initcalls();
	run_boot_programs();
	pr_info("mmlab: boot complete; halting (boot with 'ktest' to run the tests)\n");
	qemu_exit(QEMU_EXIT_SUCCESS);
}
