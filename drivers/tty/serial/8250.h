/* The 16550 UART ports as terminals (drivers/tty/serial/8250.c). */
#ifndef DRIVERS_TTY_SERIAL_8250_H
#define DRIVERS_TTY_SERIAL_8250_H

#include "drivers/tty/tty_struct.h"

/* Linux's uart_8250_port, as much as a PC COM port needs. */
struct uart_8250_port {
	unsigned line;          /* 0: ttyS0 (COM1), 1: ttyS1 (COM2) */
	bool present;
	bool irq_mode;          /* the receive interrupt is on (else polled) */
	u32 gsi;                /* where the I/O APIC has its IRQ */
	u32 home_apic_id;       /* the CPU that takes it (the boot CPU) */
	unsigned long interrupts; /* receive interrupts taken */
	unsigned unhandled;     /* of them, in a row, with nothing pending */
	unsigned long overrun;  /* the UART's own overruns (LSR OE) */
	struct tty_struct tty;
};

/* ttyS<line>, or NULL when there is no such port. */
struct uart_8250_port *serial8250_port(unsigned line);
/* The port's interrupt to another CPU (a test that waits for it there),
 * and back home; false when the port is polled. */
bool serial8250_move_irq(struct uart_8250_port *up, u32 dest_apic_id);
bool serial8250_restore_irq(struct uart_8250_port *up);
/* The UART's loopback (MCR LOOP): what it sends comes back as received,
 * and nothing leaves on the line. */
void serial8250_set_loopback(struct uart_8250_port *up, bool on);

#endif
