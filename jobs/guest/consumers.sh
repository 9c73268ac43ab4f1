#!/bin/bash
# The guest half of `make consumers` (jobs/consumers.sh), run in the guest
# as `bash /lab/guest/consumers.sh`.  Steps:
#   1. mount the scratch xfs and btrfs (jobs/guest/disks.sh, qemu/run.sh
#      --fs TYPE) at /mnt/xfs and /mnt/btrfs; ext4 is at /mnt/ext4 (the
#      root image's fstab).  One that cannot be mounted says why on the
#      log, and gupctl then runs none of its cells, each "not run" with
#      the reason (never a pass: the host's judge fails them);
#   2. `gupctl consumers run`: the kernel's own GUP users on every backing
#      and page state, a marker per cell on /dev/kmsg ("gup-lab: consumers
#      cell N", gupctl's kmsg_mark()), the measurements to
#      /lab/out/consumers.json, its log to /lab/out/consumers.log and to
#      the console.  No module: the interfaces are the kernel's;
#   3. unmount xfs and btrfs, so that the host reads whole images
#      (qemu/read-image.sh; rootfs/init unmounts /mnt/ext4).
# Inputs (environment): GUP_LAB_FLAVOUR and GUP_LAB_POLICY (qemu/run.sh
# exports them), CONSUMERS_QUICK (true: gupctl consumers run --quick, make
# check's subset; false: every cell).
# Exit status: gupctl consumers run's, which says only whether every cell
# could be set up; the measurements are data.
set -u
# shellcheck source=disks.sh
. "${0%/*}/disks.sh"	# no dirname: a command costs 50-100 ms under TCG
quick=()
[ "${CONSUMERS_QUICK:?CONSUMERS_QUICK: true or false}" = false ] || quick=(--quick)
scratch_mount xfs
scratch_mount btrfs
gupctl consumers run "${quick[@]}" --flavour "$GUP_LAB_FLAVOUR" --policy "$GUP_LAB_POLICY" \
	--json /lab/out/consumers.json >/lab/out/consumers.log 2>&1
status=$?
cat /lab/out/consumers.log
scratch_umount
exit $status
