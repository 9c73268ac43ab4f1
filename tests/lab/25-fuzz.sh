#!/bin/bash
# The short fuzz of `make check` (the long one is `make soak`,
# jobs/soak.sh): on every flavour whose kernel is built, one boot runs
# `gupctl fuzz` (docs/gupctl.md) once per seed of a fixed list, then checks
# that closing every fd left no pin and that the module unloads.  Each seed
# is a KTAP subtest (the fuzzer's own document: one test per kind of
# operation); a failing seed prints the command that replays it.  Any
# kernel report fails the flavour: the fuzzer makes no request a policy
# expects a WARN for.
# shellcheck source=../suite.sh
. "$(dirname "$0")/../suite.sh"
# shellcheck source=../../jobs/lib.sh
. jobs/lib.sh

seeds=(1 2 3)
ops=2000
threads=4

# fuzz_boot F: F's guest, its results in $work/F.*; judged below, once
# every flavour has run (two guests at a time: jobs/lib.sh's job_parallel).
# shellcheck disable=SC2317 # called by job_parallel
fuzz_boot() {
	local f=$1 t0
	rootfs/stage-guest.sh "$f" "$work/$f.stage" >"$work/$f.stage.log" 2>&1 || return 0
	t0=$SECONDS
	# shellcheck disable=SC2016 # the command is expanded in the guest
	qemu/run.sh --flavour "$f" --quiet --timeout 300 --files "$work/$f.stage" \
		--report "$work/$f.report" --results "$work/$f.out" \
		--exec "SEEDS='${seeds[*]}' OPS=$ops THREADS=$threads POLICY=$(flavour_field "$f" 3)"'
		set -u
		bash /lab/bin/guest-setup.sh >/dev/null || exit 90
		for s in $SEEDS; do
			gupctl fuzz --seed "$s" --ops "$OPS" --threads "$THREADS" \
				--policy "$POLICY" >/lab/out/fuzz-$s.ktap 2>&1
			echo $? >/lab/out/fuzz-$s.status
		done
		head -1 /sys/kernel/debug/gup_pin_test/counters >/lab/out/counters
		rmmod gup_pin_test; echo $? >/lab/out/rmmod.status
		' >"$work/$f.console" 2>&1 || true
	echo $((SECONDS - t0)) >"$work/$f.seconds"
}
built=()
for f in $(all_flavours); do
	if [ -f "$(flavour_dir "$f")/.gup-lab-built" ]; then
		built+=("$f")
	else
		tap_skip "$f: short fuzz" "its kernel is not built (make kernels, or another suite, builds it)"
	fi
done
job_parallel fuzz_boot "${built[@]}" >&2 || true

for f in "${built[@]}"; do
	policy=$(flavour_field "$f" 3)
	r=$work/$f.out
	if [ ! -f "$work/$f.seconds" ]; then
		tap_not_ok "$f: staging the guest's files"
		sed 's/^/# /' "$work/$f.stage.log" | tail -5
		continue
	fi
	echo "# $f: ${#seeds[@]} seeds of $ops operations on $threads threads in one boot: $(cat "$work/$f.seconds") s"
	for s in "${seeds[@]}"; do
		k=$r/fuzz-$s.ktap
		# the fuzzer's KTAP, one level down
		sed 's/^/  /' "$k" 2>/dev/null || true
		st=$(cat "$r/fuzz-$s.status" 2>/dev/null || echo none)
		if [ "$st" = 0 ] && [ -s "$k" ] && ! grep -q '^not ok' "$k"; then
			tap_ok "$f: gupctl fuzz --seed $s: every answer as the ABI allows, no pin left"
		else
			tap_not_ok "$f: gupctl fuzz --seed $s (exit $st)"
			grep -E '^# (FAIL|CRASH)' "$k" 2>/dev/null | head -5 || true
			# the fuzzer's own replay line if it got that far, else ours
			replay=$(sed -n 's/^# replay: //p' "$k" 2>/dev/null | head -1)
			echo "# replay in a guest (make shell FLAVOUR=$f): ${replay:-gupctl fuzz --seed $s --ops $ops --threads $threads --policy $policy}"
		fi
	done
	tap_is "$(report_get "$work/$f.report" kernel_verdict)" clean \
		"$f: console clean (no oops/BUG/WARNING/KASAN) through the fuzz"
	first=$(report_get "$work/$f.report" first_report)
	[ -z "$first" ] || echo "# $f: first kernel report: $first"
	counters=$(cat "$r/counters" 2>/dev/null || true)
	tap_like "$counters" ' pins_live=0 pages_pinned=0 ' \
		"$f: debugfs counters after every fuzz run: no pin, no page held"
	tap_is "$(cat "$r/rmmod.status" 2>/dev/null)" 0 "$f: rmmod gup_pin_test succeeds"
done

tap_done
