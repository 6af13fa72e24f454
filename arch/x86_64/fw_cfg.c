/* fw_cfg access by the legacy I/O-port interface (QEMU docs/specs/fw_cfg):
 * write a 16-bit key to the selector port, then read the item byte by byte
 * from the data port. Multi-byte fields of the file directory are
 * big-endian. */
#include "arch/x86_64/fw_cfg.h"
#include "arch/x86_64/cpu.h"
#include "lib/string.h"

#define FW_CFG_PORT_SEL 0x510
#define FW_CFG_PORT_DATA 0x511
#define FW_CFG_SIGNATURE 0x0000
#define FW_CFG_FILE_DIR 0x0019

static void fw_cfg_select(u16 key) { outw(FW_CFG_PORT_SEL, key); }

static void fw_cfg_read(void *buf, size_t len)
{
	u8 *p = buf;
	while (len--)
		*p++ = inb(FW_CFG_PORT_DATA);
}

static u32 be32(const u8 *p) { return (u32)p[0] << 24 | (u32)p[1] << 16 | (u32)p[2] << 8 | p[3]; }

bool fw_cfg_present(void)
{
	char sig[4];
	fw_cfg_select(FW_CFG_SIGNATURE);
	fw_cfg_read(sig, 4);
	return memcmp(sig, "QEMU", 4) == 0;
}

long fw_cfg_read_file(const char *name, char *buf, size_t size)
{
	u8 hdr[4], ent[64];

	if (!fw_cfg_present())
		return -ENODEV;
	fw_cfg_select(FW_CFG_FILE_DIR);
	fw_cfg_read(hdr, 4);
	u32 count = be32(hdr);
	for (u32 i = 0; i < count && i < 4096; i++) {
		fw_cfg_read(ent, sizeof(ent)); /* size, select, reserved, name[56] */
		ent[63] = 0;
		if (strcmp((const char *)ent + 8, name))
			continue;
		u32 fsize = be32(ent);
		u16 key = (u16)(ent[4] << 8 | ent[5]);
		fw_cfg_select(key);
		size_t n = size ? min((size_t)fsize, size - 1) : 0;
		fw_cfg_read(buf, n);
		if (size)
			buf[n] = 0;
		return fsize;
	}
	return -ENOENT;
}
