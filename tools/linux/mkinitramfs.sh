#!/usr/bin/env bash
# Builds an initramfs of programs that are not mmlab's (newc cpio,
# uncompressed) with Debian's cpio, for make compare-layouts: /init, the
# manifest /etc/mmlab/programs (one "KIND NAME" line per program, in the
# order given) and /bin/NAME, as mmlab's own archive lays them out
# (docs/initramfs.md), plus the empty mount points init uses. mmlab's
# programs need none of this: Linux boots build/initramfs.cpio itself
# (tools/linux/linux.mk).
# usage: tools/linux/mkinitramfs.sh OUT.cpio INIT KIND:PATH[:ARGS]...
#   KIND is test, crash, bench (a bench program runs only when init's
#   run= names it) or selftest (one of Linux's mm selftests, suite
#   mm_selftests, started with ARGS: tests/mm_selftests/); NAME is PATH's
#   file name without a trailing ".elf" (build/user/mmap_basic.elf is
#   mmlab's case user.mmap_basic). The manifest line is "KIND NAME [ARGS]".
set -euo pipefail
out=${1:?usage: mkinitramfs.sh OUT.cpio INIT KIND:PATH...}
init=${2:?usage: mkinitramfs.sh OUT.cpio INIT KIND:PATH...}
shift 2
stage=$out.d
rm -rf "$stage"
mkdir -p "$stage"/{bin,etc/mmlab,dev,proc,sys,tmp}
install -m 0755 "$init" "$stage/init"
: >"$stage/etc/mmlab/programs"
for entry in "$@"; do
	kind=${entry%%:*} path=${entry#*:} args=
	case $path in *:*) args=${path#*:} path=${path%%:*} ;; esac
	name=${path##*/}
	name=${name%.elf}
	case $kind in test | crash | bench | selftest) ;; *)
		echo "mkinitramfs: '$entry': KIND must be test, crash, bench or selftest" >&2
		exit 1
		;;
	esac
	[ -e "$stage/bin/$name" ] && { echo "mkinitramfs: '$name' twice" >&2; exit 1; }
	install -m 0755 "$path" "$stage/bin/$name"
	echo "$kind $name${args:+ $args}" >>"$stage/etc/mmlab/programs"
done
(cd "$stage" && find . -mindepth 1 | LC_ALL=C sort | cpio -o -H newc -R 0:0 --quiet) >"$out.tmp"
mv "$out.tmp" "$out"
rm -rf "$stage"
