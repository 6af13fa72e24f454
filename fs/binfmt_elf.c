/* The ELF loader: static x86_64 executables, as `gcc -static -no-pie`
 * (ET_EXEC, loaded at their link addresses) and `gcc -static-pie` (ET_DYN
 * without PT_INTERP, which relocate themselves: loaded at ELF_ET_DYN_BASE,
 * as Linux's load_elf_binary puts an ET_DYN program; Linux puts an ET_DYN
 * *without* PT_INTERP in the mmap area instead, since 5.18, so the address
 * differs, not the behaviour). A program with PT_INTERP needs a dynamic
 * loader, which mmlab does not have: refused with -ENOEXEC, naming it.
 * PT_TLS is the C library's business (it sets FS with arch_prctl);
 * PT_GNU_STACK's PF_X decides whether the stack is executable.
 *
 * Each PT_LOAD segment becomes private anonymous memory filled from the
 * image (there is no page cache to map files from): all segments are first
 * mapped writable, the file bytes copied in (the rest of memsz stays zero:
 * .bss), then each segment gets its own protection, later segments winning
 * on a page two segments share, as with Linux's MAP_FIXED file mappings. */
#include "fs/binfmt_elf.h"
#include "arch/x86_64/uaccess.h"
#include "kernel/printk.h"
#include "lib/string.h"
#include "kernel/unistd.h"
#include "mm/mmap.h"
#include "mm/page.h"

#define PAGE_ALIGN_UP(x) (((x) + PAGE_SIZE - 1) & ~(PAGE_SIZE - 1))
#define PAGE_ALIGN_DOWN(x) ((x) & ~(PAGE_SIZE - 1))

/* Linux's x86_64 ELF_ET_DYN_BASE (arch/x86/include/asm/elf.h):
 * DEFAULT_MAP_WINDOW / 3 * 2, here without randomisation; a static-PIE's
 * first page lands at its page start, 0x555555554000. */
#define ELF_ET_DYN_BASE (TASK_SIZE / 3 * 2)

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

/* Linux's maximum_alignment: the largest power-of-two p_align of the
 * PT_LOAD segments, at least a page. */
static unsigned long maximum_alignment(const Elf64_Ehdr *eh, const Elf64_Phdr *ph)
{
	unsigned long align = PAGE_SIZE;
	for (unsigned i = 0; i < eh->e_phnum; i++) {
		unsigned long a = ph[i].p_align;
		if (ph[i].p_type != PT_LOAD || !a || (a & (a - 1)) || a > (1ul << 30))
			continue;
		if (a > align)
			align = a;
	}
	return align;
}

/* Where the image goes: 0 for ET_EXEC; for ET_DYN, load_elf_binary's
 * ELF_PAGESTART((ELF_ET_DYN_BASE & ~(alignment - 1)) - first p_vaddr). */
static unsigned long elf_load_bias(const void *image)
{
	const Elf64_Ehdr *eh = image;
	if (eh->e_type != ET_DYN)
		return 0;
	const Elf64_Phdr *ph = phdrs(image);
	unsigned long first = 0;
	for (unsigned i = 0; i < eh->e_phnum; i++)
		if (ph[i].p_type == PT_LOAD) {
			first = ph[i].p_vaddr;
			break;
		}
	unsigned long base = ELF_ET_DYN_BASE & ~(maximum_alignment(eh, ph) - 1);
	return PAGE_ALIGN_DOWN(base - first);
}

/* A PT_INTERP's path, checked as load_elf_binary does (2 to PATH_MAX
 * bytes, NUL-terminated), for the refusal's message. */
static int refuse_interp(const void *image, unsigned long size, const Elf64_Phdr *ph)
{
	char msg[160];
	const char *path = (const char *)image + ph->p_offset;
	if (ph->p_filesz < 2 || ph->p_filesz > 4096 || ph->p_offset > size ||
	    size - ph->p_offset < ph->p_filesz || path[ph->p_filesz - 1])
		return noexec("a malformed PT_INTERP");
	snprintf(msg, sizeof(msg),
		 "dynamically linked: it asks for the interpreter %s (PT_INTERP), and mmlab "
		 "runs static programs only",
		 path);
	return noexec(msg);
}

