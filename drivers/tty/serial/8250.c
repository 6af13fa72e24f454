/* The PC's 16550 UARTs as terminals (Linux's drivers/tty/serial/8250/):
 * ttyS0 (COM1, 4:64) and ttyS1 (COM2, 4:65, when QEMU has one). Output
 * goes out polled (arch/x86_64/serial.c), under the console lock when the
 * port is also the kernel's console, so that a printk line is never torn
 * by a program's bytes. Input comes by the receive interrupt (IER RDI,
 * ISA IRQ 4 and 3 routed through the I/O APIC, arch/x86_64/io_apic.c):
 * the handler drains the FIFO into the flip buffer (drivers/tty/
 * tty_buffer.c), whose worker feeds n_tty. Without a usable I/O APIC the
 * boot CPU's tick polls the receiver instead (Linux's 8250 does the same
 * with a timer when a port has no IRQ: serial8250_timeout).
 *
 * console=ttyS0 (the default) or console=ttyS1 (Linux's syntax; a
 * ",115200n8" after it is accepted and the line stays 115200 8N1) says
 * which port printk writes to, and which one /dev/console opens. The
 * interactive shell runs with console=ttyS1, the shell's terminal being
 * ttyS0: docs/tty.md. */
#include "drivers/tty/serial/8250.h"
#include "arch/x86_64/apic.h"
#include "arch/x86_64/cpu.h"
#include "arch/x86_64/io_apic.h"
#include "arch/x86_64/serial.h"
#include "arch/x86_64/traps.h"
#include "kernel/cmdline.h"
#include "kernel/init.h"
#include "kernel/printk.h"
#include "kernel/smp.h"
#include "kernel/time.h"
#include "lib/string.h"

static struct uart_8250_port serial_ports[SERIAL_NR_PORTS];
static const char *const port_names[SERIAL_NR_PORTS] = { "ttyS0", "ttyS1" };

/* ---- console= ---- */

static int console_setup(const char *val)
{
	if (!val || strncmp(val, "ttyS", 4) || (val[4] != '0' && val[4] != '1') ||
	    (val[5] && val[5] != ','))
		return -EINVAL;
	unsigned port = (unsigned)(val[4] - '0');
	if (port != 0 && !serial_init_port(port)) {
		pr_warn("console: no UART at ttyS%u; the console stays on ttyS%u\n", port, serial_console_port);
		return -ENODEV;
	}
	serial_console_port = port;
	return 0;
}

static void console_show(char *buf, size_t size)
{
	snprintf(buf, size, "default ttyS0, now ttyS%u", serial_console_port);
}

kernel_param_setup("console", console_setup, console_show, "ttyS0 or ttyS1 (optionally ,115200n8)",
		   "the serial port of the kernel's log (printk, KTAP) and of /dev/console");

/* ---- output ---- */

static void serial8250_write(struct tty_struct *tty, const unsigned char *buf, size_t n)
{
	struct uart_8250_port *up = tty->driver_data;
	bool shared = up->line == serial_console_port;
	bool took = shared && printk_console_lock();
	for (size_t i = 0; i < n; i++)
		serial_putc_port(up->line, buf[i]);
	if (shared)
		printk_console_unlock(took);
}

static const struct tty_operations serial8250_ops = { .write = serial8250_write };

/* ---- input ---- */

/* Linux's serial8250_rx_chars: the FIFO into the flip buffer, at most
 * 256 bytes a call (the receiver cannot keep an interrupt going for
 * ever); an overrun the UART saw (LSR OE) is counted, as Linux's
 * icount.overrun. */
static void serial8250_rx_chars(struct uart_8250_port *up)
{
	u16 base = serial_port_base(up->line);
	unsigned char buf[256];
	size_t n = 0;
	u8 lsr;
	while (n < sizeof(buf) && ((lsr = inb(base + UART_LSR)) & UART_LSR_DR)) {
		if (lsr & UART_LSR_OE)
			up->overrun++;
		buf[n++] = inb(base + UART_RX);
	}
	if (n) {
		tty_insert_flip_string(&up->tty, buf, n);
		tty_flip_buffer_push(&up->tty);
	}
}

/* Interrupts in a row that found nothing to do before the line is taken
 * for broken (Linux's note_interrupt disables an IRQ nobody handled 99,900
 * times of 100,000: "nobody cared"). An override that calls the ISA line
 * level-triggered or active-low (a bad MADT) makes such a storm. */
#define SERIAL_UNHANDLED_MAX 10000

