# fs/: the VFS (dentries, inodes, mounts, the path walk), open files and
# their descriptor table, read/write, stat, readdir, ioctl, exec and the
# ELF loader, the boot-time helpers, and procfs's files (fs/proc/).
# Linked into the kernel: adding a file here is the one deliberate step that
# builds it in (the top Makefile refuses a source file that no list names).
KERNEL_SRCS += \
	fs/attr.c \
	fs/bin.c \
	fs/programs.c \
	fs/binfmt_elf.c \
	fs/binfmt_script.c \
	fs/binprm.c \
	fs/char_dev.c \
	fs/d_path.c \
	fs/dcache.c \
	fs/exec.c \
	fs/fcntl.c \
	fs/file.c \
	fs/file_table.c \
	fs/filesystems.c \
	fs/fs_context.c \
	fs/fs_struct.c \
	fs/hugetlbfs/inode.c \
	fs/hugetlbfs/super.c \
	fs/init.c \
	fs/initramfs.c \
	fs/inode.c \
	fs/ioctl.c \
	fs/libfs.c \
	fs/namei.c \
	fs/namei_dir.c \
	fs/namei_open.c \
	fs/namespace.c \
	fs/namespace_syscalls.c \
	fs/open.c \
	fs/pipe.c \
	fs/pipe_open.c \
	fs/proc_namespace.c \
	fs/proc/array.c \
	fs/proc/base.c \
	fs/proc/fd.c \
	fs/proc/generic.c \
	fs/proc/inode.c \
	fs/proc/loadavg.c \
	fs/proc/stat.c \
	fs/proc/mem.c \
	fs/proc/meminfo.c \
	fs/proc/root.c \
	fs/proc/task_mmu.c \
	fs/proc/task_pagemap.c \
	fs/read_write.c \
	fs/readdir.c \
	fs/select.c \
	fs/splice.c \
	fs/stat.c \
	fs/statfs.c \
	fs/super.c
