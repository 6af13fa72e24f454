# ipc/: System V IPC (shared memory: shmget, shmat, shmdt, shmctl).
# Linked into the kernel: adding a file here is the one deliberate step that
# builds it in (the top Makefile refuses a source file that no list names).
KERNEL_SRCS += \
	ipc/shm.c \
	ipc/shm_ctl.c \
	ipc/util.c
