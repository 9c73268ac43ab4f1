#!/bin/bash
# Sharded runs (docs/results.md, "Shards"): the matrix's quick subset on
# two flavours of two policies, once whole and once as three shards
# (--shard I/3: one flavour each, and the third none, as when a list is
# shorter than the machines), then `jobs/docs.sh --out` on the whole run
# and on the three parts, which it merges (jobs/merge.sh): the pages must be the same
# bytes but for what differs between any two runs of the lab (the results
# directory they name, dates, seconds), and the explorers the same data
# but for the consoles' times and line numbers.  Then what merging must
# refuse (a shard twice, a part that is no shard, parts of two commits)
# and what it must say of a shard not given; and bad --shard values.
# shellcheck source=../suite.sh
. "$(dirname "$0")/../suite.sh"
. jobs/lib.sh
flavours=(stock gup-v7)
export GUP_LAB_RESULTS=$work/results

# Bad values, refused before anything is built or booted.
for bad in 0/3 4/3 1/0 3 x/y; do
	set +e
	out=$(jobs/matrix.sh --quick --shard "$bad" --results "$work/bad" stock 2>&1)
	status=$?
	set -e
	tap_is "$status $out" \
		"2 jobs/matrix.sh: --shard '$bad': want I/N, shard I of N (1 <= I <= N)" \
		"--shard $bad: a usage error (2), said"
done
tap_is "$(jobs/bench.sh --shard 1/2 2>&1; echo "status $?")" \
	"jobs/bench.sh: no --shard: the figures are ratios measured in one run, on one machine, round-robin
status 2" "jobs/bench.sh refuses --shard, and says why"

# start NAME ARGS...: jobs/matrix.sh --quick ARGS into $work/NAME, in the
# background; finish NAME ARGS...: wait for it and judge its exit status.
# The whole run first (two guests at a time already), then the three
# shards at once, as three machines would run them.
start() {
	local name=$1
	shift
	(
		s=0
		jobs/matrix.sh --quick --results "$work/$name" "$@" >"$work/$name.out" 2>"$work/$name.err" || s=$?
		echo "$s" >"$work/$name.status"
	) &
}
finish() {
	local name=$1 s
	shift
	wait
	s=$(cat "$work/$name.status" 2>/dev/null || echo 'no status')
	tap_is "$s" 0 "jobs/matrix.sh --quick $* exits 0"
	[ "$s" = 0 ] || tail -20 "$work/$name.out" | sed 's/^/#   /'
}
start whole "${flavours[@]}"
finish whole "${flavours[@]}"
for i in 1 2 3; do
	start "part$i" --shard "$i/3" "${flavours[@]}"
done
for i in 1 2 3; do
	finish "part$i" --shard "$i/3" "${flavours[@]}"
	names=$(jq -nc '$ARGS.positional' --args ${flavours[i - 1]:+"${flavours[i - 1]}"})
	tap_is "$(jq -c '[.shard, [.flavours[].name]]' "$work/part$i/run.json" 2>&1)" \
		"[{\"index\":$i,\"count\":3,\"flavours\":[\"stock\",\"gup-v7\"]},$names]" \
		"shard $i/3: run.json says which shard of which list, and holds its flavours, $names"
done
tap_is "$(jq -c .shard "$work/whole/run.json")" null "an unsharded run's run.json: shard null"

# The pages, whole and merged.
mkdir "$work/pages-whole" "$work/pages-merged"
s=0
jobs/docs.sh --out "$work/pages-whole" "$work/whole" >"$work/docs-whole.out" 2>&1 || s=$?
tap_is "$s" 0 "jobs/docs.sh --out DIR on the whole run exits 0"
s=0
jobs/docs.sh --out "$work/pages-merged" "$work/part3" "$work/part1" "$work/part2" \
	>"$work/docs-merged.out" 2>&1 || s=$?
tap_is "$s" 0 "jobs/docs.sh --out DIR on the three parts (in any order) exits 0"
[ "$s" -eq 0 ] || tail -20 "$work/docs-merged.out" | sed 's/^/#   /'
merged=$(sed -n 's/^# matrix: \(\/.*\)$/\1/p' "$work/docs-merged.out" | tail -1)
tap_like "$merged" "^$work/results/matrix/[0-9-]+$" \
	"the parts are merged into a new results directory under results/matrix/ ($merged)"
tap_is "$(jq -c '[[.flavours[].name], .shard, [.merged_from[].shard], .commit]' "$merged/run.json" 2>&1)" \
	"$(jq -c --slurpfile w "$work/whole/run.json" -n \
		'[$w[0].flavours | map(.name), null, ["1/3", "2/3", "3/3"], $w[0].commit]')" \
	"the merged run.json: the flavours in the list's order, no shard, each part named, their commit"
