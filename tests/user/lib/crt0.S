/* Process entry and the raw syscall(2) of the mmlab user C library.
 *
 * At _start the kernel (mmlab or Linux) leaves the initial stack as the
 * x86_64 System V ABI says: rsp -> argc, argv[0..argc-1], NULL, envp..., NULL,
 * auxv pairs, AT_NULL; rsp is 16-byte aligned and rbp means nothing. We pass
 * that pointer to __mmlab_start (lib/start.c), which never returns. */

	.text
	.globl _start
	.type _start, @function
_start:
	xorl %ebp, %ebp           /* outermost frame, for backtraces */
	movq %rsp, %rdi           /* -> argc */
	andq $-16, %rsp           /* already aligned; do not rely on it */
	call __mmlab_start
	hlt                       /* not reached: a fault if it ever is */
	.size _start, . - _start

/* long syscall(long number, ...): up to six arguments, Linux's convention
 * (number in rax, arguments in rdi rsi rdx r10 r8 r9; rcx and r11 are
 * clobbered). Returns -1 with errno set for results in [-4095, -1]. */
	.globl syscall
	.type syscall, @function
syscall:
	movq %rdi, %rax
	movq %rsi, %rdi
	movq %rdx, %rsi
	movq %rcx, %rdx
	movq %r8, %r10
	movq %r9, %r8
	movq 8(%rsp), %r9
	syscall
	cmpq $-4095, %rax
	jae 1f
	ret
1:	negl %eax
	movl %eax, errno(%rip)
	movq $-1, %rax
	ret
	.size syscall, . - syscall

	.section .note.GNU-stack, "", @progbits
