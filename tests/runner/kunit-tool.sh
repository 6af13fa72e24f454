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
	if [ ! -r "$tarball" ]; then
		echo "kunit-tool.sh: $tarball not found; install Debian's linux-source-6.12 package" >&2
		echo "  (apt-get install linux-source-6.12) or set KUNIT_TOOL_TARBALL" >&2
		exit 1
	fi
	echo "kunit-tool.sh: extracting $top/tools/testing/kunit from $tarball into $dest" >&2
	tmp=$(mktemp -d "$dest/.extract.XXXXXX")
	trap 'rm -rf "$tmp"' EXIT
	# Only the Python files of tools/testing/kunit (tar's wildcards also
	# match '/', so this includes qemu_configs/*.py); no test data/configs.
	if ! tar -xJf "$tarball" -C "$tmp" --wildcards "$top/tools/testing/kunit/*.py"; then
		echo "kunit-tool.sh: extracting from $tarball failed" >&2
		exit 1
	fi
	if [ ! -f "$tmp/$top/tools/testing/kunit/kunit.py" ]; then
		echo "kunit-tool.sh: $tarball has no $top/tools/testing/kunit/kunit.py" >&2
		exit 1
	fi
	: >"$tmp/$top/.extracted"
	rm -rf "$dir"
	mv "$tmp/$top" "$dir"
fi
# kunit.py finds the tree root by splitting its own real path at
# "tools/testing/kunit", so print an absolute, symlink-free path.
cd "$dir" && pwd -P
