/* The 16550 UART on COM1: the console on every firmware. */
#ifndef ARCH_X86_64_SERIAL_H
#define ARCH_X86_64_SERIAL_H

#include "kernel/types.h"

void serial_init(void);
void serial_putc(char c);
void serial_write(const char *s, size_t len);

#endif
