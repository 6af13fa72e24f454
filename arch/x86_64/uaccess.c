/* User-memory copies (see uaccess.h): instructions listed in the
 * exception table; a fault the page-fault handler cannot resolve resumes at
 * the fixup with rcx holding the bytes left. */
#include "arch/x86_64/asm.h"
#include "arch/x86_64/uaccess.h"
#include "lib/string.h"

bool smap_enabled;

/* The exception-table entries of a round's eight moves, all resuming at
 * the same fixup. */
#define EXTABLE_8(l0, l1, l2, l3, l4, l5, l6, l7, to)                                            \
	_ASM_EXTABLE(l0, to) _ASM_EXTABLE(l1, to) _ASM_EXTABLE(l2, to) _ASM_EXTABLE(l3, to)  \
	_ASM_EXTABLE(l4, to) _ASM_EXTABLE(l5, to) _ASM_EXTABLE(l6, to) _ASM_EXTABLE(l7, to)

/* Linux 6.1's copy_user_generic_unrolled (arch/x86/lib/copy_user_64.S):
 * 64 bytes a round in eight 8-byte moves, the tail with REP MOVSB. A fault
 * in a round goes to the REP MOVSB from the round's start: it copies again
 * what the round had copied and stops at the first byte that faults, so
 * rcx is exactly the bytes not copied. Under QEMU's TCG, which runs REP
 * MOVSB one byte per pass through its translation block, a round is
 * twenty instructions where REP MOVSB took sixty-four passes (a read(2)
 * of 64 KiB was 65,536). */
static unsigned long copy_user_bytes(void *to, const void *from, unsigned long n)
{
	stac();
	__asm__ volatile("	cmp $64, %%rcx\n"
			 "	jb 30f\n"
			 "1:\n"
			 "10:	mov 0(%%rsi), %%r8\n"
			 "11:	mov 8(%%rsi), %%r9\n"
			 "12:	mov 16(%%rsi), %%r10\n"
			 "13:	mov 24(%%rsi), %%r11\n"
			 "14:	mov %%r8, 0(%%rdi)\n"
			 "15:	mov %%r9, 8(%%rdi)\n"
			 "16:	mov %%r10, 16(%%rdi)\n"
			 "17:	mov %%r11, 24(%%rdi)\n"
			 "18:	mov 32(%%rsi), %%r8\n"
			 "19:	mov 40(%%rsi), %%r9\n"
			 "20:	mov 48(%%rsi), %%r10\n"
			 "21:	mov 56(%%rsi), %%r11\n"
			 "22:	mov %%r8, 32(%%rdi)\n"
			 "23:	mov %%r9, 40(%%rdi)\n"
			 "24:	mov %%r10, 48(%%rdi)\n"
			 "25:	mov %%r11, 56(%%rdi)\n"
			 "	add $64, %%rsi\n"
			 "	add $64, %%rdi\n"
			 "	sub $64, %%rcx\n"
			 "	cmp $64, %%rcx\n"
			 "	jae 1b\n"
			 "30:	rep movsb\n"
			 "31:\n"
			 EXTABLE_8(10b, 11b, 12b, 13b, 14b, 15b, 16b, 17b, 30b)
			 EXTABLE_8(18b, 19b, 20b, 21b, 22b, 23b, 24b, 25b, 30b)
			 _ASM_EXTABLE(30b, 31b)
			 : "+D"(to), "+S"(from), "+c"(n)
			 :
			 : "r8", "r9", "r10", "r11", "memory", "cc");
	clac();
	return n;
}

unsigned long copy_from_user(void *to, const void *from, unsigned long n)
{
	if (!access_ok(from, n))
		return n;
	return copy_user_bytes(to, from, n);
}

unsigned long copy_to_user(void *to, const void *from, unsigned long n)
{
	if (!access_ok(to, n))
		return n;
	return copy_user_bytes(to, from, n);
}

unsigned long clear_user(void *to, unsigned long n)
{
	if (!access_ok(to, n))
		return n;
	/* Rounds of eight 8-byte stores, then REP STOSB, as copy_user_bytes
	 * (REP STOSB alone is a pass per byte under TCG: a read of a file's
	 * hole cleared a page so). */
	stac();
	__asm__ volatile("	cmp $64, %%rcx\n"
			 "	jb 30f\n"
			 "1:\n"
			 "10:	mov %%rax, 0(%%rdi)\n"
			 "11:	mov %%rax, 8(%%rdi)\n"
			 "12:	mov %%rax, 16(%%rdi)\n"
			 "13:	mov %%rax, 24(%%rdi)\n"
			 "14:	mov %%rax, 32(%%rdi)\n"
			 "15:	mov %%rax, 40(%%rdi)\n"
			 "16:	mov %%rax, 48(%%rdi)\n"
			 "17:	mov %%rax, 56(%%rdi)\n"
			 "	add $64, %%rdi\n"
			 "	sub $64, %%rcx\n"
			 "	cmp $64, %%rcx\n"
			 "	jae 1b\n"
			 "30:	rep stosb\n"
			 "31:\n"
			 EXTABLE_8(10b, 11b, 12b, 13b, 14b, 15b, 16b, 17b, 30b)
			 _ASM_EXTABLE(30b, 31b)
			 : "+D"(to), "+c"(n)
			 : "a"(0)
			 : "memory", "cc");
	clac();
	return n;
}

