; Page clearing routines: every way mmlab knows to zero memory, so the
; policy in mm/clear_page.c can choose one per extent and the host
; benchmark (tests/host/bench_clear_page.c) can time the very same bytes
; natively. This file is assembled twice, for the kernel and for the host:
; nothing in it is privileged, and it touches no memory but the destination.
;
; Each method has an extent form, clear_pages_<m>(void *addr, unsigned long
; npages), and a one-page form, clear_page_<m>(void *page). addr is
; page-aligned; npages may be 0. System V ABI: rdi, rsi in; rax, rcx, rdx,
; rsi, rdi clobbered (all caller-saved); no stack used.
;
;   orig    unrolled 8-byte MOV stores, 64 bytes a loop (Linux's
;           clear_page_orig, for CPUs without fast string stores)
;   rep     REP STOSQ (Linux's clear_page_rep, X86_FEATURE_REP_GOOD)
;   erms    REP STOSB (Linux's clear_page_erms, X86_FEATURE_ERMS); the
;           extent form over a whole range is the 2026 method: Linux's
;           clear_pages() lets the CPU see the full length in one string
;           store, which AMD Zen turns into stores that do not allocate
;           cache lines once the length is large
;   movnt   MOVNTI, 8-byte non-temporal stores (Ankur Arora's 2021 series,
;           "x86/asm: add uncached page clearing")
;   clzero  CLZERO, AMD's zero-a-cache-line instruction (same series,
;           "x86/asm: add clzero based page clearing"); the caller checks
;           X86_FEATURE_CLZERO first
;
; movnt and clzero are weakly ordered: their zeroes may still sit in
; write-combining buffers when the routine returns, where another CPU
; (or this one's page walker) does not see them. clear_page_sfence() orders
; them before every later store, such as the PTE that maps the page; the C
; side (mm/clear_page.h) gives their destination a type of its own so the
; fence cannot be forgotten quietly.

PAGE_SIZE equ 4096

section .text
bits 64

; void clear_page_orig(void *page)
global clear_page_orig
clear_page_orig:
	mov esi, 1
; void clear_pages_orig(void *addr, unsigned long npages)
global clear_pages_orig
clear_pages_orig:
	shl rsi, 6		; 64-byte loops: 64 per page
	jz .done
	xor eax, eax
.loop:
	mov [rdi], rax
	mov [rdi + 8], rax
	mov [rdi + 16], rax
	mov [rdi + 24], rax
	mov [rdi + 32], rax
	mov [rdi + 40], rax
	mov [rdi + 48], rax
	mov [rdi + 56], rax
	lea rdi, [rdi + 64]
	dec rsi
	jnz .loop
.done:
	ret

; void clear_page_rep(void *page)
global clear_page_rep
clear_page_rep:
	mov esi, 1
; void clear_pages_rep(void *addr, unsigned long npages)
global clear_pages_rep
clear_pages_rep:
	mov rcx, rsi
	shl rcx, 9		; 512 quadwords per page
	xor eax, eax
	rep stosq
	ret

; void clear_page_erms(void *page)
global clear_page_erms
clear_page_erms:
	mov esi, 1
; void clear_pages_erms(void *addr, unsigned long npages)
global clear_pages_erms
clear_pages_erms:
	mov rcx, rsi
	shl rcx, 12		; bytes
	xor eax, eax
	rep stosb
	ret

; void clear_page_movnt(void *page)
global clear_page_movnt
clear_page_movnt:
	mov esi, 1
; void clear_pages_movnt(void *addr, unsigned long npages)
global clear_pages_movnt
clear_pages_movnt:
	shl rsi, 6
	jz .done
	xor eax, eax
.loop:
	movnti [rdi], rax
	movnti [rdi + 8], rax
	movnti [rdi + 16], rax
	movnti [rdi + 24], rax
	movnti [rdi + 32], rax
	movnti [rdi + 40], rax
	movnti [rdi + 48], rax
	movnti [rdi + 56], rax
	lea rdi, [rdi + 64]
	dec rsi
	jnz .loop
.done:
	ret

; void clear_page_clzero(void *page)
global clear_page_clzero
clear_page_clzero:
	mov esi, 1
; void clear_pages_clzero(void *addr, unsigned long npages)
; CLZERO takes its address in rAX and zeroes the 64-byte line holding it.
global clear_pages_clzero
clear_pages_clzero:
	mov rax, rdi
	shl rsi, 6
	jz .done
.loop:
	db 0x0f, 0x01, 0xfc	; clzero (spelled out: not every assembler knows it)
	add rax, 64
	dec rsi
	jnz .loop
.done:
	ret

; void clear_page_sfence(void): makes the movnt and clzero stores before it
; globally visible before any store after it.
global clear_page_sfence
clear_page_sfence:
	sfence
	ret

; No executable stack wanted (the host link warns without this note).
section .note.GNU-stack noalloc noexec nowrite progbits
