#!/bin/bash
# The guest half of `make consumers` (jobs/consumers.sh), run in the guest
# as `bash /lab/guest/consumers.sh`.  One step: `gupctl consumers run`, the
# kernel's own GUP users on every backing and page state, a marker per cell
# on /dev/kmsg ("gup-lab: consumers cell N", gupctl's kmsg_mark()), the
# measurements to /lab/out/consumers.json, its log to
# /lab/out/consumers.log and to the console.  No module: the interfaces
# are the kernel's.
# Inputs (environment): GUP_LAB_FLAVOUR and GUP_LAB_POLICY (qemu/run.sh
# exports them), CONSUMERS_QUICK (true: gupctl consumers run --quick, make
# check's subset; false: every cell).
# Exit status: gupctl consumers run's, which says only whether every cell
# could be set up; the measurements are data.
set -u
quick=()
[ "${CONSUMERS_QUICK:?CONSUMERS_QUICK: true or false}" = false ] || quick=(--quick)
gupctl consumers run "${quick[@]}" --flavour "$GUP_LAB_FLAVOUR" --policy "$GUP_LAB_POLICY" \
	--json /lab/out/consumers.json >/lab/out/consumers.log 2>&1
status=$?
cat /lab/out/consumers.log
exit $status
