/* User-memory copies (see uaccess.h): rep movsb/stosb listed in the
 * exception table; a fault the page-fault handler cannot resolve resumes at
 * the fixup with rcx holding the bytes left. */
#include "arch/x86_64/asm.h"
#include "arch/x86_64/uaccess.h"

bool smap_enabled;

static unsigned long copy_user_bytes(void *to, const void *from, unsigned long n)
{
	stac();
	__asm__ volatile("1:	rep movsb\n"
			 "2:\n"
			 _ASM_EXTABLE(1b, 2b)
			 : "+D"(to), "+S"(from), "+c"(n)
			 :
			 : "memory");
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
	stac();
	__asm__ volatile("1:	rep stosb\n"
			 "2:\n"
			 _ASM_EXTABLE(1b, 2b)
			 : "+D"(to), "+c"(n)
			 : "a"(0)
			 : "memory");
	clac();
	return n;
}

/* One byte at a time: a string may end just before an unmapped page, and
 * the bytes after its terminator must not be touched. */
long strncpy_from_user(char *dst, const char *src, long count)
{
	for (long i = 0; i < count; i++) {
		if (!access_ok(src + i, 1))
			return -EFAULT;
		unsigned char c = 0;
		int err = 0;
		stac();
		__asm__ volatile("1:	movb (%[p]), %[c]\n"
				 "2:\n"
				 ".pushsection .text.fixup, \"ax\"\n"
				 "3:	movl %[efault], %[err]\n"
				 "	jmp 2b\n"
				 ".popsection\n"
				 _ASM_EXTABLE(1b, 3b)
				 : [c] "+q"(c), [err] "+r"(err)
				 : [p] "r"(src + i), [efault] "i"(-EFAULT)
				 : "memory");
		clac();
		if (err)
			return -EFAULT;
		dst[i] = (char)c;
		if (!c)
			return i;
	}
	return count;
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
