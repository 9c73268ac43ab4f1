#!/bin/bash
# `make docs`: regenerate the generated pages of docs/ from results
# directories (docs/results.md), one step per page, then docs/latest.md:
# what changed from mainline to latest in those of them that ran both.  Hand-written pages
# (docs/matrix-learned.md, ...) are read, never written.  Each page says
# which results directory and commit it came from.
#
#   jobs/docs.sh [--out DIR] [RESULTS...]
# RESULTS...  results directories; each regenerates its job's page (the
#             job is run.json's "job").  The parts of a sharded run
#             (--shard I/N; docs/results.md, "Shards") are merged first
#             into one results directory (jobs/merge.sh), whose pages and
#             explorer these are.  Default: results/JOB/latest of every
#             job with a page; a job without results yet is skipped, and
#             said so.
# --out DIR   write the pages into DIR instead of docs/ (a quick run's
#             too, which docs/ never takes)
#
# A page per job: add a page_JOB function and JOB to pages.  Exit status:
# 0 every page asked for (or with results) regenerated; 1 otherwise.
set -euo pipefail
# shellcheck source=../patches/flavours.sh
. "$(dirname "$0")/../patches/flavours.sh"
# shellcheck source=lib.sh
. "$LAB_ROOT/jobs/lib.sh"

pages=(matrix repro consumers holders export bench)
out=$LAB_ROOT/docs

# quick_refused DIR JOB: fail when DIR is a quick run and the pages go to
# docs/ (make check's subsets are not the published results).
# shellcheck disable=SC2317 # called by the page_ functions
quick_refused() {
	[ "$out" = docs ] || return 0
	! jq -e 'any(.flavours[]; .quick)' "$1/run.json" >/dev/null ||
		die "$1 is a quick run (jobs/$2.sh --quick, make check's subset): docs/ takes a full one (make $2), --out DIR any"
}

# page_matrix DIR: docs/matrix.md, docs/matrix.svg, docs/policies.md and
# docs/longterm.md (gup_longterm's verdicts per flavour), and DIR's
# explorer page, DIR/explorer.html.
# shellcheck disable=SC2317 # called as page_$job
page_matrix() {
	quick_refused "$1" matrix
	"$gupctl" report --md "$out/matrix.md" --svg "$out/matrix.svg" --policies "$out/policies.md" \
		--learned docs/matrix-learned.md --html "$1/explorer.html" "$1" || [ $? -eq 1 ] ||
		die "gupctl report failed on $1"
	"$gupctl" longterm report --md "$out/longterm.md" --policies "$out/policies.md" "$1" ||
		die "gupctl longterm report failed on $1"
}

# page_repro DIR: docs/repro-ext4-2018-results.md, and DIR/explorer.html.
# shellcheck disable=SC2317 # called as page_$job
page_repro() {
	"$gupctl" repro report --results "$1" -o "$out/repro-ext4-2018-results.md" \
		--html "$1/explorer.html" ||
		die "gupctl repro report failed on $1"
}

# page_consumers DIR: docs/consumers.md, and DIR/explorer.html.
# shellcheck disable=SC2317 # called as page_$job
page_consumers() {
	"$gupctl" consumers report --md "$out/consumers.md" --html "$1/explorer.html" "$1" ||
		die "gupctl consumers report failed on $1"
}

# page_holders DIR: docs/filesystems.md (the prose: docs/filesystems-guide.md),
# and DIR/explorer.html.
# shellcheck disable=SC2317 # called as page_$job
page_holders() {
	quick_refused "$1" holders
	"$gupctl" holders report --results "$1" -o "$out/filesystems.md" --html "$1/explorer.html" ||
		die "gupctl holders report failed on $1"
}

