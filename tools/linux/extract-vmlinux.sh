#!/usr/bin/env bash
# Unpacks the kernel proper (vmlinux, an ELF file) from Debian's bzImage,
# so that QEMU boots it through its PVH entry point (Xen's
# XEN_ELFNOTE_PHYS32_ENTRY note, which Debian's kernel has: CONFIG_PVH=y)
# rather than through the bzImage's decompressor. The kernel is the same
# code either way; only the first steps differ: with the bzImage, the
# decompressor's xz inflates 8 MB into 66 MB inside the guest, about 3.3 s
# of each Linux boot under TCG on a 2-core host (6.5 s to a finished
# empty run, 3.2 s through PVH). Booted this way the kernel is not
# relocated (no KASLR, which only the decompressor does): its addresses are
# the same in every boot.
#
# The bzImage's header (Documentation/arch/x86/boot.rst) gives where the
# payload lies: setup_sects (offset 0x1f1) sectors of 512 bytes after the
# boot sector, then payload_offset (0x248) and payload_length (0x24c). The
# payload is compressed by the method the kernel's config chose (Debian 12:
# CONFIG_KERNEL_XZ), followed by its uncompressed size, which --single-stream
# leaves unread.
# usage: tools/linux/extract-vmlinux.sh VMLINUZ VMLINUX
set -euo pipefail
in=${1:?usage: extract-vmlinux.sh VMLINUZ VMLINUX}
out=${2:?usage: extract-vmlinux.sh VMLINUZ VMLINUX}

field() { # field OFFSET BYTES: an unsigned little-endian field of the header
	od -An -tu"$2" -j "$1" -N "$2" "$in" | tr -d ' '
}
[ "$(od -An -c -j $((0x202)) -N 4 "$in" | tr -d ' ')" = HdrS ] ||
	{ echo "extract-vmlinux: $in is not a bzImage (no HdrS at 0x202)" >&2; exit 1; }
setup_sects=$(field $((0x1f1)) 1)
[ "$setup_sects" != 0 ] || setup_sects=4 # boot.rst: 0 means 4
payload_offset=$(field $((0x248)) 4)
payload_length=$(field $((0x24c)) 4)
start=$(((setup_sects + 1) * 512 + payload_offset))
trap 'rm -f "$out.payload" "$out.tmp"' EXIT

# The payload alone, in a file (xz --single-stream stops reading at the
# stream's end: from a pipe, the writer would die of SIGPIPE).
dd if="$in" of="$out.payload" bs=64K skip="$start" count="$payload_length" \
	iflag=skip_bytes,count_bytes status=none
magic=$(od -An -tx1 -N 6 "$out.payload" | tr -d ' ')
case $magic in
fd377a585a00) decompress="xz -dc --single-stream" ;;
1f8b*) decompress="gzip -dc" ;;
*)
	echo "extract-vmlinux: $in's payload (magic $magic) is neither xz nor gzip" >&2
	exit 1
	;;
esac
# gzip warns of the trailing size ("decompression OK, trailing garbage
# ignored") and exits 2: what came out is checked below instead.
$decompress <"$out.payload" >"$out.tmp" 2>/dev/null || [ "${decompress%% *}" = gzip ]
if [ "$(od -An -c -N 4 "$out.tmp" | tr -d ' ')" != 177ELF ]; then
	echo "extract-vmlinux: $in's payload did not unpack to an ELF file" >&2
	exit 1
fi
# QEMU boots an ELF kernel only through the PVH note (type 18, owner Xen).
if ! readelf -n "$out.tmp" | grep -q 'Xen.*0x00000012'; then
	echo "extract-vmlinux: $in's kernel has no PVH entry note (CONFIG_PVH)" >&2
	exit 1
fi
mv "$out.tmp" "$out"
