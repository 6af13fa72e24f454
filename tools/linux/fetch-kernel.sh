#!/usr/bin/env bash
# Fetches Debian's own kernel, the image package linux-image-amd64 depends on
# (bookworm: linux-image-6.1.0-N-amd64), with `apt-get download` (no
# installation: it needs only Debian's mirrors), unpacks it with dpkg-deb -x
# into DEST/root (keeping /boot only: the image, its config and System.map)
# and links DEST/vmlinuz to its /boot/vmlinuz-*. Fetched once:
# a second call with DEST/vmlinuz present does nothing.
# usage: tools/linux/fetch-kernel.sh DEST        (make: build/linux)
set -euo pipefail
dest=${1:?usage: fetch-kernel.sh DEST}
[ -e "$dest/vmlinuz" ] && exit 0
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
# Only the image is used: the modules (400 MB unpacked) and the .deb go.
rm -rf "$dest"/"$pkg"_*.deb "$dest/root/lib" "$dest/root/usr"
echo "$pkg" >"$dest/package"
ln -sf "${image#"$dest"/}" "$dest/vmlinuz"
