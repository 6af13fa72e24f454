; The user/kernel boundary: the syscall entry, the way back to user mode,
; and the first entry into user mode of a new process.
;
; On `syscall` the CPU saves the user rip in rcx and rflags in r11, loads
; the kernel CS/SS from STAR and masks rflags with SYSCALL_MASK (interrupts
; off), but leaves rsp and the GS base as user mode had them. The entry
; swaps GS to the per-CPU area, switches to the current task's kernel stack
; (per-CPU top_of_stack, kept equal to TSS.rsp0 by the scheduler) and builds
; the same struct pt_regs as an exception (arch/x86_64/traps.h), with
; vector = SYSCALL_VECTOR_MARK and error_code = the system-call number, so
; a fault report or a kill inside a system call reads the same frame.
;
; Invariant: user mode always runs with the user GS base loaded and the
; kernel always with the per-CPU one; every path from user to kernel (here,
; trap_common in entry.asm) swaps exactly once in and once out, except the
; paranoid entry (NMI, #DF, #MC) with CR4.FSGSBASE on, which saves the live
; base with rdgsbase, loads the kernel's and restores the saved one on exit
; (entry.asm).

%include "arch/x86_64/pt_regs.inc"

extern do_syscall_entry

PERCPU_TOP_OF_STACK equ 8       ; struct cpu_entry_area (gdt.h), right after this_cpu_off
PERCPU_USER_RSP     equ 16
USER_DS             equ 0x2b
USER_CS             equ 0x33
SYSCALL_MARK        equ 0x100   ; pt_regs.vector of a system call (not a real vector)
TASK_SIZE_MAX       equ 0x00007ffffffff000
X86_EFLAGS_TF       equ 0x100
X86_EFLAGS_RF       equ 0x10000

section .text
bits 64

global entry_SYSCALL_64
entry_SYSCALL_64:
	swapgs
	mov [gs:PERCPU_USER_RSP], rsp
	mov rsp, [gs:PERCPU_TOP_OF_STACK]
	push qword USER_DS              ; ss
	push qword [gs:PERCPU_USER_RSP] ; rsp
	push r11                        ; rflags
	push qword USER_CS              ; cs
	push rcx                        ; rip
	push rax                        ; error_code: the system-call number
	push qword SYSCALL_MARK         ; vector
	PUSH_REGS
	xor ebp, ebp                    ; the backtrace ends here
	cld
	mov rdi, rsp
	call do_syscall_entry           ; interrupts on inside; off again on return
	; Back to user mode. sysret needs rip in rcx and rflags in r11 and
	; cannot return to a non-canonical rip (it would fault in ring 0), so
	; anything unusual goes through iretq: a return address that is not a
	; plain user one, and (Linux's syscall_exit_to_user_mode checks) a
	; frame whose rcx and r11 are not the rip and rflags sysret would put
	; there, or whose rflags has RF or TF set: a signal handler's entry,
	; a restarted call, or rt_sigreturn to an interrupted context.
	mov rcx, [rsp + 17 * 8]         ; pt_regs.rip
	mov r11, TASK_SIZE_MAX
	cmp rcx, r11
	jae .return_via_iret
	cmp rcx, [rsp + 11 * 8]         ; pt_regs.rcx
	jne .return_via_iret
	mov r11, [rsp + 19 * 8]         ; pt_regs.rflags
	cmp r11, [rsp + 6 * 8]          ; pt_regs.r11
	jne .return_via_iret
	test r11, X86_EFLAGS_RF | X86_EFLAGS_TF
	jnz .return_via_iret
	pop r15
	pop r14
	pop r13
	pop r12
	pop rbp
	pop rbx
	add rsp, 8                      ; r11: from pt_regs.rflags below
	pop r10
	pop r9
	pop r8
	pop rax
	add rsp, 8                      ; rcx: from pt_regs.rip below
	pop rdx
	pop rsi
	pop rdi
	add rsp, 16                     ; vector, error_code
	mov rcx, [rsp]                  ; rip
	mov r11, [rsp + 16]             ; rflags
	mov rsp, [rsp + 24]             ; the user stack
	swapgs
	o64 sysret
.return_via_iret:
	POP_REGS
	add rsp, 16
	swapgs
	iretq

; A system call from 32-bit compatibility mode (a program that switched to
; the 32-bit user code segment): not supported, returns -ENOSYS without
; touching anything.
global entry_SYSCALL_compat
entry_SYSCALL_compat:
	mov eax, -38
	sysret

; void enter_user_mode(u64 rip, u64 rsp) -- never returns.
; The first entry of a new process: every register zeroed (nothing of the
; kernel leaks), interrupts on in user mode.
global enter_user_mode
enter_user_mode:
	cli
	push qword USER_DS              ; ss
	push rsi                        ; rsp
	push qword 0x202                ; rflags: IF
	push qword USER_CS              ; cs
	push rdi                        ; rip
	xor eax, eax
	xor ebx, ebx
	xor ecx, ecx
	xor edx, edx
	xor esi, esi
	xor edi, edi
	xor ebp, ebp
	xor r8d, r8d
	xor r9d, r9d
	xor r10d, r10d
	xor r11d, r11d
	xor r12d, r12d
	xor r13d, r13d
	xor r14d, r14d
	xor r15d, r15d
	swapgs
	iretq

; void ret_from_fork_user(const struct pt_regs *regs) -- never returns.
; A new thread's first entry into user mode (kernel/fork.c, Linux's
; ret_from_fork): every register from regs, a copy of the parent's
; system-call frame with rax = 0 and the new stack, which the caller keeps
; on its own kernel stack (abandoned by the iretq).
global ret_from_fork_user
ret_from_fork_user:
	cli
	mov rsp, rdi
	POP_REGS
	add rsp, 16                     ; vector, error_code
	swapgs
	iretq

; void call_on_stack(void *sp, void (*fn)(void *), void *arg) -- never returns.
; Runs fn(arg) on the stack below sp (16-byte aligned), abandoning the
; caller's frames: a new thread's first kernel code moves below the place
; its user registers take at the top of its kernel stack (task_pt_regs),
; which its first frames occupied (kernel/fork.c).
global call_on_stack
call_on_stack:
	mov rsp, rdi
	and rsp, -16
	mov rdi, rdx
	call rsi
	ud2
