#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Host tests of the accelerator choice (qemu/accel.sh, which qemu/run.sh
# sources for every boot), no guest: a fake KVM device (GUP_LAB_KVM_DEV),
# a fake boot id (GUP_LAB_BOOT_ID), stub probes that count their calls in
# a file, and a throw-away cache.  KVM itself is not run: this machine has
# no /dev/kvm.  Also: qemu/run.sh refuses an invalid GUP_LAB_ACCEL before
# building anything, and jobs/lib.sh's job_accel reads the reports.
# Output: TAP version 13.  Exit status: 0 if every test passed.
# shellcheck source=../suite.sh
. "$(dirname "$0")/../suite.sh"
# shellcheck source=../../qemu/accel.sh
. qemu/accel.sh
# shellcheck source=../../jobs/lib.sh
. jobs/lib.sh

LAB_CACHE=$work/cache
unset GUP_LAB_ACCEL
export GUP_LAB_KVM_DEV=$work/kvm GUP_LAB_BOOT_ID=$work/boot_id GUP_LAB_CPUINFO=$work/cpuinfo
printf 'processor\t: 0\nflags\t\t: fpu vme vmx sse2\n' >"$work/cpuinfo"
echo 11111111-aaaa-bbbb-cccc-000000000001 >"$work/boot_id"
: >"$work/calls"

# the probe stubs: each call a line in $work/calls (they run in a subshell)
probe_ok() { echo ok >>"$work/calls"; }
probe_fail() { echo fail >>"$work/calls"; return 1; }
# probe_held: a probe that returns only once another process waits on a
# lock (/proc/locks marks a blocked request "->"): the second boot below
# is then queued behind this probe by construction, not by a sleep that
# makes it likely (10 s at most: with no lock there is no waiter, and its
# own probe makes the count wrong).
probe_held() {
	local end=$((SECONDS + 10))
	echo held >>"$work/calls"
	until grep -q -- '->' /proc/locks || [ "$SECONDS" -ge "$end" ]; do
		sleep 0.05
	done
}
calls() { wc -l <"$work/calls" | tr -d ' '; }

# choose OPTION PROBE KEY: accel_choose in this shell; rc, err (its stderr),
# got ("ACCEL: ACCEL_WHY") and probed (the probe's calls it made) set.
choose() {
	local before
	before=$(calls)
	rc=0
	accel_choose "$@" 2>"$work/err" || rc=$?
	err=$(cat "$work/err")
	got="$ACCEL: $ACCEL_WHY"
	probed=$(($(calls) - before))
}

# --- auto ---
rm -f "$work/kvm"
choose '' probe_ok k1
tap_is "$rc/${got%%:*}/$probed" 0/tcg/0 "auto, no device: TCG, nothing probed"
tap_like "$ACCEL_WHY" "^TCG: $work/kvm does not exist\.$" "auto, no device: the reason names the device"

: >"$work/kvm"
chmod 444 "$work/kvm"
if [ "$(id -u)" != 0 ]; then
	choose '' probe_ok k1
	tap_is "$rc/${got%%:*}/$probed" 0/tcg/0 "auto, a device not writable: TCG, nothing probed"
	tap_like "$ACCEL_WHY" 'is not readable and writable by user' "auto, a device not writable: the reason says so"
