#!/usr/bin/env bash
# Fetches Debian's own kernel, the image package linux-image-amd64 depends on
# (bookworm: linux-image-6.1.0-N-amd64), with `apt-get download` (no
# installation: it needs only Debian's mirrors), unpacks it with dpkg-deb -x
# into DEST/root (keeping /boot only: the image, its config and System.map)
# and links DEST/vmlinuz to its /boot/vmlinuz-*. Of its modules only the
# virtio block driver and what it needs are kept, in DEST/modules/ in the
# order insmod wants them (VIRTIO_MODULES below: Debian builds virtio,
# virtio_pci and virtio_blk as modules), for the initramfs (linux.mk) to
# load from its init. Fetched once: a second call with DEST/vmlinuz and
# those modules present does nothing.
# usage: tools/linux/fetch-kernel.sh DEST        (make: build/linux)
set -euo pipefail
dest=${1:?usage: fetch-kernel.sh DEST}
# Dependency order, from each module's modinfo "depends".
VIRTIO_MODULES="drivers/virtio/virtio_ring drivers/virtio/virtio drivers/virtio/virtio_pci_modern_dev
drivers/virtio/virtio_pci_legacy_dev drivers/virtio/virtio_pci drivers/block/virtio_blk"
[ -e "$dest/vmlinuz" ] && [ -e "$dest/modules/order" ] && exit 0
mkdir -p "$dest"

resolve() { # the package name linux-image-amd64 depends on
	apt-cache depends linux-image-amd64 2>/dev/null |
		sed -n 's/^ *Depends: \(linux-image-[0-9][^ ]*-amd64\)$/\1/p' | head -1
}
pkg=$(resolve)
if [ -z "$pkg" ] && [ "$(id -u)" = 0 ]; then
	# A fresh container has no package lists yet.
	apt-get update >/dev/null 2>&1 || true
	pkg=$(resolve)
fi
if [ -z "$pkg" ]; then
	echo "fetch-kernel: apt-cache cannot resolve linux-image-amd64 (run apt-get update?)" >&2
	exit 1
fi
echo "  FETCH    $pkg (apt-get download, unpacked into $dest/root)"
rm -rf "$dest/root" "$dest"/*.deb
(cd "$dest" && apt-get download "$pkg" >download.log 2>&1) || {
	cat "$dest/download.log" >&2
	echo "fetch-kernel: apt-get download $pkg failed" >&2
	exit 1
}
dpkg-deb -x "$dest"/"$pkg"_*.deb "$dest/root"
image=$(ls "$dest"/root/boot/vmlinuz-* | head -1)
[ -f "$image" ] || { echo "fetch-kernel: no /boot/vmlinuz-* in $pkg" >&2; exit 1; }
rm -rf "$dest/modules"
mkdir -p "$dest/modules"
for m in $VIRTIO_MODULES; do
	ko=$(ls "$dest"/root/lib/modules/*/kernel/"$m".ko* 2>/dev/null | head -1)
	[ -f "$ko" ] || { echo "fetch-kernel: no $m.ko in $pkg" >&2; exit 1; }
	cp "$ko" "$dest/modules/"
	basename "$ko" >>"$dest/modules/order"
done
# Only the image and those modules are used: the other modules (400 MB
# unpacked) and the .deb go.
rm -rf "$dest"/"$pkg"_*.deb "$dest/root/lib" "$dest/root/usr"
echo "$pkg" >"$dest/package"
ln -sf "${image#"$dest"/}" "$dest/vmlinuz"
