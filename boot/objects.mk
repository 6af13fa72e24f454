# boot/: the multiboot2 header and the way into long mode.
# Linked into the kernel: adding a file here is the one deliberate step that
# builds it in (the top Makefile refuses a source file that no list names).
KERNEL_SRCS += \
	boot/multiboot2.asm
