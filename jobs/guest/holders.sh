#!/bin/bash
# The guest half of `make holders` (jobs/holders.sh), run in the guest as
# `bash /lab/guest/holders.sh`.  No test driver is loaded: every pin is the
# kernel's own.  Steps:
#   1. mount the scratch xfs, btrfs and ext4j, an ext4 mounted
#      data=journal (jobs/guest/disks.sh; ext4 is at /mnt/ext4), and find
#      the slow disk (serial gl-slow);
#   2. ext4's warning rate limit off (fs/ext4/sysfs.c:
#      warning_ratelimit_interval_ms 0), so that every cell's "does not
#      have buffers attached" is printed;
#   3. per cell N (in the order of /lab/holders.cells): the marker
#      "gup-lab: holders cell N" on /dev/kmsg, a clear_warn_once (each
#      cell's WARN_ON_ONCEs fire again), `gupctl holders run` in
#      /mnt/FS/NAME, its output to /lab/out/NAME.out, its facts to
#      /lab/out/NAME.json, its status to /lab/out/NAME.status, then a sync,
#      so that what the cell left dirty is written (and said) before the
#      next marker;
#   4. the marker "gup-lab: holders end", then the scratch file systems
#      unmounted, so that the host reads whole images.
# Input: /lab/holders.cells, one line per cell: NAME FS HOLDER EVENT
# (jobs/holders.sh writes it from `gupctl holders cells`).
# Exit status: 1 when /lab/holders.cells is not there or no slow disk was
# given; 0 otherwise (each cell's status is data, in /lab/out/NAME.status;
# a file system this kernel lacks leaves its cells without facts).
set -u
# shellcheck source=disks.sh
. "${0%/*}/disks.sh"	# no dirname: a command costs 50-100 ms under TCG

mapfile -t cells </lab/holders.cells || exit 1
slow=$(disk_by_serial slow) || { echo "gup-lab: no slow disk (qemu/run.sh --raw-disk slow:MB)" >&2; exit 1; }
scratch_mount xfs
scratch_mount btrfs
scratch_mount ext4j
for r in /sys/fs/ext4/*/warning_ratelimit_interval_ms; do echo 0 >"$r"; done
for ((n = 1; n <= ${#cells[@]}; n++)); do
	read -r name fs holder event <<<"${cells[n - 1]}"
	echo "<5>gup-lab: holders cell $n" >/dev/kmsg
	echo 1 >/sys/kernel/debug/clear_warn_once
	if mountpoint -q "/mnt/$fs"; then
		gupctl holders run --fs "$fs" --holder "$holder" --event "$event" \
			--dir "/mnt/$fs/$name" --slow "$slow" \
			--json "/lab/out/$name.json" >"/lab/out/$name.out" 2>&1
		echo $? >"/lab/out/$name.status"
	fi
	sync
done
echo "<5>gup-lab: holders end" >/dev/kmsg
scratch_umount
