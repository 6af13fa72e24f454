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
; iretq), so for them the saved CS proves nothing. This is Linux's
; "paranoid entry" (arch/x86/entry/entry_64.S paranoid_entry/paranoid_exit),
; in its two forms:
;
; - CR4.FSGSBASE on (this CPU has it): user mode may `wrgsbase` any
;   canonical value, a kernel-half one too, so no value of the GS base
;   tells whose it is. As Linux's SAVE_AND_SET_GSBASE: save the current
;   base with rdgsbase, write this CPU's per-CPU base with wrgsbase
;   unconditionally, and write the saved one back on the way out. The
;   per-CPU base is found without GS: load_per_cpu_base keeps it in the
;   word at the top of each of the CPU's IST stacks (gdt.h,
;   IST_GSBASE_SLOT), just above the frame the CPU pushes there.
; - CR4.FSGSBASE off: the GS base changes only through the kernel, which
;   refuses user bases in the kernel half (arch_prctl), so the sign of
;   MSR_GS_BASE says whose it is (the kernel's is negative): swapgs when
;   it is the user's, and swapgs back on the way out.
;
; The paranoid path keeps what it must undo in callee-saved registers
; across do_trap, as Linux does: r12 the way out (0 swapgs, 1 nothing,
; 2 wrgsbase), rbx the saved GS base. pt_regs has the interrupted values.
MSR_GS_BASE equ 0xc0000101
X86_CR4_FSGSBASE_BIT equ 16
; From pt_regs.r15 (rsp after PUSH_REGS): 15 registers, vector, error
; code and the CPU's 5-word frame, then the IST stack's top word.
IST_GSBASE_SLOT_OFFSET equ (15 + 2 + 5) * 8

%macro IF_PARANOID_VECTOR 1             ; jumps to %1 for vectors 2, 8, 18
	cmp qword [rsp], 2
	je %1
	cmp qword [rsp], 8
	je %1
	cmp qword [rsp], 18
	je %1
%endmacro

; The CPU keeps RFLAGS.AC on entry: clear it, so that SMAP guards the
; handler too (iretq gives the interrupted code its own AC back).
%macro CLEAR_AC 0
	pushfq
	and qword [rsp], ~(1 << 18)
	popfq
%endmacro

trap_common:
	IF_PARANOID_VECTOR paranoid_entry
	test byte [rsp + 24], 3         ; the saved CS, above vector and error code
	jz .body
	swapgs
.body:
	CLEAR_AC
	PUSH_REGS
	cld
	mov rdi, rsp
	call do_trap
	; Handlers may have turned interrupts on (page faults, a reschedule on
	; the way back to user mode): none may arrive between the swapgs below
	; and iretq, where GS is already the user's. iretq restores IF.
	cli
	POP_REGS
	test byte [rsp + 24], 3         ; the saved CS
	jz .no_swap
	swapgs
.no_swap:
	add rsp, 16                     ; vector and error code
	iretq

paranoid_entry:
	CLEAR_AC
	PUSH_REGS
	cld
	mov rax, cr4
	bt eax, X86_CR4_FSGSBASE_BIT
	jnc .check_gs
	; SAVE_AND_SET_GSBASE
	mov r12d, 2
	rdgsbase rbx
	mov rax, [rsp + IST_GSBASE_SLOT_OFFSET]
	wrgsbase rax
	jmp .call
.check_gs:
	mov r12d, 1                     ; the kernel's base already: nothing to undo
	mov ecx, MSR_GS_BASE
	rdmsr
	test edx, edx                   ; sign of the base's high half
	js .call
	xor r12d, r12d
	swapgs
.call:
	mov rdi, rsp
	call do_trap                    ; NMI, #DF, #MC: never turns interrupts on
	cmp r12d, 1
	je .restore
	jb .swap_out
	wrgsbase rbx                    ; the interrupted code's base, whoever's
	jmp .restore
.swap_out:
	swapgs
.restore:
	POP_REGS
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
