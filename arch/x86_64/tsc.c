/* TSC calibration against PIT channel 2 in mode 0 (interrupt on terminal
 * count): the gate is port 0x61 bit 0, the output is readable at bit 5, so no
 * interrupt is needed. */
#include "arch/x86_64/tsc.h"
#include "arch/x86_64/cpu.h"

#define PIT_HZ 1193182u
#define PIT_CH2 0x42
#define PIT_CMD 0x43
#define PORT_B 0x61

u64 tsc_khz;

u64 tsc_calibrate(void)
{
	const u32 ms = 50, latch = PIT_HZ / (1000 / ms);

	outb(PORT_B, (u8)((inb(PORT_B) & ~0x02) | 0x01)); /* gate on, speaker off */
	outb(PIT_CMD, 0xb0);                               /* ch2, lo/hi byte, mode 0 */
	outb(PIT_CH2, latch & 0xff);
	outb(PIT_CH2, (u8)(latch >> 8));
	u64 start = rdtsc();
	u64 spins = 0;
	while (!(inb(PORT_B) & 0x20)) {
		if (++spins > 100000000ull)
			return tsc_khz = 0;
	}
	u64 cycles = rdtsc() - start;
	return tsc_khz = cycles / ms;
}
