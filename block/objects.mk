# block/: the block layer (disks, bios, the block device node's file).
# Linked into the kernel: adding a file here is the one deliberate step that
# builds it in (the top Makefile refuses a source file that no list names).
KERNEL_SRCS += \
	block/bio.c \
	block/fops.c \
	block/genhd.c