tap_is "$(jq -c '[.date, .wall_seconds]' "$merged/run.json")" \
	"$(jq -sc '[(map(.date) | min), (map(.wall_seconds) | max)]' "$work"/part?/run.json)" \
	"the merged run.json: the earliest part's date, the longest part's wall time"
# What differs between any two runs: the results directory a page names,
# dates, and figures in seconds ("62.2 s", "| 2.5 s |").
mask() {
	sed -E -e "s#$2#RESULTS#g" -e 's/[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9:]{8}Z/DATE/g' \
		-e 's/[0-9]+(\.[0-9]+)? s\b/N s/g' "$1"
}
pages=$(cd "$work/pages-whole" && ls)
tap_is "$(paste -sd' ' <<<"$pages")" "longterm.md matrix.md matrix.svg policies.md" \
	"the whole run's pages: longterm.md, matrix.md, matrix.svg, policies.md"
for p in $pages; do
	d=$(diff <(mask "$work/pages-whole/$p" "$work/whole") <(mask "$work/pages-merged/$p" "$merged") || true)
	tap_is "$d" "" "$p: the merged parts' page is the whole run's, byte for byte, but for the results directory, dates and seconds"
	[ -z "$d" ] || head -10 <<<"$d" | sed 's/^/#   /'
	tap_is "$(cmp -s "$work/pages-whole/$p" "$work/pages-merged/$p"; echo $?)" 1 \
		"$p: (and the two did differ before the mask: the comparison can fail)"
done
# The explorers: the same data, consoles aside (their times, PIDs and line
# numbers are the boot's), and every flavour's console there.
explorer_data() {
	sed -n 's/^<script type="application\/json" id="data">\(.*\)<\/script>$/\1/p' "$1"
}
norm='del(.results, .date) | .flavours |= map(del(.console) |
	.cells |= map(if . then .[0:4] else . end) |
	.reports |= map({kind, location, step, cell, expected, series_finding, no_policy_finding}))'
tap_is "$(explorer_data "$merged/explorer.html" | jq -c "$norm" | sha256sum)" \
	"$(explorer_data "$work/whole/explorer.html" | jq -c "$norm" | sha256sum)" \
	"the merged explorer's data is the whole run's (consoles aside)"
tap_is "$(explorer_data "$merged/explorer.html" |
	jq -c '[.flavours[] | [.name, (.console | length > 0), ([.cells[] | select(. and .[4] > 0)] | length > 0)]]')" \
	'[["stock",true,true],["gup-v7",true,true]]' \
	"the merged explorer: every flavour's console, and its cells' slices of it"

# Refused, and said.
refused() {
	local want=$1 s=0 out
	shift
	out=$(jobs/merge.sh --results "$work/refused" "$@" 2>&1) || s=$?
	tap_like "$s $out" "^1 jobs/merge.sh: $want" "jobs/merge.sh refuses $*: exit 1, '$want'"
	rm -rf "$work/refused"
}
refused "shard 1/3 given twice" "$work/part1" "$work/part1" "$work/part2"
refused "$work/whole: not a shard" "$work/whole" "$work/part1"
cp -r "$work/part3" "$work/part3-other"
jq '.commit = "0000000"' "$work/part3/run.json" >"$work/part3-other/run.json"
refused "the parts ran different commits" "$work/part1" "$work/part2" "$work/part3-other"

# A shard not given: its flavour not run, and why, on the page too.
s=0
jobs/merge.sh --results "$work/partial" "$work/part1" "$work/part3" >"$work/partial.out" 2>&1 || s=$?
tap_is "$s" 1 "jobs/merge.sh with shard 2/3 missing: exit 1"
tap_is "$(jq -c '[.flavours[] | [.name, .ran, .why_not_run]]' "$work/partial/run.json" 2>&1)" \
	'[["stock",true,null],["gup-v7",false,"in shard 2 of 3, whose results were not given to jobs/merge.sh"]]' \
	"... the merged run.json: gup-v7 not run, in shard 2 of 3, not given"
tap_is "$(tail -1 "$work/partial.out")" "results: $work/partial" "... and its last line names the merged run"
mkdir "$work/pages-partial"
"$LAB_ROOT/userspace/gupctl" report --md "$work/pages-partial/matrix.md" --svg "$work/pages-partial/matrix.svg" \
	"$work/partial" >/dev/null 2>&1 || true
tap_like "$(grep -c 'in shard 2 of 3, whose results were not given' "$work/pages-partial/matrix.md")" '^[1-9]' \
	"... and the matrix page says gup-v7 was not run, and why"

tap_done