/* One word: a single MOV, as Linux's __get_user_8/__put_user_8, never the
 * REP MOVSB of copy_*_user. A string instruction can be interrupted (or
 * fault) between its bytes and resume later, so another thread, or a
 * fork that write-protects the page meanwhile, could see half of the new
 * value; a MOV is one access, done whole or not at all (an access split
 * across two pages faults before it writes either). */
#define USER_WORD_ACCESS(insn, out, in)                                  \
	__asm__ volatile("1:	" insn "\n"                                 \
			 "2:\n"                                              \
			 ".pushsection .text.fixup, \"ax\"\n"                \
			 "3:	movl %[efault], %[err]\n"                   \
			 "	jmp 2b\n"                                    \
			 ".popsection\n"                                     \
			 _ASM_EXTABLE(1b, 3b)                                \
			 : out, [err] "+r"(err)                               \
			 : in, [efault] "i"(-EFAULT)                          \
			 : "memory")

/* Linux's do_strncpy_from_user: a word at a time where the word is
 * aligned (so it lies in one page: a string may end just before an
 * unmapped page, and a load must not reach past the page of its
 * terminator), a byte at a time up to the first aligned address and at
 * the end of count. The bytes after the terminator in its word are read
 * (they are in its page), never copied. One stac/clac pair for the whole
 * string: under QEMU's TCG each of them ends a translation block, which
 * a byte at a time made two exits to its main loop per byte. */
#define ONES 0x0101010101010101ull
#define HIGHS 0x8080808080808080ull
long strncpy_from_user(char *dst, const char *src, long count)
{
	long i = 0, res = count;
	stac();
	while (i < count) {
		const char *p = src + i;
		int err = 0;
		if (!((uintptr_t)p & 7) && count - i >= 8 && access_ok(p, 8)) {
			u64 w = 0;
			USER_WORD_ACCESS("movq (%[p]), %[v]", [v] "+r"(w), [p] "r"(p));
			if (err) {
				res = -EFAULT;
				break;
			}
			u64 zero = (w - ONES) & ~w & HIGHS; /* the first 0 byte's high bit is its lowest */
			if (zero) {
				long n = __builtin_ctzll(zero) / 8;
				memcpy(dst + i, &w, (size_t)n + 1);
				res = i + n;
				break;
			}
			memcpy(dst + i, &w, 8);
			i += 8;
			continue;
		}
		if (!access_ok(p, 1)) {
			res = -EFAULT;
			break;
		}
		unsigned char c = 0;
		USER_WORD_ACCESS("movb (%[p]), %[v]", [v] "+q"(c), [p] "r"(p));
		if (err) {
			res = -EFAULT;
			break;
		}
		dst[i] = (char)c;
		if (!c) {
			res = i;
			break;
		}
		i++;
	}
	clac();
	return res;
}

int get_user_u64(u64 *val, const void *uaddr)
{
	if (!access_ok(uaddr, sizeof(*val)))
		return -EFAULT;
	int err = 0;
	u64 v = 0;
	stac();
	USER_WORD_ACCESS("movq (%[p]), %[v]", [v] "+r"(v), [p] "r"(uaddr));
	clac();
	if (!err)
		*val = v;
	return err;
}

int get_user_u32(u32 *val, const void *uaddr)
{
	if (!access_ok(uaddr, sizeof(*val)))
		return -EFAULT;
	int err = 0;
	u32 v = 0;
	stac();
	USER_WORD_ACCESS("movl (%[p]), %[v]", [v] "+r"(v), [p] "r"(uaddr));
	clac();
	if (!err)
		*val = v;
	return err;
}

int put_user_u64(u64 val, void *uaddr)
{
	if (!access_ok(uaddr, sizeof(val)))
		return -EFAULT;
	int err = 0;
	stac();
	USER_WORD_ACCESS("movq %[v], (%[p])", [v] "+r"(val), [p] "r"(uaddr));
	clac();
	return err;
}

int put_user_u32(u32 val, void *uaddr)
{
	if (!access_ok(uaddr, sizeof(val)))
		return -EFAULT;
	int err = 0;
	stac();
	USER_WORD_ACCESS("movl %[v], (%[p])", [v] "+r"(val), [p] "r"(uaddr));
	clac();
	return err;
}
