/* The ELF loader and the initial stack (kernel/elf.c, kernel/binfmt_elf.c):
 * a hand-made static-PIE runs at ELF_ET_DYN_BASE and finds its relocated
 * AT_ENTRY and AT_PHDR and AT_BASE 0 in its auxv; the same code as ET_EXEC
 * runs at its link address; PT_INTERP is refused (-ENOEXEC) whether well
 * formed or not; the images' processes give back everything they took. */
#include "arch/x86_64/cpu.h"
#include "kernel/binfmt_elf.h"
#include "kernel/elf.h"
#include "kernel/process.h"
#include "kernel/sched.h"
#include "kernel/smp.h"
#include "kernel/string.h"
#include "mm/slab.h"
#include "tests/kunit.h"

/* The program (x86_64, position independent), at file and image offset
 * 0x100 of a single R+X PT_LOAD that starts at offset 0 (so the program
 * headers, at offset 64, are mapped):
 *
 *	_start:	lea _start(%rip), %rbx
 *		mov (%rsp), %rcx		# argc
 *		lea 16(%rsp,%rcx,8), %rsi	# envp
 *	1:	mov (%rsi), %rax; add $8, %rsi; test %rax, %rax; jnz 1b
 *		xor %r8d, %r8d			# auxv entries found
 *	2:	mov (%rsi), %rax; test %rax, %rax; jz 9f
 *		mov 8(%rsi), %rdx; add $16, %rsi
 *		cmp $9, %rax; jne 3f		# AT_ENTRY == _start, else exit 2
 *		mov $2, %edi; cmp %rbx, %rdx; jne out; inc %r8d; jmp 2b
 *	3:	cmp $3, %rax; jne 4f		# AT_PHDR == image + 64, else exit 3
 *		mov $3, %edi; lea -0x100+64(%rbx), %rcx; cmp %rcx, %rdx; jne out
 *		inc %r8d; jmp 2b
 *	4:	cmp $7, %rax; jne 2b		# AT_BASE == 0, else exit 4
 *		mov $4, %edi; test %rdx, %rdx; jnz out; inc %r8d; jmp 2b
 *	9:	mov $5, %edi; cmp $3, %r8d; jne out	# all three seen, else 5
 *		mov %rbx, %rdi; shr $40, %rdi	# exit (_start >> 40) & 0xff
 *	out:	mov $60, %eax; syscall		# exit
 */
static const u8 probe_code[] = {
	0x48, 0x8d, 0x1d, 0xf9, 0xff, 0xff, 0xff, 0x48, 0x8b, 0x0c, 0x24, 0x48, 0x8d, 0x74, 0xcc,
	0x10, 0x48, 0x8b, 0x06, 0x48, 0x83, 0xc6, 0x08, 0x48, 0x85, 0xc0, 0x75, 0xf4, 0x45, 0x31,
	0xc0, 0x48, 0x8b, 0x06, 0x48, 0x85, 0xc0, 0x74, 0x4e, 0x48, 0x8b, 0x56, 0x08, 0x48, 0x83,
	0xc6, 0x10, 0x48, 0x83, 0xf8, 0x09, 0x75, 0x0f, 0xbf, 0x02, 0x00, 0x00, 0x00, 0x48, 0x39,
	0xda, 0x75, 0x48, 0x41, 0xff, 0xc0, 0xeb, 0xdb, 0x48, 0x83, 0xf8, 0x03, 0x75, 0x16, 0xbf,
	0x03, 0x00, 0x00, 0x00, 0x48, 0x8d, 0x8b, 0x40, 0xff, 0xff, 0xff, 0x48, 0x39, 0xca, 0x75,
	0x2c, 0x41, 0xff, 0xc0, 0xeb, 0xbf, 0x48, 0x83, 0xf8, 0x07, 0x75, 0xb9, 0xbf, 0x04, 0x00,
	0x00, 0x00, 0x48, 0x85, 0xd2, 0x75, 0x17, 0x41, 0xff, 0xc0, 0xeb, 0xaa, 0xbf, 0x05, 0x00,
	0x00, 0x00, 0x41, 0x83, 0xf8, 0x03, 0x75, 0x07, 0x48, 0x89, 0xdf, 0x48, 0xc1, 0xef, 0x28,
	0xb8, 0x3c, 0x00, 0x00, 0x00, 0x0f, 0x05, 0xf4,
};

#define CODE_OFFSET 0x100
#define IMAGE_SIZE 0x200
#define PT_GNU_STACK_ 0x6474e551
static const char interp_path[] = "/lib64/ld-linux-x86-64.so.2";

/* An image: ET_DYN at 0 or ET_EXEC at 0x400000; with_interp adds a
 * PT_INTERP naming interp_path (nul_terminated or not). */
