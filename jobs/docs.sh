#!/bin/bash
# `make docs`: regenerate the generated pages of docs/ from results
# directories (docs/results.md), one step per page.  Hand-written pages
# (docs/matrix-learned.md, ...) are read, never written.  Each page says
# which results directory and commit it came from.
#
#   jobs/docs.sh [DIR...]
# DIR...  results directories; each regenerates its job's page (the job is
#         run.json's "job").  Default: results/JOB/latest of every job
#         with a page; a job without results yet is skipped, and said so.
#
# A page per job: add a page_JOB function and JOB to pages.  Exit status:
# 0 every page asked for (or with results) regenerated; 1 otherwise.
set -euo pipefail
# shellcheck source=../patches/flavours.sh
. "$(dirname "$0")/../patches/flavours.sh"
# shellcheck source=lib.sh
. "$LAB_ROOT/jobs/lib.sh"

pages=(matrix repro consumers holders bench)

# page_matrix DIR: docs/matrix.md, docs/matrix.svg, docs/policies.md and
# docs/longterm.md (gup_longterm's verdicts per flavour), and DIR's
# explorer page, DIR/explorer.html.
# shellcheck disable=SC2317 # called as page_$job
page_matrix() {
	! jq -e 'any(.flavours[]; .quick)' "$1/run.json" >/dev/null ||
		die "$1 is a quick run (jobs/matrix.sh --quick, make check's subset): the pages come from a full one (make matrix)"
	"$gupctl" report --md docs/matrix.md --svg docs/matrix.svg --policies docs/policies.md \
		--learned docs/matrix-learned.md --html "$1/explorer.html" "$1" || [ $? -eq 1 ] ||
		die "gupctl report failed on $1"
	"$gupctl" longterm report --md docs/longterm.md --policies docs/policies.md "$1" ||
		die "gupctl longterm report failed on $1"
}

# page_repro DIR: docs/repro-ext4-2018-results.md.
# shellcheck disable=SC2317 # called as page_$job
page_repro() {
	"$gupctl" repro report --results "$1" -o docs/repro-ext4-2018-results.md ||
		die "gupctl repro report failed on $1"
}

# page_consumers DIR: docs/consumers.md.
# shellcheck disable=SC2317 # called as page_$job
page_consumers() {
	"$gupctl" consumers report --md docs/consumers.md "$1" ||
		die "gupctl consumers report failed on $1"
}

# page_holders DIR: docs/filesystems.md (the prose: docs/filesystems-guide.md).
# shellcheck disable=SC2317 # called as page_$job
page_holders() {
	! jq -e 'any(.flavours[]; .quick)' "$1/run.json" >/dev/null ||
		die "$1 is a quick run (jobs/holders.sh --quick, make check's subset): the page comes from a full one (make holders)"
	"$gupctl" holders report --results "$1" -o docs/filesystems.md ||
		die "gupctl holders report failed on $1"
}

# page_bench DIR: docs/bench.md and docs/bench.svg (the prose:
# docs/performance.md); the boots' documents in the order they ran.
# shellcheck disable=SC2317 # called as page_$job
page_bench() {
	local docs=() d
	# FLAVOUR.ROUND.json, round by round as jobs/bench.sh booted them
	for d in $(jq -r '.flavours as $f | range(1; ($f | map(.boots) | max) + 1) as $r |
		$f[] | "\(.name).\($r).json"' "$1/run.json"); do
		[ ! -f "$1/$d" ] || docs+=("$1/$d")
	done
	[ ${#docs[@]} -gt 0 ] || die "$1: no boot measured"
	"$gupctl" bench report --from "$1" --md docs/bench.md --svg docs/bench.svg "${docs[@]}" ||
		die "gupctl bench report failed on $1"
}

case ${1:-} in
-h | --help) sed -n '2,14p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
-*) echo "jobs/docs.sh: unknown option '$1' (see --help)" >&2; exit 2 ;;
esac
dirs=("$@")
if [ ${#dirs[@]} -eq 0 ]; then
	for job in "${pages[@]}"; do
		if [ -f "$LAB_RESULTS/$job/latest/run.json" ]; then
			dirs+=("$LAB_RESULTS/$job/latest")
		else
			echo "# $job: skipped: no results yet ($LAB_RESULTS/$job/latest: make $job writes them)"
		fi
	done
fi

job_userspace
gupctl=$LAB_ROOT/userspace/gupctl
root=$(cd "$LAB_ROOT" && pwd -P)
cd "$root"
status=0
for dir in "${dirs[@]}"; do
	if [ ! -f "$dir/run.json" ]; then
		echo "jobs/docs.sh: $dir: no run.json: not a results directory (make matrix writes one)" >&2
		status=1
		continue
	fi
	job=$(jq -r '.job // empty' "$dir/run.json")
	if ! declare -F "page_$job" >/dev/null; then
		echo "jobs/docs.sh: $dir: no page for job '$job'" >&2
		status=1
		continue
	fi
	# The page names the run's own directory (not "latest"), relative
	# to the clone when it is inside.
	real=$(cd "$dir" && pwd -P)
	case $real in
	"$root"/*) real=${real#"$root"/} ;;
	esac
	echo "# $job: $real"
	"page_$job" "$real"
done
exit "$status"
