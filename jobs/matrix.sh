#!/bin/bash
# `make matrix`: the GUP matrix on every flavour, one boot each.  Each guest
# runs `gupctl matrix` (KTAP on the console, a marker per cell on
# /dev/kmsg, the cells as JSON) and the cross-check with the kernel's own
# gup_test; on the host `gupctl report --collect` attributes every kernel
# report on the console to its cell and writes the flavour's document.
# One results directory per run (docs/results.md); nothing tracked is
# written (`make docs` turns results into docs/matrix.md).  Exit status: 0
# when every flavour ran and passed (every cell as expected, gup_test
# agreeing, no kernel report); 1 otherwise; 2 usage error.
#
#   jobs/matrix.sh [--results DIR] [FLAVOUR...]
# --results DIR  write the run there, move no latest link (default: a new
#                directory under results/matrix/, then results/matrix/latest)
# FLAVOUR...     the flavours to run (default: every one in patches/flavours)
set -euo pipefail
# shellcheck source=../qemu/lib.sh
. "$(dirname "$0")/../qemu/lib.sh"
# shellcheck source=lib.sh
. "$LAB_ROOT/jobs/lib.sh"

usage() {
	sed -n '2,16p' "$0" | sed 's/^# \{0,1\}//'
}

results=''
flavours=()
while [ $# -gt 0 ]; do
	case $1 in
	--results) results=${2:?--results needs a DIR}; shift ;;
	-h | --help) usage; exit 0 ;;
	-*) echo "jobs/matrix.sh: unknown option '$1' (see --help)" >&2; exit 2 ;;
	*) flavours+=("$1") ;;
	esac
	shift
done
[ ${#flavours[@]} -gt 0 ] || mapfile -t flavours < <(all_flavours)
for f in "${flavours[@]}"; do
	valid_flavour "$f" ||
		{ echo "jobs/matrix.sh: unknown flavour '$f' (see patches/flavours)" >&2; exit 2; }
done

make -s -C "$LAB_ROOT/userspace" >&2
gupctl=$LAB_ROOT/userspace/gupctl
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
results_begin matrix "$results"
out=$RESULTS_DIR

# The guest's part: matrix, then the cross-check against its JSON.
# shellcheck disable=SC2016 # expanded in the guest
guest='
insmod /lab/gup_pin_test.ko || exit 90
gupctl matrix --flavour "$FLAVOUR" --policy "$POLICY" \
	--json /lab/out/matrix.json | tee /lab/out/matrix.ktap
status=${PIPESTATUS[0]}
gupctl xcheck --policy "$POLICY" --gup-test /lab/bin/gup_test \
	--foll-longterm "$(cat /lab/foll_longterm)" \
	--matrix /lab/out/matrix.json --json /lab/out/xcheck.json
xstatus=$?
rmmod gup_pin_test
[ $status -eq 0 ] && [ $xstatus -eq 0 ]'

bad=0
for f in "${flavours[@]}"; do
	policy=$(flavour_field "$f" 3)
	stage=$tmp/$f.stage
	guest_out=$tmp/$f.out
	"$LAB_ROOT/rootfs/stage-guest.sh" "$f" "$stage"
	echo "# matrix: flavour $f (policy $policy)"
	set +e
	"$LAB_ROOT/qemu/run.sh" --flavour "$f" --quiet --timeout 1500 \
		--files "$stage" --out "$tmp/$f.run" --results "$guest_out" \
		--report "$tmp/$f.report" \
		--exec "FLAVOUR=$f POLICY=$policy; $guest" >"$tmp/$f.runner" 2>&1
	status=$?
	set -e
	verdict=$(jq -r '.kernel_verdict // empty' "$tmp/$f.report" 2>/dev/null || true)
	boot=$(jq -r '.wall_seconds // empty' "$tmp/$f.report" 2>/dev/null || true)
	cp "$tmp/$f.run/console.log" "$out/$f.console.log" 2>/dev/null || true
	cp "$guest_out/matrix.ktap" "$out/$f.ktap" 2>/dev/null || true
	cat "$out/$f.ktap" 2>/dev/null || true

	collect=(--collect "$out/$f.json" --flavour "$f" --policy "$policy"
		--ext4 "$(flavour_field "$f" 4)" --input-hash "$(flavour_key "$f")"
		--kernel-verdict "${verdict:-none}" --boot-seconds "${boot:-0}"
		--console "$out/$f.console.log" --reports "$tmp/$f.reports.json")
	[ ! -s "$guest_out/matrix.json" ] || collect+=(--matrix "$guest_out/matrix.json")
	[ ! -s "$guest_out/xcheck.json" ] || collect+=(--xcheck "$guest_out/xcheck.json")
	why=null
	if [ -s "$out/$f.console.log" ]; then
		"$LAB_ROOT/qemu/scan-console.sh" --reports "$out/$f.console.log" \
			>"$tmp/$f.reports.json"
		# Exit 1: the flavour failed; the document says why.
		"$gupctl" report "${collect[@]}" || [ $? -eq 1 ] ||
			die "$f: gupctl report --collect failed"
		jq -r '.xcheck.cells[]? | select(.agree | not)
			| "# xcheck disagrees: cell \(.index) \(.method) \(.flags) \(.backing) \(.state): gup_test \(.gup_test // .error), expected \(.expected), matrix \(.matrix)"' \
			"$out/$f.json"
	fi
	if [ ! -s "$guest_out/matrix.json" ]; then
		why="no matrix came back (runner status $status, kernel verdict ${verdict:-none})"
		[ ! -s "$out/$f.json" ] || why+=$(jq -r '.kernel_reports[0] // empty |
			", first kernel report during \(.step // "boot") cell \(.cell // "-"): \(.title)"' \
			"$out/$f.json")
		echo "# $f: NOT RUN: $why"
		tail -20 "$tmp/$f.runner" | sed 's/^/#   /'
		why=$(jq -n --arg why "$why" '$why')
		bad=1
	elif ! jq -e .summary.passed "$out/$f.json" >/dev/null; then
		echo "# $f: FAILED (runner status $status, kernel verdict $verdict): see $out/$f.json"
		bad=1
	fi
	if [ -s "$out/$f.json" ]; then
		results_flavour "$f" "kernel_release=$(jq .kernel_release "$out/$f.json")" \
			"ran=$([ "$why" = null ] && echo true || echo false)" \
			"why_not_run=$why" boots=1 "wall_seconds=${boot:-null}" \
			"cells=$(jq .summary.cells "$out/$f.json")" \
			"mismatches=$(jq .summary.mismatches "$out/$f.json")"
	else
		results_flavour "$f" kernel_release=null ran=false \
			"why_not_run=$why" boots=1 "wall_seconds=${boot:-null}" \
			cells=0 mismatches=null
	fi
done
results_end
exit "$bad"
