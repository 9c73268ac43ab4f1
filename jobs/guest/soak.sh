#!/bin/bash
# The guest half of `make soak`'s soak boot (jobs/soak.sh, its step 3), run
# in the guest as `bash /lab/guest/soak.sh`.  Steps:
#   1. kmemleak: what the boot left behind is scanned and cleared (not ours);
#   2. the module loaded and /mnt/ext4/file.img made (rootfs/guest-setup.sh);
#   3. the driver's selftests (driver_selftest on the scratch ext4);
#   4. the long fuzz (gupctl fuzz, docs/gupctl.md);
#   5. the driver's counters once every fd is closed (the fuzzer exited):
#      no pin may be left;
#   6. rmmod;
#   7. a kmemleak scan: kmemleak reports objects unreferenced for 5 s and
#      more, so it waits that long after rmmod.
# What each step leaves in /lab/out: release, setup.log, selftest.tap and
# selftest.status, fuzz.ktap, fuzz.json and fuzz.status, counters,
# rmmod.status, and kmemleak (or kmemleak.missing: a kernel without it).
# Inputs (environment): GUP_LAB_POLICY (qemu/run.sh exports it), and the
# fuzz's FUZZ_SEED, FUZZ_OPS and FUZZ_THREADS (jobs/soak.sh's --seed,
# --ops, --threads).
# Exit status: 90 when the setup failed (the module did not load); else
# the status of the last step (the kmemleak scan's); the host judges the
# files, not this status.
set -u
leak=/sys/kernel/debug/kmemleak
{ echo scan >$leak && echo clear >$leak; } 2>/dev/null
uname -r >/lab/out/release
bash /lab/bin/guest-setup.sh >/lab/out/setup.log 2>&1 || exit 90
driver_selftest /mnt/ext4 >/lab/out/selftest.tap 2>&1
echo $? >/lab/out/selftest.status
gupctl fuzz --seed "$FUZZ_SEED" --ops "$FUZZ_OPS" --threads "$FUZZ_THREADS" \
	--policy "$GUP_LAB_POLICY" --json /lab/out/fuzz.json >/lab/out/fuzz.ktap 2>&1
echo $? >/lab/out/fuzz.status
head -1 /sys/kernel/debug/gup_pin_test/counters >/lab/out/counters
rmmod gup_pin_test
echo $? >/lab/out/rmmod.status
sleep 6
if echo scan 2>/dev/null >$leak && sleep 1 && echo scan >$leak; then
	cat $leak >/lab/out/kmemleak
else
	echo "kmemleak: not available on this kernel" >/lab/out/kmemleak.missing
fi
