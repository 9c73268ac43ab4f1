#!/bin/bash
# The README's test command (`make check`): every suite, as ONE KTAP
# document on stdout (Documentation/dev-tools/ktap.rst): a version line, a
# plan of one test per suite, and each suite as a nested subtest indented
# two spaces, with its own version line and plan, before its result line.
# The last line (an "unknown line" to KTAP) counts the suites' own tests:
# "N passed, N failed" (", N skipped" when a test was a SKIP: never counted
# as passed).  Exits non-zero on any failure.
#
#   tests/run.sh [SUITE...]      (default: tests/host/*.sh tests/lab/*.sh)
#
# A suite is a script printing TAP result lines ("ok N - ...", "not ok N
# - ...", "# ..." diagnostics) and a plan; it runs to the end before its
# subtest is printed (KTAP wants the plan first), so progress goes to
# stderr: one line per suite with its elapsed time and the guests it
# booted.  The lab suites (tests/lab/) run one after the other, each
# booting its own guests, from the start; the host suites (tests/host/)
# boot nothing and run beside them, one at a time (GUP_LAB_HOST_JOBS): a
# guest under TCG leaves a core for them most of the time.  A lab suite
# whose header has the line "# tests/run.sh: a chain of its own" runs in a
# second chain beside the first, from the start: one that waits more than
# it computes (80-die-cleanly holds jobs at pause points), so that it
# fills the cores the first chain leaves idle.  The document prints every
# suite in order all the same.
set -euo pipefail
# shellcheck source=../patches/flavours.sh
. "$(dirname "$0")/../patches/flavours.sh"
cd "$(dirname "$0")/.."

