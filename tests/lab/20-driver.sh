#!/bin/bash
# The driver and gupctl in a guest of every flavour: driver_selftest on the
# kernel's kselftest harness (round trips, the write rule, page state,
# privileges, close-with-pins, bad input, concurrency), the mission's
# interactive line, and a clean rmmod at the end.
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
# driver_boot F: F's guest, its results in $work/F.*; judged below, once
# every flavour has run (two guests at a time: jobs/lib.sh's job_parallel).
# shellcheck disable=SC2317 # called by job_parallel
driver_boot() {
	local f=$1 stage=$work/$1.stage
	rootfs/stage-guest.sh "$f" "$stage" >"$work/$f.stage.log" 2>&1 || {
		sed 's/^/# /' "$work/$f.stage.log"
		return 1
	}
	[ ! -f "$work/ro.iso" ] || cp "$work/ro.iso" "$stage/ro.iso"
	# shellcheck disable=SC2016 # the command is expanded in the guest
	qemu/run.sh --flavour "$f" --quiet --raw-trace --timeout 600 --files "$stage" \
		--report "$work/$f.report" --exec "POLICY=$(flavour_field "$f" 3)"'
		set -u
		bash /lab/bin/guest-setup.sh || exit 90
		driver_selftest /mnt/ext4 /lab/ro.iso >/lab/out/selftest.tap 2>&1
		echo $? >/lab/out/selftest.status
		# what follows may WARN as its policy expects (gup-v1)
		echo "<5>gup-lab: driver step pin" >/dev/kmsg
		echo 1 >/sys/kernel/debug/clear_warn_once
		gupctl pin --policy "$POLICY" --longterm --write /mnt/ext4/file.img </dev/null \
			>/lab/out/pin.out 2>&1
		echo $? >/lab/out/pin.status
		grep -c . /sys/kernel/debug/gup_pin_test/pins >/lab/out/pins.count
		rmmod gup_pin_test; echo $? >/lab/out/rmmod.status
		' --results "$work/$f.out" >"$work/$f.console" 2>&1 || true
}
job_parallel driver_boot "${flavours[@]}" >&2 || true

for f in "${flavours[@]}"; do
	r=$work/$f.out
	# Reports before the pin step fail; in it, a WARNING iff the policy
	# says so (gupctl pin's "expect:  a kernel warning" line).
	console=$(report_get "$work/$f.report" console)
	qemu/scan-console.sh --reports "$console" >"$work/$f.reports" 2>/dev/null ||
		echo '[{"line": 0, "kind": "no console log"}]' >"$work/$f.reports"
	mark=$(grep -n 'gup-lab: driver step pin' "$console" | head -1 | cut -d: -f1)
	tap_is "$(jq --argjson m "${mark:-1000000000}" '[.[] | select(.line < $m)] | length' \
		"$work/$f.reports")" 0 \
		"$f: console clean (no oops/BUG/WARNING) through the driver tests"
	if grep -q '^expect:  a kernel warning' "$work/$f.out/pin.out" 2>/dev/null; then
		want_reports='^warning$'
	else
		want_reports='^$'
	fi
	tap_like "$(jq -r --argjson m "${mark:-1000000000}" \
		'[.[] | select(.line >= $m) | .kind] | unique | join(",")' "$work/$f.reports")" \
		"$want_reports" "$f: gupctl pin's kernel reports are the ones its policy expects"
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

	# gupctl pin --longterm --write on an ext4 MAP_SHARED file, against
	# the flavour's policy: gupctl prints what userspace/policy.c expects
	# before it pins, then whether the kernel's answer agrees.
	pin_out=$(cat "$r/pin.out" 2>/dev/null)
	policy=$(flavour_field "$f" 3)
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
