#!/bin/bash
# Bound what runs leave behind (docs/lab.md, "Pruning").  Deletes the
# older directories, keeping the newest N, every one still in progress and
# (for the runner's runs) every run whose verdict was unexpected.
#
#   qemu/prune-runs.sh [--dry-run]
#       the runner's runs, $GUP_LAB_CACHE/runs/DATE-TIME-FLAVOUR.XXXX
#       (qemu/run.sh calls it before it makes a run directory); keeps
#       GUP_LAB_KEEP_RUNS (20) of them
#   qemu/prune-runs.sh --results DIR [--dry-run]
#       one job's results directories, DIR/DATE-TIME[-XXXX] (jobs/lib.sh
#       calls it for results/JOB before a new run); keeps
#       GUP_LAB_KEEP_RESULTS (20) and the one DIR/latest points to
#
# GUP_LAB_KEEP_RUNS=all (or GUP_LAB_KEEP_RESULTS=all) prunes nothing.
# A run directory records how its run went: qemu/run.sh writes its PID to
# .running when it starts and its exit status to exit-status when it ends
# (0: the command succeeded and the console was as the caller allowed).
# A results directory has .running while its job runs (jobs/lib.sh).
# Anything else in those directories is left alone.
set -euo pipefail
# shellcheck source=../patches/flavours.sh
. "$(dirname "$0")/../patches/flavours.sh"

dry=0 results=''
while [ $# -gt 0 ]; do
	case $1 in
	--dry-run) dry=1 ;;
	--results) results=${2:?--results needs a DIR}; shift ;;
	-h | --help) sed -n '2,21p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
	*) echo "qemu/prune-runs.sh: unknown option '$1' (see --help)" >&2; exit 2 ;;
	esac
	shift
done

if [ -n "$results" ]; then
	dir=$results keep=${GUP_LAB_KEEP_RESULTS:-20}
	pattern='^[0-9]{8}-[0-9]{6}(-[A-Za-z0-9]{4})?$'
else
	dir=$LAB_CACHE/runs keep=${GUP_LAB_KEEP_RUNS:-20}
	pattern='^[0-9]{8}-[0-9]{6}-.+\.[A-Za-z0-9]{4}$'
fi
[ "$keep" != all ] || exit 0
[[ $keep =~ ^[0-9]+$ ]] || die "keep count '$keep' is not a number (or 'all')"
[ -d "$dir" ] || exit 0

# Is a process using DIR (a runner or QEMU from before .running existed:
# their command lines name the run's files)?
used_by_a_process() {
	local c
	for c in /proc/[0-9]*/cmdline; do
		grep -qF -- "$1/" <<<"$({ tr '\0' ' ' <"$c"; } 2>/dev/null)" && return 0
	done
	return 1
}

# in_progress DIR: its job or run has not ended.
in_progress() {
	local d=$1 pid
	if [ -f "$d/.running" ]; then
		pid=$(cat "$d/.running" 2>/dev/null || true)
		[[ $pid =~ ^[0-9]+$ ]] && kill -0 "$pid" 2>/dev/null && return 0
		return 1
	fi
	# Made before runs recorded themselves: ended if it says so, else
	# running while a process uses it or something in it is recent.
	[ ! -f "$d/exit-status" ] && [ ! -f "$d/report" ] && [ ! -f "$d/run.json" ] || return 1
	used_by_a_process "$d" && return 0
	[ -n "$(find "$d" -mmin -15 -print -quit 2>/dev/null)" ]
}

# unexpected DIR: a run whose verdict was not what its caller asked for.
unexpected() {
	local d=$1 s
	[ -z "$results" ] || return 1
	if [ -f "$d/exit-status" ]; then
		s=$(cat "$d/exit-status" 2>/dev/null || true)
		[ "$s" != 0 ]
		return
	fi
	# an older run: its report (qemu/run.sh --report's fields)
	[ -f "$d/report" ] || return 1
	jq -e '.guest_status != 0 or .kernel_verdict != "clean" or .timed_out' \
		"$d/report" >/dev/null 2>&1
}

latest=''
[ -z "$results" ] || latest=$(readlink "$dir/latest" 2>/dev/null || true)

mapfile -t entries < <(find "$dir" -mindepth 1 -maxdepth 1 -type d -printf '%f\n' |
	grep -E "$pattern" | sort -r)
n=0 pruned=0 kept_bad=0
for e in "${entries[@]}"; do
	d=$dir/$e
	n=$((n + 1))
	if [ "$n" -le "$keep" ] || [ "$e" = "$latest" ] || in_progress "$d"; then
		continue
	fi
	if unexpected "$d"; then
		kept_bad=$((kept_bad + 1))
		continue
	fi
	if [ "$dry" = 1 ]; then
		echo "would delete $d"
	else
		rm -rf -- "$d"
	fi
	pruned=$((pruned + 1))
done
[ "$pruned" = 0 ] || [ "$dry" = 1 ] ||
	log "pruned $pruned of ${#entries[@]} directories in $dir (kept the newest $keep, $kept_bad with an unexpected verdict, and any in progress)"
