; The multiboot2 header and the 32-bit entry point.
;
; GRUB (on SeaBIOS and on OVMF alike) enters _start32 in 32-bit protected mode
; with paging off, EAX = multiboot2 magic and EBX = physical address of the
; multiboot2 information. This code checks that the CPU can run 64-bit code,
; builds throw-away page tables (identity and direct map of the first 4 GiB,
; and the kernel at -2 GiB), switches to long mode and jumps to the
; higher-half kernel. Everything here runs at its physical address; the kernel
; rebuilds its page tables in C (arch/x86_64/boot_paging.c) before anything
; else uses memory.

MB2_MAGIC        equ 0xe85250d6
MB2_BOOT_MAGIC   equ 0x36d76289
MB2_ARCH_I386    equ 0

KERNEL_VMA       equ 0xffffffff80000000

COM1             equ 0x3f8

extern start64

section .multiboot2 progbits alloc noexec nowrite align=8
mb2_header:
	dd MB2_MAGIC
	dd MB2_ARCH_I386
	dd mb2_header_end - mb2_header
	dd -(MB2_MAGIC + MB2_ARCH_I386 + (mb2_header_end - mb2_header))

	; Information request: all optional (flag 1), so that GRUB boots us
	; on firmware that cannot provide one of them (no EFI map on BIOS).
	align 8
.info_req:
	dw 1, 1
	dd .info_req_end - .info_req
	dd 1        ; boot command line
	dd 3        ; modules
	dd 6        ; memory map
	dd 14       ; ACPI old RSDP
	dd 15       ; ACPI new RSDP
	dd 17       ; EFI memory map
.info_req_end:

	; Entry address: the ELF entry is a higher-half address, which GRUB
	; cannot jump to from 32-bit mode.
	align 8
.entry:
	dw 3, 0
	dd 12
	dd _start32

	; Modules page aligned.
	align 8
.module_align:
	dw 6, 0
	dd 8

	align 8
.end:
	dw 0, 0
	dd 8
mb2_header_end:

section .boot.bss nobits alloc noexec write align=4096
global boot_pml4
boot_pml4:      resb 4096
boot_pdpt_low:  resb 4096        ; PML4[0] and PML4[273]: first 4 GiB
boot_pdpt_high: resb 4096        ; PML4[511]: -2 GiB -> physical 0
boot_pd:        resb 4096 * 4    ; 2 MiB pages for 0..4 GiB
boot_stack32:   resb 4096
boot_stack32_top:
boot_mb_magic:  resd 1
boot_mb_info:   resd 1

section .boot.data progbits alloc noexec write align=16
boot_gdt:
	dq 0
	dq 0x00af9a000000ffff            ; 0x08: 64-bit code
	dq 0x00cf92000000ffff            ; 0x10: data
boot_gdt_end:
boot_gdt_ptr:
	dw boot_gdt_end - boot_gdt - 1
	dq boot_gdt

msg_no_lm:  db "mmlab: this CPU cannot run 64-bit code (no long mode); halting", 13, 10, 0
msg_magic:  db "mmlab: not started by a multiboot2 loader; halting", 13, 10, 0

section .boot.text progbits alloc exec nowrite align=16
bits 32
global _start32
_start32:
	cli
	cld
	mov esp, boot_stack32_top
	mov [boot_mb_magic], eax
	mov [boot_mb_info], ebx

	cmp eax, MB2_BOOT_MAGIC
	jne .bad_magic

	; Long mode needs CPUID leaf 0x80000001 with the LM bit.
	mov eax, 0x80000000
	cpuid
	cmp eax, 0x80000001
	jb .no_long_mode
	mov eax, 0x80000001
	cpuid
	test edx, 1 << 29
	jz .no_long_mode
	mov ebp, edx                     ; keep: bit 20 = NX

	; Clear the page tables (NOLOAD section: not zeroed by the loader).
	mov edi, boot_pml4
	mov ecx, (boot_stack32 - boot_pml4) / 4
	xor eax, eax
	rep stosd

	; PD entries: 2048 x 2 MiB, present + writable + PS.
	mov edi, boot_pd
	mov eax, 0x83
	xor edx, edx
	mov ecx, 2048
.fill_pd:
	mov [edi], eax
	mov [edi + 4], edx
	add eax, 0x200000
	adc edx, 0
	add edi, 8
	loop .fill_pd

	; Low PDPT: four PDs.
	mov edi, boot_pdpt_low
	mov eax, boot_pd + 3
	mov ecx, 4
.fill_pdpt:
	mov [edi], eax
	add eax, 4096
	add edi, 8
	loop .fill_pdpt

	; High PDPT: entries 510, 511 -> first two PDs (0..2 GiB).
	mov dword [boot_pdpt_high + 510 * 8], boot_pd + 3
	mov dword [boot_pdpt_high + 511 * 8], boot_pd + 4096 + 3

	mov dword [boot_pml4 + 0 * 8], boot_pdpt_low + 3
	mov dword [boot_pml4 + 273 * 8], boot_pdpt_low + 3     ; 0xffff888000000000
	mov dword [boot_pml4 + 511 * 8], boot_pdpt_high + 3

	mov eax, cr4
	or eax, 1 << 5                   ; PAE
	mov cr4, eax
	mov eax, boot_pml4
	mov cr3, eax

	mov ecx, 0xc0000080              ; EFER
	rdmsr
	or eax, 1 << 8                   ; LME
	test ebp, 1 << 20
	jz .no_nx
	or eax, 1 << 11                  ; NXE
.no_nx:
	wrmsr

	mov eax, cr0
	or eax, (1 << 31) | (1 << 16) | 1   ; PG, WP, PE
	mov cr0, eax

	lgdt [boot_gdt_ptr]
	jmp 0x08:.long_mode

.no_long_mode:
	mov esi, msg_no_lm
	jmp .fail
.bad_magic:
	mov esi, msg_magic
.fail:
	; Minimal polled output on COM1 (the firmware or GRUB set it up).
	lodsb
	test al, al
	jz .halt
	mov bl, al
	mov dx, COM1 + 5
.wait:
	in al, dx
	test al, 0x20
	jz .wait
	mov dx, COM1
	mov al, bl
	out dx, al
	jmp .fail
.halt:
	hlt
	jmp .halt

bits 64
.long_mode:
	mov ax, 0x10
	mov ds, ax
	mov es, ax
	mov ss, ax
	xor ax, ax
	mov fs, ax
	mov gs, ax
	mov edi, [boot_mb_magic]
	mov esi, [boot_mb_info]
	mov rax, start64
	jmp rax
