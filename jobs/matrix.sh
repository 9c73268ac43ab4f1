#!/bin/bash
# `make matrix`: the GUP matrix on every flavour, one boot each.  Each guest
# runs jobs/guest/matrix.sh: `gupctl matrix` (KTAP into the results, a
# marker per cell on /dev/kmsg, the cells as JSON), the cross-check with
# the kernel's own gup_test, and the mm selftests' gup_longterm (6.12's,
# one patch: patches/gup-longterm-suite/) from each of the scratch ext4, xfs and btrfs (the boot
# makes fresh xfs and btrfs images: qemu/run.sh --fs); on the host `gupctl report --collect` attributes every
# kernel report on the console to its cell and writes the flavour's
# document, and `gupctl longterm judge` holds each gup_longterm verdict
# against the one the flavour's policy predicts.
# One results directory per run (docs/results.md); nothing tracked is
# written (`make docs` turns results into docs/matrix.md).  Prints a line
# per flavour (and the first problems of a failed one: gupctl report
# --collect), and the results path.
# Exit status: 0 when every flavour ran and passed (every cell as
# expected, gup_test agreeing, no kernel report but the WARNINGs cells
# expect, every gup_longterm verdict the predicted one, the kernel's own
# GUP policy the one the flavour table names: a mislabelled flavour
# fails); 1 otherwise; 2 usage error.
#
#   jobs/matrix.sh [--quick] [--shard I/N] [--results DIR] [FLAVOUR...]
# --quick        the quick subset (gupctl matrix --quick: six backings of
#                nineteen), for make check; docs.sh makes no page of it
# --shard I/N    run only shard I of N of the flavours (places I, I+N, ...;
#                jobs/merge.sh puts the parts together: docs/results.md)
# --results DIR  write the run there, move no latest link (default: a new
#                directory under results/matrix/, then results/matrix/latest)
# FLAVOUR...     the flavours to run (default: every one in patches/flavours)
set -euo pipefail
# shellcheck source=../patches/flavours.sh
. "$(dirname "$0")/../patches/flavours.sh"
# shellcheck source=lib.sh
. "$LAB_ROOT/jobs/lib.sh"
job_guard "$@"

usage() {
	sed -n '2,/^set /{/^#/p}' "$0" | sed 's/^# \{0,1\}//'
}

results='' quick=false shard=''
flavours=()
while [ $# -gt 0 ]; do
	case $1 in
	--quick) quick=true ;;
	--results) results=${2:?--results needs a DIR}; shift ;;
	--shard) shard=${2:?--shard needs I/N}; shift ;;
	-h | --help) usage; exit 0 ;;
	-*) echo "jobs/matrix.sh: unknown option '$1' (see --help)" >&2; exit 2 ;;
	*) flavours+=("$1") ;;
	esac
	shift
done
list=$(job_flavours matrix "${flavours[@]}") || exit 2
mapfile -t flavours <<<"$list"
job_shard matrix "$shard" || exit 2

job_userspace
gupctl=$LAB_ROOT/userspace/gupctl
tmp=$(job_tmpdir)
trap 'rm -rf "$tmp"' EXIT
# A registered kernel given no POLICY=: its policy, read from its kernel
# first (one boot, cached).
job_detect "${flavours[@]}" || exit 1
results_begin matrix "$results" "${flavours[@]}"
out=$RESULTS_DIR

