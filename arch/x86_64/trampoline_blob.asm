; The AP trampoline (trampoline.nasm, assembled flat into the build's
; folder, which the Makefile puts on the include path) embedded in the
; kernel image, for smpboot.c to copy below 1 MiB.
section .rodata
global trampoline_start, trampoline_end
align 16
trampoline_start:
	incbin "trampoline.bin"
trampoline_end:
