/* Polled 16550 driver for COM1 at 115200 8N1. Polled output keeps the console
 * usable from any context, exceptions and panics included; the console is the
 * only log and the CI reads it, so nothing is ever dropped. */
#include "arch/x86_64/serial.h"
#include "arch/x86_64/cpu.h"

#define COM1 0x3f8
#define UART_DATA 0
#define UART_IER 1
#define UART_FCR 2
#define UART_LCR 3
#define UART_MCR 4
#define UART_LSR 5
#define UART_LSR_THRE 0x20
#define UART_LCR_DLAB 0x80

void serial_init(void)
{
	outb(COM1 + UART_IER, 0x00);       /* no interrupts: we poll */
	outb(COM1 + UART_LCR, UART_LCR_DLAB);
	outb(COM1 + UART_DATA, 1);         /* divisor 1: 115200 baud */
	outb(COM1 + UART_IER, 0);
	outb(COM1 + UART_LCR, 0x03);       /* 8 data bits, no parity, 1 stop */
	outb(COM1 + UART_FCR, 0xc7);       /* FIFO on, cleared, 14-byte threshold */
	outb(COM1 + UART_MCR, 0x03);       /* DTR, RTS */
}

void serial_putc(char c)
{
	/* Bounded wait: a missing UART must not hang the kernel. */
	for (int spin = 0; spin < 100000; spin++)
		if (inb(COM1 + UART_LSR) & UART_LSR_THRE)
			break;
	outb(COM1 + UART_DATA, (u8)c);
}

void serial_write(const char *s, size_t len)
{
	for (size_t i = 0; i < len; i++) {
		if (s[i] == '\n')
			serial_putc('\r');
		serial_putc(s[i]);
	}
}
