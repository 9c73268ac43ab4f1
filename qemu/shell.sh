#!/bin/bash
# `make shell FLAVOUR=F`: a root shell in a guest of flavour F with
# gup_pin_test.ko loaded, gupctl on PATH and /mnt/ext4/file.img ready.
set -euo pipefail
# shellcheck source=../patches/flavours.sh
. "$(dirname "$0")/../patches/flavours.sh"

[ $# -eq 1 ] || die "usage: $0 FLAVOUR"
stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
"$LAB_ROOT/rootfs/stage-guest.sh" "$1" "$stage"
echo "gup-lab: booting $1; in the guest try: gupctl pin --longterm --write /mnt/ext4/file.img" >&2
exec "$LAB_ROOT/qemu/run.sh" --flavour "$1" --interactive --files "$stage" \
	--exec 'bash /lab/bin/guest-setup.sh && cd /mnt/ext4'
