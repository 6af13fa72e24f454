# fs/: open files and their descriptor table, path lookup, read/write,
# stat, ioctl, exec and the ELF loader, and procfs's files (fs/proc/).
# Linked into the kernel: adding a file here is the one deliberate step that
# builds it in (the top Makefile refuses a source file that no list names).
KERNEL_SRCS += \
	fs/bin.c \
	fs/binfmt_elf.c \
	fs/char_dev.c \
	fs/exec.c \
	fs/file.c \
	fs/file_table.c \
	fs/ioctl.c \
	fs/namei.c \
	fs/open.c \
	fs/proc/array.c \
	fs/proc/base.c \
	fs/proc/generic.c \
	fs/proc/inode.c \
	fs/proc/loadavg.c \
	fs/proc/meminfo.c \
	fs/proc/root.c \
	fs/proc/task_mmu.c \
	fs/read_write.c \
	fs/stat.c

# The initramfs unpacker calls the VFS's boot-time helpers (fs/init.h),
# which no file of the kernel defines yet: compiled with the kernel's
# flags on every build (so it stays freestanding and warning-free), linked
# once the VFS provides them; until then tested on the host
# (tests/host/initramfs_test.c).
KERNEL_NOT_LINKED += fs/initramfs.c
all: $(O)/fs/initramfs.o
