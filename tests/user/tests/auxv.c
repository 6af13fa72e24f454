/* The auxiliary vector a static program finds past envp, against what the
 * CPU and the program itself say: AT_PAGESZ 4096, AT_CLKTCK 100, AT_PHDR
 * pointing at this program's own program headers (AT_PHENT 56, AT_PHNUM
 * of them, one PT_LOAD holding _start's... address AT_ENTRY), AT_BASE 0
 * without PT_INTERP, the ids 0 on mmlab, AT_SECURE 0, AT_HWCAP = CPUID 1's
 * EDX, AT_HWCAP2's FSGSBASE bit only where CPUID has it, AT_MINSIGSTKSZ at
 * least the XSAVE area, 16 AT_RANDOM bytes (not mmlab's old fixed ones),
 * AT_EXECFN naming the program, AT_PLATFORM "x86_64", each key once and
 * the ones both kernels give in Linux's order. mmlab has no vDSO: no
 * AT_SYSINFO_EHDR there. */
#include <stdint.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "check.h"

#define AT_NULL 0
#define AT_PHDR 3
#define AT_PHENT 4
#define AT_PHNUM 5
#define AT_PAGESZ 6
#define AT_BASE 7
#define AT_FLAGS 8
#define AT_ENTRY 9
#define AT_UID 11
#define AT_EUID 12
#define AT_GID 13
#define AT_EGID 14
#define AT_PLATFORM 15
#define AT_HWCAP 16
#define AT_CLKTCK 17
#define AT_SECURE 23
#define AT_RANDOM 25
#define AT_HWCAP2 26
#define AT_EXECFN 31
#define AT_SYSINFO_EHDR 33
#define AT_MINSIGSTKSZ 51
#define PT_LOAD 1
#define PT_INTERP 3

struct phdr {
	uint32_t p_type, p_flags;
	uint64_t p_offset, p_vaddr, p_paddr, p_filesz, p_memsz, p_align;
};

extern char _start[];

static long getuid_(void) { return syscall(102 /* SYS_getuid */); }

#define MAX_AUX 64
static unsigned long keys[MAX_AUX], vals[MAX_AUX];
static int nr_aux;

static bool have(unsigned long key, unsigned long *val)
{
	for (int i = 0; i < nr_aux; i++)
		if (keys[i] == key) {
			if (val)
				*val = vals[i];
			return true;
		}
	return false;
}

static unsigned long get(unsigned long key)
{
	unsigned long v = 0;
	CHECKF(have(key, &v), "auxv has key %lu", key);
	return v;
}

static void cpuid(unsigned leaf, unsigned sub, unsigned r[4])
{
	__asm__ volatile("cpuid" : "=a"(r[0]), "=b"(r[1]), "=c"(r[2]), "=d"(r[3]) : "a"(leaf), "c"(sub));
}

