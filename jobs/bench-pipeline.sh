#!/bin/bash
# `make bench-pipeline`: how fast the lab answers (docs/performance.md).
#   1. --boots N scripted boots of stock that run nothing (`--exec true`),
#      each split by qemu/run.sh's report into preparing the disks, QEMU,
#      collecting, and the guest's own clock at init and at its last line;
#      then N pairs of that boot started together (two guests at once);
#   2. --checks M warm runs of `make check` (tests/run.sh), each timed and
#      its boots counted (GUP_LAB_BOOT_LOG), each suite's too, in
#      boot-equivalents: its wall time over the median boot of step 1;
#   3. each flavour's kernel build time as its cache recorded it (the
#      build that made the cached kernel: cold only if the cache was);
#   4. what DWARF costs: --dwarf K objects of stock compiled with and
#      without -g, interleaved.
# Results: pipeline.json (named fields) in the run's directory; the last
# line "results: PATH".  docs/performance.md (hand-written) quotes it.
#
#   jobs/bench-pipeline.sh [--boots N] [--checks M] [--dwarf K] [--results DIR]
#   --boots N      scripted boots to take the median of (default 5)
#   --checks M     warm make check runs (default 1; 0 leaves step 2 out)
#   --dwarf K      objects compiled both ways (default 24; 0 leaves step 4 out)
#   --results DIR  write there, move no latest link
#
# Exit status: 0 every step measured; 1 a boot or a make check failed (a
# failed boot is said and left out of the medians; a failed make check is
# kept with its status); 2 usage error.
set -euo pipefail
# shellcheck source=../patches/flavours.sh
. "$(dirname "$0")/../patches/flavours.sh"
# shellcheck source=lib.sh
. "$LAB_ROOT/jobs/lib.sh"
job_guard "$@"

boots=5 checks=1 dwarf=24 results=''
while [ $# -gt 0 ]; do
	case $1 in
	--boots) boots=${2:?--boots needs N}; shift ;;
	--checks) checks=${2:?--checks needs M}; shift ;;
	--dwarf) dwarf=${2:?--dwarf needs K}; shift ;;
	--results) results=${2:?--results needs a DIR}; shift ;;
	-h | --help) sed -n '2,/^set /{/^#/p}' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
	*) echo "jobs/bench-pipeline.sh: unknown argument '$1' (see --help)" >&2; exit 2 ;;
	esac
	shift
done
if ! [[ $boots =~ ^[1-9][0-9]*$ && $checks =~ ^[0-9]+$ && $dwarf =~ ^[0-9]+$ ]]; then
	echo "jobs/bench-pipeline.sh: --boots takes a number from 1, --checks and --dwarf from 0" >&2
	exit 2
fi

results_begin pipeline "$results"
out=$RESULTS_DIR
bad=0

# 1. Scripted boots of stock: the whole qemu/run.sh (run_seconds, what a
# boot-equivalent is) and its report's parts.
: >"$out/boots.jsonl"
for i in $(seq 1 "$boots"); do
	one=$out/boot-$i.report.jsonl
	: >"$one"
	t0=$(date +%s.%N)
	if ! GUP_LAB_BOOT_LOG=$one "$LAB_ROOT/qemu/run.sh" --flavour stock \
		--quiet --timeout 120 --exec true >"$out/boot-$i.log" 2>&1; then
		bad=1
		echo "# pipeline: boot $i of $boots FAILED (see boot-$i.log)"
		continue
	fi
	wall=$(echo "$(date +%s.%N) - $t0" | bc)
	jq -c --argjson run "$(printf '%.2f' "$wall")" '. + {run_seconds: $run}' "$one" \
		>>"$out/boots.jsonl"
	jq -r --arg i "$i" --arg n "$boots" '"# pipeline: boot \($i) of \($n): \(.run_seconds) s (QEMU \(.qemu_seconds) s, the guest ran init at \(.guest_init_seconds) s of its clock)"' \
		<(tail -1 "$out/boots.jsonl")
done

