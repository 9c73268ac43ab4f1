#!/bin/bash
# One guest per flavour for everything of make check that leaves the
# kernel running and needs no job of its own (docs/lab.md):
# - the flavour boots: a clean console, a scratch ext4 the host can read
#   back, and vma_needs_dirty_tracking in kallsyms iff its tree defines it;
# - driver_selftest on the kernel's kselftest harness (round trips, the
#   write rule, page state, privileges, close-with-pins, bad input,
#   concurrency), and debugfs_reader (each debugfs read checks its
#   reader: an fd inherited across a drop to nobody, one opened through a
#   root io_uring personality);
# - the short fuzz (the long one is make soak, jobs/soak.sh): gupctl fuzz
#   once per seed of a fixed list (docs/gupctl.md), each seed a KTAP
#   subtest; a failing seed prints the command that replays it.  The fuzzer
#   makes no request a policy expects a WARN for: any kernel report in its
#   step fails the flavour;
# - the mission's interactive line (gupctl pin), with the kernel report
#   its policy expects, then no pin left and a clean rmmod.
# Each step starts with a marker on /dev/kmsg: a kernel report is judged
# by the step it falls in.
#
#   tests/lab/20-driver.sh [FLAVOUR...]    (default: every flavour)
# shellcheck source=../suite.sh
. "$(dirname "$0")/../suite.sh"
# shellcheck source=../../jobs/lib.sh
. jobs/lib.sh

# An iso9660 image with one file, for the selftest's file system without
# ->dirty_folio (isofs); Rock Ridge keeps the name as it is.  Without
# genisoimage (qemu/install-host-deps.sh installs it) the guest has no
# image and that test is skipped, saying why.
mkdir -p "$work/iso"
head -c 16384 /dev/zero | tr '\0' I >"$work/iso/data.bin"
if command -v genisoimage >/dev/null; then
	genisoimage -quiet -r -o "$work/ro.iso" "$work/iso"
else
	echo "# genisoimage not found: no iso9660 image, its selftest is skipped"
fi

