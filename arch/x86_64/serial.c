/* Polled 16550 access for COM1 and COM2 at 115200 8N1. Polled output
 * keeps the console usable from any context, exceptions and panics
 * included; the console is the only log and the CI reads it, so nothing
 * is ever dropped. Input, and the ports as terminals, are the 8250 tty
 * driver's (drivers/tty/serial/8250.c). */
#include "arch/x86_64/serial.h"
#include "arch/x86_64/cpu.h"

#define UART_LCR_DLAB 0x80

static const u16 port_base[SERIAL_NR_PORTS] = { 0x3f8, 0x2f8 };
static const unsigned port_irq[SERIAL_NR_PORTS] = { 4, 3 };
unsigned serial_console_port;

u16 serial_port_base(unsigned port) { return port_base[port]; }
unsigned serial_port_irq(unsigned port) { return port_irq[port]; }

bool serial_init_port(unsigned port)
{
	u16 base = port_base[port];
	outb(base + UART_IER, 0x00);       /* no interrupts: we poll */
	outb(base + UART_LCR, UART_LCR_DLAB);
	outb(base + UART_RX, 1);           /* divisor 1: 115200 baud */
	outb(base + UART_IER, 0);
	outb(base + UART_LCR, 0x03);       /* 8 data bits, no parity, 1 stop */
	outb(base + UART_FCR, 0xc7);       /* FIFO on, cleared, 14-byte threshold */
	outb(base + UART_MCR, UART_MCR_DTR | UART_MCR_RTS);
	/* Linux's autoconfig scratch test: a missing UART reads 0xff. */
	outb(base + UART_SCR, 0x5a);
	bool present = inb(base + UART_SCR) == 0x5a;
	outb(base + UART_SCR, 0xa5);
	return present && inb(base + UART_SCR) == 0xa5;
}

void serial_init(void)
{
	serial_init_port(0);
}

void serial_putc_port(unsigned port, u8 c)
{
	u16 base = port_base[port];
	/* Bounded wait: a missing UART must not hang the kernel. */
	for (int spin = 0; spin < 100000; spin++)
		if (inb(base + UART_LSR) & UART_LSR_THRE)
			break;
	outb(base + UART_TX, c);
}

void serial_putc(char c)
{
	serial_putc_port(serial_console_port, (u8)c);
}

void serial_write(const char *s, size_t len)
{
	for (size_t i = 0; i < len; i++) {
		if (s[i] == '\n')
			serial_putc('\r');
		serial_putc(s[i]);
	}
}