# 1b. Two guests at once on the host's cores: --boots N pairs of the same
# scripted boot started together, the pair's wall time.  Running the
# suites' guests side by side is worth it only if a pair takes clearly
# less than two boots one after the other (pipeline.json's
# parallel.speedup: 2 x the median boot over the median pair).
: >"$out/pairs.jsonl"
for i in $(seq 1 "$boots"); do
	t0=$(date +%s.%N)
	"$LAB_ROOT/qemu/run.sh" --flavour stock --quiet --timeout 120 --exec true \
		>"$out/pair-$i.a.log" 2>&1 &
	a=$!
	"$LAB_ROOT/qemu/run.sh" --flavour stock --quiet --timeout 120 --exec true \
		>"$out/pair-$i.b.log" 2>&1 &
	b=$!
	ok=true
	wait "$a" || ok=false
	wait "$b" || ok=false
	wall=$(echo "$(date +%s.%N) - $t0" | bc)
	if [ "$ok" = true ]; then
		jq -nc --argjson w "$(printf '%.2f' "$wall")" '{pair_seconds: $w}' >>"$out/pairs.jsonl"
		echo "# pipeline: pair $i of $boots: two boots at once in $(printf '%.2f' "$wall") s"
	else
		bad=1
		echo "# pipeline: pair $i of $boots FAILED (see pair-$i.a.log, pair-$i.b.log)"
	fi
done

