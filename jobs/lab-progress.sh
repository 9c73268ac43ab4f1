#!/bin/bash
# jobs/lab.sh's progress line, from what the run has written so far:
#
#   jobs/lab-progress.sh STEPS STATUS TOTAL FLAVOUR...
#   jobs/lab-progress.sh --constants
#
# STEPS is the run's steps.jsonl (a line per finished step: rootfs,
# kernel, and each flavour of matrix and consumers), STATUS the builder's
# count (patches/build-progress.sh's GUP_LAB_BUILD_STATUS), TOTAL the number
# of steps, FLAVOUR... the kernels in build order.  One line on stdout: the
# step of TOTAL, the kernel building and how far, the runs done, and about
# how long is left: the kernels not built (patches/build-objects' recorded
# seconds, scaled by how this run's builds compare with their records;
# else objects at this run's rate), then the runs that cannot overlap a
# build (the last kernel's); once every kernel is built, the runs left, two
# at a time.  A kernel that compiles more objects than its record says so
# ("more than the N recorded") and the estimate becomes "at least".  --constants prints, as shell assignments, the figures it
# would read every time (jobs/lab.sh reads them once).
set -euo pipefail
# shellcheck source=../patches/flavours.sh
. "$(dirname "$0")/../patches/flavours.sh"
# shellcheck source=lib.sh
. "$LAB_ROOT/jobs/lib.sh"
# What a step takes when this machine has no figure of its own: the cold
# kernel builds patches/build-objects records, per flavour in this order;
# a run, its job's last wall time for that flavour, else these (matrix and
# consumers per flavour on the 2-core machine under TCG, docs/performance.md).
# (jobs/lab.sh reads them once and passes them in the environment.)
recorded=${GUP_LAB_PROGRESS_RECORDED:-}
runs=${GUP_LAB_PROGRESS_RUNS:-}
[ -n "$recorded" ] || recorded=$(awk '$1 == "flavour" { print $2, $3 }' "$LAB_ROOT/patches/build-objects" |
	jq -Rn '[inputs | split(" ") | {key: .[0], value: (.[1] | tonumber)}] | from_entries')
[ -n "$runs" ] || runs=$(for j in matrix consumers; do
	jq -c --arg j "$j" '[.flavours[] | select(.wall_seconds) |
		{key: (.name | sub("\\+.*"; "")), value: .wall_seconds}] | from_entries | {($j): .}' \
		"$LAB_RESULTS/$j/latest/run.json" 2>/dev/null || echo '{}'
done | jq -sc 'add')
if [ "${1:-}" = --constants ]; then
	printf 'GUP_LAB_PROGRESS_RECORDED=%q GUP_LAB_PROGRESS_RUNS=%q\n' "$recorded" "$runs"
	exit 0
fi
[ $# -ge 4 ] || die "usage: $0 STEPS STATUS TOTAL FLAVOUR... | --constants"

jq -rn --slurpfile steps "$1" --slurpfile st <(cat "$2" 2>/dev/null || echo null) \
	--argjson total "$3" --argjson rec "$recorded" --argjson runs "$runs" \
	--argjson order "$(printf '%s\n' "${@:4}" | jq -Rn '[inputs]')" '
($steps | map(select(.step == "kernel" and .built))) as $k |
($k | map(.flavour)) as $built |
($st[0] // {}) as $b |
# this run against the records: seconds per recorded second
([$k[] | select(.cached | not) | select($rec[.flavour]) | .seconds / $rec[.flavour]]) as $r |
(if ($r | length) > 0 then ($r | add / length) else 1 end) as $speed |
# objects a second, for a flavour with no record
([$k[] | select(.objects) | .objects] | add // 0) as $on |
([$k[] | select(.objects) | .seconds] | add // 0) as $os |
(if $os > 60 then $on / $os else 1.3 end) as $rate |
def est($f): if $rec[$f] then $rec[$f] * $speed else ($b.total // 1500) / $rate end;
def frac: if ($b.total // 0) > 0 then [($b.objects // 0) / $b.total, 0.99] | min else 0 end;
[$order[] | select(. as $f | $built | index($f) | not)] as $left |
(if ($left | length) == 0 then 0 else
	([$left[1:][] | est(.)] | add // 0) + est($left[0]) * (1 - (if $b.flavour == $left[0] then frac else 0 end))
 end) as $kleft |
def done($j): [$steps[] | select(.step == $j and .flavour) | .flavour] | unique;
def run($j; $f): $runs[$j][$f] // (if $j == "matrix" then 60 else 220 end);
([("matrix", "consumers") as $j | $order[] | select(. as $f | done($j) | index($f) | not) |
  run($j; .)] | add // 0) as $rleft |
(if ($left | length) > 0
 then $kleft + ([run("matrix"; $order[-1]), run("consumers"; $order[-1])] | max)
 else $rleft / 2 end) as $eta |
([$steps[] | select(.step == "rootfs")] | length) as $rootfs |
# the kernel building has compiled more than its record counts: the record
# is wrong for this machine or tree, and what is left of it unknown
(($left | length) > 0 and $b.flavour == $left[0] and ($b.total // 0) > 0 and
 ($b.objects // 0) > $b.total) as $over |
"lab: step \([$total, $rootfs + ($built | length) + (done("matrix") | length) + (done("consumers") | length) + 1] | min) of \($total)"
+ (if ($left | length) > 0 then
	" · kernel \($left[0])" + (if $b.flavour == $left[0] and ($b.objects // 0) > 0
		then " \($b.objects)" + (if $over then " objects (more than the \($b.total) recorded)"
			elif ($b.total // 0) > 0 then "/\($b.total) objects" else " objects" end)
		else "" end)
   else " · kernels built" end)
+ " · matrix \(done("matrix") | length)/\($order | length) · consumers \(done("consumers") | length)/\($order | length)"
+ " · \(if $over then "at least" else "about" end) \(($eta / 60) | ceil) min left"'