if [ $# -gt 0 ]; then
	flavours=("$@")
else
	mapfile -t flavours < <(all_flavours)
fi
seeds=(1 2 3)
ops=2000
threads=4

# driver_boot F: F's guest, its results in $work/F.*; judged below, once
# every flavour has run (two guests at a time: jobs/lib.sh's job_parallel).
# shellcheck disable=SC2317 # called by job_parallel
driver_boot() {
	local f=$1 stage=$work/$1.stage t0
	rootfs/stage-guest.sh "$f" "$stage" >"$work/$f.stage.log" 2>&1 || {
		sed 's/^/# /' "$work/$f.stage.log"
		return 1
	}
	[ ! -f "$work/ro.iso" ] || cp "$work/ro.iso" "$stage/ro.iso"
	t0=$SECONDS
	# shellcheck disable=SC2016 # the command is expanded in the guest
	qemu/run.sh --flavour "$f" --quiet --raw-trace --timeout 600 --files "$stage" \
		--report "$work/$f.report" --out "$work/$f.run" \
		--exec "SEEDS='${seeds[*]}' OPS=$ops THREADS=$threads POLICY=$(flavour_field "$f" 3)"'
		set -u
		uname -r >/lab/out/uname
		echo written-in-guest >/mnt/ext4/hello
		grep -qw vma_needs_dirty_tracking /proc/kallsyms
		echo $? >/lab/out/kallsyms.status
		echo "<5>gup-lab: driver step selftest" >/dev/kmsg
		bash /lab/bin/guest-setup.sh || exit 90
		driver_selftest /mnt/ext4 /lab/ro.iso >/lab/out/selftest.tap 2>&1
		echo $? >/lab/out/selftest.status
		debugfs_reader >/lab/out/debugfs_reader.tap 2>&1
		echo $? >/lab/out/debugfs_reader.status
		echo "<5>gup-lab: driver step fuzz" >/dev/kmsg
		for s in $SEEDS; do
			gupctl fuzz --seed "$s" --ops "$OPS" --threads "$THREADS" \
				--policy "$POLICY" >/lab/out/fuzz-$s.ktap 2>&1
			echo $? >/lab/out/fuzz-$s.status
		done
		head -1 /sys/kernel/debug/gup_pin_test/counters >/lab/out/fuzz.counters
		# what follows may WARN as its policy expects (gup-v1)
		echo "<5>gup-lab: driver step pin" >/dev/kmsg
		echo 1 >/sys/kernel/debug/clear_warn_once
		gupctl pin --policy "$POLICY" --longterm --write /mnt/ext4/file.img </dev/null \
			>/lab/out/pin.out 2>&1
		echo $? >/lab/out/pin.status
		grep -c . /sys/kernel/debug/gup_pin_test/pins >/lab/out/pins.count
		rmmod gup_pin_test; echo $? >/lab/out/rmmod.status
		' --results "$work/$f.out" >"$work/$f.console" 2>&1 || true
	echo $((SECONDS - t0)) >"$work/$f.seconds"
}
job_parallel driver_boot "${flavours[@]}" >&2 || true

# step_line F STEP: the console line of F's marker before STEP (a large
# number when it never came: the step's reports are then the boot's).
step_line() {
	local l
	l=$(grep -an "gup-lab: driver step $2" "$(report_get "$work/$1.report" console)" 2>/dev/null |
		head -1 | cut -d: -f1)
	echo "${l:-1000000000}"
}

# reports_in F FROM TO: the kinds of kernel report on F's console from
# line FROM to before line TO, comma separated.
reports_in() {
	jq -r --argjson a "$2" --argjson b "$3" \
		'[.[] | select(.line >= $a and .line < $b) | .kind] | join(",")' "$work/$1.reports"
}

for f in "${flavours[@]}"; do
	r=$work/$f.out
	policy=$(flavour_field "$f" 3)
	console=$(report_get "$work/$f.report" console)
	qemu/scan-console.sh --reports "$console" >"$work/$f.reports" 2>/dev/null ||
		echo '[{"line": 0, "kind": "no console log"}]' >"$work/$f.reports"
	selftest=$(step_line "$f" selftest) fuzz=$(step_line "$f" fuzz) pin=$(step_line "$f" pin)
	echo "# $f: one boot, $(cat "$work/$f.seconds" 2>/dev/null || echo '?') s"
	# without its markers no report could be placed in its step
	tap_like "$selftest $fuzz $pin" '^[0-9]{1,8} [0-9]{1,8} [0-9]{1,8}$' \
		"$f: the console has each step's marker (selftest, fuzz, pin)"

	# The boot itself (what tests/lab/10-foundation.sh checked per
	# flavour, in a boot of its own, before the guests were shared).
	tap_like "$(cat "$r/uname" 2>/dev/null)" '^[0-9]+\.[0-9]+' "$f: boots and runs the guest command"
	tap_is "$(reports_in "$f" 0 "$selftest")" "" \
		"$f: console clean (no oops/BUG/WARNING) from boot to the driver's tests"
	# The guest's grep exits 0 iff vma_needs_dirty_tracking is in
	# kallsyms: a series adds it to 6.1 (gup-v7, gup-v9), 6.12 has it
	# (mm/vma.c:1890).
	if grep -rqs '^bool vma_needs_dirty_tracking' "$(flavour_dir "$f")/src/mm/"; then
		want=0
	else
		want=1
	fi
	tap_is "$(cat "$r/kallsyms.status" 2>/dev/null)" "$want" \
		"$f: vma_needs_dirty_tracking in /proc/kallsyms iff its tree defines it"
	tap_is "$(debugfs -R 'cat /hello' "$work/$f.run/scratch.img" 2>/dev/null)" written-in-guest \
		"$f: the scratch ext4 is readable from the host after the run"

	tap_is "$(reports_in "$f" "$selftest" "$fuzz")" "" \
		"$f: console clean (no oops/BUG/WARNING) through the driver tests"
	tap_is "$(reports_in "$f" "$fuzz" "$pin")" "" \
		"$f: console clean (no oops/BUG/WARNING/KASAN) through the fuzz"
	# In the pin step, a WARNING iff the policy says so (gupctl pin's
	# "expect:  a kernel warning" line).
	if grep -q '^expect:  a kernel warning' "$r/pin.out" 2>/dev/null; then
		want_reports='^warning(,warning)*$'
	else
		want_reports='^$'
	fi
	tap_like "$(reports_in "$f" "$pin" 1000000000)" "$want_reports" \
		"$f: gupctl pin's kernel reports are the ones its policy expects"
	first=$(report_get "$work/$f.report" first_report)
	[ -z "$first" ] || echo "# $f: first kernel report: $first"

	# The 6.1 harness (tools/testing/selftests/kselftest_harness.h) prints
	# TAP 13: a plan, "ok N name" or "ok N # SKIP why" or "not ok N name"
	# (after its TH_LOG lines), "# PASSED: n / N tests passed." and
	# "# Totals: ...".  A skipped test counts as passed there.
	st=$(cat "$r/selftest.tap" 2>/dev/null || true)
	plan=$(sed -n 's/^1\.\.\([0-9][0-9]*\)$/\1/p' <<<"$st")
	tap_is "$(cat "$r/selftest.status" 2>/dev/null)" 0 "$f: driver_selftest exits 0"
	tap_like "$plan" '^[1-9][0-9]*$' "$f: driver_selftest printed a TAP plan"
	tap_is "$(grep -c '^not ok' <<<"$st")" 0 "$f: no driver_selftest test is 'not ok'"
	grep -E '^not ok|^# [^ ]+\.c:[0-9]+:|^# [^ ]+: Test ' <<<"$st" | sed 's/^/# /' || true
	summary=$(grep -E '^# (PASSED|FAILED): |^# Totals: ' <<<"$st" || true)
	while read -r line; do
		[ -z "$line" ] || echo "# $f: driver_selftest: ${line#\# }"
	done <<<"$summary"
	tap_like "$summary" "^# PASSED: $plan / $plan tests passed\.\$" \
		"$f: the harness counts all $plan tests passed"
	tap_like "$summary" '^# Totals: pass:[0-9]+ fail:0 xfail:0 xpass:0 skip:[0-9]+ error:0$' \
		"$f: the harness totals have no failure and no error"
	awk '/^#  RUN / { name = $3 } / # SKIP / { sub(/^.* # SKIP /, ""); print "# " f ": skipped " name ": " $0 }' \
		f="$f" <<<"$st"
	# debugfs_reader: three tests, none may fail; a SKIP (no io_uring) says why
	dr=$(cat "$r/debugfs_reader.tap" 2>/dev/null || true)
	tap_is "$(cat "$r/debugfs_reader.status" 2>/dev/null) $(sed -n 's/^1\.\.//p' <<<"$dr")" "0 3" \
		"$f: debugfs_reader: its 3 tests passed (each debugfs read checks its reader)"
	grep -E '^not ok|^# [^ ]+\.c:[0-9]+:| # SKIP ' <<<"$dr" | sed "s/^/# $f: debugfs_reader: /" || true

	# The short fuzz: each seed's KTAP one level down.
	for sd in "${seeds[@]}"; do
		k=$r/fuzz-$sd.ktap
		sed 's/^/  /' "$k" 2>/dev/null || true
		st=$(cat "$r/fuzz-$sd.status" 2>/dev/null || echo none)
		if [ "$st" = 0 ] && [ -s "$k" ] && ! grep -q '^not ok' "$k"; then
			tap_ok "$f: gupctl fuzz --seed $sd: every answer as the ABI allows, no pin left"
		else
			tap_not_ok "$f: gupctl fuzz --seed $sd (exit $st)"
			grep -E '^# (FAIL|CRASH)' "$k" 2>/dev/null | head -5 || true
			# the fuzzer's own replay line if it got that far, else ours
			replay=$(sed -n 's/^# replay: //p' "$k" 2>/dev/null | head -1)
			echo "# replay in a guest (make shell FLAVOUR=$f): ${replay:-gupctl fuzz --seed $sd --ops $ops --threads $threads --policy $policy}"
		fi
	done
	tap_like "$(cat "$r/fuzz.counters" 2>/dev/null)" ' pins_live=0 pages_pinned=0 ' \
		"$f: debugfs counters after every fuzz run: no pin, no page held"

	# gupctl pin --longterm --write on an ext4 MAP_SHARED file, against
	# the flavour's policy: gupctl prints what userspace/model/policy.c expects
	# before it pins, then whether the kernel's answer agrees.
	pin_out=$(cat "$r/pin.out" 2>/dev/null)
	want=$(sed -n 's/^expect:  \([a-z]*\).*/\1/p' <<<"$pin_out")
	tap_like "$pin_out" "^policy:  $policy " "$f: gupctl pin takes the flavour's policy ($policy)"
	tap_like "$pin_out" "^  (EFAULT, )?as policy $policy expects: " \
		"$f: gupctl pin --longterm --write file.img: the kernel did what policy $policy expects (${want:-?})"
	case $want in
	pinned) tap_is "$(cat "$r/pin.status" 2>/dev/null)" 0 "$f: exit 0 for a pin" ;;
	*) tap_is "$(cat "$r/pin.status" 2>/dev/null)" 1 "$f: exit 1 for a refusal" ;;
	esac
	tap_is "$(cat "$r/pins.count" 2>/dev/null)" 0 "$f: no pin left in debugfs after gupctl exits"
	tap_is "$(cat "$r/rmmod.status" 2>/dev/null)" 0 "$f: rmmod gup_pin_test succeeds"
done

tap_done