# 2. Warm make check, its boots counted.
: >"$out/checks.jsonl"
for i in $(seq 1 "$checks"); do
	log=$out/check-$i.boots.jsonl
	: >"$log"
	echo "# pipeline: make check $i of $checks (tests/run.sh; KTAP in check-$i.ktap)"
	t0=$(date +%s.%N)
	set +e
	GUP_LAB_BOOT_LOG=$log "$LAB_ROOT/tests/run.sh" >"$out/check-$i.ktap" 2>"$out/check-$i.log"
	status=$?
	set -e
	wall=$(echo "$(date +%s.%N) - $t0" | bc)
	[ "$status" -eq 0 ] || bad=1
	# tests/run.sh's progress lines: "# lab/20-driver: 9 passed, 0 failed in 120 s, 6 boots"
	sed -n 's/^# \([^ ]*\): [0-9]* passed, .* in \([0-9]*\) s, [0-9]* boots$/{"suite": "\1", "seconds": \2}/p' \
		"$out/check-$i.log" >"$out/check-$i.suites.jsonl"
	# The boot log: a {"suite": NAME} line as each suite starts, then its
	# boots' reports.
	# shellcheck disable=SC2016 # jq's own variables
	jq -nc --argjson wall "$(printf '%.1f' "$wall")" --argjson status "$status" \
		--arg summary "$(tail -1 "$out/check-$i.ktap")" \
		--slurpfile log "$log" --slurpfile suites "$out/check-$i.suites.jsonl" \
		'[$log[] | select(has("qemu_seconds"))] as $boots |
		(reduce $log[] as $x ({}; if $x.suite then .cur = $x.suite
			else .boots[.cur // "?"] += 1 end) | .boots // {}) as $per |
		{wall_seconds: $wall, status: $status, summary: $summary,
		  boots: ($boots | length),
		  boots_qemu_seconds: ([$boots[].qemu_seconds] | add // 0),
		  suites: [$suites[] | . + {boots: ($per[.suite] // 0)}]}' >>"$out/checks.jsonl"
	jq -r '"# pipeline: make check: \(.wall_seconds) s, \(.boots) boots, status \(.status): \(.summary)"' \
		<(tail -1 "$out/checks.jsonl")
done

# 3. What the cache says each kernel took to build.
: >"$out/builds.jsonl"
for f in $(all_flavours); do
	d=$(flavour_dir "$f")
	jq -n --arg flavour "$f" \
		--argjson seconds "$(cat "$d/build-seconds" 2>/dev/null || echo null)" \
		'{flavour: $flavour, build_seconds: $seconds}' >>"$out/builds.jsonl"
done

# 4. What DWARF costs to compile: --dwarf K C objects of stock's tree (mm/,
# fs/ext4/, kernel/: the lab's code paths), each compiled with the exact
# command kbuild recorded (build/DIR/.NAME.o.cmd, without ccache and
# objtool) and the same without -g (and its -fno-var-tracking,
# -femit-struct-debug-baseonly: CONFIG_DEBUG_INFO_REDUCED), interleaved,
# the faster of two of each.  What it buys is written in
# docs/performance.md: the traces' frames with file:line.
: >"$out/dwarf.jsonl"
if [ "$dwarf" -gt 0 ]; then
	kb=$(flavour_dir stock)/build
	scratch=$(job_tmpdir)
	n=0
	# K spread evenly over the three directories' objects, in name order
	# (K no more than there are)
	mapfile -t cmds < <(cd "$kb" 2>/dev/null &&
		printf '%s\n' mm/.*.o.cmd fs/ext4/.*.o.cmd kernel/.*.o.cmd |
		awk -v k="$dwarf" '{ a[NR] = $0 } END { if (k > NR) k = NR
			for (i = 0; i < k; i++) print a[1 + int(i * NR / k)] }')
	for cmdf in "${cmds[@]}"; do
		obj=${cmdf%.cmd}
		obj=${obj%/*}/${obj##*/.}
		# "cmd_mm/gup.o := ccache gcc ... ; objtool ..." (6.3 on: savedcmd_);
		# its dependency file goes to the scratch, not into the cache
		cmd=$(sed -n '1s/^\(saved\)\{0,1\}cmd_[^ ]* := //p' "$kb/$cmdf" 2>/dev/null |
			sed 's/ ; .*//; s/^ccache //; s/ -Wp,-MMD,[^ ]* / -Wp,-MMD,'"${scratch//\//\\/}"'\/dep.d /')
		if [[ $cmd != *" -g "* || $cmd != *" -c -o $obj "* ]]; then
			echo "# pipeline: DWARF: $cmdf: not a C compile with -g, left out"
			continue
		fi
		plain=$(sed 's/ -g / /; s/ -fno-var-tracking / /; s/ -femit-struct-debug-baseonly / /' <<<"$cmd")
		tg=() tp=()
		for _ in 1 2; do
			for variant in g plain; do
				if [ $variant = g ]; then c=$cmd; else c=$plain; fi
				c=${c/ -c -o $obj / -c -o $scratch/$variant.o }
				t0=$(date +%s.%N)
				if ! (cd "$kb" && eval "$c") >"$scratch/cc.log" 2>&1; then
					echo "# pipeline: DWARF: $obj ($variant) does not compile: $(head -1 "$scratch/cc.log")"
					continue 3
				fi
				t=$(echo "$(date +%s.%N) - $t0" | bc)
				if [ $variant = g ]; then tg+=("$t"); else tp+=("$t"); fi
			done
		done
		best_g=$(printf '%s\n' "${tg[@]}" | sort -g | head -1)
		best_plain=$(printf '%s\n' "${tp[@]}" | sort -g | head -1)
		jq -nc --arg object "$obj" --argjson g "$best_g" --argjson plain "$best_plain" \
			--argjson g_bytes "$(stat -c %s "$scratch/g.o")" \
			--argjson plain_bytes "$(stat -c %s "$scratch/plain.o")" \
			'{object: $object, seconds_g: $g, seconds_plain: $plain,
			  bytes_g: $g_bytes, bytes_plain: $plain_bytes}' >>"$out/dwarf.jsonl"
		n=$((n + 1))
	done
	rm -rf "$scratch"
	echo "# pipeline: DWARF: $n of $dwarf objects of stock compiled with and without -g"
	# fewer than asked: said above; none at all is a failure
	[ "$n" -gt 0 ] || bad=1
fi

# The medians: the middle element, or the mean of the two middle ones.
# shellcheck disable=SC2016 # jq's own variables
filter=$JQ_MEDIAN'
def med(f): $b | map(f // empty) | median;
med(.run_seconds) as $boot |
{boot: {asked: $asked, measured: ($b | length),
	median: {run_seconds: $boot, prepare_seconds: med(.prepare_seconds),
		 qemu_seconds: med(.qemu_seconds), collect_seconds: med(.collect_seconds),
		 guest_init_seconds: med(.guest_init_seconds),
		 guest_last_seconds: med(.guest_last_seconds)},
	runs: $b},
 parallel: {pairs: ($p | length), median_pair_seconds: ($p | map(.pair_seconds) | median),
	speedup: (($p | map(.pair_seconds) | median) as $m |
		if $m and $boot then (2 * $boot / $m * 100 | round / 100) else null end)},
 checks: [$c[] | . + {boot_equivalents:
	(if $boot then (.wall_seconds / $boot * 10 | round / 10) else null end)}],
 builds: $k,
 dwarf: {objects: ($d | length),
	seconds_g: ([$d[].seconds_g] | add // 0),
	seconds_plain: ([$d[].seconds_plain] | add // 0),
	median_ratio: ($d | map(.seconds_g / .seconds_plain) | median),
	bytes_ratio: (if ($d | length) > 0 then
		([$d[].bytes_g] | add) / ([$d[].bytes_plain] | add) else null end),
	runs: $d}}'
jq -n --slurpfile b "$out/boots.jsonl" --slurpfile c "$out/checks.jsonl" \
	--slurpfile p "$out/pairs.jsonl" \
	--slurpfile k "$out/builds.jsonl" --slurpfile d "$out/dwarf.jsonl" \
	--argjson asked "$boots" "$filter" >"$out/pipeline.json"
results_flavour stock "ran=true" "why_not_run=null" "boots=$boots" \
	"passed=$([ "$bad" -eq 0 ] && echo true || echo false)" \
	"accel=$(job_accel "$out/boots.jsonl")"
results_end
exit "$bad"
