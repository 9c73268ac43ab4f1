#!/bin/bash
# The guest half of `make bench` (jobs/bench.sh), run in the guest as
# `bash /lab/guest/bench.sh`.  Steps:
#   1. the module loaded and /mnt/ext4/file.img made (rootfs/guest-setup.sh;
#      its output to /lab/out/setup.log);
#   2. gupctl bench (docs/gupctl.md): every operation timed by our driver
#      and, for those it has, by the kernel's gup_test (/lab/bin/gup_test),
#      interleaved; the figures to /lab/out/bench.json.
# Inputs (environment): GUP_LAB_FLAVOUR (qemu/run.sh exports it) and
# BENCH_REPS, the repetitions per boot (jobs/bench.sh --reps).
# Exit status: 90 when the setup failed; else gupctl bench's.
set -u
bash /lab/bin/guest-setup.sh >/lab/out/setup.log 2>&1 || exit 90
gupctl bench --gup-test /lab/bin/gup_test --reps "$BENCH_REPS" --flavour "$GUP_LAB_FLAVOUR" \
	--json /lab/out/bench.json
