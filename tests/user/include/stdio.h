/* Formatted output to the console: stdout is line buffered, stderr is not
 * buffered (as glibc does on a terminal); exit() flushes. There is no input
 * side and no file streams beyond these two: programs read files with
 * open/read. printf knows %d %i %u %x %X %o %c %s %p %% %f %F %e %E %g %G
 * %a %A (exact at any precision, as glibc prints them), with flags "-+ 0#",
 * width, precision, '*', and the length modifiers hh h l ll z t j L. A long
 * double (L) is formatted as the nearest double: %La prints that double's
 * "0x1p+0" where glibc prints the 64-bit "0x8p-3". */
#ifndef _STDIO_H
#define _STDIO_H

#include <stdarg.h>
#include <stddef.h>

typedef struct mmlab_file FILE;

extern FILE *stdin;
extern FILE *stdout;
extern FILE *stderr;

#define EOF (-1)
#define BUFSIZ 4096

#define _IOFBF 0
#define _IOLBF 1
#define _IONBF 2

int printf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
int fprintf(FILE *f, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
int sprintf(char *buf, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
int snprintf(char *buf, size_t size, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
int vprintf(const char *fmt, va_list ap) __attribute__((format(printf, 1, 0)));
int vfprintf(FILE *f, const char *fmt, va_list ap) __attribute__((format(printf, 2, 0)));
int vsnprintf(char *buf, size_t size, const char *fmt, va_list ap) __attribute__((format(printf, 3, 0)));
int puts(const char *s);
int fputs(const char *s, FILE *f);
int putchar(int c);
int fputc(int c, FILE *f);
int putc(int c, FILE *f);
int fflush(FILE *f);
/* The library's exit path (lib/start.c): flushes stdout and stderr. */
void __mmlab_stdio_flush_all(void);
int setvbuf(FILE *f, char *buf, int mode, size_t size);
void perror(const char *s);

#endif
