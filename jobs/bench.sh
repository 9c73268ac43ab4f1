#!/bin/bash
# `make bench`: what GUP costs under each policy.  Boots stock, gup-v1,
# gup-v7 and gup-v9 round-robin (round 1 of each, then round 2, ...), so
# that a drift of the machine falls on every flavour alike; each boot runs
# jobs/guest/bench.sh: `gupctl bench` (docs/gupctl.md), every operation
# timed in the kernel by our driver and, for the three gup_test has (-a,
# -L, -u), by the kernel's own gup_test, interleaved.  Then `gupctl bench
# report` writes the page and the plot into the results directory; `make
# docs` copies them to docs/bench.md and docs/bench.svg.  Any kernel
# report fails the run: no operation here is one a policy refuses.
# The clock: the guests have no HPET or ACPI PM timer to calibrate the TSC
# against ("tsc: No reference (HPET/PMTIMER) available"), so 6.1 marks it
# unstable and ktime_get() falls back to jiffies, a 4 ms tick (measured:
# every figure a multiple of 488 ns a page for 8192 pages).  Under TCG the
# guest's TSC is the host's (QEMU's cpu_get_ticks()), so the guests boot
# with tsc_early_khz= the host's TSC frequency and tsc=reliable; gupctl
# bench records the clocksource it got.
#
#   jobs/bench.sh [--rounds N] [--reps R] [--results DIR] [FLAVOUR...]
#   --rounds N     boots per flavour (default 3)
#   --reps R       repetitions per boot (gupctl bench --reps; default 5)
#   --results DIR  write there, move no latest link
#   FLAVOUR...     default: stock gup-v1 gup-v7 gup-v9
#
# Exit status: 0 every boot measured every operation with a clean console;
# 1 otherwise; 2 usage error.
set -euo pipefail
# shellcheck source=../patches/flavours.sh
. "$(dirname "$0")/../patches/flavours.sh"
# shellcheck source=lib.sh
. "$LAB_ROOT/jobs/lib.sh"
job_guard "$@"

usage() {
	sed -n '2,20p' "$0" | sed 's/^# \{0,1\}//'
}

rounds=3 reps=5 results=''
flavours=()
while [ $# -gt 0 ]; do
	case $1 in
	--rounds) rounds=${2:?--rounds needs N}; shift ;;
	--reps) reps=${2:?--reps needs R}; shift ;;
	--results) results=${2:?--results needs a DIR}; shift ;;
	-h | --help) usage; exit 0 ;;
	--shard)
		# docs/results.md, "Shards"
		echo "jobs/bench.sh: no --shard: the figures are ratios measured in one run, on one machine, round-robin" >&2
		exit 2 ;;
	-*) echo "jobs/bench.sh: unknown option '$1' (see --help)" >&2; exit 2 ;;
	*) flavours+=("$1") ;;
	esac
	shift
done
if ! [[ $rounds =~ ^[1-9][0-9]*$ && $reps =~ ^[1-9][0-9]*$ ]]; then
	echo "jobs/bench.sh: --rounds and --reps take numbers from 1" >&2
	exit 2
fi
[ ${#flavours[@]} -gt 0 ] || flavours=(stock gup-v1 gup-v7 gup-v9)
job_flavours bench "${flavours[@]}" >/dev/null || exit 2

job_userspace
gupctl=$LAB_ROOT/userspace/gupctl
tmp=$(job_tmpdir)
trap 'rm -rf "$tmp"' EXIT
results_begin bench "$results"
out=$RESULTS_DIR

for f in "${flavours[@]}"; do
	echo "# bench: staging $f"
	"$LAB_ROOT/rootfs/stage-guest.sh" "$f" "$tmp/$f.stage" >"$out/$f.stage.log" 2>&1 ||
		die "$f: staging failed: see $out/$f.stage.log"
done

# The host's TSC frequency in kHz, as the host kernel calibrated it
# ("tsc: Refined TSC clocksource calibration: 2095.989 MHz", else "tsc:
# Detected 2095.989 MHz processor").  Not /proc/cpuinfo's "cpu MHz": that
# is a core clock, which need not be the TSC's.  Unknown (dmesg
# restricted): the guests keep the jiffies clock, and say so.
tsc_khz=$(dmesg 2>/dev/null | sed -nE 's/.*tsc: (Refined TSC clocksource calibration:|Detected) ([0-9]+)\.([0-9]{3}) MHz.*/\2\3/p' | tail -1)
append=()
[ -z "$tsc_khz" ] || append=(--append "tsc_early_khz=$tsc_khz tsc=reliable")
if [ -n "$tsc_khz" ]; then
	echo "# bench: guest TSC at $tsc_khz kHz (${append[1]})"
else
	echo "# bench: the host's TSC rate is unknown (dmesg): the guests keep the jiffies clock (4 ms)"
fi

bad=0 docs=()
t0=$SECONDS
for r in $(seq 1 "$rounds"); do
	for f in "${flavours[@]}"; do
		b=$f.$r
		set +e
		job_boot "$out/$b.log" --flavour "$f" --timeout 1800 "${append[@]}" \
			--files "$tmp/$f.stage" --out "$tmp/$b.run" --results "$tmp/$b.out" \
			--report "$out/$b.report" --env "BENCH_REPS=$reps" \
			--exec 'bash /lab/guest/bench.sh'
		status=$?
		set -e
		cp "$tmp/$b.run/console.log" "$out/$b.console.log" 2>/dev/null || true
		verdict=$(jq -r '.kernel_verdict // "none"' "$out/$b.report" 2>/dev/null || echo none)
		wall=$(jq -r '.wall_seconds // "?"' "$out/$b.report" 2>/dev/null || echo '?')
		if [ "$status" -eq 0 ] && [ "$verdict" = clean ] && [ -s "$tmp/$b.out/bench.json" ]; then
			cp "$tmp/$b.out/bench.json" "$out/$b.json"
			docs+=("$out/$b.json")
			echo "# bench: round $r of $rounds, $f: measured (boot $wall s, $((SECONDS - t0)) s in all)"
		else
			bad=1
			echo "# bench: round $r of $rounds, $f: FAILED: status $status, kernel verdict $verdict (see $b.log, $b.console.log)"
		fi
	done
done

status=0
if [ ${#docs[@]} -gt 0 ]; then
	"$gupctl" bench report --from "$out" --md "$out/bench.md" --svg "$out/bench.svg" \
		"${docs[@]}" ||
		status=$?
	[ "$status" -eq 0 ] || bad=1
fi
for f in "${flavours[@]}"; do
	n=$(find "$out" -maxdepth 1 -name "$f.*.json" | wc -l)
	results_flavour "$f" "ran=$([ "$n" -gt 0 ] && echo true || echo false)" \
		"why_not_run=$([ "$n" -gt 0 ] && echo null || echo '"no boot measured"')" \
		"boots=$rounds" "rounds_measured=$n" "passed=$([ "$n" -eq "$rounds" ] && echo true || echo false)" \
		"accel=$(job_accel "$out/$f".*.report)"
done
results_end
exit "$bad"
