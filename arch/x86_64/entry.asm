; Exception and interrupt entry stubs, and the kernel's setjmp/longjmp.
;
; Every vector 0..255 has a stub that pushes a uniform frame: a dummy error
; code where the CPU pushes none, the vector number, then the general
; registers, forming struct pt_regs (arch/x86_64/traps.h). do_trap() gets a
; pointer to it; when it returns, the registers are restored and IRETQ goes
; back to the interrupted code.

%include "arch/x86_64/pt_regs.inc"

extern do_trap

section .text
bits 64

%macro STUB_NOERR 1
	push qword 0
	push qword %1
	jmp trap_common
	align 16
%endmacro
%macro STUB_ERR 1
	push qword %1
	jmp trap_common
	align 16
%endmacro

	align 16
global trap_stubs
trap_stubs:
%assign v 0
%rep 256
%if v == 8 || (v >= 10 && v <= 14) || v == 17 || v == 21 || v == 29 || v == 30
	STUB_ERR v
%else
	STUB_NOERR v
%endif
%assign v v + 1
%endrep
global trap_stubs_end
trap_stubs_end:

; An exception or interrupt from user mode (CS's low bits 3) also swaps
; GS: to the per-CPU area on the way in, back to the user's on the way out.
;
; NMI, double fault and machine check (the IST vectors) can also arrive in
; the few kernel instructions where GS still holds the user's base (the
; first instruction of the syscall entry, the last ones before sysret or
; iretq), so for them the saved CS proves nothing: they read MSR_GS_BASE
; (the kernel's is a negative, higher-half address) and, when they had to
; swap, say so in bit 63 of their error code (0 for all three otherwise)
; for the way out. This is Linux's "paranoid entry".
MSR_GS_BASE equ 0xc0000101

%macro IF_PARANOID_VECTOR 1             ; jumps to %1 for vectors 2, 8, 18
	cmp qword [rsp], 2
	je %1
	cmp qword [rsp], 8
	je %1
	cmp qword [rsp], 18
	je %1
%endmacro

trap_common:
	IF_PARANOID_VECTOR .paranoid_entry
	test byte [rsp + 24], 3         ; the saved CS, above vector and error code
	jz .body
	swapgs
	jmp .body
.paranoid_entry:
	push rax
	push rcx
	push rdx
	mov ecx, MSR_GS_BASE
	rdmsr
	test edx, edx                   ; sign of the base's high half
	pop rdx                         ; (pops leave the flags alone)
	pop rcx
	pop rax
	js .body                        ; the kernel's base already
	swapgs
	bts qword [rsp + 8], 63         ; remember to swap back
.body:
	; The CPU keeps RFLAGS.AC on entry: clear it, so that SMAP guards the
	; handler too (iretq gives the interrupted code its own AC back).
	pushfq
	and qword [rsp], ~(1 << 18)
	popfq
	PUSH_REGS
	cld
	mov rdi, rsp
	call do_trap
	; Handlers may have turned interrupts on (page faults, a reschedule on
	; the way back to user mode): none may arrive between the swapgs below
	; and iretq, where GS is already the user's. iretq restores IF.
	cli
	POP_REGS
	btr qword [rsp + 8], 63         ; a paranoid entry that swapped
	jc .swap_out
	IF_PARANOID_VECTOR .no_swap     ; one that did not
	test byte [rsp + 24], 3         ; the saved CS
	jz .no_swap
.swap_out:
	swapgs
.no_swap:
	add rsp, 16                     ; vector and error code
	iretq

; int kernel_setjmp(struct jmp_buf *buf)  -- returns 0, or the longjmp value
; layout: rbx, rbp, r12, r13, r14, r15, rsp, rip, rflags
global kernel_setjmp
kernel_setjmp:
	mov [rdi + 0], rbx
	mov [rdi + 8], rbp
	mov [rdi + 16], r12
	mov [rdi + 24], r13
	mov [rdi + 32], r14
	mov [rdi + 40], r15
	lea rax, [rsp + 8]              ; rsp after our return
	mov [rdi + 48], rax
	mov rax, [rsp]                  ; return address
	mov [rdi + 56], rax
	pushfq
	pop qword [rdi + 64]
	xor eax, eax
	ret

; void kernel_longjmp(struct jmp_buf *buf, int val)  -- never returns
global kernel_longjmp
kernel_longjmp:
	mov eax, esi
	test eax, eax
	jnz .nonzero
	inc eax
.nonzero:
	mov rbx, [rdi + 0]
	mov rbp, [rdi + 8]
	mov r12, [rdi + 16]
	mov r13, [rdi + 24]
	mov r14, [rdi + 32]
	mov r15, [rdi + 40]
	mov rsp, [rdi + 48]
	push qword [rdi + 64]
	popfq
	jmp [rdi + 56]
