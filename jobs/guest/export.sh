#!/bin/bash
# The guest half of `make export` (jobs/export.sh), run as
# `bash /lab/guest/export.sh`: every reproducer in /lab/export/ (static
# binaries `gupctl export` wrote and the host compiled), one after the
# other, each after its marker "gup-lab: export cell N" (lib/kmsg.h's
# format; the names in /lab/export.cells, in order), its output to
# /lab/out/NAME.out and its exit status to /lab/out/NAME.status.  The
# reproducers make their own file systems on loop devices in /tmp.
set -u
n=0
while read -r name; do
	n=$((n + 1))
	echo "gup-lab: export cell $n" >/dev/kmsg
	"/lab/export/$name" /tmp >"/lab/out/$name.out" 2>&1
	echo $? >"/lab/out/$name.status"
done </lab/export.cells
echo "gup-lab: export end" >/dev/kmsg
