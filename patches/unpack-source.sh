#!/bin/bash
# Unpack a Debian linux-source-X.Y tarball (default linux-source-6.1) once
# per package version into the cache.  The tree is pristine: flavours copy
# it (hard links) and patch the copy.  Prints the tree's path.
set -euo pipefail
# shellcheck source=../patches/flavours.sh
. "$(dirname "$0")/../patches/flavours.sh"

pkg=${1:-$LAB_SOURCE_PKG}
tree=$(source_tree "$pkg")
if [ -f "$tree/.gup-lab-unpacked" ]; then
	echo "$tree"
	exit 0
fi
# Jobs stage two flavours at once (jobs/lib.sh's job_parallel): one
# unpacks, the other waits for it.
mkdir -p "$(dirname "$tree")"
exec 9>"$tree.lock"
flock 9
if [ -f "$tree/.gup-lab-unpacked" ]; then
	echo "$tree"
	exit 0
fi
tarball=$(source_tarball "$pkg")
[ -f "$tarball" ] || die "$tarball missing: run 'make deps'"
log "unpacking $tarball into $tree"
rm -rf "$tree" "$tree.tmp"
mkdir -p "$tree.tmp"
tar -C "$tree.tmp" --strip-components=1 -xf "$tarball"
touch "$tree.tmp/.gup-lab-unpacked"
mv "$tree.tmp" "$tree"
echo "$tree"
