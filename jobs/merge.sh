#!/bin/bash
# Put the parts of a sharded run together (docs/results.md, "Shards"): the
# results directories of one job run as --shard 1/N ... N/N (on one
# machine or N) become one results directory, as if the job had run
# every flavour: the flavours in the order of the list the shards were cut
# from, each flavour's files as its part left them, run.json's commit
# and date those of the parts (the earliest date), its wall time the
# longest part's (the parts ran side by side), "merged_from" naming each
# part, and the explorer page where the job has one.  A shard not given
# leaves its flavours not run, each saying which shard they were in.
# Refused (status 1, each reason said): parts of different jobs or
# commits, cut from different lists or into different counts, a shard
# given twice, a part that is no shard or not a finished run.
#
#   jobs/merge.sh [--results DIR] PART...
# --results DIR  write the merged run there, move no latest link (default:
#                a new directory under results/JOB/, then results/JOB/latest)
# PART...        the parts' results directories (each has run.json with
#                "shard"), in any order
#
# Exit status: 0 merged, every shard given; 1 refused, or merged with a
# shard missing; 2 usage error.  The last line is "results: PATH".
set -euo pipefail
# shellcheck source=../patches/flavours.sh
. "$(dirname "$0")/../patches/flavours.sh"
# shellcheck source=lib.sh
. "$LAB_ROOT/jobs/lib.sh"

results=''
parts=()
while [ $# -gt 0 ]; do
	case $1 in
	--results) results=${2:?--results needs a DIR}; shift ;;
	-h | --help) sed -n '2,/^set /{/^#/p}' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
	-*) echo "jobs/merge.sh: unknown option '$1' (see --help)" >&2; exit 2 ;;
	*) parts+=("$1") ;;
	esac
	shift
done
[ ${#parts[@]} -gt 0 ] || { echo "jobs/merge.sh: no PART given (see --help)" >&2; exit 2; }
for p in "${parts[@]}"; do
	[ -f "$p/run.json" ] || {
		echo "jobs/merge.sh: $p: no run.json: not a finished run" >&2
		exit 1
	}
done

# What the parts say, checked in one place: the answer is the merge's
# plan, or the reasons it is refused.
plan=$(for p in "${parts[@]}"; do
	jq -c --arg dir "$(cd "$p" && pwd)" '. + {dir: $dir}' "$p/run.json"
done | jq -s '
	. as $parts
	| ($parts[0].shard // {}) as $s
	| [ ($parts[] | select(.shard == null) |
		"\(.dir): not a shard (run.json has no \"shard\": the job ran without --shard)"),
	    (if ([$parts[].job] | unique | length) > 1 then
		"the parts are of different jobs: \([$parts[].job] | unique | join(", "))" else empty end),
	    (if ([$parts[].commit] | unique | length) > 1 then
		"the parts ran different commits: \([$parts[].commit] | unique | join(", "))" else empty end),
	    (if ([$parts[].shard | select(.) | [.count, .flavours]] | unique | length) > 1 then
		"the parts were cut differently (shard counts or flavour lists differ)" else empty end),
	    ($parts | map(select(.shard)) | group_by(.shard.index)[] | select(length > 1) |
		"shard \(.[0].shard.index)/\(.[0].shard.count) given twice: \(map(.dir) | join(", "))")
	  ] as $refused
	| if $refused != [] then {refused: $refused} else
	  ($s.flavours) as $all
	  | ([$parts[].shard.index]) as $have
	  | {job: $parts[0].job, commit: $parts[0].commit,
	     date: ([$parts[].date] | min),
	     wall: ([$parts[].wall_seconds] | max),
	     count: $s.count,
	     missing: [range(1; $s.count + 1) | select(. as $i | $have | index($i) | not)],
	     not_run: ([$parts[].not_run // [] | .[]] | if length == 0 then null else . end),
	     merged_from: [$parts | sort_by(.shard.index)[] |
		{dir, shard: "\(.shard.index)/\(.shard.count)", date, wall_seconds,
		 flavours: [.flavours[].name]}],
	     template: ([$parts[].flavours[]][0] // {} | with_entries(.value = null)),
	     flavours: [range(0; $all | length) as $k | $all[$k] as $name
		| (($k % $s.count) + 1) as $i
		| ([$parts[] | select(.shard.index == $i)][0]) as $p
		| {name: $name, shard: $i, dir: ($p.dir // null),
		   entry: ($p // {} | [.flavours[]? | select(.name == $name)][0])}]}
	  end')
if jq -e .refused <<<"$plan" >/dev/null; then
	jq -r '.refused[] | "jobs/merge.sh: \(.)"' <<<"$plan" >&2
	exit 1
fi

job=$(jq -r .job <<<"$plan")
mapfile -t names < <(jq -r '.flavours[].name' <<<"$plan")
# (nothing pruned now: the parts may be runs under results/JOB/ too)
GUP_LAB_KEEP_RESULTS=all results_begin "$job" "$results" "${names[@]}"
out=$RESULTS_DIR
RESULTS_COMMIT=$(jq -r .commit <<<"$plan")
RESULTS_DATE=$(jq -r .date <<<"$plan")
RESULTS_WALL=$(jq -r .wall <<<"$plan")
RESULTS_MERGED=$(jq -c .merged_from <<<"$plan")
# the flavours a part left out, not modelled (jobs/lib.sh's job_modelled)
RESULTS_NOT_RUN=$(jq -c .not_run <<<"$plan")
RESULTS_SHARD=null
count=$(jq .count <<<"$plan")

# Each flavour's entry and files, in the whole list's order (results_end
# gathers .flavour-NNN.json by name): FLAVOUR.* and FLAVOUR/ (every file of
# a run but run.json and the explorer page is a flavour's,
# docs/results.md), hard links where the file system allows.  A shard not
# given: its flavours not run, each saying so.
n=0
while IFS=$'\t' read -r name i dir; do
	# left out by its part, and said so there: run.json's not_run
	jq -e --arg f "$name" '(.not_run // [])[] | select(.name == $f)' <<<"$plan" >/dev/null &&
		continue
	n=$((n + 1))
	entry=$out/.flavour-$(printf %03d "$n").json
	why="in shard $i of $count, whose results were not given to jobs/merge.sh"
	[ -z "$dir" ] || jq -e --arg f "$name" '.flavours[] | select(.name == $f) | .entry' \
		<<<"$plan" >/dev/null || why="its shard's run ($dir) has no entry for it"
	if [ -z "$dir" ] || [ "$why" != "${why#its shard}" ]; then
		jq --arg f "$name" --arg why "$why" \
			'.template + {name: $f, ran: false, why_not_run: $why, boots: 0, cells: 0}' \
			<<<"$plan" >"$entry"
		echo "# $name: NOT RUN: $why"
		continue
	fi
	jq --arg f "$name" '.flavours[] | select(.name == $f) | .entry' <<<"$plan" >"$entry"
	for src in "$dir/$name".* "$dir/$name"; do
		[ -e "$src" ] || continue
		cp -al "$src" "$out/" 2>/dev/null || cp -a "$src" "$out/"
	done
	echo "# $name: shard $i/$count: $dir"
done < <(jq -r '.flavours[] | [.name, .shard, (.dir // "")] | @tsv' <<<"$plan")
results_end
[ "$(jq '.missing | length' <<<"$plan")" -eq 0 ]
