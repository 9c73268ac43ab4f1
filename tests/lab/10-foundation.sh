#!/bin/bash
# Foundation: every flavour boots, the runner returns the guest command's
# status, crashes and hangs become verdicts, and each flavour carries what
# its series says it carries.  Expectations come from the patch files, not
# from earlier runs.
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

# foundation_boot F: F's guest, its results in $work/F.*; judged below,
# once every flavour has run (two at a time: jobs/lib.sh's job_parallel).
# shellcheck disable=SC2317 # called by job_parallel
foundation_boot() {
	local out=$work/$1 status=0
	qemu/run.sh --flavour "$1" --quiet --timeout 300 --report "$out.report" \
		--out "$out" --exec '
		uname -r
		test ! -e /gup-lab-marker || exit 10   # root disk must be pristine
		touch /gup-lab-marker
		echo written-in-guest >/mnt/ext4/hello
		if grep -qw vma_needs_dirty_tracking /proc/kallsyms; then exit 0; fi
		exit 3' >"$out.stdout" 2>&1 || status=$?
	echo "$status" >"$out.status"
}
mapfile -t flavours < <(all_flavours)
job_parallel foundation_boot "${flavours[@]}" >&2 || true

for f in "${flavours[@]}"; do
	out=$work/$f
	status=$(cat "$out.status" 2>/dev/null || echo none)
	tap_is "$(report_get "$out.report" kernel_verdict)" clean "$f: boots with a clean console"
	# The guest exits 0 iff vma_needs_dirty_tracking is in kallsyms: a
	# series adds it to 6.1 (gup-v7, gup-v9), 6.12 has it (mm/vma.c:1890).
	if grep -rqs '^bool vma_needs_dirty_tracking' "$(flavour_dir "$f")/src/mm/"; then
		want=0
	else
		want=3
	fi
	tap_is "$status" "$want" "$f: vma_needs_dirty_tracking in /proc/kallsyms iff its tree defines it"
	got=$(debugfs -R 'cat /hello' "$out/scratch.img" 2>/dev/null)
	tap_is "$got" written-in-guest "$f: the scratch ext4 is readable from the host after the run"

	# The ext4 warning string is gone exactly where a series removes it.
	kdir=$(flavour_dir "$f")
	if grep -qa 'does not have buffers attached' "$kdir/build/vmlinux"; then got=present; else got=absent; fi
	if series_removes "$f" '.*does not have buffers attached'; then want=absent; else want=present; fi
	tap_is "$got" "$want" "$f: ext4 'does not have buffers attached' check $want in vmlinux"
done

# A stock boot reaches init in about 2 s (docs/performance.md): 15 s is a
# hang.  Its guest sleeps, so it waits beside the two boots that follow
# (not beside job_parallel's: its wait -n would reap it).
qemu/run.sh --flavour stock --quiet --timeout 15 --report "$work/hang.report" \
	--exec 'sleep 600' >"$work/hang.out" 2>&1 &
hang=$!

# Root disk is a snapshot: the marker of the runs above never reaches it.
# One boot checks that and the exit status: 42 only if the marker is absent.
set +e
qemu/run.sh --flavour stock --quiet --timeout 300 \
	--exec 'test ! -e /gup-lab-marker || exit 10; exit 42' >/dev/null 2>&1
status=$?
case $status in
42) tap_ok "stock: runs never modify the root image" ;;
10) tap_not_ok "stock: runs never modify the root image (/gup-lab-marker is there)" ;;
*) tap_not_ok "stock: runs never modify the root image (undecided: exit status $status)" ;;
esac
tap_is "$status" 42 "runner returns the guest command's exit status"

qemu/run.sh --flavour stock --quiet --timeout 300 --report "$work/crash.report" \
	--exec 'echo c >/proc/sysrq-trigger; exit 0' >"$work/crash.out" 2>&1
status=$?
tap_is "$status" 125 "a sysrq crash is a kernel verdict (125), not success"
tap_like "$(report_get "$work/crash.report" kernel_verdict)" '^(panic|oops|bug)$' \
	"the report names the crash"
tap_like "$(cat "$work/crash.out")" 'sysrq' "the crash trace is printed"

wait "$hang"
tap_is "$?" 124 "a guest that never finishes ends at the timeout (124)"
tap_like "$(cat "$work/hang.out")" 'TIMEOUT' "the timeout is said plainly"
set -e

tap_done
