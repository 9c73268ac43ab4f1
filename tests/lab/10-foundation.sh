#!/bin/bash
# Foundation: the runner returns the guest command's status, runs never
# modify the root image, crashes and hangs become verdicts (three boots of
# stock), and each flavour carries what its series says it carries.  That
# every flavour boots is tests/lab/20-driver.sh's first check: its guest
# is shared with the driver's tests.  Expectations come from the patch
# files, not from earlier runs.
# shellcheck source=../suite.sh
. "$(dirname "$0")/../suite.sh"
# shellcheck source=../../jobs/lib.sh
. jobs/lib.sh

# series_removes FLAVOUR ERE: does any patch of the flavour remove a line matching ERE?
series_removes() {
	local s
	for s in $(flavour_series "$1"); do
		grep -qE "^-$2" patches/"$s"/*.patch && return 0
	done
	return 1
}

# What each flavour's series carries, read from its build (its boot is
# tests/lab/20-driver.sh's, shared with the driver's tests): the ext4
# warning string is gone exactly where a series removes it.
for f in $(all_flavours); do
	# built if missing (make check builds them first, with progress)
	if ! kdir=$(patches/build-flavour.sh "$f" 2>"$work/build.log"); then
		tap_not_ok "$f: its kernel builds"
		tail -5 "$work/build.log" | sed 's/^/# /'
		continue
	fi
	if grep -qa 'does not have buffers attached' "$kdir/build/vmlinux"; then got=present; else got=absent; fi
	if series_removes "$f" '.*does not have buffers attached'; then want=absent; else want=present; fi
	tap_is "$got" "$want" "$f: ext4 'does not have buffers attached' check $want in vmlinux"
done

# A stock boot reaches init in about 1 s (docs/performance.md): 15 s is a
# hang.  Its guest sleeps, so it waits beside the two boots that follow
# (not beside job_parallel's: its wait -n would reap it).
qemu/run.sh --flavour stock --quiet --timeout 15 --report "$work/hang.report" \
	--exec 'sleep 600' >"$work/hang.out" 2>&1 &
hang=$!

# Root disk is a snapshot: one boot writes a marker to it and exits 42,
# the next (the crash's) finds no marker.
set +e
qemu/run.sh --flavour stock --quiet --timeout 300 \
	--exec 'test ! -e /gup-lab-marker || exit 10; touch /gup-lab-marker; exit 42' >/dev/null 2>&1
status42=$?
tap_is "$status42" 42 "runner returns the guest command's exit status"

# shellcheck disable=SC2016 # the command is expanded in the guest
qemu/run.sh --flavour stock --quiet --timeout 300 --report "$work/crash.report" \
	--exec 'if [ -e /gup-lab-marker ]; then m=there; else m=absent; fi
	echo "<5>gup-lab: root marker $m" >/dev/kmsg
	echo c >/proc/sysrq-trigger; exit 0' >"$work/crash.out" 2>&1
status=$?
console=$(report_get "$work/crash.report" console)
marker=$(sed -n 's/.*gup-lab: root marker \([a-z]*\).*/\1/p' "$console" 2>/dev/null | head -1)
[ "$status42" -eq 42 ] || marker="undecided: the boot that writes it exited $status42"
case $marker in
absent) tap_ok "stock: runs never modify the root image" ;;
there) tap_not_ok "stock: runs never modify the root image (/gup-lab-marker of the boot before is there)" ;;
'') tap_not_ok "stock: runs never modify the root image (undecided: no marker line on the console)" ;;
*) tap_not_ok "stock: runs never modify the root image ($marker)" ;;
esac
tap_is "$status" 125 "a sysrq crash is a kernel verdict (125), not success"
tap_like "$(report_get "$work/crash.report" kernel_verdict)" '^(panic|oops|bug)$' \
	"the report names the crash"
# KVM when usable, TCG otherwise (qemu/accel.sh; tests/host/accel.sh tests
# the choice): the report says which ran and why
tap_like "$(report_get "$work/crash.report" accel) $(report_get "$work/crash.report" accel_why)" \
	'^(kvm KVM|tcg TCG)' "the report records the accelerator and why"
tap_like "$(cat "$work/crash.out")" 'sysrq' "the crash trace is printed"

wait "$hang"
tap_is "$?" 124 "a guest that never finishes ends at the timeout (124)"
tap_like "$(cat "$work/hang.out")" 'TIMEOUT' "the timeout is said plainly"
set -e

tap_done
