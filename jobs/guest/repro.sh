#!/bin/bash
# The guest half of `make repro` (jobs/repro.sh), run in the guest as
# `bash /lab/guest/repro.sh`: one boot's cells of the ext4-2018
# reproduction, one after the other, on ext4, xfs and btrfs.  Steps:
#   1. load gup_pin_test.ko; mount the scratch xfs and btrfs the boot's
#      cells need (jobs/guest/disks.sh: /mnt/xfs, /mnt/btrfs; ext4 is at
#      /mnt/ext4);
#   2. ext4's warning rate limit off (fs/ext4/sysfs.c:
#      warning_ratelimit_interval_ms 0), so that every cell's "does not
#      have buffers attached" is printed;
#   3. per cell N (1, 2, ... in the order of /lab/repro.cells): the marker
#      "gup-lab: repro cell N" on /dev/kmsg, a clear_warn_once
#      (kernel/panic.c: ext4's WARN_ON_ONCEs fire again for this cell),
#      `gupctl repro ext4-2018` in /mnt/FS/NAME, its output to
#      /lab/out/NAME.out (a tty's output can reach the console after a
#      printk that followed it), its JSON to /lab/out/NAME.json, its exit
#      status to /lab/out/NAME.status, then a sync, so that the writeback
#      of what it left dirty is printed before the next marker;
#   4. the marker "gup-lab: repro end" (what follows is the shutdown's),
#      then xfs and btrfs unmounted, so that the host reads whole images
#      (the scratch ext4 is unmounted by rootfs/init; a cell that BUGs
#      ends the boot before: only ext4 cells BUG, and their data is on
#      disk before the fsync that BUGs).
# The markers are every job's format (gupctl's kmsg_mark(), userspace/lib/kmsg.h):
# the host slices the console by them (jobs/repro.sh: gupctl slice --step repro).
# Input: /lab/repro.cells, written by jobs/repro.sh for this boot, one line
# per cell: its NAME (a file name: `gupctl repro cells`' "file"), its file
# system, then every argument of its `gupctl repro ext4-2018`, fields
# separated by tabs.
# Exit status: 1 when the module did not load or /lab/repro.cells is not
# there; 0 otherwise (each cell's status is data, in /lab/out/NAME.status;
# a cell whose file system could not be mounted leaves no facts, and its
# NAME.out says why).
set -u
# shellcheck source=module.sh
. "${0%/*}/module.sh"	# no dirname: a command costs 50-100 ms under TCG
# shellcheck source=disks.sh
. "${0%/*}/disks.sh"

module_load || exit 1
mapfile -t cells </lab/repro.cells || exit 1
declare -A up=()
for fs in ext4 xfs btrfs; do
	[ "$fs" = ext4 ] || ! printf '%s\n' "${cells[@]}" | cut -f2 | grep -qx "$fs" ||
		scratch_mount "$fs"
	! mountpoint -q "/mnt/$fs" || up[$fs]=1
done
for r in /sys/fs/ext4/*/warning_ratelimit_interval_ms; do echo 0 >"$r"; done
for ((n = 1; n <= ${#cells[@]}; n++)); do
	IFS=$'\t' read -r -a args <<<"${cells[n - 1]}"
	name=${args[0]} fs=${args[1]}
	echo "<5>gup-lab: repro cell $n" >/dev/kmsg
	echo 1 >/sys/kernel/debug/clear_warn_once
	if [ -n "${up[$fs]:-}" ]; then
		mkdir -p "/mnt/$fs/$name"
		gupctl repro ext4-2018 "${args[@]:2}" --dir "/mnt/$fs/$name" \
			--json "/lab/out/$name.json" >"/lab/out/$name.out" 2>&1
		echo $? >"/lab/out/$name.status"
	else
		echo "gup-lab: /mnt/$fs is not mounted: the cell did not run" >"/lab/out/$name.out"
	fi
	sync
done
echo "<5>gup-lab: repro end" >/dev/kmsg
scratch_umount