# judge_longterm NAME DOC SUITE (in matrix_flavour, whose f, policy,
# out, guest_out and tmp it reads): gupctl longterm judge of the guest's
# runs of suite NAME (gup_longterm, or gup_longterm-own: the kernel's own
# tree's), SUITE the gup_longterm.c it is (6.12, 7.3); prints the judge's
# lines, writes $out/$f.DOC.json and its summary (JSON, or null) to
# $tmp/$f.DOC.summary.  Returns 1 when a verdict is not the predicted one
# or no KTAP came back.
# shellcheck disable=SC2317 # called by matrix_flavour
judge_longterm() {
	local name=$1 doc=$2 suite=$3 first=$guest_out/$1.ext4 fs lstatus judge
	[ "$name" != gup_longterm ] || first=$guest_out/gup_longterm
	echo null >"$tmp/$f.$doc.summary"
	if [ ! -s "$first.ktap" ]; then
		echo "# $f: $name: no KTAP came back"
		return 1
	fi
	cp "$first.ktap" "$out/$f.$name.ktap"
	judge=(--flavour "$f" --policy "$policy" --kernel-dir "$(flavour_dir "$f")"
		--suite "$suite" --ktap "$out/$f.$name.ktap" --json "$out/$f.$doc.json"
		--status "$(cat "$first.status" 2>/dev/null || echo -1)")
	[ ! -s "$guest_out/longterm.hugetlb" ] || judge+=(--hugetlb "$guest_out/longterm.hugetlb")
	# the runs from the scratch xfs and btrfs, or why each did not run
	for fs in xfs btrfs; do
		if [ -s "$guest_out/$name.$fs.ktap" ]; then
			cp "$guest_out/$name.$fs.ktap" "$out/$f.$name.$fs.ktap"
			judge+=("--$fs-ktap" "$out/$f.$name.$fs.ktap" "--$fs-status"
				"$(cat "$guest_out/$name.$fs.status" 2>/dev/null || echo -1)")
		else
			judge+=("--$fs-not-run" "$(cat "$guest_out/$name.$fs.notrun" 2>/dev/null ||
				echo "no KTAP came back from the run in /mnt/$fs")")
		fi
	done
	[ ! -s "$tmp/$f.reports.json" ] ||
		judge+=(--reports "$tmp/$f.reports.json" --console "$out/$f.console.log")
	set +e
	"$gupctl" longterm judge "${judge[@]}" >"$tmp/$f.$doc"
	lstatus=$?
	set -e
	cat "$tmp/$f.$doc"
	[ "$lstatus" -le 1 ] || die "$f: gupctl longterm judge failed"
	jq -c .summary "$out/$f.$doc.json" >"$tmp/$f.$doc.summary"
	if [ "$lstatus" -ne 0 ]; then
		echo "# $f: $name ($suite's): not every verdict as predicted: $out/$f.$doc.json"
		return 1
	fi
}

