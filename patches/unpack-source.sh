#!/bin/bash
# Unpack Debian's linux-source-6.1 tarball once per package version into the
# cache.  The tree is pristine: flavours copy it (hard links) and patch the copy.
set -euo pipefail
# shellcheck source=../qemu/lib.sh
. "$(dirname "$0")/../qemu/lib.sh"

tree=$(source_tree)
if [ -f "$tree/.gup-lab-unpacked" ]; then
	echo "$tree"
	exit 0
fi
tarball=$(ls /usr/src/linux-source-6.1.tar.xz 2>/dev/null) ||
	die "/usr/src/linux-source-6.1.tar.xz missing: run 'make deps'"
log "unpacking $tarball into $tree"
rm -rf "$tree" "$tree.tmp"
mkdir -p "$tree.tmp"
tar -C "$tree.tmp" --strip-components=1 -xf "$tarball"
touch "$tree.tmp/.gup-lab-unpacked"
mv "$tree.tmp" "$tree"
echo "$tree"
