# shellcheck shell=bash
# Sourced by the guest scripts (jobs/guest/*.sh), never executed: the
# scratch file systems and raw disks qemu/run.sh adds with --fs and
# --raw-disk, found by their virtio serial (gl-NAME), not by their order.
# The base scratch ext4 (/dev/vdb at /mnt/ext4) and the control disk are in
# the root image's fstab; these are mounted here, because a root image
# built before them must still boot, and unmounted here, because the host
# reads their images after poweroff without mounting them (debugfs,
# xfs_db, btrfs restore) and rootfs/init unmounts only /mnt/ext4 and /lab.

# disk_by_serial NAME: the /dev path of the disk with serial gl-NAME, or
# nothing (status 1).
disk_by_serial() {
	local s serial
	for s in /sys/block/vd*/serial; do
		[ -r "$s" ] || continue
		# the attribute has no newline: read's status is 1, its value is there
		serial=''
		read -r serial <"$s" || [ -n "$serial" ] || continue
		if [ "$serial" = "gl-$1" ]; then
			s=${s%/serial}
			echo "/dev/${s##*/}"
			return 0
		fi
	done
	return 1
}

# scratch_mount TYPE: mount the scratch TYPE (xfs, btrfs; ext4j: an ext4
# mounted data=journal) at /mnt/TYPE.  Says why on stderr and returns 1
# when there is no such disk or this kernel has no such file system
# (/proc/filesystems).
scratch_mount() {
	local dev fs=$1 opts=()
	[ "$1" != ext4j ] || fs=ext4 opts=(-o data=journal)
	if ! grep -qw "$fs" /proc/filesystems; then
		echo "gup-lab: this kernel has no $fs (CONFIG_${fs^^}_FS)" >&2
		return 1
	fi
	dev=$(disk_by_serial "$1") ||
		{ echo "gup-lab: no $1 scratch disk (qemu/run.sh --fs $1)" >&2; return 1; }
	mkdir -p "/mnt/$1" && mount -t "$fs" "${opts[@]}" "$dev" "/mnt/$1"
}

# scratch_umount: unmount every scratch file system this file mounted, so
# that its image is whole on the host; says which could not be.
scratch_umount() {
	local t
	cd / || return 1
	sync
	for t in xfs btrfs ext4j; do
		! mountpoint -q "/mnt/$t" || umount "/mnt/$t" ||
			echo "gup-lab: could not unmount /mnt/$t: its image may be incomplete" >&2
	done
}