# page_export DIR: docs/findings/exports.md (the prose: docs/findings/).
# shellcheck disable=SC2317 # called as page_$job
page_export() {
	quick_refused "$1" export
	mkdir -p "$out/findings"
	"$gupctl" export report -o "$out/findings/exports.md" "$1" ||
		die "gupctl export report failed on $1"
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
	"$gupctl" bench report --from "$1" --md "$out/bench.md" --svg "$out/bench.svg" "${docs[@]}" ||
		die "gupctl bench report failed on $1"
}

dirs=()
while [ $# -gt 0 ]; do
	case $1 in
	-h | --help) sed -n '2,/^set /{/^#/p}' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
	--out) out=${2:?--out needs a DIR}; shift ;;
	-*) echo "jobs/docs.sh: unknown option '$1' (see --help)" >&2; exit 2 ;;
	*) dirs+=("$1") ;;
	esac
	shift
done
[ -d "$out" ] || die "--out $out: no such directory"
out=$(cd "$out" && pwd -P)
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
[ "$out" != "$root/docs" ] || out=docs
status=0
# The parts of a sharded run (run.json's "shard"), one or all of them:
# merged (jobs/merge.sh) into one directory that stands for them below, a
# shard not given "not run" there; two runs of one job that are not
# shards do not merge, and are refused.
declare -A parts=()
given=()
for dir in "${dirs[@]}"; do
	if [ ! -f "$dir/run.json" ]; then
		echo "jobs/docs.sh: $dir: no run.json: not a results directory (make matrix writes one)" >&2
		status=1
		continue
	fi
	# absolute: the pages are made from the clone's root, below
	dir=$(cd "$dir" && pwd)
	job=$(jq -r '.job // empty' "$dir/run.json")
	if [ -z "$job" ]; then
		echo "jobs/docs.sh: $dir: run.json names no job" >&2
		status=1
		continue
	fi
	[ -n "${parts[$job]:-}" ] || given+=("$dir")
	parts[$job]+="$dir"$'\n'
done
dirs=()
for dir in "${given[@]}"; do
	job=$(jq -r '.job // empty' "$dir/run.json")
	mapfile -t p <<<"${parts[$job]%$'\n'}"
	if [ ${#p[@]} -eq 1 ] && jq -e '.shard == null' "$dir/run.json" >/dev/null; then
		dirs+=("$dir")
		continue
	fi
	echo "# $job: merging the parts ${p[*]}"
	s=0
	mout=$("$LAB_ROOT/jobs/merge.sh" "${p[@]}") || s=$?
	sed '$d' <<<"$mout"
	merged=$(tail -1 <<<"$mout" | sed -n 's/^results: //p')
	if [ -z "$merged" ]; then
		echo "jobs/docs.sh: $job: the parts given do not merge (above)" >&2
		status=1
		continue
	fi
	# a shard missing: its flavours are pages' "not run", and the exit 1
	[ "$s" -eq 0 ] || status=1
	dirs+=("$merged")
done
cd "$root"
for dir in "${dirs[@]}"; do
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
# docs/latest.md: what changed from mainline (6.12) to latest (7.3), cell
# by cell, in each of the runs above that has both (gupctl diff --page;
# bench's are figures, not cells).
a=() b=()
for dir in "${dirs[@]}"; do
	case $(jq -r .job "$dir/run.json") in matrix | repro | consumers | holders) ;; *) continue ;; esac
	jq -e '[.flavours[].name] | (index("mainline") != null) and (index("latest") != null)' \
		"$dir/run.json" >/dev/null || continue
	a+=("$dir:mainline") b+=("$dir:latest")
done
if [ ${#a[@]} -gt 0 ]; then
	echo "# latest: mainline -> latest in ${#a[@]} run(s)"
	s=0
	"$gupctl" diff --page "$out/latest.md" "$(IFS=,; echo "${a[*]}")" "$(IFS=,; echo "${b[*]}")" \
		>/dev/null || s=$?
	[ "$s" -le 1 ] || { echo "jobs/docs.sh: gupctl diff mainline latest failed ($s)" >&2; status=1; }
else
	echo "# latest: skipped: no run above has both mainline and latest"
fi
exit "$status"
