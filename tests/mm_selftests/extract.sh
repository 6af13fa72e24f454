#!/bin/sh
# extract.sh - print the path of a ready tree of Linux's mm selftests: the
# parts of Debian's linux-source-6.12 that building
# tools/testing/selftests/mm needs, extracted once into
# build/mm-selftests/src/linux-source-6.12 and reused afterwards, by
# tools/linux-source/extract.sh (the tarball is 145 MB of xz: one pass
# takes kunit_tool's files too).
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
	# One pass over the tarball for this and kunit_tool's files.
	MM_SELFTESTS_TARBALL=$tarball MM_SELFTESTS_DEST=$dest tools/linux-source/extract.sh mm
fi
cd "$dir" && pwd -P
