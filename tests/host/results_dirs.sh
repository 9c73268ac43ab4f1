#!/bin/bash
# jobs/lib.sh's results_begin: jobs started at once each get a results
# directory of their own (the directory is named by the second; two jobs
# in one second shared one until one mkdir made it).  Eight jobs' starts at
# once, in a results tree of their own; then the same with the directory
# of this second already there.
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
tap_done
