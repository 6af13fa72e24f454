#!/usr/bin/env bash
# Makes sure the host has what building, booting and testing mmlab need.
# usage: tools/deps.sh [build|run|test|debug|bench|report]...   (default: all of them)
# Missing Debian packages are installed with apt-get when running as root;
# otherwise the exact command to run is printed and the script fails.
set -euo pipefail

want_build=0 want_run=0 want_test=0 want_debug=0 want_bench=0 want_report=0
[ $# -eq 0 ] && set -- build run test debug bench report
for w in "$@"; do
	case "$w" in
	build) want_build=1 ;;
	run) want_build=1 want_run=1 ;;
	test) want_build=1 want_run=1 want_test=1 ;;
	debug) want_build=1 want_run=1 want_debug=1 ;;
	bench) want_build=1 want_bench=1 ;;
	report) want_report=1 ;;
	*) echo "deps.sh: unknown group '$w' (build, run, test, debug, bench, report)" >&2; exit 2 ;;
	esac
done

missing=()
need() { # need PACKAGE PATH-OR-COMMAND...
	local pkg=$1; shift
	for thing in "$@"; do
		if [[ $thing == /* ]]; then [ -e "$thing" ] && return 0
		else command -v "$thing" >/dev/null 2>&1 && return 0; fi
	done
	missing+=("$pkg")
}

if [ $want_build = 1 ]; then
	need make make
	need gcc gcc
	# The user programs (tests/user/): musl-gcc -static for every one, and
	# gcc -static / -static-pie (glibc's libc.a, rcrt1.o) for the glibc builds.
	need musl-tools musl-gcc
	need libc6-dev /usr/lib/x86_64-linux-gnu/libc.a
	need binutils ld
	need nasm nasm
	need grub-common grub-mkrescue
	need grub-pc-bin /usr/lib/grub/i386-pc/moddep.lst
	need grub-efi-amd64-bin /usr/lib/grub/x86_64-efi/moddep.lst
	need xorriso xorriso
	need mtools mformat
	# The shell (docs/shell.md): Debian's BusyBox, unmodified, in the
	# initramfs as /bin/busybox with a link per applet.
	need busybox-static /bin/busybox
fi
if [ $want_run = 1 ]; then
	need qemu-system-x86 qemu-system-x86_64
	need ovmf /usr/share/OVMF/OVMF_CODE_4M.fd /usr/share/OVMF/OVMF_CODE.fd
fi
if [ $want_test = 1 ]; then
	# kunit_tool (tools/testing/kunit in the Linux sources) checks that our
	# KTAP parses with Linux's own parser.
	need python3 python3
	need xz-utils xz
	need linux-source-6.12 /usr/src/linux-source-6.12.tar.xz
	# The Linux topologies (tools/linux/): Debian's kernel is fetched with
	# apt-get download and unpacked with dpkg-deb (both always there on
	# Debian; the download needs Debian's mirrors once), the initramfs is
	# built with cpio, and init with musl-gcc -static (gcc -static without it).
	# The initramfs unpacker's host test (tests/host/initramfs_test.c)
	# unpacks an archive cpio writes when the test is built. (mmlab's own
	# build/initramfs.cpio needs no cpio: tools/gen_init_cpio.c writes it.)
	need cpio cpio
	# The swap machines' scratch disk is made a swap area by util-linux's
	# mkswap before each boot ("disk-format = swap": tests/runner/qemu.c).
	need util-linux /sbin/mkswap /usr/sbin/mkswap mkswap
	need musl-tools musl-gcc
	# Linux's mm selftests (tests/mm_selftests/), built unmodified: some
	# link libcap (mlock-random-test, memfd_secret) and libnuma (ksm_tests,
	# migration) statically.
	need libcap-dev /usr/lib/x86_64-linux-gnu/libcap.a
	need libnuma-dev /usr/lib/x86_64-linux-gnu/libnuma.a
	# The gdb check (tools/gdb/gdb-check) drives Debian's gdb, whose
	# Python runs the helpers.
	need gdb gdb
fi
if [ $want_debug = 1 ]; then
	need gdb gdb
fi
if [ $want_bench = 1 ]; then
	# make bench-icount counts the page allocator's instructions with
	# callgrind: the same count on a loaded machine, and no PMU needed
	# (perf stat has none in most virtual machines).
	need valgrind valgrind
fi
if [ $want_test = 1 ] || [ $want_report = 1 ]; then
	# make report draws its figures with Debian's matplotlib (tools/report/),
	# and make test checks that drawing on a small fixed input.
	need python3 python3
	need python3-matplotlib /usr/lib/python3/dist-packages/matplotlib/__init__.py
fi

[ ${#missing[@]} -eq 0 ] && exit 0

cmd="apt-get install -y --no-install-recommends ${missing[*]}"
if [ "$(id -u)" != 0 ]; then
	echo "mmlab needs these Debian packages: ${missing[*]}" >&2
	echo "Install them with:  sudo apt-get update && sudo $cmd" >&2
	exit 1
fi
echo "deps: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
if ! $cmd >/tmp/mmlab-apt.log 2>&1; then
	apt-get update >>/tmp/mmlab-apt.log 2>&1 || true
	if ! $cmd >>/tmp/mmlab-apt.log 2>&1; then
		tail -20 /tmp/mmlab-apt.log >&2
		echo "deps: '$cmd' failed (log: /tmp/mmlab-apt.log)" >&2
		exit 1
	fi
fi
