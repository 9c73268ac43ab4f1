#!/bin/bash
# jobs/lib.sh's results_begin: jobs started at once each get a results
# directory of their own (the directory is named by the second; two jobs
# in one second shared one until one mkdir made it).  Eight jobs' starts at
# once, in a results tree of their own; then the same with the directory
# of this second already there.  And tests/suite.sh keeping a failed
# suite's scratch directory.
# shellcheck source=../suite.sh
. "$(dirname "$0")/../suite.sh"
export GUP_LAB_RESULTS=$work/results
# shellcheck source=../../jobs/lib.sh
. jobs/lib.sh

# starts N: N subshells run results_begin at once; their directories
starts() {
	local i
	for i in $(seq "$1"); do
		(results_begin twins && echo "$RESULTS_DIR") >"$work/dir.$i" &
	done
	wait
	cat "$work"/dir.*
	rm -f "$work"/dir.*
}

dirs=$(starts 8)
tap_is "$(wc -l <<<"$dirs")" 8 "eight starts at once: eight directories named"
tap_is "$(sort -u <<<"$dirs" | wc -l)" 8 "eight starts at once: all apart"
mkdir -p "$GUP_LAB_RESULTS/twins/$(date -u +%Y%m%d-%H%M%S)"
dirs=$(starts 2)
tap_is "$(sort -u <<<"$dirs" | wc -l)" 2 "two starts beside an existing directory of the second: apart"

# tests/suite.sh: a suite with a failed test keeps its $work under the
# results tree's check/ and says where; a suite that passed leaves none.
kdir=$work/keep
out=$(GUP_LAB_RESULTS=$kdir bash -c '. tests/suite.sh; echo evidence >"$work/console.log"
	tap_not_ok planted; tap_done' 2>&1) || true
kept=$(sed -n 's/^# kept for the failed tests: \([^ ]*\) .*/\1/p' <<<"$out")
tap_like "$kept" "^$kdir/check/bash-[0-9]{8}-[0-9]{6}\$" "a failed suite: its scratch directory kept under check/, said"
tap_is "$(cat "$kept/console.log" 2>/dev/null)" evidence "a failed suite: its files are there"
rm -rf "$kdir"
out=$(GUP_LAB_RESULTS=$kdir bash -c '. tests/suite.sh; tap_ok fine; tap_done' 2>&1)
tap_is "$(find "$kdir/check" -mindepth 1 -maxdepth 1 2>/dev/null | wc -l) $(grep -c kept <<<"$out" || true)" "0 0" \
	"a suite that passed: nothing kept, nothing said"
tap_done
