#!/bin/sh
# extract.sh - extracts the parts of Debian's linux-source-6.12 tarball
# that the project uses, in one pass over its 145 MB of xz (about 12 s of
# CPU to read through):
#   kunit  kunit_tool's Python files (tests/runner/kunit-tool.sh), into
#          KUNIT_TOOL_DEST/linux-source-6.12 (default build/kunit-tool);
#   mm     the mm selftests and what they include from the tree
#          (tests/mm_selftests/extract.sh), into
#          MM_SELFTESTS_DEST/linux-source-6.12 (default build/mm-selftests/src).
# A caller names its part; the pass also takes the other part when that
# one is missing and comes from the same tarball, so that make test's two
# callers, which make -j runs side by side, read the tarball once. A lock
# (flock) keeps them from extracting at once: the second one finds its
# part there. Each part is marked done by its tree's .extracted file.
#
# Usage: tools/linux-source/extract.sh kunit|mm   (from the repository root)
# Environment: KUNIT_TOOL_TARBALL, MM_SELFTESTS_TARBALL (default
#              /usr/src/linux-source-6.12.tar.xz), KUNIT_TOOL_DEST,
#              MM_SELFTESTS_DEST
set -eu

part=${1:-}
top=linux-source-6.12
kt_tarball=${KUNIT_TOOL_TARBALL:-/usr/src/$top.tar.xz}
mm_tarball=${MM_SELFTESTS_TARBALL:-/usr/src/$top.tar.xz}
kt_dest=${KUNIT_TOOL_DEST:-build/kunit-tool}
mm_dest=${MM_SELFTESTS_DEST:-build/mm-selftests/src}
# kunit.py "parse" imports only the Python files of tools/testing/kunit
# (tar's wildcards also match '/': qemu_configs/*.py are in).
kt_members="$top/tools/testing/kunit/*.py"
# What the selftests include beside the C library: their own headers,
# tools/include/uapi and tools/arch/x86/include (the Makefile's
# TOOLS_INCLUDES), and three headers of the tree that programs include
# from its top (tests/mm_selftests/extract.sh says which).
mm_members="$top/tools/testing/selftests/mm/* $top/tools/testing/selftests/kselftest*
	$top/tools/testing/selftests/lib.mk $top/tools/include/* $top/tools/arch/x86/include/*
	$top/mm/gup_test.h $top/lib/test_hmm_uapi.h $top/include/vdso/time64.h"

kt_ready() { [ -f "$kt_dest/$top/.extracted" ] && [ -f "$kt_dest/$top/tools/testing/kunit/kunit.py" ]; }
mm_ready() { [ -f "$mm_dest/$top/.extracted" ]; }

case $part in
kunit) tarball=$kt_tarball ;;
mm) tarball=$mm_tarball ;;
*)
	echo "usage: $0 kunit|mm" >&2
	exit 2
	;;
esac

lock=${TMPDIR:-/tmp}/mmlab-$top-$(id -u).lock
exec 9>"$lock"
flock 9
want_kt=
want_mm=
if [ "$part" = kunit ]; then kt_ready || want_kt=1; else mm_ready || want_mm=1; fi
[ -n "$want_kt$want_mm" ] || exit 0
if [ "$kt_tarball" = "$mm_tarball" ]; then
	kt_ready || want_kt=1
	mm_ready || want_mm=1
fi
if [ ! -r "$tarball" ]; then
	echo "extract.sh: $tarball not found; install Debian's $top package" >&2
	echo "  (apt-get install $top) or set KUNIT_TOOL_TARBALL / MM_SELFTESTS_TARBALL" >&2
	exit 1
fi
members=
[ -z "$want_kt" ] || members=$kt_members
[ -z "$want_mm" ] || members="$members $mm_members"
[ -z "$want_kt" ] || mkdir -p "$kt_dest"
[ -z "$want_mm" ] || mkdir -p "$mm_dest"
echo "extract.sh: extracting$([ -z "$want_kt" ] || echo " kunit_tool")$([ -z "$want_mm" ] || echo " the mm selftests") from $tarball" >&2
# Beside the trees (one file system: the moves below are renames).
tmp=$(mktemp -d "$(if [ -n "$want_mm" ]; then echo "$mm_dest"; else echo "$kt_dest"; fi)/.extract.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
set -f # the members are tar's patterns, not the shell's
# shellcheck disable=SC2086
if ! tar -xJf "$tarball" -C "$tmp" --wildcards $members; then
	echo "extract.sh: extracting from $tarball failed" >&2
	exit 1
fi
set +f
if [ -n "$want_kt" ]; then
	if [ ! -f "$tmp/$top/tools/testing/kunit/kunit.py" ]; then
		echo "extract.sh: $tarball has no $top/tools/testing/kunit/kunit.py" >&2
		exit 1
	fi
	mkdir -p "$tmp/kunit/$top/tools/testing"
	mv "$tmp/$top/tools/testing/kunit" "$tmp/kunit/$top/tools/testing/"
	: >"$tmp/kunit/$top/.extracted"
	rm -rf "${kt_dest:?}/$top"
	mv "$tmp/kunit/$top" "$kt_dest/$top"
fi
if [ -n "$want_mm" ]; then
	: >"$tmp/$top/.extracted"
	rm -rf "${mm_dest:?}/$top"
	mv "$tmp/$top" "$mm_dest/$top"
fi
