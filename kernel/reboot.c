/* reboot(2), as Linux's kernel/reboot.c: the caller needs CAP_SYS_BOOT
 * (-EPERM, checked first), then the two magic numbers (-EINVAL), then the
 * command. Power off, halt and restart end the machine (arch/x86_64/
 * reboot.c says how under QEMU); CAD_ON and CAD_OFF set what Ctrl-Alt-Del
 * does, also /proc/sys/kernel/ctrl-alt-del.
 *
 * Where mmlab differs from Linux 6.1: there are no pid namespaces (Linux's
 * reboot_pid_ns only matters outside the first), no devices to shut down
 * and no kexec or hibernation, so LINUX_REBOOT_CMD_KEXEC and _SW_SUSPEND are
 * refused with -EINVAL, as by a Linux built without them; and no keyboard
 * sends Ctrl-Alt-Del, so C_A_D is only kept. */
#include "arch/x86_64/reboot.h"
#include "arch/x86_64/uaccess.h"
#include "kernel/cred.h"
#include "kernel/printk.h"
#include "kernel/syscall.h"
#include "kernel/sysctl.h"

/* include/uapi/linux/reboot.h */
#define LINUX_REBOOT_MAGIC1 0xfee1dead
#define LINUX_REBOOT_MAGIC2 672274793  /* 0x28121969 */
#define LINUX_REBOOT_MAGIC2A 85072278  /* 0x05121996 */
#define LINUX_REBOOT_MAGIC2B 369367448 /* 0x16041998 */
#define LINUX_REBOOT_MAGIC2C 537993216 /* 0x20112000 */

#define LINUX_REBOOT_CMD_RESTART 0x01234567
#define LINUX_REBOOT_CMD_HALT 0xCDEF0123
#define LINUX_REBOOT_CMD_CAD_ON 0x89ABCDEF
#define LINUX_REBOOT_CMD_CAD_OFF 0x00000000
#define LINUX_REBOOT_CMD_POWER_OFF 0x4321FEDC
#define LINUX_REBOOT_CMD_RESTART2 0xA1B2C3D4
#define LINUX_REBOOT_CMD_SW_SUSPEND 0xD000FCE2
#define LINUX_REBOOT_CMD_KEXEC 0x45584543

/* Ctrl-Alt-Del restarts at once (1) or signals init (0); Linux's default 1. */
static int C_A_D = 1;
SYSCTL_ENTRY_NAMED(proc_sys_kernel_dir, ctrl_alt_del, "ctrl-alt-del", .data = &C_A_D,
		   .maxlen = sizeof(int), .proc_handler = proc_dointvec);

static __attribute__((noreturn)) void kernel_restart(const char *cmd)
{
	if (cmd && cmd[0])
		pr_emerg("reboot: Restarting system with command '%s'\n", cmd);
	else
		pr_emerg("reboot: Restarting system\n");
	machine_restart();
}

SYSCALL_DEFINE4(reboot, int, magic1, int, magic2, unsigned int, cmd, void __user *, arg)
{
	if (!capable(CAP_SYS_BOOT))
		return -EPERM;
	if ((unsigned int)magic1 != LINUX_REBOOT_MAGIC1 ||
	    (magic2 != LINUX_REBOOT_MAGIC2 && magic2 != LINUX_REBOOT_MAGIC2A &&
	     magic2 != LINUX_REBOOT_MAGIC2B && magic2 != LINUX_REBOOT_MAGIC2C))
		return -EINVAL;
	switch (cmd) {
	case LINUX_REBOOT_CMD_RESTART:
		kernel_restart(NULL);
	case LINUX_REBOOT_CMD_CAD_ON:
		__atomic_store_n(&C_A_D, 1, __ATOMIC_RELAXED);
		return 0;
	case LINUX_REBOOT_CMD_CAD_OFF:
		__atomic_store_n(&C_A_D, 0, __ATOMIC_RELAXED);
		return 0;
	case LINUX_REBOOT_CMD_HALT:
		pr_emerg("reboot: System halted\n");
		machine_halt();
	case LINUX_REBOOT_CMD_POWER_OFF:
		pr_emerg("reboot: Power down\n");
		machine_power_off();
	case LINUX_REBOOT_CMD_RESTART2: {
		char buffer[256];
		long n = strncpy_from_user(buffer, arg, sizeof(buffer) - 1);
		if (n < 0)
			return -EFAULT;
		buffer[n] = 0; /* Linux's strndup_user: a longer string is cut */
		kernel_restart(buffer);
	}
	default: /* KEXEC, SW_SUSPEND and unknown commands */
		return -EINVAL;
	}
}