int main(int argc, char **argv, char **envp)
{
	(void)argc;
	(void)argv;
	test_begin("auxv");
	struct utsname u;
	bool mmlab = uname(&u) == 0 && !strcmp(u.sysname, "mmlab");
	char **e = envp;
	while (*e)
		e++;
	unsigned long *a = (unsigned long *)(e + 1);
	for (; a[0] != AT_NULL && nr_aux < MAX_AUX; a += 2) {
		keys[nr_aux] = a[0];
		vals[nr_aux] = a[1];
		nr_aux++;
	}
	CHECK(a[0] == AT_NULL);
	note("%d entries past %ld environment strings", nr_aux, (long)(e - envp));
	for (int i = 0; i < nr_aux; i++)
		for (int j = i + 1; j < nr_aux; j++)
			CHECKF(keys[i] != keys[j], "key %lu appears once", keys[i]);

	CHECK_CMP(get(AT_PAGESZ), ==, 4096);
	CHECK_CMP(get(AT_CLKTCK), ==, 100);
	CHECK_CMP(get(AT_PHENT), ==, sizeof(struct phdr));
	CHECK_CMP(get(AT_SECURE), ==, 0);
	CHECK_CMP(get(AT_FLAGS), ==, 0);
	CHECK(get(AT_ENTRY) == (unsigned long)_start);

	/* The program headers are this program's: a PT_LOAD holds _start. */
	const struct phdr *ph = (const struct phdr *)get(AT_PHDR);
	unsigned long phnum = get(AT_PHNUM), bias = 0;
	bool interp = false, entry_in_load = false;
	CHECK(ph != NULL && phnum > 0 && phnum < 64);
	if (ph) {
		/* Where the program was put: AT_PHDR less the headers' own
		 * p_vaddr, from PT_PHDR when there is one, else from the
		 * PT_LOAD that maps the file's start, whose ELF header (checked)
		 * gives the headers' offset. */
		bool found = false;
		for (unsigned long i = 0; i < phnum; i++)
			if (ph[i].p_type == 6 /* PT_PHDR */) {
				bias = (unsigned long)ph - ph[i].p_vaddr;
				found = true;
			}
		for (unsigned long i = 0; i < phnum && !found; i++)
			if (ph[i].p_type == PT_LOAD && ph[i].p_offset == 0) {
				/* e_phoff is 64 right after the header, as linkers put it */
				bias = (unsigned long)ph - 64 - ph[i].p_vaddr;
				const unsigned char *eh = (const unsigned char *)(bias + ph[i].p_vaddr);
				CHECKF(!memcmp(eh, "\177ELF", 4) && *(const uint64_t *)(eh + 32) == 64,
				       "the ELF header is mapped at %p, its program headers at +64", (const void *)eh);
				found = true;
			}
		CHECK(found);
		for (unsigned long i = 0; i < phnum; i++) {
			interp |= ph[i].p_type == PT_INTERP;
			if (ph[i].p_type == PT_LOAD && (unsigned long)_start >= ph[i].p_vaddr + bias &&
			    (unsigned long)_start < ph[i].p_vaddr + bias + ph[i].p_memsz)
				entry_in_load = true;
		}
		CHECKF(entry_in_load, "a PT_LOAD at AT_PHDR's headers (bias %#lx) holds _start", bias);
	}
	if (!interp)
		CHECK_CMP(get(AT_BASE), ==, 0);
	else
		CHECK(get(AT_BASE) != 0);
	if (mmlab) {
		CHECK_CMP(get(AT_UID), ==, 0);
		CHECK_CMP(get(AT_EUID), ==, 0);
		CHECK_CMP(get(AT_GID), ==, 0);
		CHECK_CMP(get(AT_EGID), ==, 0);
		CHECKF(!have(AT_SYSINFO_EHDR, NULL), "no vDSO on mmlab");
	} else {
		CHECK_CMP(get(AT_UID), ==, getuid_());
	}

	unsigned r[4];
	cpuid(1, 0, r);
	/* Linux gives its own view of the word (features it cleared are
	 * gone); mmlab gives CPUID's. */
	unsigned long hwcap = get(AT_HWCAP);
	CHECKF((hwcap & ~(unsigned long)r[3]) == 0, "AT_HWCAP %#lx within CPUID.1:EDX %#x", hwcap, r[3]);
	if (mmlab)
		CHECK_CMP(hwcap, ==, r[3]);
	cpuid(7, 0, r);
	unsigned long hwcap2 = get(AT_HWCAP2);
	if (hwcap2 & 2)
		CHECKF(r[1] & 1, "HWCAP2_FSGSBASE only where CPUID has FSGSBASE");
	if (mmlab)
		CHECK_CMP(hwcap2 & 2, ==, (r[1] & 1) << 1);
	cpuid(1, 0, r);
	unsigned long minsig = get(AT_MINSIGSTKSZ);
	note("AT_MINSIGSTKSZ %lu, AT_HWCAP2 %#lx", minsig, hwcap2);
	if (r[2] >> 27 & 1) { /* OSXSAVE: the XSAVE area's size for XCR0 */
		cpuid(0xd, 0, r);
		CHECK_CMP(minsig, >, r[1]);
	} else {
		CHECK_CMP(minsig, >, 512);
	}

	const unsigned char *rnd = (const unsigned char *)get(AT_RANDOM);
	static const unsigned char old_fixed[16] = { 0x6d, 0x6d, 0x6c, 0x61, 0x62, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11 };
	static const unsigned char zero[16];
	CHECK(rnd && memcmp(rnd, old_fixed, 16) && memcmp(rnd, zero, 16));

	const char *execfn = (const char *)get(AT_EXECFN);
	const char *platform = (const char *)get(AT_PLATFORM);
	if (execfn) {
		note("AT_EXECFN %s", execfn);
		const char *slash = strrchr(execfn, '/');
		const char *base = slash ? slash + 1 : execfn; /* auxv.elf: make user-elfs-on-host */
		CHECK(!strcmp(base, "auxv") || !strcmp(base, "auxv.elf"));
		if (mmlab) /* started by execve of /bin/auxv, as Linux starts init */
			CHECK(!strcmp(execfn, "/bin/auxv"));
	}
	CHECK(platform && !strcmp(platform, "x86_64"));

	/* Linux's order (create_elf_tables), for the keys both give. */
	static const unsigned long order[] = { AT_MINSIGSTKSZ, AT_HWCAP, AT_PAGESZ, AT_CLKTCK, AT_PHDR,
					       AT_PHENT, AT_PHNUM, AT_BASE, AT_FLAGS, AT_ENTRY, AT_UID,
					       AT_EUID, AT_GID, AT_EGID, AT_SECURE, AT_RANDOM, AT_HWCAP2,
					       AT_EXECFN, AT_PLATFORM };
	int last = -1;
	bool in_order = true;
	for (unsigned i = 0; i < sizeof(order) / sizeof(order[0]); i++)
		for (int j = 0; j < nr_aux; j++)
			if (keys[j] == order[i]) {
				in_order &= j > last;
				last = j;
			}
	CHECKF(in_order, "the entries come in Linux's order");
	if (mmlab)
		CHECK_CMP(nr_aux, ==, (int)(sizeof(order) / sizeof(order[0])));
	return test_end();
}
