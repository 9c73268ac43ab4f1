#!/bin/bash
# `make lab`, the main job (README): every flavour's kernel, the GUP matrix
# and the kernel's own GUP users on each, overlapped so that the first
# results come while later kernels still build.  A flat list of steps:
#   1. gupctl, and the root image in the background;
#   2. one builder makes the kernels one at a time (patches/build-flavour.sh,
#      -j$(nproc)): stock first (the first results), then the 6.1 flavours,
#      which ccache serves from stock's objects but the few files their
#      series touch (gup-v9 after gup-v7, whose mm/ objects it shares), and
#      mainline, the other full build, last: the 6.1 flavours' runs overlap
#      it;
#   3. once the root image is made, jobs/matrix.sh and jobs/consumers.sh
#      start together, each running a flavour as soon as its kernel is
#      built (patches/flavours.sh's flavour_build waits for the builder
#      rather than build a kernel a second time beside it);
#   4. a progress line: the step of how many, what runs now, and an
#      estimate of what is left (patches/build-objects' recorded counts and
#      times, scaled by the rate this run measures; the jobs' last runs'
#      wall times); one updating line on a terminal, a line per change
#      otherwise.
# Each step's figures go to results/lab/DATE/steps.jsonl (one JSON object
# a line: step, flavour, seconds, ...), the builder's and the jobs' output
# to kernels.log, rootfs.log, matrix.log and consumers.log beside it.
# Exit status: 0 when every kernel was built and both jobs passed, 1
# otherwise.  The last lines name the jobs' results directories.
#
#   jobs/lab.sh [--shard I/N]
# --shard I/N  build and run only shard I of N of the flavours (places I,
#              I+N, ... of patches/flavours; the jobs get --shard too, and
#              jobs/merge.sh puts the parts together: docs/results.md)
set -euo pipefail
# shellcheck source=../patches/flavours.sh
. "$(dirname "$0")/../patches/flavours.sh"
# shellcheck source=lib.sh
. "$LAB_ROOT/jobs/lib.sh"
job_guard "$@"

shard=''
case ${1:-} in
-h | --help) sed -n '2,/^set /{/^#/p}' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
'') ;;
--shard) shard=${2:?--shard needs I/N}; [ $# -eq 2 ] || { echo "jobs/lab.sh: only --shard I/N (see --help)" >&2; exit 2; } ;;
*) echo "jobs/lab.sh: no arguments but --shard I/N (see --help)" >&2; exit 2 ;;
esac

# The build order: each flavour after the one whose objects ccache gives
# it; a shard's flavours only (the jobs pick the same ones from the table).
mapfile -t all < <(all_flavours)
flavours=("${all[@]}")
job_shard lab "$shard" || exit 2
table=("${flavours[@]}")
order=()
for f in stock gup-v7 gup-v9 gup-v1 ext4-2018 mainline; do
	[[ " ${table[*]} " != *" $f "* ]] || order+=("$f")
done
for f in "${table[@]}"; do
	[[ " ${order[*]} " == *" $f "* ]] || order+=("$f")
done

results_begin lab "" "${order[@]}"
# Stopped or failed half way: the builder and the jobs stop too (their
# kernels and results directories say how far they got).
trap '[ -z "$(jobs -rp)" ] || { trap - TERM; kill -TERM 0; }' EXIT
out=$RESULTS_DIR
steps=$out/steps.jsonl
: >"$steps"
t0=$(date +%s)
export GUP_LAB_STEPS=$steps GUP_LAB_T0=$t0
log "lab: $out (each step's output is there)"

job_userspace

# step ROW: one line of steps.jsonl (jq arguments: --arg/--argjson NAME V).
step() {
	jq -nc --argjson at "$(($(date +%s) - t0))" "$@" '$ARGS.named + {at: $at}' >>"$steps"
}

(
	s=$(date +%s)
	"$LAB_ROOT/rootfs/build-rootfs.sh" >/dev/null
	step --arg step rootfs --argjson seconds "$(($(date +%s) - s))"
) >"$out/rootfs.log" 2>&1 &
rootfs_pid=$!