int elf_check(const void *image, unsigned long size)
{
	const Elf64_Ehdr *eh = image;
	/* Not an ELF file at all: not this loader's, said without a word, as
	 * Linux's loaders pass a file on (a shell runs such a file itself). */
	if (size < sizeof(*eh) || memcmp(eh->e_ident, "\177ELF", 4))
		return -ENOEXEC;
	if (eh->e_ident[4] != ELFCLASS64 || eh->e_ident[5] != ELFDATA2LSB || eh->e_ident[6] != EV_CURRENT)
		return noexec("not 64-bit little-endian ELF version 1");
	if (eh->e_machine != EM_X86_64)
		return noexec("not for x86_64");
	if (eh->e_type != ET_EXEC && eh->e_type != ET_DYN)
		return noexec("not an executable");
	if (eh->e_phentsize != sizeof(Elf64_Phdr) || !eh->e_phnum || eh->e_phoff % 8 ||
	    eh->e_phoff > size || (size - eh->e_phoff) / sizeof(Elf64_Phdr) < eh->e_phnum)
		return noexec("program headers outside the file");
	for (unsigned i = 0; i < eh->e_phnum; i++)
		if (phdrs(image)[i].p_type == PT_INTERP)
			return refuse_interp(image, size, &phdrs(image)[i]);
	bool entry_ok = false;
	unsigned loads = 0;
	unsigned long bias = elf_load_bias(image);
	for (unsigned i = 0; i < eh->e_phnum; i++) {
		const Elf64_Phdr *ph = &phdrs(image)[i];
		if (ph->p_type != PT_LOAD || !ph->p_memsz)
			continue;
		loads++;
		if (ph->p_filesz > ph->p_memsz || ph->p_offset > size || size - ph->p_offset < ph->p_filesz)
			return noexec("a segment's bytes lie outside the file");
		unsigned long vaddr = ph->p_vaddr + bias;
		if (vaddr < ph->p_vaddr || vaddr < mmap_min_addr || vaddr >= TASK_SIZE ||
		    TASK_SIZE - vaddr < ph->p_memsz)
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

	unsigned long bias = elf_load_bias(image);
	info->load_bias = bias;
	info->entry = eh->e_entry + bias;
	info->phnum = eh->e_phnum;
	info->phdr_addr = 0;
	info->image = image;
	info->exec_stack = false;
	for (unsigned i = 0; i < eh->e_phnum; i++)
		if (phdrs(image)[i].p_type == PT_GNU_STACK)
			info->exec_stack = phdrs(image)[i].p_flags & PF_X;
	mm->start_code = ~0ul;
	for (int pass = 0; pass < 3; pass++) {
		for (unsigned i = 0; i < eh->e_phnum; i++) {
			const Elf64_Phdr *ph = &phdrs(image)[i];
			if (ph->p_type != PT_LOAD || !ph->p_memsz)
				continue;
			unsigned long vaddr = ph->p_vaddr + bias;
			unsigned long start = PAGE_ALIGN_DOWN(vaddr);
			unsigned long end = PAGE_ALIGN_UP(vaddr + ph->p_memsz);
			if (pass == 0) {
				unsigned long a = do_mmap(mm, start, end - start, PROT_READ | PROT_WRITE,
							  MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED);
				if (IS_ERR_VALUE(a))
					return (int)(long)a;
			} else if (pass == 1) {
				if (copy_to_user((void *)vaddr, (const u8 *)image + ph->p_offset,
						 ph->p_filesz))
					return -EFAULT;
				/* The program headers, if a segment carries them (AT_PHDR). */
				if (eh->e_phoff >= ph->p_offset &&
				    eh->e_phoff + eh->e_phnum * sizeof(Elf64_Phdr) <= ph->p_offset + ph->p_filesz)
					info->phdr_addr = vaddr + (eh->e_phoff - ph->p_offset);
			} else {
				int err = do_mprotect(mm, start, end - start, segment_prot(ph->p_flags));
				if (err)
					return err;
				if (ph->p_flags & PF_X) {
					if (start < mm->start_code)
						mm->start_code = start;
					if (vaddr + ph->p_filesz > mm->end_code)
						mm->end_code = vaddr + ph->p_filesz;
				} else if (ph->p_flags & PF_W) {
					if (!mm->start_data)
						mm->start_data = vaddr;
					mm->end_data = vaddr + ph->p_filesz;
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
