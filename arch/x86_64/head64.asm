; First higher-half code: clear BSS, switch to the boot stack (which has an
; unmapped guard page below it once boot_paging has run) and call C.

extern __bss_start
extern __bss_end
extern start_kernel
extern boot_stack_top

section .text.entry
bits 64
global start64
start64:
	; edi = multiboot2 magic, esi = multiboot2 info (physical); keep them.
	mov r12d, edi
	mov r13d, esi

	mov rdi, __bss_start
	mov rcx, __bss_end
	sub rcx, rdi
	shr rcx, 3
	xor eax, eax
	rep stosq

	mov rsp, boot_stack_top
	xor ebp, ebp                     ; end of the frame-pointer chain
	mov edi, r12d
	mov esi, r13d
	call start_kernel
.hang:
	cli
	hlt
	jmp .hang
