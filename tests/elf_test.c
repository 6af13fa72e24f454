/* The ELF loader and the initial stack (fs/binfmt_elf.c, fs/exec.c):
 * a hand-made static-PIE runs at ELF_ET_DYN_BASE and finds its relocated
 * AT_ENTRY and AT_PHDR and AT_BASE 0 in its auxv; the same code as ET_EXEC
 * runs at its link address; PT_INTERP is refused (-ENOEXEC) whether well
 * formed or not; PT_GNU_STACK's PF_X alone makes the stack executable;
 * the brk starts after the highest segment; the images' processes give
 * back everything they took. */
#include "arch/x86_64/cpu.h"
#include "fs/exec.h"
#include "fs/binfmt_elf.h"
#include "kernel/process.h"
#include "kernel/sched.h"
#include "kernel/smp.h"
#include "lib/string.h"
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

/* Runs code on its stack: writes "mov $60,%eax; mov $7,%edi; syscall"
 * 64 bytes below rsp and jumps there: exit 7 with an executable stack, a
 * kill (instruction fetch from a non-executable page) without one.
 *
 *	lea -64(%rsp), %rsi
 *	movabs $0x0007bf0000003cb8, %rax; mov %rax, (%rsi)
 *	mov $0x050f0000, %eax; mov %rax, 8(%rsi)
 *	jmp *%rsi
 */
static const u8 stack_exec_code[] = {
	0x48, 0x8d, 0x74, 0x24, 0xc0, 0x48, 0xb8, 0xb8, 0x3c, 0x00, 0x00, 0x00, 0xbf, 0x07, 0x00,
	0x48, 0x89, 0x06, 0xb8, 0x00, 0x00, 0x0f, 0x05, 0x48, 0x89, 0x46, 0x08, 0xff, 0xe6,
};

/* Exits with (brk(0) - _start) >> 8: the brk starts at the page after the
 * highest segment, which ends 0x100 past _start's page offset, so 15.
 *
 *	_start:	mov $12, %eax; xor %edi, %edi; syscall	# brk(0)
 *		lea _start(%rip), %rbx; sub %rbx, %rax
 *		mov %rax, %rdi; shr $8, %rdi; mov $60, %eax; syscall
 */
static const u8 brk_code[] = {
	0xb8, 0x0c, 0x00, 0x00, 0x00, 0x31, 0xff, 0x0f, 0x05, 0x48, 0x8d, 0x1d, 0xf0, 0xff, 0xff,
	0xff, 0x48, 0x29, 0xd8, 0x48, 0x89, 0xc7, 0x48, 0xc1, 0xef, 0x08, 0xb8, 0x3c, 0x00, 0x00,
	0x00, 0x0f, 0x05,
};

#define CODE_OFFSET 0x100
#define IMAGE_SIZE 0x200
#define PT_GNU_STACK_ 0x6474e551
static const char interp_path[] = "/lib64/ld-linux-x86-64.so.2";

struct image_spec {
	u16 type;            /* ET_DYN at 0 or ET_EXEC at 0x400000 */
	bool with_interp;    /* a PT_INTERP naming interp_path... */
	bool nul_terminated; /* ...with its NUL or without */
	const u8 *code;      /* at CODE_OFFSET: probe_code if NULL */
	size_t code_len;
	u32 stack_flags;     /* PT_GNU_STACK's p_flags; 0: no PT_GNU_STACK */
};

static u8 *make_image_spec(const struct image_spec *sp)
{
	u16 type = sp->type;
	bool with_interp = sp->with_interp, nul_terminated = sp->nul_terminated;
	const u8 *code = sp->code ? sp->code : probe_code;
	size_t code_len = sp->code ? sp->code_len : sizeof(probe_code);
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
	eh->e_phnum = 1;
	Elf64_Phdr *ph = (Elf64_Phdr *)(im + eh->e_phoff);
	ph[0] = (Elf64_Phdr){ .p_type = PT_LOAD, .p_flags = PF_R | PF_X, .p_offset = 0,
			      .p_vaddr = base, .p_paddr = base, .p_filesz = IMAGE_SIZE,
			      .p_memsz = IMAGE_SIZE, .p_align = 0x1000 };
	if (sp->stack_flags)
		ph[eh->e_phnum++] = (Elf64_Phdr){ .p_type = PT_GNU_STACK_, .p_flags = sp->stack_flags,
						  .p_align = 16 };
	if (with_interp) {
		u64 off = CODE_OFFSET + sizeof(probe_code) + 8;
		memcpy(im + off, interp_path, sizeof(interp_path));
		ph[eh->e_phnum++] = (Elf64_Phdr){ .p_type = PT_INTERP, .p_flags = PF_R, .p_offset = off,
				      .p_vaddr = base + off, .p_filesz = sizeof(interp_path) - !nul_terminated,
				      .p_memsz = sizeof(interp_path), .p_align = 1 };
	}
	memcpy(im + CODE_OFFSET, code, code_len);
	return im;
}

static u8 *make_image(u16 type, bool with_interp, bool nul_terminated)
{
	struct image_spec sp = { .type = type, .with_interp = with_interp,
				 .nul_terminated = nul_terminated, .stack_flags = PF_R | PF_W };
	return make_image_spec(&sp);
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

/* PT_GNU_STACK: only PF_X makes the stack executable; without the header
 * a 64-bit program's stack is not executable either (x86_64 Linux's
 * elf_read_implies_exec is for 32-bit programs only). */
static void pt_gnu_stack_decides_an_executable_stack(struct kunit *test)
{
	static const struct {
		u32 flags;
		int want; /* exit code, -1: killed */
	} cases[] = { { PF_R | PF_W | PF_X, 7 }, { PF_R | PF_W, -1 }, { 0, -1 } };
	struct kunit_resources before;
	kunit_resources_take(&before);
	for (unsigned i = 0; i < ARRAY_SIZE(cases); i++) {
		for (int type = 0; type < 2; type++) {
			struct image_spec sp = { .type = type ? ET_EXEC : ET_DYN, .code = stack_exec_code,
						 .code_len = sizeof(stack_exec_code),
						 .stack_flags = cases[i].flags };
			u8 *im = make_image_spec(&sp);
			KUNIT_ASSERT_NOT_NULL(test, im);
			int got = run_image(test, im);
			if (got != cases[i].want)
				kunit_info(test, "PT_GNU_STACK flags %#x, %s: %d, expected %d", cases[i].flags,
					   type ? "ET_EXEC" : "ET_DYN", got, cases[i].want);
			KUNIT_EXPECT_EQ(test, got, cases[i].want);
			kfree(im);
		}
	}
	kunit_expect_resources_back(test, &before);
}

/* The brk starts on the page after the highest segment, static-PIE or not
 * (no randomisation). */
static void brk_starts_after_the_highest_segment(struct kunit *test)
{
	for (int type = 0; type < 2; type++) {
		struct image_spec sp = { .type = type ? ET_EXEC : ET_DYN, .code = brk_code,
					 .code_len = sizeof(brk_code), .stack_flags = PF_R | PF_W };
		u8 *im = make_image_spec(&sp);
		KUNIT_ASSERT_NOT_NULL(test, im);
		KUNIT_EXPECT_EQ(test, run_image(test, im), 15);
		kfree(im);
	}
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
	KUNIT_CASE(pt_gnu_stack_decides_an_executable_stack),
	KUNIT_CASE(brk_starts_after_the_highest_segment),
	KUNIT_CASE(hwcap_is_cpuid),
	{}
};

static struct kunit_suite elf_suite = { .name = "elf", .test_cases = elf_cases };
kunit_test_suite(elf_suite);
