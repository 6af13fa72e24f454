; The AP trampoline (trampoline.nasm, assembled flat into build/) embedded in
; the kernel image, for smpboot.c to copy below 1 MiB.
section .rodata
global trampoline_start, trampoline_end
align 16
trampoline_start:
	incbin "build/trampoline.bin"
trampoline_end:
