# net/: sockets (net/sock.h): the system calls and a socket's file
# (net/socket.c) and AF_UNIX, the one family (net/unix/af_unix.c).
KERNEL_SRCS += \
	net/socket.c \
	net/unix/af_unix.c
