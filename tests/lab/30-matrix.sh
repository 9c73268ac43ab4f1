#!/bin/bash
# The GUP matrix on every flavour (jobs/matrix.sh, the job of `make
# matrix`, into a results directory of its own): every cell must meet the
# expectation its flavour's policy derives, the kernel's own gup_test must
# agree, the console must stay free of kernel reports, and the job must
# write its results directory (docs/results.md) and nothing tracked.
# Every figure is read from the results by field name (jq).
# shellcheck source=../suite.sh
. "$(dirname "$0")/../suite.sh"
. jobs/lib.sh
res=$work/results
links() {
	readlink "$LAB_RESULTS/latest" "$LAB_RESULTS/matrix/latest" 2>/dev/null || true
}

tree_before=$(git status --porcelain)
links_before=$(links)
set +e
jobs/matrix.sh --results "$res" >"$work/matrix.out" 2>"$work/matrix.err"
status=$?
set -e
tap_is "$status" 0 "jobs/matrix.sh exits 0"
[ "$status" -eq 0 ] || tail -30 "$work/matrix.err" | sed 's/^/#   /'
tap_is "$(tail -1 "$work/matrix.out")" "results: $res" "the job's last line names its results directory"
tap_is "$(git status --porcelain)" "$tree_before" "the job leaves git status of the tree unchanged"
tap_is "$(links)" "$links_before" "--results DIR moves no latest link"

run=$res/run.json
tap_is "$(jq -r .job "$run" 2>&1)" matrix "run.json: job matrix"
tap_is "$(jq -r '[.flavours[].name] | join(" ")' "$run" 2>&1)" \
	"$(all_flavours | paste -sd' ')" "run.json: every flavour, in order"
tap_like "$(jq -r '.commit, .date, .source_package.version' "$run" 2>&1 | paste -sd' ')" \
	'^[0-9a-f]{7,}(-dirty)? [0-9]{4}-[0-9]{2}-[0-9]{2}T.*Z [0-9]' \
	"run.json: commit, date and the kernel source version"

for f in $(all_flavours); do
	doc=$res/$f.json
	tap_is "$(jq -r --arg f "$f" '.flavours[] | select(.name == $f) |
		[.ran, .why_not_run, .cells, .mismatches, .input_hash] | map(tostring) | join(" ")' "$run" 2>&1)" \
		"true null 384 0 $(flavour_key "$f")" "$f: run.json: ran, 384 cells, 0 mismatches, its input hash"
	tap_is "$(jq -r '[.job, .flavour, .policy, .ext4, .kernel_verdict] | join(" ")' "$doc" 2>&1)" \
		"matrix $f $(flavour_field "$f" 3) $(flavour_field "$f" 4) clean" \
		"$f: FLAVOUR.json: job, flavour, policy and ext4 of patches/flavours, a clean boot"
	tap_is "$(jq '.cells | length' "$doc" 2>&1)" 384 \
		"$f: all 384 matrix cells ran or were declared not applicable"
	tap_is "$(jq '[.cells[] | select(.match | not)] | length' "$doc" 2>&1)" 0 \
		"$f: every cell met its derived expectation"
	jq -r '.cells[] | select(.match | not) |
		"#   cell \(.index) \(.method) \(.flags) \(.backing) \(.state): measured \(.measured.outcome) \(.measured.errno), expected \(.expected.outcome) \(.expected.errno)"' \
		"$doc" 2>/dev/null | head -20
	tap_is "$(jq '[.cells[] | select(.expected.outcome == "not-run" and
		.measured.outcome == "not-run" and (.expected.reason | length) > 0)] | length' "$doc" 2>&1)" 16 \
		"$f: the 16 cells the policy calls not applicable, each with a reason"
	xn=$(jq '.xcheck.checked' "$doc" 2>&1)
	xbad=$(jq '[.xcheck.cells[] | select(.agree | not)] | length' "$doc" 2>&1)
	if [ "$xn" -gt 0 ] 2>/dev/null && [ "$xbad" = 0 ] &&
		[ "$(jq '.xcheck.cells | length' "$doc")" = "$xn" ]; then
		tap_ok "$f: the kernel's gup_test agrees on all $xn cells it can express"
	else
		tap_not_ok "$f: gup_test cross-check ($xn cells, $xbad disagree)"
	fi
	tap_is "$(jq -c '.kernel_reports' "$doc" 2>&1)" "[]" "$f: no kernel report on the console"
	tap_is "$(grep -c 'gup-lab: matrix cell ' "$res/$f.console.log" 2>/dev/null || true)" 384 \
		"$f: the console shows a marker before each cell"
	tap_is "$(grep -cE '^(not )?ok [0-9]+ ' "$res/$f.ktap" 2>/dev/null || true)" 384 \
		"$f: FLAVOUR.ktap holds the guest's KTAP, one line per cell"
done

tap_done