# One flavour, start to end: its output and its run.json entry (two at a
# time: jobs/lib.sh's job_parallel).  Returns 1 if it failed.
# shellcheck disable=SC2317 # called by job_parallel
matrix_flavour() {
	local f=$1 bad=0
	policy=$(flavour_policy "$f")
	stage=$tmp/$f.stage
	guest_out=$tmp/$f.out
	echo "# matrix: $f (policy $policy)"
	# Builds what is missing: the kernel, the module, gupctl, gup_test.
	if ! "$LAB_ROOT/rootfs/stage-guest.sh" "$f" "$stage" >"$tmp/$f.stage.log" 2>&1; then
		why="staging failed: $({ grep '^gup-lab: ' "$tmp/$f.stage.log" ||
			tail -1 "$tmp/$f.stage.log"; } | tail -1)"
		echo "# $f: NOT RUN: $why"
		tail -8 "$tmp/$f.stage.log" | sed 's/^/#   /'
		results_flavour "$f" kernel_release=null ran=false \
			"why_not_run=$(jq -n --arg why "$why" '$why')" boots=0 \
			wall_seconds=null cells=0 "quick=$quick" mismatches=null gup_longterm=null \
			accel=null
		return 1
	fi
	set +e
	job_boot "$tmp/$f.runner" --flavour "$f" --timeout 1500 --raw-trace \
		--fs xfs --fs btrfs --files "$stage" --out "$tmp/$f.run" --results "$guest_out" \
		--report "$tmp/$f.report" --env "MATRIX_QUICK=$quick" \
		--exec 'bash /lab/guest/matrix.sh'
	status=$?
	set -e
	verdict=$(jq -r '.kernel_verdict // empty' "$tmp/$f.report" 2>/dev/null || true)
	boot=$(jq -r '.wall_seconds // empty' "$tmp/$f.report" 2>/dev/null || true)
	cp "$tmp/$f.run/console.log" "$out/$f.console.log" 2>/dev/null || true
	cp "$guest_out/matrix.ktap" "$out/$f.ktap" 2>/dev/null || true
	cp "$guest_out/xcheck.tap" "$out/$f.xcheck.tap" 2>/dev/null || true
	job_verbose "$out/$f.ktap" "$out/$f.xcheck.tap" "$guest_out/gup_longterm.ktap"

	collect=(--collect "$out/$f.json" --flavour "$f" --policy "$policy"
		--ext4 "$(flavour_field "$f" 4)" --input-hash "$(flavour_key "$f")"
		--kernel-verdict "${verdict:-none}" --boot-seconds "${boot:-0}"
		--console "$out/$f.console.log" --reports "$tmp/$f.reports.json"
		--src "$(flavour_dir "$f")/src")
	[ ! -s "$guest_out/matrix.json" ] || collect+=(--matrix "$guest_out/matrix.json")
	[ ! -s "$guest_out/xcheck.json" ] || collect+=(--xcheck "$guest_out/xcheck.json")
	why=null
	# The runner exits 125 on any kernel report: the attribution decides.
	if [ -s "$out/$f.console.log" ]; then
		"$LAB_ROOT/qemu/scan-console.sh" --reports "$out/$f.console.log" \
			>"$tmp/$f.reports.json"
		set +e
		"$gupctl" report "${collect[@]}" >"$tmp/$f.collect"
		cstatus=$?
		set -e
		sed 's/^/# /' "$tmp/$f.collect"
		# Exit 1: the flavour failed; the document says why.
		[ "$cstatus" -le 1 ] || die "$f: gupctl report --collect failed"
	fi
	if [ ! -s "$guest_out/matrix.json" ]; then
		why="no matrix came back (runner status $status, kernel verdict ${verdict:-none})"
		[ ! -s "$out/$f.json" ] || why+=$(jq -r '.kernel_reports[0] // empty |
			", first kernel report during \(.step // "boot") cell \(.cell // "-"): \(.title)"' \
			"$out/$f.json")
		echo "# $f: NOT RUN: $why"
		tail -20 "$tmp/$f.runner" | sed 's/^/#   /'
		job_first_report "$out/$f.console.log" "$f"
		why=$(jq -n --arg why "$why" '$why')
		bad=1
	elif ! jq -e .summary.passed "$out/$f.json" >/dev/null; then
		echo "# $f: FAILED (runner status $status, kernel verdict $verdict): $out/$f.json"
		bad=1
	fi
	# gup_longterm: its KTAP, and each verdict against the prediction;
	# a 7.3 kernel's own suite the same way.
	judge_longterm gup_longterm longterm 6.12 || bad=1
	longterm=$(cat "$tmp/$f.longterm.summary")
	longterm_own=null
	if [ -s "$guest_out/gup_longterm-own.suite" ]; then
		judge_longterm gup_longterm-own longterm-own \
			"$(cat "$guest_out/gup_longterm-own.suite")" || bad=1
		longterm_own=$(cat "$tmp/$f.longterm-own.summary")
	fi
	if [ -s "$out/$f.json" ]; then
		results_flavour "$f" "kernel_release=$(jq .kernel_release "$out/$f.json")" \
			"ran=$([ "$why" = null ] && echo true || echo false)" \
			"why_not_run=$why" boots=1 "wall_seconds=${boot:-null}" \
			"cells=$(jq .summary.cells "$out/$f.json")" "quick=$quick" \
			"mismatches=$(jq .summary.mismatches "$out/$f.json")" \
			"gup_longterm=$longterm" "gup_longterm_own=$longterm_own" \
			"accel=$(job_accel "$tmp/$f.report")"
	else
		results_flavour "$f" kernel_release=null ran=false \
			"why_not_run=$why" boots=1 "wall_seconds=${boot:-null}" \
			cells=0 "quick=$quick" mismatches=null "gup_longterm=$longterm" \
			"gup_longterm_own=$longterm_own" "accel=$(job_accel "$tmp/$f.report")"
	fi
	return "$bad"
}

bad=0
job_parallel matrix_flavour "${flavours[@]}" || bad=1
results_end
exit "$bad"
