#!/bin/bash
# Merging the parts of a sharded run without booting (docs/results.md,
# "Shards"): the consumers fixture (tests/fixtures/explorer/consumers:
# stock and gup-v1) cut into the two parts `--shard 1/2` and `--shard 2/2`
# would have written (run.json's "shard", each part with its flavour's
# files), then `jobs/docs.sh --out` on the whole and on the parts: the
# consumers page and the explorer's data must be the same but for the
# results directory they name; a part given alone is merged too, its
# other flavour "not run", and said; parts are never pruned by the merge.
# (tests/lab/85-shards.sh runs real shards of the matrix.)
# shellcheck source=../suite.sh
. "$(dirname "$0")/../suite.sh"
fx=tests/fixtures/explorer/consumers
export GUP_LAB_RESULTS=$work/results
make -s -C userspace gupctl

cp -r "$fx" "$work/whole"
for i in 1 2; do
	mkdir "$work/part$i"
	jq --argjson i "$i" '.flavours as $all | .shard = {index: $i, count: 2,
		flavours: [$all[].name]} | .flavours = [$all[$i - 1]]' "$fx/run.json" >"$work/part$i/run.json"
	f=$(jq -r '.flavours[0].name' "$work/part$i/run.json")
	cp "$fx/$f".* "$work/part$i/"
done

mkdir "$work/pages-whole" "$work/pages-merged" "$work/pages-alone"
s=0
jobs/docs.sh --out "$work/pages-whole" "$work/whole" >"$work/whole.out" 2>&1 || s=$?
tap_is "$s" 0 "jobs/docs.sh --out DIR on the whole fixture: exit 0"
s=0
jobs/docs.sh --out "$work/pages-merged" "$work/part2" "$work/part1" >"$work/merged.out" 2>&1 || s=$?
tap_is "$s" 0 "jobs/docs.sh --out DIR on its two parts: exit 0"
[ "$s" -eq 0 ] || sed 's/^/#   /' "$work/merged.out" | tail -10
merged=$(sed -n 's/^# consumers: \(\/.*\)$/\1/p' "$work/merged.out" | tail -1)
tap_like "$merged" "^$work/results/consumers/[0-9-]+$" "the parts merged under results/consumers/ ($merged)"
tap_is "$(readlink "$work/results/consumers/latest")" "$(basename "$merged")" \
	"the merged run is the job's latest"
d=$(diff <(sed "s#$work/whole#RESULTS#g" "$work/pages-whole/consumers.md") \
	<(sed "s#$merged#RESULTS#g" "$work/pages-merged/consumers.md") || true)
tap_is "$d" "" "consumers.md of the parts is the whole's but for the results directory"
tap_is "$(cmp -s "$work/pages-whole/consumers.md" "$work/pages-merged/consumers.md"; echo $?)" 1 \
	"(and differed before that: the comparison can fail)"
data() {
	sed -n 's/^<script type="application\/json" id="data">\(.*\)<\/script>$/\1/p' "$1" |
		jq -c 'del(.results)'
}
tap_is "$(data "$merged/explorer.html" | sha256sum)" "$(data "$work/whole/explorer.html" | sha256sum)" \
	"the merged explorer's data is the whole's, consoles included"
tap_is "$(data "$merged/explorer.html" | jq -c '[.columns[] | [.name, (.console | length > 0)]]')" \
	'[["stock",true],["gup-v1",true]]' "the merged explorer has both flavours' consoles"

# A part alone is merged, not published as if whole.
s=0
jobs/docs.sh --out "$work/pages-alone" "$work/part1" >"$work/alone.out" 2>&1 || s=$?
tap_is "$s" 1 "jobs/docs.sh on one part alone: exit 1 (a shard missing)"
tap_like "$(cat "$work/pages-alone/consumers.md")" '\| gup-v1 \| \| not run \|' \
	"... its page lists gup-v1 as not run"
alone=$(sed -n 's/^# consumers: \(\/.*\)$/\1/p' "$work/alone.out" | tail -1)
tap_is "$(jq -r '.flavours[1].why_not_run' "$alone/run.json" 2>&1)" \
	"in shard 2 of 2, whose results were not given to jobs/merge.sh" "... and run.json says why"

# Parts that are runs under results/consumers/ (named by date, as a job
# names them, older than the merges above), with one run to keep: the
# merge prunes neither (qemu/prune-runs.sh would, before the newest).
c=$work/results/consumers
mv "$work/part1" "$c/20261201-000001"
mv "$work/part2" "$c/20261201-000002"
s=0
GUP_LAB_KEEP_RESULTS=1 jobs/merge.sh "$c/20261201-000001" "$c/20261201-000002" \
	>"$work/inside.out" 2>&1 || s=$?
left=0
for d in "$c/20261201-000001" "$c/20261201-000002"; do
	[ ! -d "$d" ] || left=$((left + 1))
done
tap_is "$s:$left" "0:2" \
	"jobs/merge.sh with GUP_LAB_KEEP_RESULTS=1: merged, both parts still there"

# A part that left its flavour out because the job has no model of its
# kernel yet (jobs/lib.sh's job_modelled: run.json's "not_run"): the
# merged run has no entry for it, and keeps the part's reason.
mkdir "$work/nr"
jq '.flavours = [] | .not_run = [{name: .shard.flavours[1], why: "no model of 7.3 yet: a test"}]' \
	"$c/20261201-000002/run.json" >"$work/nr/run.json"
s=0
jobs/merge.sh --results "$work/nr-merged" "$c/20261201-000001" "$work/nr" >"$work/nr.out" 2>&1 || s=$?
tap_is "$s $(jq -c '[[.flavours[].name], .not_run]' "$work/nr-merged/run.json" 2>&1)" \
	'0 [["stock"],[{"name":"gup-v1","why":"no model of 7.3 yet: a test"}]]' \
	"a part's not_run flavour: no entry, its reason kept, every shard given (exit 0)"
tap_done
