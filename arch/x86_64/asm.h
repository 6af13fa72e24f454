/* Assembler helpers for inline assembly (Linux's
 * arch/x86/include/asm/asm.h, the part mmlab uses). */
#ifndef ARCH_X86_64_ASM_H
#define ARCH_X86_64_ASM_H

/* Lists the instruction at label `from` in the exception table, so that a
 * fault there that the page-fault handler does not resolve resumes at label
 * `to` (fixup_exception in arch/x86_64/traps.c). A string to paste into an
 * asm template: `"1: rep movsb\n2:\n" _ASM_EXTABLE(1b, 2b)`. The entry is
 * struct exception_table_entry (traps.h): two absolute addresses, 8-byte
 * aligned. */
#define _ASM_EXTABLE(from, to)                                                             \
	".pushsection __ex_table, \"a\"\n"                                                 \
	"	.balign 8\n"                                                                \
	"	.quad " #from ", " #to "\n"                                                 \
	".popsection\n"

#endif