static u8 *make_image(u16 type, bool with_interp, bool nul_terminated)
{
	u8 *im = kzalloc(IMAGE_SIZE, GFP_KERNEL);
	if (!im)
		return NULL;
	u64 base = type == ET_DYN ? 0 : 0x400000;
	Elf64_Ehdr *eh = (Elf64_Ehdr *)im;
	memcpy(eh->e_ident, "\177ELF", 4);
	eh->e_ident[4] = ELFCLASS64;
	eh->e_ident[5] = ELFDATA2LSB;
	eh->e_ident[6] = EV_CURRENT;
	eh->e_type = type;
	eh->e_machine = EM_X86_64;
	eh->e_version = EV_CURRENT;
	eh->e_entry = base + CODE_OFFSET;
	eh->e_phoff = sizeof(Elf64_Ehdr);
	eh->e_ehsize = sizeof(Elf64_Ehdr);
	eh->e_phentsize = sizeof(Elf64_Phdr);
	eh->e_phnum = with_interp ? 3 : 2;
	Elf64_Phdr *ph = (Elf64_Phdr *)(im + eh->e_phoff);
	ph[0] = (Elf64_Phdr){ .p_type = PT_LOAD, .p_flags = PF_R | PF_X, .p_offset = 0,
			      .p_vaddr = base, .p_paddr = base, .p_filesz = IMAGE_SIZE,
			      .p_memsz = IMAGE_SIZE, .p_align = 0x1000 };
	ph[1] = (Elf64_Phdr){ .p_type = PT_GNU_STACK_, .p_flags = PF_R | PF_W, .p_align = 16 };
	if (with_interp) {
		u64 off = CODE_OFFSET + sizeof(probe_code) + 8;
		memcpy(im + off, interp_path, sizeof(interp_path));
		ph[2] = (Elf64_Phdr){ .p_type = PT_INTERP, .p_flags = PF_R, .p_offset = off,
				      .p_vaddr = base + off, .p_filesz = sizeof(interp_path) - !nul_terminated,
				      .p_memsz = sizeof(interp_path), .p_align = 1 };
	}
	memcpy(im + CODE_OFFSET, probe_code, sizeof(probe_code));
	return im;
}

static void free_image(void *im) { kfree(im); }

/* Runs image as a process on this CPU: its exit code, or -1 if it was
 * killed, or the spawn error. */
static int run_image(struct kunit *test, const u8 *image)
{
	struct process_spawn_args args = { .name = "elf_probe", .image = image,
					   .image_size = IMAGE_SIZE, .cpu = smp_processor_id() };
	int err = 0;
	struct task_struct *p = process_spawn(&args, &err);
	if (!p)
		return err;
	struct process_result res;
	process_wait(p, &res);
	if (res.killed)
		kunit_info(test, "killed: %s", res.reason);
	return res.killed ? -1 : res.exit_code;
}

static void static_pie_runs_at_elf_et_dyn_base(struct kunit *test)
{
	u8 *im = make_image(ET_DYN, false, true);
	KUNIT_ASSERT_NOT_NULL(test, im);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, free_image, im), 0);
	struct kunit_resources before; /* the process's, the image aside */
	kunit_resources_take(&before);
	KUNIT_EXPECT_EQ(test, elf_check(im, IMAGE_SIZE), 0);
	/* 0x555555554000 >> 40: loaded at Linux's ELF_ET_DYN_BASE; 2-5 would
	 * name the auxv entry that was wrong. */
	KUNIT_EXPECT_EQ(test, run_image(test, im), 0x55);
	kunit_expect_resources_back(test, &before);
}

static void exec_runs_at_its_link_address(struct kunit *test)
{
	u8 *im = make_image(ET_EXEC, false, true);
	KUNIT_ASSERT_NOT_NULL(test, im);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, free_image, im), 0);
	KUNIT_EXPECT_EQ(test, run_image(test, im), 0); /* 0x400100 >> 40 */
}

static void pt_interp_is_refused(struct kunit *test)
{
	struct kunit_resources before;
	kunit_resources_take(&before);
	for (int type = 0; type < 2; type++) {
		for (int nul = 0; nul < 2; nul++) {
			u8 *im = make_image(type ? ET_EXEC : ET_DYN, true, nul);
			KUNIT_ASSERT_NOT_NULL(test, im);
			KUNIT_EXPECT_EQ(test, elf_check(im, IMAGE_SIZE), -ENOEXEC);
			KUNIT_EXPECT_EQ(test, run_image(test, im), -ENOEXEC);
			kfree(im);
		}
	}
	kunit_expect_resources_back(test, &before);
}

static void hwcap_is_cpuid(struct kunit *test)
{
	u32 a, b, c, d;
	cpuid(1, &a, &b, &c, &d);
	KUNIT_EXPECT_EQ(test, elf_hwcap(), d);
	cpuid_count(7, 0, &a, &b, &c, &d);
	KUNIT_EXPECT_EQ(test, !!(elf_hwcap2() & HWCAP2_FSGSBASE), b & 1);
}

static struct kunit_case elf_cases[] = {
	KUNIT_CASE(static_pie_runs_at_elf_et_dyn_base),
	KUNIT_CASE(exec_runs_at_its_link_address),
	KUNIT_CASE(pt_interp_is_refused),
	KUNIT_CASE(hwcap_is_cpuid),
	{}
};

static struct kunit_suite elf_suite = { .name = "elf", .test_cases = elf_cases };
kunit_test_suite(elf_suite);
