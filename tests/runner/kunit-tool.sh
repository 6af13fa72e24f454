#!/bin/sh
# kunit-tool.sh - print the path of a ready kunit_tool directory (a directory
# containing tools/testing/kunit/kunit.py) for "mmlab-runner test --kunit-tool".
#
# kunit.py "parse" only needs the Python files of tools/testing/kunit/ (it
# imports kunit_json, kunit_kernel, kunit_parser, kunit_printer, and through
# kunit_kernel kunit_config and qemu_config); nothing else of the kernel tree.
# They are extracted once from Debian's linux-source-6.12 tarball into
# build/kunit-tool/ and reused afterwards.
#
# Usage: tests/runner/kunit-tool.sh      (from the repository root)
# Environment: KUNIT_TOOL_TARBALL (default /usr/src/linux-source-6.12.tar.xz),
#              KUNIT_TOOL_DEST    (default build/kunit-tool)
set -eu

tarball=${KUNIT_TOOL_TARBALL:-/usr/src/linux-source-6.12.tar.xz}
dest=${KUNIT_TOOL_DEST:-build/kunit-tool}
mkdir -p "$dest"
dest=$(cd "$dest" && pwd -P)     # absolute (the EXIT trap runs after a cd)
top=linux-source-6.12           # top directory inside the tarball
dir=$dest/$top
stamp=$dir/.extracted

if [ ! -f "$stamp" ] || [ ! -f "$dir/tools/testing/kunit/kunit.py" ]; then
	# One pass over the tarball for this and the mm selftests' files.
	KUNIT_TOOL_TARBALL=$tarball KUNIT_TOOL_DEST=$dest tools/linux-source/extract.sh kunit
fi
# kunit.py finds the tree root by splitting its own real path at
# "tools/testing/kunit", so print an absolute, symlink-free path.
cd "$dir" && pwd -P
