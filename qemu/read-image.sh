#!/bin/bash
# Print a file's bytes as a file-system image holds them, read with the
# file system's own user-space tools and never mounted: the guest's page
# cache, and the host's, cannot stand in for the disk.
#
#   qemu/read-image.sh ext4|ext4j|xfs|btrfs IMAGE /PATH/IN/THE/FS
#
# ext4 (and ext4j, an ext4 mounted data=journal, whose unmount checkpointed
# the journal): debugfs's cat (an unwritten extent reads as zeros).  xfs: xfs_db's
# bmap of the file, each written extent read with dd at the byte offset
# xfs_db converts its start block to; holes and unwritten extents (flag 1)
# read as zeros; the file's size from its inode.  btrfs: btrfs restore of
# that one path (from the committed trees; the regex has to match every
# directory on the way).  An image is whole only after a clean unmount
# (jobs/guest/disks.sh's scratch_umount).
# Exit status: 0 with the bytes on stdout; 1 the file is not there or the
# tool failed (its message on stderr); 2 usage.
set -euo pipefail

if [ $# -ne 3 ] || [[ $3 != /* ]]; then
	echo "usage: qemu/read-image.sh ext4|ext4j|xfs|btrfs IMAGE /PATH" >&2
	exit 2
fi
type=$1 img=$2 path=$3
[ -r "$img" ] || { echo "qemu/read-image.sh: cannot read $img" >&2; exit 1; }

read_xfs() {
	local bs size tmp off start count flag byte
	bs=$(xfs_db -r -c 'sb 0' -c 'print blocksize' "$img" | sed -n 's/^blocksize = //p')
	size=$(xfs_db -r -c "path $path" -c 'print core.size' "$img" 2>/dev/null | sed -n 's/^core.size = //p' || true)
	if [ -z "$bs" ] || [ -z "$size" ]; then
		echo "qemu/read-image.sh: no $path in $img" >&2
		return 1
	fi
	tmp=$(mktemp)
	# shellcheck disable=SC2064 # the name now
	trap "rm -f '$tmp'" RETURN
	truncate -s "$size" "$tmp"
	# "data offset 0 startblock 32778 (1/10) count 4 flag 0"
	while read -r off start count flag; do
		[ "$flag" = 0 ] || continue
		byte=$(xfs_db -r -c "convert fsblock $start byte" "$img" | sed 's/.*(\([0-9]*\)).*/\1/')
		dd if="$img" of="$tmp" bs="$bs" skip=$((byte / bs)) seek="$off" count="$count" \
			conv=notrunc status=none
	done < <(xfs_db -r -c "path $path" -c bmap "$img" |
		awk '$1 == "data" { print $3, $5, $8, $10 }')
	truncate -s "$size" "$tmp"
	cat "$tmp"
}

read_btrfs() {
	local out regex='' prefix='' part
	out=$(mktemp -d)
	# shellcheck disable=SC2064
	trap "rm -rf '$out'" RETURN
	# ^/(|a(|/b(|/c)))$ for /a/b/c: every directory on the way, then the file
	IFS=/ read -r -a parts <<<"${path#/}"
	for part in "${parts[@]}"; do
		# shellcheck disable=SC2016 # sed's expression, not the shell's
		regex+="(|$prefix$(printf '%s' "$part" | sed 's/[.[\*^$()+?{|]/\\&/g')"
		prefix=/
	done
	regex="^/$regex$(printf ')%.0s' "${parts[@]}")\$"
	btrfs restore --path-regex "$regex" "$img" "$out" >/dev/null
	[ -f "$out$path" ] || { echo "qemu/read-image.sh: no $path in $img" >&2; return 1; }
	cat "$out$path"
}

case $type in
ext4 | ext4j)
	# debugfs prints its banner on stderr and "File not found" on stderr too
	grep -q '^Inode:' <<<"$(debugfs -R "stat $path" "$img" 2>/dev/null)" ||
		{ echo "qemu/read-image.sh: no $path in $img" >&2; exit 1; }
	debugfs -R "cat $path" "$img" 2>/dev/null ;;
xfs) read_xfs ;;
btrfs) read_btrfs ;;
*) echo "qemu/read-image.sh: unknown file system '$type'" >&2; exit 2 ;;
esac