# The builder.  build-progress.sh writes its count to GUP_LAB_BUILD_STATUS.
export GUP_LAB_BUILD_STATUS=$out/.building
(
	for f in "${order[@]}"; do
		s=$(date +%s)
		cached=false
		[ ! -f "$(flavour_dir "$f")/.gup-lab-built" ] || cached=true
		if ! "$LAB_ROOT/patches/build-flavour.sh" "$f" >/dev/null; then
			step --arg step kernel --arg flavour "$f" --argjson built false
			exit 1
		fi
		# the count build-progress.sh saw (none for a cached kernel)
		n=null
		[ "$cached" = true ] || n=$(jq '.objects // null' "$GUP_LAB_BUILD_STATUS" 2>/dev/null || echo null)
		step --arg step kernel --arg flavour "$f" --argjson built true \
			--argjson cached "$cached" --argjson seconds "$(($(date +%s) - s))" \
			--argjson objects "${n:-null}"
	done
) >"$out/kernels.log" 2>&1 &
export GUP_LAB_BUILDER_PID=$!

# progress PID...: the progress line until every PID is gone: on a
# terminal one line redrawn every 2 s, otherwise a line when the step
# changes or a minute has passed (not each time a count or the estimate
# does).
total=$((1 + 3 * ${#order[@]}))
shown='' shown_at=0
# what lab-progress.sh would read every time: the records and the last runs
eval "$("$LAB_ROOT/jobs/lab-progress.sh" --constants)"
export GUP_LAB_PROGRESS_RECORDED GUP_LAB_PROGRESS_RUNS
progress() {
	local p alive=1 line key
	while [ "$alive" = 1 ]; do
		alive=0
		for p in "$@"; do
			! kill -0 "$p" 2>/dev/null || alive=1
		done
		line=$("$LAB_ROOT/jobs/lab-progress.sh" "$steps" "$GUP_LAB_BUILD_STATUS" "$total" "${order[@]}")
		if [ -t 2 ]; then
			printf '\r\033[K%s' "$line" >&2
		else
			key=$(sed 's| [0-9/?]* objects||; s| · about.*||' <<<"$line")
			if [ "$key" != "$shown" ] || [ $((SECONDS - shown_at)) -ge 60 ]; then
				echo "$line" >&2
				shown=$key shown_at=$SECONDS
			fi
		fi
		[ "$alive" = 0 ] || sleep "$([ -t 2 ] && echo 2 || echo 10)"
	done
	[ ! -t 2 ] || printf '\r\033[K' >&2
}

# The jobs, once the root image is there (every boot needs it).
progress "$rootfs_pid"
if ! wait "$rootfs_pid"; then
	tail -5 "$out/rootfs.log" >&2
	die "lab: the root image did not build: $out/rootfs.log"
fi
"$LAB_ROOT/jobs/matrix.sh" ${shard:+--shard "$shard"} "${all[@]}" >"$out/matrix.log" 2>&1 &
matrix_pid=$!
"$LAB_ROOT/jobs/consumers.sh" ${shard:+--shard "$shard"} "${all[@]}" >"$out/consumers.log" 2>&1 &
consumers_pid=$!
progress "$matrix_pid" "$consumers_pid"
bad=0
wait "$GUP_LAB_BUILDER_PID" || bad=1
mstatus=0 cstatus=0
wait "$matrix_pid" || mstatus=$?
wait "$consumers_pid" || cstatus=$?
for j in matrix consumers; do
	st=$mstatus
	[ "$j" = matrix ] || st=$cstatus
	[ "$st" -eq 0 ] || bad=1
	r=$(sed -n 's/^results: //p' "$out/$j.log" | tail -1)
	step --arg step "$j" --argjson status "$st" --arg results "$r"
	echo "# lab: $j: exit $st: ${r:-no results directory} ($out/$j.log)"
	# the run's explorer page (the job prints it)
	sed -n "s/^# explorer: /# lab: $j: explorer: /p" "$out/$j.log"
done
step --arg step lab --argjson seconds "$(($(date +%s) - t0))" --argjson status "$bad"
echo "# lab: $("$LAB_ROOT/jobs/lab-progress.sh" "$steps" /dev/null "$total" "${order[@]}" | sed 's/ · about.*//'), $(($(date +%s) - t0)) s"
unset GUP_LAB_STEPS
for f in "${order[@]}"; do
	results_flavour "$f" "kernel=$(jq -c --arg f "$f" \
		'select(.step == "kernel" and .flavour == $f)' "$steps" | tail -1 | jq -s '.[0]')"
done
results_end
exit "$bad"
