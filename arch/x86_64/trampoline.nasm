; The application processors' first instructions. This file is assembled as
; a flat binary (nasm -f bin) and copied by smpboot.c into a free page below
; 1 MiB (taken from memblock at boot); the STARTUP IPI starts an AP in real
; mode at that page's first byte, with CS = page >> 4 and IP = 0.
;
; It goes real mode -> protected mode -> long mode with the kernel's own
; page tables (which, while APs start, also identity-map this page) and
; jumps to the kernel entry with the stack and CPU number smpboot.c left in
; the parameter block at the end of the page. Everything is addressed
; relative to the page: EBX holds its physical address once the block is
; claimed (below).
;
; The block is for one CPU at a time, named by its APIC id. Before touching
; anything, an AP claims the block by swapping that id for CLAIMED; an AP
; that finds another id (the block is for another CPU, or the boot CPU gave
; up on this one) halts here for good. A STARTUP IPI can be taken late: an
; AP that was slow to run (a vCPU thread the host did not schedule) can have
; INIT and STARTUP pending together, so the INIT that smpboot.c sends to
; park it is merged with the first one and the AP still starts, after its
; time ran out. Without the claim it read the parameters of the next CPU
; being started and ran as a second copy of that CPU, on its stack.

bits 16
org 0

PARAM_CLAIMED equ 0xffffffff          ; TRAMPOLINE_CLAIMED in smpboot.c

tramp_start:
	cli
	cld
	mov ax, cs
	mov ds, ax

	; This CPU's APIC id: the x2APIC id (CPUID leaf 0xb) when the CPU has
	; that leaf, else the initial APIC id (leaf 1, EBX bits 31:24).
	xor eax, eax
	cpuid
	cmp eax, 0xb
	jb .leaf1
	mov eax, 0xb
	xor ecx, ecx
	cpuid
	test ebx, ebx                   ; no processors at level 0: no such leaf
	jz .leaf1
	mov eax, edx
	jmp .claim
.leaf1:
	mov eax, 1
	cpuid
	shr ebx, 24
	mov eax, ebx
.claim:
	mov ecx, PARAM_CLAIMED
	lock cmpxchg [param_apic_id], ecx
	jne park

	mov ax, cs
	movzx ebx, ax
	shl ebx, 4                      ; ebx = physical address of this page

	; Patch the GDT pointer and the far-jump target with the real base.
	lea eax, [ebx + tramp_gdt]
	mov [tramp_gdt_ptr + 2], eax
	lea eax, [ebx + pm32]
	mov [pm32_target], eax
	lea eax, [ebx + lm64]
	mov [lm64_target], eax

	lgdt [tramp_gdt_ptr]
	mov eax, cr0
	or eax, 1
	mov cr0, eax
	; 32-bit far jump: 66 EA <offset32> <selector16>
	db 0x66, 0xea
pm32_target:
	dd 0
	dw 0x08

bits 32
pm32:
	mov ax, 0x10
	mov ds, ax
	mov es, ax
	mov ss, ax

	mov eax, cr4
	or eax, (1 << 5) | (1 << 7)     ; PAE, PGE
	mov cr4, eax
	mov eax, [ebx + param_cr3]
	mov cr3, eax

	mov ecx, 0xc0000080             ; EFER
	rdmsr
	or eax, (1 << 8)                ; LME
	or eax, [ebx + param_efer_nx]   ; NXE when the CPU has NX
	wrmsr

	mov eax, cr0
	or eax, (1 << 31) | (1 << 16) | 1 ; PG, WP, PE
	mov cr0, eax

	; No stack yet: a far jump with the target patched above.
	db 0xea
lm64_target:
	dd 0
	dw 0x18

bits 64
lm64:
	mov ax, 0x10
	mov ds, ax
	mov es, ax
	mov ss, ax
	mov rsp, [rbx + param_stack]
	mov edi, [rbx + param_cpu]
	xor ebp, ebp
	mov rax, [rbx + param_entry]
	; Tell the boot CPU the parameters are read: it may reuse them now.
	mov dword [rbx + param_ack], 1
	jmp rax

; Not this CPU's parameters: stay out of the way (interrupts off, nothing
; written). Real mode, so an NMI finds the firmware's vector table.
bits 16
park:
	cli
	hlt
	jmp park

align 16
tramp_gdt:
	dq 0
	dq 0x00cf9a000000ffff           ; 0x08: 32-bit code
	dq 0x00cf92000000ffff           ; 0x10: data
	dq 0x00af9a000000ffff           ; 0x18: 64-bit code
tramp_gdt_end:
tramp_gdt_ptr:
	dw tramp_gdt_end - tramp_gdt - 1
	dd 0

; The parameter block, filled by smpboot.c (layout: struct trampoline_params).
align 8
global_params:
param_cr3:      dd 0
param_efer_nx:  dd 0
param_stack:    dq 0
param_entry:    dq 0
param_cpu:      dd 0
param_ack:      dd 0
param_apic_id:  dd 0
param_pad:      dd 0
