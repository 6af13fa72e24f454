#include "arch/x86_64/qemu_exit.h"
#include "arch/x86_64/cpu.h"

void qemu_exit(enum qemu_exit_code code)
{
	local_irq_disable();
	outb(0xf4, (u8)code);
	for (;;)
		halt();
}
