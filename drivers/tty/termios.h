/* The terminal's settings as user space sees them: struct termios and
 * struct winsize, their flag bits, the c_cc indices and the tty ioctl
 * numbers, with Linux x86_64's values (include/uapi/asm-generic/termbits.h,
 * termbits-common.h, ioctls.h). tty_std_termios is the default of a new
 * terminal (drivers/tty/tty_io.c). */
#ifndef DRIVERS_TTY_TERMIOS_H
#define DRIVERS_TTY_TERMIOS_H

#include "kernel/types.h"

#define NCCS 19
typedef u32 tcflag_t;
typedef u8 cc_t;

/* The kernel's struct termios (TCGETS/TCSETS copy it whole). mmlab keeps
 * no separate input and output speed (Linux's ktermios c_ispeed and
 * c_ospeed, which only TCGETS2 shows): the speed is the CBAUD bits. */
struct termios {
	tcflag_t c_iflag, c_oflag, c_cflag, c_lflag;
	cc_t c_line;
	cc_t c_cc[NCCS];
};

struct winsize {
	unsigned short ws_row, ws_col, ws_xpixel, ws_ypixel;
};

/* c_cc indices */
#define VINTR 0
#define VQUIT 1
#define VERASE 2
#define VKILL 3
#define VEOF 4
#define VTIME 5
#define VMIN 6
#define VSWTC 7
#define VSTART 8
#define VSTOP 9
#define VSUSP 10
#define VEOL 11
#define VREPRINT 12
#define VDISCARD 13
#define VWERASE 14
#define VLNEXT 15
#define VEOL2 16

/* c_iflag */
#define IGNBRK 0000001
#define BRKINT 0000002
#define IGNPAR 0000004
#define PARMRK 0000010
#define INPCK 0000020
#define ISTRIP 0000040
#define INLCR 0000100
#define IGNCR 0000200
#define ICRNL 0000400
#define IUCLC 0001000
#define IXON 0002000
#define IXANY 0004000
#define IXOFF 0010000
#define IMAXBEL 0020000
#define IUTF8 0040000

/* c_oflag */
#define OPOST 0000001
#define OLCUC 0000002
#define ONLCR 0000004
#define OCRNL 0000010
#define ONOCR 0000020
#define ONLRET 0000040
#define TABDLY 0014000
#define XTABS 0014000

/* c_cflag */
#define CBAUD 0010017
#define B38400 0000017
#define B115200 0010002
#define CSIZE 0000060
#define CS8 0000060
#define CSTOPB 0000100
#define CREAD 0000200
#define PARENB 0000400
#define HUPCL 0002000
#define CLOCAL 0004000

/* c_lflag */
#define ISIG 0000001
#define ICANON 0000002
#define ECHO 0000010
#define ECHOE 0000020
#define ECHOK 0000040
#define ECHONL 0000100
#define NOFLSH 0000200
#define TOSTOP 0000400
#define ECHOCTL 0001000
#define ECHOPRT 0002000
#define ECHOKE 0004000
#define FLUSHO 0010000
#define PENDIN 0040000
#define IEXTEN 0100000
#define EXTPROC 0200000

/* tty ioctls (asm-generic/ioctls.h) */
#define TCGETS 0x5401
#define TCSETS 0x5402
#define TCSETSW 0x5403
#define TCSETSF 0x5404
#define TCSBRK 0x5409
#define TCXONC 0x540A
#define TCFLSH 0x540B
#define TIOCSCTTY 0x540E
#define TIOCGPGRP 0x540F
#define TIOCSPGRP 0x5410
#define TIOCOUTQ 0x5411
#define TIOCGWINSZ 0x5413
#define TIOCSWINSZ 0x5414
#define FIONREAD 0x541B
#define TIOCINQ FIONREAD
#define TIOCNOTTY 0x5422
#define TIOCGSID 0x5429

/* TCFLSH and TCXONC arguments */
#define TCIFLUSH 0
#define TCOFLUSH 1
#define TCIOFLUSH 2
#define TCOOFF 0
#define TCOON 1
#define TCIOFF 2
#define TCION 3

/* Linux's tty_std_termios: ICRNL|IXON, OPOST|ONLCR, B38400|CS8|CREAD|
 * HUPCL, ISIG|ICANON|ECHO|ECHOE|ECHOK|ECHOCTL|ECHOKE|IEXTEN, INIT_C_CC
 * (^C ^\ DEL ^U ^D 0 1 0 ^Q ^S ^Z 0 ^R ^O ^W ^V 0). */
extern const struct termios tty_std_termios;

#endif
