#!/bin/sh
# extract.sh - print the path of a ready tree of Linux's mm selftests: the
# parts of Debian's linux-source-6.12 that building
# tools/testing/selftests/mm needs, extracted once into
# build/mm-selftests/src/linux-source-6.12 and reused afterwards (the
# tarball is 140 MB of xz: about 30 s to read through).
#
# What the programs include, beside the C library: the selftests' own
# headers (kselftest.h, kselftest_harness.h, mm/*.h), tools/include/uapi
# (the Makefile's TOOLS_INCLUDES: newer uapi headers than the host's
# linux-libc-dev, which it redirects to tools/arch/x86/include/uapi), and
# three headers of the kernel tree that programs include from the tree's
# top (the Makefile's -I $(top_srcdir)): mm/gup_test.h,
# lib/test_hmm_uapi.h, include/vdso/time64.h.
#
# Usage: tests/mm_selftests/extract.sh      (from the repository root)
# Environment: MM_SELFTESTS_TARBALL (default /usr/src/linux-source-6.12.tar.xz),
#              MM_SELFTESTS_DEST    (default build/mm-selftests/src)
set -eu

tarball=${MM_SELFTESTS_TARBALL:-/usr/src/linux-source-6.12.tar.xz}
dest=${MM_SELFTESTS_DEST:-build/mm-selftests/src}
mkdir -p "$dest"
dest=$(cd "$dest" && pwd -P)
top=linux-source-6.12
dir=$dest/$top
stamp=$dir/.extracted

if [ ! -f "$stamp" ]; then
	if [ ! -r "$tarball" ]; then
		echo "extract.sh: $tarball not found; install Debian's linux-source-6.12 package" >&2
		echo "  (apt-get install linux-source-6.12) or set MM_SELFTESTS_TARBALL" >&2
		exit 1
	fi
	echo "extract.sh: extracting $top/tools/testing/selftests/mm and what it includes from $tarball" >&2
	tmp=$(mktemp -d "$dest/.extract.XXXXXX")
	trap 'rm -rf "$tmp"' EXIT
	if ! tar -xJf "$tarball" -C "$tmp" --wildcards \
		"$top/tools/testing/selftests/mm/*" "$top/tools/testing/selftests/kselftest*" \
		"$top/tools/testing/selftests/lib.mk" "$top/tools/include/*" \
		"$top/tools/arch/x86/include/*" "$top/mm/gup_test.h" "$top/lib/test_hmm_uapi.h" \
		"$top/include/vdso/time64.h"; then
		echo "extract.sh: extracting from $tarball failed" >&2
		exit 1
	fi
	: >"$tmp/$top/.extracted"
	rm -rf "$dir"
	mv "$tmp/$top" "$dir"
fi
cd "$dir" && pwd -P