elif chmod 755 "$work" && setpriv --reuid=65534 --regid=65534 --clear-groups test -r qemu/accel.sh 2>/dev/null; then
	# root writes any file: the choice as nobody
	# shellcheck disable=SC2016 # expanded by the inner bash
	out=$(setpriv --reuid=65534 --regid=65534 --clear-groups \
		env LAB_CACHE="$work/nocache" bash -c '
		. qemu/accel.sh
		probe() { echo probed; }
		accel_choose "" probe k1
		echo "$?/$ACCEL/$ACCEL_WHY"' 2>&1)
	tap_is "${out%%/TCG*}" 0/tcg "auto, a device not writable (as nobody): TCG, nothing probed"
	tap_like "$out" 'is not readable and writable by user nobody\.$' "auto, a device not writable: the reason says so"
else
	tap_skip "auto, a device not writable" "root, and no setpriv or the tree not readable by nobody"
	tap_skip "auto, a device not writable: the reason" "as above"
fi
chmod 600 "$work/kvm"

# a CPU without vmx or svm: KVM cannot run, so no kernel is probed (a
# probe would hang to its timeout once per kernel)
printf 'processor\t: 0\nflags\t\t: fpu vme sse2 hypervisor\n' >"$work/cpuinfo"
choose '' probe_ok k-noflag
tap_is "$rc/${got%%:*}/$probed" 0/tcg/0 "auto, a CPU without vmx or svm: TCG, nothing probed"
tap_like "$ACCEL_WHY" 'no vmx or svm flag' "auto, a CPU without vmx or svm: the reason says so"
choose kvm probe_ok k-noflag
tap_is "$rc/$probed" 2/0 "--kvm on a CPU without vmx or svm: status 2, nothing probed"
printf 'processor\t: 0\nflags\t\t: fpu vme svm sse2\n' >"$work/cpuinfo"

choose '' probe_ok k1
tap_is "$rc/${got%%:*}/$probed" 0/kvm/1 "auto, a usable device and a passing probe: KVM, probed once"
tap_like "$ACCEL_WHY" '^KVM: .* came back \(probed now\)\.$' "auto, KVM: the reason says the probe ran now"
choose '' probe_ok k1
tap_is "$rc/${got%%:*}/$probed" 0/kvm/0 "the same boot id and kernel again: KVM from the cache, no probe"
tap_like "$ACCEL_WHY" '\(cached since [0-9T:-]+Z\)\.$' "a cached answer says since when"
choose '' probe_ok k2
tap_is "$rc/${got%%:*}/$probed" 0/kvm/1 "another kernel: probed again"
echo 11111111-aaaa-bbbb-cccc-000000000002 >"$work/boot_id"
choose '' probe_ok k1
tap_is "$rc/${got%%:*}/$probed" 0/kvm/1 "another host boot, the same kernel: probed again"
leftover=$(find "$LAB_CACHE/accel" -name '*.new.*' | wc -l)
tap_is "$(find "$LAB_CACHE/accel" -type f ! -name '*.lock' | wc -l)/$leftover" 3/0 \
	"the cache: one answer per boot id and kernel, nothing left aside"

choose '' probe_fail k3
tap_is "$rc/${got%%:*}/$probed" 0/tcg/1 "auto, a failing probe: TCG"
tap_like "$ACCEL_WHY" '^TCG: a probe boot of this kernel under KVM did not come back \(probed now\)\.$' \
	"auto, a failing probe: the reason says so"
choose '' probe_ok k3
tap_is "$rc/${got%%:*}/$probed" 0/tcg/0 "a failed probe is cached too: every boot of a job the same"

# two boots of a new kernel at once: one probes, the other waits and reads
rm -f "$work/r1" "$work/r2"
before=$(calls)
(accel_choose '' probe_held k4 2>/dev/null; echo "$ACCEL" >"$work/r1") &
(accel_choose '' probe_held k4 2>/dev/null; echo "$ACCEL" >"$work/r2") &
wait
tap_is "$(cat "$work/r1" "$work/r2" | paste -sd/)/$(($(calls) - before))" kvm/kvm/1 \
	"two boots of a new kernel at once: one probe"

rm "$work/boot_id"
choose '' probe_ok k1
tap_is "$rc/${got%%:*}/$probed" 0/kvm/1 "no boot id: probed, not cached"
choose '' probe_ok k1
tap_is "$probed" 1 "no boot id: probed every time"
echo 11111111-aaaa-bbbb-cccc-000000000001 >"$work/boot_id"

# --- forced ---
GUP_LAB_ACCEL=tcg choose '' probe_ok k5
tap_is "$rc/$got/$probed" "0/tcg: TCG, as asked (GUP_LAB_ACCEL=tcg)./0" \
	"GUP_LAB_ACCEL=tcg with a usable device: TCG, nothing probed"
GUP_LAB_ACCEL=kvm choose tcg probe_ok k5
tap_is "$rc/$got/$probed" "0/tcg: TCG, as asked (--tcg)./0" "--tcg wins over GUP_LAB_ACCEL=kvm"
GUP_LAB_ACCEL=tcg choose kvm probe_ok k5
tap_is "$rc/${got%%:*}/$probed" 0/kvm/1 "--kvm wins over GUP_LAB_ACCEL=tcg: KVM, probed"
tap_like "$ACCEL_WHY" '^KVM, as asked \(--kvm\): ' "forced KVM: the reason says it was asked"
GUP_LAB_ACCEL=kvm choose '' probe_ok k1
tap_is "$rc/${got%%:*}" 0/kvm "GUP_LAB_ACCEL=kvm with a usable device: KVM"

rm -f "$work/kvm"
GUP_LAB_ACCEL=kvm choose '' probe_ok k1
tap_is "$rc/$ACCEL/$probed" 2//0 "GUP_LAB_ACCEL=kvm, no device: status 2, no accelerator, nothing probed"
tap_like "$err" "^gup-lab: KVM asked \(GUP_LAB_ACCEL=kvm\) but $work/kvm does not exist; " \
	"GUP_LAB_ACCEL=kvm, no device: the error says why"
choose kvm probe_ok k1
tap_is "$rc" 2 "--kvm, no device: status 2 (no fallback)"
tap_like "$err" 'KVM asked \(--kvm\) but' "--kvm, no device: the error names --kvm"
: >"$work/kvm"
choose kvm probe_fail k6
tap_is "$rc/$ACCEL/$probed" 2//1 "--kvm, a failing probe: status 2, no fallback"
tap_like "$err" 'did not come back' "--kvm, a failing probe: the error says so"

# --- invalid ---
GUP_LAB_ACCEL=qemu choose '' probe_ok k1
tap_is "$rc/$ACCEL/$probed" 2//0 "GUP_LAB_ACCEL=qemu: status 2, nothing probed"
tap_like "$err" "GUP_LAB_ACCEL must be auto, kvm or tcg, not 'qemu'" "an invalid value: the valid ones named"
rc=0
GUP_LAB_ACCEL=KVM accel_asked '' 2>/dev/null || rc=$?
tap_is "$rc" 2 "accel_asked: values are lower case"
GUP_LAB_ACCEL=auto accel_asked ''
tap_is "$ACCEL_ASKED/$ACCEL_FROM" auto/GUP_LAB_ACCEL=auto "accel_asked: GUP_LAB_ACCEL=auto"
accel_asked ''
tap_is "$ACCEL_ASKED/$ACCEL_FROM" auto/default "accel_asked: auto by default"

# qemu/run.sh: an invalid value fails before anything is built or booted
rc=0
out=$(GUP_LAB_ACCEL=bogus GUP_LAB_CACHE=$work/runcache qemu/run.sh --flavour stock --exec true 2>&1) || rc=$?
tap_is "$rc/$([ -e "$work/runcache" ] && echo built || echo nothing)" 2/nothing \
	"qemu/run.sh, GUP_LAB_ACCEL=bogus: status 2, nothing built"
tap_like "$out" "must be auto, kvm or tcg, not 'bogus'" "qemu/run.sh, GUP_LAB_ACCEL=bogus: the error"
tap_like "$(qemu/run.sh --help)" '--tcg .*TCG' "qemu/run.sh --help lists --tcg"

# job_accel: what a job records per flavour from its boots' reports
echo '{"accel": "kvm"}' >"$work/a.report"
echo '{"accel": "tcg"}' >"$work/b.report"
echo '{"kernel_verdict": "clean"}' >"$work/old.report"
tap_is "$(job_accel "$work/a.report" "$work/a.report")" '"kvm"' "job_accel: one accelerator"
tap_is "$(job_accel "$work/a.report" "$work/b.report")" '"kvm+tcg"' "job_accel: mixed boots say both"
tap_is "$(job_accel "$work/old.report" "$work/missing.report")" null "job_accel: no report says: null"
tap_is "$(job_accel)" null "job_accel: no report: null"

tap_done
