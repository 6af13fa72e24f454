/* The 16550 UARTs at the PC's COM1 and COM2 I/O ports (arch/x86_64/
 * serial.c): polled output for the kernel's console, the port chosen by
 * console= (drivers/tty/serial/8250.c), and the register access the
 * 8250 tty driver builds on. */
#ifndef ARCH_X86_64_SERIAL_H
#define ARCH_X86_64_SERIAL_H

#include "kernel/types.h"

#define SERIAL_NR_PORTS 2
/* The register offsets and bits the tty driver uses (Linux's
 * include/uapi/linux/serial_reg.h). */
#define UART_RX 0
#define UART_TX 0
#define UART_IER 1
#define UART_IER_RDI 0x01
#define UART_IIR 2
#define UART_FCR 2
#define UART_LCR 3
#define UART_MCR 4
#define UART_MCR_DTR 0x01
#define UART_MCR_RTS 0x02
#define UART_MCR_OUT2 0x08   /* gates the interrupt line on a PC */
#define UART_MCR_LOOP 0x10
#define UART_LSR 5
#define UART_LSR_DR 0x01
#define UART_LSR_OE 0x02
#define UART_LSR_THRE 0x20
#define UART_SCR 7

/* Port n's I/O base (0: COM1 0x3f8, 1: COM2 0x2f8) and ISA IRQ (4, 3). */
u16 serial_port_base(unsigned port);
unsigned serial_port_irq(unsigned port);
/* Programs port n for 115200 8N1, FIFO on, interrupts off; whether a
 * UART answers there (its scratch register holds what is written). */
bool serial_init_port(unsigned port);
/* Sends one byte on port n as it is (no newline translation), waiting
 * a bounded time for the transmitter. */
void serial_putc_port(unsigned port, u8 c);

/* The kernel console: the port printk writes to (0 unless console= says
 * otherwise). */
extern unsigned serial_console_port;
void serial_init(void);
void serial_putc(char c);
/* Console text: each '\n' goes out as "\r\n". */
void serial_write(const char *s, size_t len);

#endif