if [ $# -gt 0 ]; then
	suites=("$@")
else
	suites=(tests/host/*.sh tests/lab/*.sh)
fi
# The kernels' cache keys, read once for the whole run (patches/flavours.sh's
# flavour_keys_export): every boot looks its kernel up three or four times.
mapfile -t flavours < <(all_flavours)
flavour_keys_export "${flavours[@]}"
passed=0 failed=0 skipped=0 start=$SECONDS
outdir=$(mktemp -d)
trap 'rm -rf "$outdir"' EXIT
# Every guest's runner report lands here (qemu/run.sh): the boots each
# suite made, counted in its progress line.
export GUP_LAB_BOOT_LOG=${GUP_LAB_BOOT_LOG:-$outdir/boots.jsonl}
touch "$GUP_LAB_BOOT_LOG"
# boots: the runner reports in the boot log so far
boots() {
	grep -c '"qemu_seconds"' "$GUP_LAB_BOOT_LOG" || true
}
# suite_boots N: the runner reports of suite N (its own boot log)
suite_boots() {
	local c
	c=$(grep -c '"qemu_seconds"' "$outdir/$1.boots" 2>/dev/null) || true
	echo "${c:-0}"
}

echo "KTAP version 1"
echo "1..${#suites[@]}"

# run_suite N SUITE: SUITE's output in $outdir/N.tap, its exit status and
# seconds beside it.
run_suite() {
	local t0=$SECONDS status=0
	echo "# $(suite_name "$2"): running ($((SECONDS - start)) s so far)" >&2
	bash "$2" >"$outdir/$1.tap" 2>&1 || status=$?
	echo "$status" >"$outdir/$1.status"
	echo $((SECONDS - t0)) >"$outdir/$1.seconds"
	touch "$outdir/$1.done"
}
suite_name() {
	local name=${1#tests/}
	echo "${name%.sh}"
}

# gupctl built first: a fresh clone has none, and two suites would make it
# at once (their harness takes userspace/.make.lock all the same).
flock userspace/.make.lock make -s -C userspace >&2 ||
	echo "# gupctl does not build: the suites that need it say so" >&2
# The lab suites, one after the other in one background chain.  Each
# boots with a boot log of its own (its boots by construction, not by
# when they were written), appended to the run's after its marker line
# (jobs/bench-pipeline.sh reads the suites' boots there).
# lab_chain main|own: the lab suites of the main chain, or those that
# ask for a chain of their own
lab_chain() {
	local n=0 suite own
	for suite in "${suites[@]}"; do
		n=$((n + 1))
		case $suite in tests/host/*) continue ;; esac
		own=main
		! grep -qx '# tests/run.sh: a chain of its own' "$suite" || own=own
		[ "$own" = "$1" ] || continue
		: >"$outdir/$n.boots"
		GUP_LAB_BOOT_LOG=$outdir/$n.boots run_suite "$n" "$suite"
		# one write: the other chain appends its suites' too
		{
			echo "{\"suite\": \"$(suite_name "$suite")\"}"
			cat "$outdir/$n.boots"
		} >"$outdir/$n.block"
		cat "$outdir/$n.block" >>"$GUP_LAB_BOOT_LOG"
	done
}
lab_chain main &
lab_pid=$!
lab_chain own &
own_pid=$!
# The host suites beside it, GUP_LAB_HOST_JOBS at a time (default 1).
declare -A host_pid
n=0
for suite in "${suites[@]}"; do
	n=$((n + 1))
	case $suite in
	tests/host/*)
		while :; do
			running=0
			for p in "${host_pid[@]}"; do
				! kill -0 "$p" 2>/dev/null || running=$((running + 1))
			done
			[ "$running" -ge "${GUP_LAB_HOST_JOBS:-1}" ] || break
			wait -n || true
		done
		run_suite "$n" "$suite" &
		host_pid[$n]=$!
		;;
	esac
done

n=0
for suite in "${suites[@]}"; do
	n=$((n + 1))
	name=$(suite_name "$suite")
	out=$outdir/$n.tap
	if [ -n "${host_pid[$n]:-}" ]; then
		wait "${host_pid[$n]}" || true
	else
		# the chain's suite N: done when its marker is there, or never
		# if the chain itself is gone
		while [ ! -e "$outdir/$n.done" ] &&
			{ kill -0 "$lab_pid" 2>/dev/null || kill -0 "$own_pid" 2>/dev/null; }; do
			sleep 1
		done
	fi
	status=$(cat "$outdir/$n.status" 2>/dev/null || echo 1)
	# The suite's own result lines at its top level (no indentation).
	# A SKIP (an interface the kernel lacks) is counted apart, never
	# as passed.
	p=$(grep -c '^ok ' "$out" || true)
	sk=$(grep -cE '^ok .*# SKIP' "$out" || true)
	f=$(grep -c '^not ok ' "$out" || true)
	echo "  KTAP version 1"
	echo "  1..$((p + f + (status != 0 && f == 0)))"
	# Its version and plan lines are replaced by ours; the rest is
	# indented one level (result lines, diagnostics, unknown lines).
	grep -vE '^(K?TAP version [0-9]+|1\.\.[0-9]+)$' "$out" | sed 's/^/  /' || true
	if [ "$status" -ne 0 ] && [ "$f" -eq 0 ]; then
		# A suite that died without saying which test failed still fails.
		echo "  not ok $((p + 1)) suite exited with status $status"
		f=1
	fi
	passed=$((passed + p - sk))
	skipped=$((skipped + sk))
	failed=$((failed + f))
	echo "# $name: $((p - sk)) passed, $f failed$([ "$sk" -eq 0 ] || echo ", $sk skipped") in $(cat "$outdir/$n.seconds" 2>/dev/null || echo '?') s, $(suite_boots "$n") boots" >&2
	if [ "$f" -eq 0 ]; then
		echo "ok $n $name"
	else
		echo "not ok $n $name"
	fi
done
echo "# all suites: $((SECONDS - start)) s, $(boots) boots" >&2
echo "$passed passed, $failed failed$([ "$skipped" -eq 0 ] || echo ", $skipped skipped")"
[ "$failed" -eq 0 ]