static void serial8250_interrupt(struct pt_regs *regs)
{
	for (unsigned i = 0; i < SERIAL_NR_PORTS; i++) {
		struct uart_8250_port *up = &serial_ports[i];
		if (!up->present || !up->irq_mode || ISA_IRQ_VECTOR(serial_port_irq(i)) != regs->vector)
			continue;
		up->interrupts++;
		/* IIR bit 0 set: this UART has no interrupt pending. */
		if (inb(serial_port_base(i) + UART_IIR) & 1) {
			if (++up->unhandled == SERIAL_UNHANDLED_MAX) {
				io_apic_mask_isa_irq(serial_port_irq(i));
				up->irq_mode = false;
				pr_warn("serial: %s: IRQ %u: nobody cared (%u interrupts with nothing to do); "
					"disabled, its input is polled from the tick\n",
					port_names[i], serial_port_irq(i), SERIAL_UNHANDLED_MAX);
			}
			continue;
		}
		up->unhandled = 0;
		serial8250_rx_chars(up);
	}
	apic_eoi();
}

/* Without an interrupt: the boot CPU's tick looks at the receivers. */
static void serial8250_poll_tick(bool user)
{
	(void)user;
	if (smp_processor_id() != 0)
		return;
	for (unsigned i = 0; i < SERIAL_NR_PORTS; i++)
		if (serial_ports[i].present && !serial_ports[i].irq_mode)
			serial8250_rx_chars(&serial_ports[i]);
}

/* Routes port's IRQ to the CPU with local APIC id dest and turns the
 * receive interrupt on; false when no I/O APIC takes it. */
static bool serial8250_route(struct uart_8250_port *up, u32 dest)
{
	unsigned irq = serial_port_irq(up->line);
	int err = io_apic_route_isa_irq(irq, ISA_IRQ_VECTOR(irq), dest, &up->gsi);
	if (err)
		return false;
	return io_apic_unmask_isa_irq(irq) == 0;
}

bool serial8250_move_irq(struct uart_8250_port *up, u32 dest_apic_id)
{
	return up->irq_mode && serial8250_route(up, dest_apic_id);
}

bool serial8250_restore_irq(struct uart_8250_port *up)
{
	return serial8250_move_irq(up, up->home_apic_id);
}

struct uart_8250_port *serial8250_port(unsigned line)
{
	return line < SERIAL_NR_PORTS && serial_ports[line].present ? &serial_ports[line] : NULL;
}

void serial8250_set_loopback(struct uart_8250_port *up, bool on)
{
	u16 base = serial_port_base(up->line);
	u8 mcr = inb(base + UART_MCR);
	outb(base + UART_MCR, on ? mcr | UART_MCR_LOOP : mcr & ~UART_MCR_LOOP);
}

static int serial8250_init(void)
{
	int ret = tty_init();
	if (ret)
		return ret;
	register_tick_hook(serial8250_poll_tick);
	for (unsigned i = 0; i < SERIAL_NR_PORTS; i++) {
		struct uart_8250_port *up = &serial_ports[i];
		up->line = i;
		if (i != 0 && i != serial_console_port && !serial_init_port(i))
			continue; /* no COM2 */
		up->present = true;
		tty_init_struct(&up->tty, port_names[i], &serial8250_ops, up);
		/* Linux's uart_port_startup copies the console's c_cflag. */
		up->tty.termios.c_cflag = B115200 | CS8 | CREAD | HUPCL | CLOCAL;
		register_interrupt_handler(ISA_IRQ_VECTOR(serial_port_irq(i)), serial8250_interrupt);
		u16 base = serial_port_base(i);
		up->home_apic_id = lapic_id();
		if (serial8250_route(up, up->home_apic_id)) {
			up->irq_mode = true;
			outb(base + UART_MCR, UART_MCR_DTR | UART_MCR_RTS | UART_MCR_OUT2);
			outb(base + UART_IER, UART_IER_RDI);
		} else {
			pr_warn("serial: %s: IRQ %u (GSI %u) reaches no usable I/O APIC; its input is polled "
				"from the tick\n", port_names[i], serial_port_irq(i), up->gsi);
		}
		ret = tty_register_device(&up->tty, 4, 64 + i, i == serial_console_port);
		if (ret)
			pr_err("serial: %s not registered: error %d\n", port_names[i], ret);
		pr_info("serial: %s at I/O %#x (IRQ %u%s)%s\n", port_names[i], serial_port_base(i),
			serial_port_irq(i), up->irq_mode ? "" : ", polled from the tick",
			i == serial_console_port ? " is the console" : "");
	}
	return 0;
}
late_initcall(serial8250_init);
