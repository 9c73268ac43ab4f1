#!/bin/bash
# The guest half of GUP policy detection (issue 27, "your kernel"), run in
# the guest as `bash /lab/guest/detect.sh`.  Steps:
#   1. load gup_pin_test.ko (module.sh): the driver's features are among
#      the facts (stock and gup-v1 differ only there), and the probes pin
#      through it;
#   2. gupctl detect: the kernel's facts, the candidate policy they name,
#      and the decisive matrix cells userspace/model/probe.c derives for
#      the release's policies, each after its marker "gup-lab: detect cell
#      N" (N the matrix index, lib/kmsg.h's format), WARN_ON_ONCE re-armed
#      before a cell some model expects a WARNING of; the KTAP to
#      /lab/out/detect.ktap, the verdict to /lab/out/detect.json
#      (.policy: a policy name or null: none; docs/policies-guide.md,
#      "Your kernel");
#   3. rmmod.
# Probe cells make their files in /mnt/ext4 (the root image's ext4); no
# scratch disk is needed.
# Exit status: 0 when detection ran (every probe ran), whatever the
# verdict; 1 otherwise (the module did not load, a probe could not be set
# up: the KTAP says which).
set -u
# shellcheck source=module.sh
. "${0%/*}/module.sh"	# no dirname: a command costs 50-100 ms under TCG

status=1
if module_load; then
	gupctl detect --json /lab/out/detect.json >/lab/out/detect.ktap
	status=$?
	rmmod gup_pin_test
fi
[ $status -eq 0 ]
