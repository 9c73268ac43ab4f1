#!/bin/bash
# Build the guest root image: debootstrap --variant=minbase bookworm plus
# rootfs/packages and our init, packed with `mkfs.ext4 -d` (no loop mount).
# The mirror is read from this machine's apt configuration at run time.
set -euo pipefail
# shellcheck source=../patches/flavours.sh
. "$(dirname "$0")/../patches/flavours.sh"

SUITE=bookworm
image=$(rootfs_image)
if [ -f "$image" ]; then
	echo "$image"
	exit 0
fi
[ "$(id -u)" -eq 0 ] || die "debootstrap needs root: run as root (sudo)"

mirror=$(apt_mirror "$SUITE" | head -1 || true)
[ -n "$mirror" ] || die "no $SUITE mirror found in the apt configuration"

mkdir -p "$LAB_CACHE"
work=$(mktemp -d "$LAB_CACHE/rootfs-build.XXXXXX")
trap 'rm -rf "$work"' EXIT
mkdir -p "$(dirname "$image")"
log "debootstrap $SUITE from the apt mirror into $work"
debootstrap --variant=minbase --include="$(paste -sd, "$LAB_ROOT/rootfs/packages")" \
	"$SUITE" "$work/root" "$mirror" >"$work/debootstrap.log" 2>&1 || {
	tail -20 "$work/debootstrap.log" >&2
	die "debootstrap failed"
}
rm -rf "$work/root/var/cache/apt/archives/"*.deb "$work/root/var/lib/apt/lists/"*
install -m 0755 "$LAB_ROOT/rootfs/init" "$work/root/sbin/gup-lab-init"
install -m 0644 "$LAB_ROOT/rootfs/fstab" "$work/root/etc/fstab"
mkdir -p "$work/root/mnt/ext4" "$work/root/mnt/ramfs" "$work/root/lab"
echo gup-lab >"$work/root/etc/hostname"
size_mb=$(($(du -sm "$work/root" | cut -f1) + 256))
mkfs.ext4 -q -F -L gup-lab-root -d "$work/root" "$work/rootfs.img" "${size_mb}M" >/dev/null
mv "$work/rootfs.img" "$image"
log "root image ready: $image"
echo "$image"
