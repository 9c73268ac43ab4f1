#!/bin/bash
# The guest half of `make soak`'s soak boot (jobs/soak.sh, its step 3), run
# in the guest as `bash /lab/guest/soak.sh`.  Steps:
#   1. kmemleak: what the boot left behind is scanned and cleared (not ours);
#   2. the module loaded and /mnt/ext4/file.img made (rootfs/guest-setup.sh);
#   3. the driver's selftests (driver_selftest on the scratch ext4);
#   4. the long fuzz (gupctl fuzz, docs/gupctl.md);
#   5. the driver's counters once every fd is closed (the fuzzer exited):
#      no pin may be left;
#   6. the fuzz again with each kind of the kernel's fault injection
#      (FUZZ_INJECT, each FUZZ_INJECT_OPS operations, gupctl fuzz
#      --inject): the counters after each, no pin left;
#   7. rmmod;
#   8. a kmemleak scan: kmemleak reports objects unreferenced for 5 s and
#      more, so it waits that long after rmmod.
# The module's gcov counters (CONFIG_GCOV_KERNEL, module/Kbuild) are
# copied after the selftests (counted from the load), then reset; after the
# fuzz (the fuzz alone) and after step 6 (the fuzz and the injections).
# What each step leaves in /lab/out: release, setup.log, selftest.tap and
# selftest.status, fuzz.ktap, fuzz.json and fuzz.status, counters,
# inject/KIND.{ktap,json,status,counters,injected} (injected: the failures
# the kernel forced, from the attribute's "times"), gcov/{selftest,fuzz,
# faults}.gcda (or gcov.missing), rmmod.status, and kmemleak (or
# kmemleak.missing: a kernel without it).
# Inputs (environment): GUP_LAB_POLICY (qemu/run.sh exports it), and the
# fuzz's FUZZ_SEED, FUZZ_OPS and FUZZ_THREADS, FUZZ_INJECT (kinds, by
# their debugfs names, space-separated; empty: no step 6) and
# FUZZ_INJECT_OPS, FUZZ_INJECT_PERCENT (jobs/soak.sh's options;
# fail_make_request fails every I/O its task starts: see inject_run).
# Exit status: 90 when the setup failed (the module did not load); else
# the status of the last step (the kmemleak scan's); the host judges the
# files, not this status.
set -u
leak=/sys/kernel/debug/kmemleak
dbg=/sys/kernel/debug
gcov=''

# save_gcov NAME: the module's counters so far, as gcov/NAME.gcda
save_gcov() {
	[ -n "$gcov" ] && cat "$gcov" >"/lab/out/gcov/$1.gcda"
}

# inject_set KIND PERCENT: make KIND fail PERCENT% of the time, for a task
# with make-it-fail set only (task-filter), counting each failure down from
# "times"; PERCENT 0 turns it off.  Without the ignore-gfp-* and min-order
# defaults, GFP_KERNEL and order-0 allocations fail too: most of GUP's and
# the driver's are such.
inject_set() {
	local a=$dbg/$1
	# off while the rest is set: until task-filter is Y, a probability
	# applies to every task (this script's writes failed with EFAULT
	# under fail_usercopy on mainline+debug)
	echo 0 >"$a/probability"
	echo 1 >"$a/interval"
	echo 0 >"$a/space"
	echo 0 >"$a/verbose"
	echo Y >"$a/task-filter"
	echo 1000000000 >"$a/times"
	[ ! -e "$a/ignore-gfp-wait" ] || echo N >"$a/ignore-gfp-wait"
	[ ! -e "$a/ignore-gfp-highmem" ] || echo N >"$a/ignore-gfp-highmem"
	[ ! -e "$a/min-order" ] || echo 0 >"$a/min-order"
	echo "$2" >"$a/probability"
	# fail_make_request: only the disks marked, every disk here
	if [ "$1" = fail_make_request ]; then
		for d in /sys/block/*/make-it-fail; do echo 1 >"$d"; done
	fi
}

# inject_run KIND: the fuzz with KIND's failures; its files under inject/.
inject_run() {
	local o=/lab/out/inject/$1 dropper=''
	if ! [ -d "$dbg/$1" ]; then
		echo "$dbg/$1: not in this kernel" >"$o.missing"
		return
	fi
	# I/O failures need I/O: the page cache dropped now and then, so that
	# GUP reads the fuzzer's file pages back from the disk (4, once:
	# no console line for each drop after it, fs/drop_caches.c; the
	# sysctl takes 1-4); and so rare inside a device call that each one
	# fails
	if [ "$1" = fail_make_request ]; then
		inject_set "$1" 100
		echo 4 >/proc/sys/vm/drop_caches
		while sleep 2; do echo 1 >/proc/sys/vm/drop_caches; done &
		dropper=$!
	else
		inject_set "$1" "$FUZZ_INJECT_PERCENT"
	fi
	gupctl fuzz --inject --seed "$FUZZ_SEED" --ops "$FUZZ_INJECT_OPS" \
		--threads "$FUZZ_THREADS" --policy "$GUP_LAB_POLICY" \
		--json "$o.json" >"$o.ktap" 2>&1
	echo $? >"$o.status"
	[ -z "$dropper" ] || kill "$dropper"
	echo $((1000000000 - $(cat "$dbg/$1/times"))) >"$o.injected"
	inject_set "$1" 0
	[ "$1" != fail_make_request ] || for d in /sys/block/*/make-it-fail; do echo 0 >"$d"; done
	head -1 $dbg/gup_pin_test/counters >"$o.counters"
}

{ echo scan >$leak && echo clear >$leak; } 2>/dev/null
uname -r >/lab/out/release
mkdir -p /lab/out/inject /lab/out/gcov
bash /lab/bin/guest-setup.sh >/lab/out/setup.log 2>&1 || exit 90
gcov=$(find $dbg/gcov -name gup_pin_test.gcda 2>/dev/null | head -1)
[ -n "$gcov" ] || echo "no gup_pin_test.gcda under $dbg/gcov: a kernel without CONFIG_GCOV_KERNEL" >/lab/out/gcov.missing
driver_selftest /mnt/ext4 >/lab/out/selftest.tap 2>&1
echo $? >/lab/out/selftest.status
save_gcov selftest
[ -z "$gcov" ] || echo 1 >$dbg/gcov/reset
gupctl fuzz --seed "$FUZZ_SEED" --ops "$FUZZ_OPS" --threads "$FUZZ_THREADS" \
	--policy "$GUP_LAB_POLICY" --json /lab/out/fuzz.json >/lab/out/fuzz.ktap 2>&1
echo $? >/lab/out/fuzz.status
head -1 $dbg/gup_pin_test/counters >/lab/out/counters
save_gcov fuzz
for kind in ${FUZZ_INJECT:-}; do
	inject_run "$kind"
done
[ -z "${FUZZ_INJECT:-}" ] || save_gcov faults
rmmod gup_pin_test
echo $? >/lab/out/rmmod.status
sleep 6
if echo scan 2>/dev/null >$leak && sleep 1 && echo scan >$leak; then
	cat $leak >/lab/out/kmemleak
else
	echo "kmemleak: not available on this kernel" >/lab/out/kmemleak.missing
fi
