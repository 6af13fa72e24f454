/* ELF64 executables (the System V ABI's layout and Linux's auxiliary
 * vector types), and the loader of static x86_64 executables: ET_EXEC at
 * their link address, static-PIE (ET_DYN without PT_INTERP) at
 * ELF_ET_DYN_BASE. The initial stack is fs/exec.h. */
#ifndef FS_BINFMT_ELF_H
#define FS_BINFMT_ELF_H

#include "kernel/types.h"

#define EI_NIDENT 16
#define ELFCLASS64 2
#define ELFDATA2LSB 1
#define EV_CURRENT 1
#define ET_EXEC 2
#define ET_DYN 3
#define EM_X86_64 62
#define PT_LOAD 1
#define PT_DYNAMIC 2
#define PT_INTERP 3
#define PT_PHDR 6
#define PT_TLS 7
#define PT_GNU_STACK 0x6474e551
#define PF_X 1
#define PF_W 2
#define PF_R 4

typedef struct {
	unsigned char e_ident[EI_NIDENT];
	u16 e_type, e_machine;
	u32 e_version;
	u64 e_entry, e_phoff, e_shoff;
	u32 e_flags;
	u16 e_ehsize, e_phentsize, e_phnum, e_shentsize, e_shnum, e_shstrndx;
} Elf64_Ehdr;

typedef struct {
	u32 p_type, p_flags;
	u64 p_offset, p_vaddr, p_paddr, p_filesz, p_memsz, p_align;
} Elf64_Phdr;

/* Auxiliary vector entry types (Linux's include/uapi/linux/auxvec.h). */
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

struct mm_struct;

/* What the loader learned, for the initial stack's auxiliary vector. */
struct elf_image_info {
	u64 entry;     /* relocated (AT_ENTRY) */
	u64 phdr_addr; /* where the program headers are in the process (0: not mapped) */
	u16 phnum;
	u64 load_bias; /* 0 for ET_EXEC; where a static-PIE was put */
	bool exec_stack; /* PT_GNU_STACK with PF_X: the stack is executable */
	const void *image; /* the file it was loaded from */
};

/* Checks that image is a static x86_64 executable we can load: 0 or
 * -ENOEXEC, with the reason logged (a dynamically linked program's
 * message names its interpreter, read from PT_INTERP). */
int elf_check(const void *image, unsigned long size);
/* Maps and fills the PT_LOAD segments of a checked image into mm, which
 * must be the current CPU's active mm (a static-PIE's at load_bias); sets
 * mm's code/data bounds and the brk just past the highest segment, page
 * aligned, as Linux without randomisation. */
int elf_load(struct mm_struct *mm, const void *image, unsigned long size, struct elf_image_info *info);

#endif
