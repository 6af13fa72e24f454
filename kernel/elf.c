/* The ELF loader: static, non-PIE x86_64 executables (ET_EXEC, no
 * PT_INTERP), as `gcc -static -no-pie` makes them.
 *
 * Each PT_LOAD segment becomes private anonymous memory filled from the
 * image (there is no page cache to map files from): all segments are first
 * mapped writable, the file bytes copied in (the rest of memsz stays zero:
 * .bss), then each segment gets its own protection, later segments winning
 * on a page two segments share, as with Linux's MAP_FIXED file mappings. */
#include "kernel/elf.h"
#include "arch/x86_64/uaccess.h"
#include "kernel/printk.h"
#include "kernel/string.h"
#include "kernel/unistd.h"
#include "mm/mmap.h"
#include "mm/page.h"

#define PAGE_ALIGN_UP(x) (((x) + PAGE_SIZE - 1) & ~(PAGE_SIZE - 1))
#define PAGE_ALIGN_DOWN(x) ((x) & ~(PAGE_SIZE - 1))

static const Elf64_Phdr *phdrs(const void *image)
{
	const Elf64_Ehdr *eh = image;
	return (const Elf64_Phdr *)((const u8 *)image + eh->e_phoff);
}

static int noexec(const char *why)
{
	pr_warn("elf: not a loadable static x86_64 executable: %s\n", why);
	return -ENOEXEC;
}

int elf_check(const void *image, unsigned long size)
{
	const Elf64_Ehdr *eh = image;
	if (size < sizeof(*eh) || memcmp(eh->e_ident, "\177ELF", 4))
		return noexec("no ELF magic");
	if (eh->e_ident[4] != ELFCLASS64 || eh->e_ident[5] != ELFDATA2LSB || eh->e_ident[6] != EV_CURRENT)
		return noexec("not 64-bit little-endian ELF version 1");
	if (eh->e_machine != EM_X86_64)
		return noexec("not for x86_64");
	if (eh->e_type != ET_EXEC)
		return noexec(eh->e_type == ET_DYN ? "position independent (ET_DYN) is not supported"
						   : "not an executable");
	if (eh->e_phentsize != sizeof(Elf64_Phdr) || !eh->e_phnum || eh->e_phoff % 8 ||
	    eh->e_phoff > size || (size - eh->e_phoff) / sizeof(Elf64_Phdr) < eh->e_phnum)
		return noexec("program headers outside the file");
	bool entry_ok = false;
	unsigned loads = 0;
	for (unsigned i = 0; i < eh->e_phnum; i++) {
		const Elf64_Phdr *ph = &phdrs(image)[i];
		if (ph->p_type == PT_INTERP)
			return noexec("dynamically linked (PT_INTERP)");
		if (ph->p_type != PT_LOAD || !ph->p_memsz)
			continue;
		loads++;
		if (ph->p_filesz > ph->p_memsz || ph->p_offset > size || size - ph->p_offset < ph->p_filesz)
			return noexec("a segment's bytes lie outside the file");
		if (ph->p_vaddr < mmap_min_addr || ph->p_vaddr >= TASK_SIZE ||
		    TASK_SIZE - ph->p_vaddr < ph->p_memsz)
			return noexec("a segment lies outside the user address space");
		if ((ph->p_vaddr - ph->p_offset) % PAGE_SIZE)
			return noexec("a segment's address and file offset disagree modulo the page size");
		if ((ph->p_flags & PF_X) && eh->e_entry >= ph->p_vaddr &&
		    eh->e_entry < ph->p_vaddr + ph->p_memsz)
			entry_ok = true;
	}
	if (!loads)
		return noexec("no PT_LOAD segment");
	if (!entry_ok)
		return noexec("the entry point is not in an executable segment");
	return 0;
}

static unsigned long segment_prot(u32 flags)
{
	return (flags & PF_R ? PROT_READ : 0) | (flags & PF_W ? PROT_WRITE : 0) |
	       (flags & PF_X ? PROT_EXEC : 0);
}

int elf_load(struct mm_struct *mm, const void *image, unsigned long size, struct elf_image_info *info)
{
	const Elf64_Ehdr *eh = image;
	unsigned long brk = 0;
	(void)size;

	info->entry = eh->e_entry;
	info->phnum = eh->e_phnum;
	info->phdr_addr = 0;
	mm->start_code = ~0ul;
	for (int pass = 0; pass < 3; pass++) {
		for (unsigned i = 0; i < eh->e_phnum; i++) {
			const Elf64_Phdr *ph = &phdrs(image)[i];
			if (ph->p_type != PT_LOAD || !ph->p_memsz)
				continue;
			unsigned long start = PAGE_ALIGN_DOWN(ph->p_vaddr);
			unsigned long end = PAGE_ALIGN_UP(ph->p_vaddr + ph->p_memsz);
			if (pass == 0) {
				unsigned long a = do_mmap(mm, start, end - start, PROT_READ | PROT_WRITE,
							  MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED);
				if (IS_ERR_VALUE(a))
					return (int)(long)a;
			} else if (pass == 1) {
				if (copy_to_user((void *)ph->p_vaddr, (const u8 *)image + ph->p_offset,
						 ph->p_filesz))
					return -EFAULT;
				/* The program headers, if a segment carries them (AT_PHDR). */
				if (eh->e_phoff >= ph->p_offset &&
				    eh->e_phoff + eh->e_phnum * sizeof(Elf64_Phdr) <= ph->p_offset + ph->p_filesz)
					info->phdr_addr = ph->p_vaddr + (eh->e_phoff - ph->p_offset);
			} else {
				int err = do_mprotect(mm, start, end - start, segment_prot(ph->p_flags));
				if (err)
					return err;
				if (ph->p_flags & PF_X) {
					if (start < mm->start_code)
						mm->start_code = start;
					if (ph->p_vaddr + ph->p_filesz > mm->end_code)
						mm->end_code = ph->p_vaddr + ph->p_filesz;
				} else if (ph->p_flags & PF_W) {
					if (!mm->start_data)
						mm->start_data = ph->p_vaddr;
					mm->end_data = ph->p_vaddr + ph->p_filesz;
				}
				if (end > brk)
					brk = end;
			}
		}
	}
	if (mm->start_code == ~0ul)
		mm->start_code = 0;
	mm->start_brk = mm->brk = brk;
	return 0;
}
