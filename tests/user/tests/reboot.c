/* reboot(2)'s refusals, held beside Linux's kernel/reboot.c, without ever
 * stopping the machine: without CAP_SYS_BOOT every call is EPERM, checked
 * before the magic numbers (a child drops the capability from its
 * effective set first, and the call it makes would only set Ctrl-Alt-Del);
 * with it, a wrong magic1 or magic2 is EINVAL, each of Linux's four magic2
 * values is taken, an unknown command is EINVAL, and LINUX_REBOOT_CMD_CAD_ON
 * and _CAD_OFF set /proc/sys/kernel/ctrl-alt-del (the value this machine
 * had is put back). Power off, halt and restart end the machine: BusyBox's
 * poweroff does so in the shell sessions (tests/sessions/). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check.h"

/* include/uapi/linux/reboot.h */
#define MAGIC1 0xfee1deadu
#define MAGIC2 0x28121969
#define MAGIC2A 0x05121996
#define MAGIC2B 0x16041998
#define MAGIC2C 0x20112000
#define CMD_CAD_ON 0x89ABCDEFu
#define CMD_CAD_OFF 0x00000000u
#define CMD_UNKNOWN 0x12345678u
#define CAP_SYS_BOOT 22
#define CAP_V3 0x20080522

static long reboot_(unsigned magic1, unsigned magic2, unsigned cmd)
{
	return syscall(SYS_reboot, magic1, magic2, cmd, NULL);
}

static uint64_t cap_eff(void)
{
	char buf[8192];
	if (read_file("/proc/self/status", buf, sizeof(buf)) <= 0)
		return 0;
	const char *p = strstr(buf, "\nCapEff:");
	return p ? strtoull(p + 8, NULL, 16) : 0;
}

static int cad_read(void)
{
	char buf[32];
	return read_file("/proc/sys/kernel/ctrl-alt-del", buf, sizeof(buf)) > 0 ? atoi(buf) : -1;
}

/* In a child: CAP_SYS_BOOT out of the effective set, then EPERM whatever
 * the arguments. */
static void without_cap_sys_boot(void)
{
	struct { uint32_t version; int pid; } h = { CAP_V3, 0 };
	struct { uint32_t effective, permitted, inheritable; } d[2];
	if (syscall(SYS_capget, &h, d) != 0)
		_exit(2);
	d[0].effective &= ~(1u << CAP_SYS_BOOT);
	if (syscall(SYS_capset, &h, d) != 0 || (cap_eff() >> CAP_SYS_BOOT & 1))
		_exit(3); /* never call reboot with the capability still there */
	CHECK_ERRNO(reboot_(0, 0, CMD_UNKNOWN), EPERM);
	CHECK_ERRNO(reboot_(MAGIC1, MAGIC2, CMD_CAD_ON), EPERM);
	_exit(checks_failed() ? 1 : 0);
}

int main(void)
{
	test_begin("reboot");
	pid_t pid = fork();
	if (pid == 0)
		without_cap_sys_boot();
	CHECK_CMP(wait_status_of(pid), ==, 0);

	if (!(cap_eff() >> CAP_SYS_BOOT & 1)) {
		CHECK_ERRNO(reboot_(MAGIC1, MAGIC2, CMD_CAD_ON), EPERM);
		test_skip("no CAP_SYS_BOOT here: only the EPERM refusals checked");
	}
	CHECK_ERRNO(reboot_(0, MAGIC2, CMD_CAD_ON), EINVAL);
	CHECK_ERRNO(reboot_(MAGIC1, 0, CMD_CAD_ON), EINVAL);
	CHECK_ERRNO(reboot_(MAGIC1, MAGIC2 + 1, CMD_CAD_ON), EINVAL);
	CHECK_ERRNO(reboot_(MAGIC1, MAGIC2, CMD_UNKNOWN), EINVAL);

	int cad = cad_read();
	CHECKF(cad == 0 || cad == 1, "/proc/sys/kernel/ctrl-alt-del is 0 or 1 (%d)", cad);
	if (cad != 0 && cad != 1)
		return test_end();
	/* The same value again with each magic2, then the other one and
	 * back: the file follows. */
	unsigned same = cad ? CMD_CAD_ON : CMD_CAD_OFF, other = cad ? CMD_CAD_OFF : CMD_CAD_ON;
	static const unsigned magic2[] = { MAGIC2, MAGIC2A, MAGIC2B, MAGIC2C };
	for (unsigned i = 0; i < sizeof(magic2) / sizeof(magic2[0]); i++)
		CHECKF(reboot_(MAGIC1, magic2[i], same) == 0, "magic2 %#x taken", magic2[i]);
	CHECK_CMP(cad_read(), ==, cad);
	CHECK_CMP(reboot_(MAGIC1, MAGIC2, other), ==, 0);
	CHECK_CMP(cad_read(), ==, !cad);
	CHECK_CMP(reboot_(MAGIC1, MAGIC2, same), ==, 0);
	CHECK_CMP(cad_read(), ==, cad);
	return test_end();
}
