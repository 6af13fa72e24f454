; The context switch between two kernel threads, and where a new thread
; starts.
;
; A switched-out task's stack holds, from its saved rsp upwards:
;   r15 r14 r13 r12 rbx rbp rflags return-address
; (the callee-saved registers of the System V ABI, and rflags so that each
; task gets its own interrupt flag back). Everything else is caller-saved,
; so the C caller of __switch_to_asm has already given it up. The stack
; pointer itself is kept in task_struct.thread_sp (offset 0).
;
; Invariant: a task is switched (in and out) only by schedule(), with
; interrupts off and its run queue's lock held; the task switched to
; releases the lock (finish_task_switch).

TASK_THREAD_SP equ 0

extern schedule_tail
extern kthread_entry

section .text
bits 64

; struct task_struct *__switch_to_asm(struct task_struct *prev, struct task_struct *next)
; Returns, in the context of next, the task that was switched away from to
; get there ("last"), which is what finish_task_switch needs.
global __switch_to_asm
__switch_to_asm:
	pushfq
	push rbp
	push rbx
	push r12
	push r13
	push r14
	push r15
	mov [rdi + TASK_THREAD_SP], rsp
	mov rsp, [rsi + TASK_THREAD_SP]
	pop r15
	pop r14
	pop r13
	pop r12
	pop rbx
	pop rbp
	popfq
	mov rax, rdi
	ret

; Where a new thread's first switch "returns" to: rax = the previous task,
; rbx = the new task (put in its initial frame by kthread_create_on_cpu).
; rsp is 16-byte aligned here.
global ret_from_kthread
ret_from_kthread:
	mov rdi, rax
	call schedule_tail          ; unlock the run queue, interrupts on
	mov rdi, rbx
	call kthread_entry          ; runs threadfn, then do_exit(); never returns
	ud2
