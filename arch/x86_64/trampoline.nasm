; The application processors' first instructions. This file is assembled as
; a flat binary (nasm -f bin) and copied by smpboot.c into a free page below
; 1 MiB (taken from memblock at boot); the STARTUP IPI starts an AP in real
; mode at that page's first byte, with CS = page >> 4 and IP = 0.
;
; It goes real mode -> protected mode -> long mode with the kernel's own
; page tables (which, while APs start, also identity-map this page) and
; jumps to the kernel entry with the stack and CPU number of its slot in the
; parameter block at the end of the page. Everything is addressed relative
; to the page: EBX holds its physical address once a slot is claimed.
;
; Every AP runs this at the same time (smpboot.c starts them all, then
; waits once), so nothing here is shared but what smpboot.c wrote before
; the first STARTUP IPI: the block's far pointers and GDT pointer (already
; holding this page's address) and one slot per CPU number. An AP finds its
; slot by its own APIC id, as Linux's head_64.S finds its CPU number in
; cpuid_to_apicid[] when smpboot_control says STARTUP_READ_APICID, and
; claims it by swapping ARMED for CLAIMED; an AP that finds no slot of its
; own, or one that is not ARMED (the boot CPU gave up on it and withdrew
; it), halts here for good, having written nothing. A STARTUP IPI can be
; taken late: an AP that was slow to run (a vCPU thread the host did not
; schedule) can have INIT and STARTUP pending together, so the INIT that
; smpboot.c sends to park it is merged with the first one and the AP still
; starts, after its time ran out. The claim is made in real mode, before
; this page's identity mapping (gone after boot) is needed.

bits 16
org 0

NR_SLOTS equ 64                      ; NR_CPUS (kernel/topology.h)
SLOT_SIZE equ 16                     ; struct trampoline_slot
SLOT_APIC_ID equ 0
SLOT_STATE equ 4
SLOT_STACK equ 8
SLOT_ARMED equ 1                     ; enum trampoline_slot_state in smpboot.c
SLOT_CLAIMED equ 2

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
	jmp .find
.leaf1:
	mov eax, 1
	cpuid
	shr ebx, 24
	mov eax, ebx

	; The slot for this APIC id; its index is the CPU number.
.find:
	mov si, param_slots
	mov cx, NR_SLOTS
.next:
	cmp [si + SLOT_APIC_ID], eax
	je .claim
	add si, SLOT_SIZE
	loop .next
	jmp park
.claim:
	mov eax, SLOT_ARMED
	mov edx, SLOT_CLAIMED
	lock cmpxchg [si + SLOT_STATE], edx
	jne park

	movzx esi, si                   ; esi = this CPU's slot, in the page
	mov ax, cs
	movzx ebx, ax
	shl ebx, 4                      ; ebx = physical address of this page

	o32 lgdt [param_gdt]
	mov eax, cr0
	or eax, 1
	mov cr0, eax
	jmp dword far [param_pm32]

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

	; No stack yet: a far jump through the block.
	jmp far [ebx + param_lm64]

bits 64
lm64:
	mov ax, 0x10
	mov ds, ax
	mov es, ax
	mov ss, ax
	mov ebx, ebx                    ; the upper halves are undefined here
	mov esi, esi
	mov rsp, [rbx + rsi + SLOT_STACK]
	lea edi, [esi - param_slots]
	shr edi, 4                      ; the CPU number (SLOT_SIZE is 16)
	xor ebp, ebp
	; ap_start itself tells the boot CPU it has left this page (through
	; the kernel's own mapping of it, which stays).
	jmp [rbx + param_entry]

; Not this CPU's slot: stay out of the way (interrupts off, nothing
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

; The parameter block (layout: struct trampoline_params). The far pointers
; and the GDT's base are assembled as offsets in this page; smpboot.c adds
; the page's physical address once, before any AP starts. The rest it fills.
align 8
params:
param_cr3:      dd 0
param_efer_nx:  dd 0
param_entry:    dq 0
param_pm32:     dd pm32
		dw 0x08
param_gdt:      dw tramp_gdt_end - tramp_gdt - 1
		dd tramp_gdt
param_lm64:     dd lm64
		dw 0x18
		dw 0
		dd 0
param_slots:    times NR_SLOTS * SLOT_SIZE db 0

