#!/bin/bash
# Runs inside the guest: load the lab's module (jobs/guest/module.sh's
# module_load, which says why it could not) and make the scratch ext4's
# file.img (1 MiB, written back so every page starts clean with buffers).
set -euo pipefail
# shellcheck source=../jobs/guest/module.sh
. /lab/guest/module.sh

module_load
head -c 1M /dev/zero | tr '\0' 'A' >/mnt/ext4/file.img
sync
echo "gup-lab: gup_pin_test loaded, /mnt/ext4/file.img ready ($(uname -r))"
