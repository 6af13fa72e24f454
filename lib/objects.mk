# lib/: library code (rbtree, string, vsprintf, seq_buf, ratelimit, the
# xarray; get_order and log2 are headers).
# Linked into the kernel: adding a file here is the one deliberate step that
# builds it in (the top Makefile refuses a source file that no list names).
KERNEL_SRCS += \
	lib/ratelimit.c \
	lib/rbtree.c \
	lib/seq_buf.c \
	lib/string.c \
	lib/vsprintf.c \
	lib/xarray.c \
	lib/xarray_api.c \
	lib/xarray_find.c
