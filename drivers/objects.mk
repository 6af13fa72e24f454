# drivers/: firmware tables (ACPI, the multiboot2 memory map), the console
# line discipline, the random-number source, /sys/devices/system/cpu, PCI
# and the virtio block device (the buses are scanned before the first
# driver binds, whatever the order of their initcalls).
# Linked into the kernel: adding a file here is the one deliberate step that
# builds it in (the top Makefile refuses a source file that no list names).
KERNEL_SRCS += \
	drivers/acpi/numa/srat.c \
	drivers/acpi/tables.c \
	drivers/base/cpu.c \
	drivers/base/node.c \
	drivers/block/virtio_blk.c \
	drivers/char/mem.c \
	drivers/char/random.c \
	drivers/firmware/memmap.c \
	drivers/firmware/multiboot2.c \
	drivers/pci/access.c \
	drivers/pci/msi.c \
	drivers/pci/pci-sysfs.c \
	drivers/pci/probe.c \
	drivers/tty/console_line.c \
	drivers/tty/n_tty.c \
	drivers/tty/n_tty_read.c \
	drivers/tty/serial/8250.c \
	drivers/tty/sysrq.c \
	drivers/tty/tty_buffer.c \
	drivers/tty/tty_io.c \
	drivers/tty/tty_ioctl.c \
	drivers/tty/tty_jobctrl.c \
	drivers/virtio/virtio.c \
	drivers/virtio/virtio_pci_modern.c \
	drivers/virtio/virtio_ring.c
