#!/bin/bash
# `make export`: every finding of the holders that `gupctl export` can
# write as a reproducer needing nothing of the lab, built static and run
# alone on every flavour; each exit status must be the one the cell's
# model gives that kernel (docs/findings/README.md).
#
# Steps (every decision is gupctl's: userspace/export/, model/holders.c):
#   1. run, on the host: the cells, every flavour's `gupctl export
#      --findings` together; each exported (`gupctl export`) and compiled
#      with its CELL.sh's gcc line, -static -Wall -Wextra -Werror added;
#      per flavour, each cell's expected exit status (`gupctl export
#      --expect`), written to FLAVOUR.expect.tsv and printed BEFORE the
#      boot; a cell the model says cannot run on a kernel (ext4-2018's
#      panicking MOVE_EXT donor) is not run there, and says why;
#   2. run, in one boot per flavour: jobs/guest/export.sh runs each
#      reproducer after its marker (no module, no gupctl in the guest);
#   3. judge: the console cut into the cells' slices (gupctl slice); a
#      cell passes when its exit status is the expected one and its slice
#      has no kernel report but the one its holders cell expects:
#      FLAVOUR.json (its fields: docs/results.md);
#   4. collect: FLAVOUR.ktap from it, each reproducer's output
#      (FLAVOUR/NAME.out), run.json; the sources in export/.  report:
#      `make docs` writes docs/findings/exports.md from the run (gupctl
#      export report).
#
#   jobs/export.sh [--quick] [--results DIR] [FLAVOUR...]
# --quick        one finding per file system (the first each lists), for
#                make check
# --results DIR  write the run there, move no latest link
#
# Exit status: 0 every cell ran and gave its expected status; 1 otherwise;
# 2 usage error.  The last line is "results: PATH".
set -euo pipefail
# shellcheck source=../patches/flavours.sh
. "$(dirname "$0")/../patches/flavours.sh"
cd "$(dirname "$0")/.."
# shellcheck source=lib.sh
. jobs/lib.sh
job_guard "$@"

quick=0 results=''
flavours=()
while [ $# -gt 0 ]; do
	case $1 in
	--quick) quick=1 ;;
	--results) results=${2:?--results needs a DIR}; shift ;;
	-h | --help) sed -n '2,/^set /{/^#/p}' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
	-*) echo "jobs/export.sh: unknown option '$1' (see --help)" >&2; exit 2 ;;
	*) flavours+=("$1") ;;
	esac
	shift
done
list=$(job_flavours export "${flavours[@]}") || exit 2
mapfile -t flavours <<<"$list"

job_userspace
gupctl=$LAB_ROOT/userspace/gupctl
kernel_args() {
	echo --policy "$(flavour_policy "$1")" --source "$(flavour_field "$1" 5)" \
		--ext4 "$(flavour_field "$1" 4)"
}

# 1. The cells: a finding on some flavour of the run.
cells=()
# shellcheck disable=SC2046 # the kernel's options, one word each
mapfile -t cells < <(for f in "${flavours[@]}"; do
	"$gupctl" export --findings $(kernel_args "$f")
done | awk '!seen[$0]++')
if [ "$quick" = 1 ]; then
	mapfile -t cells < <(printf '%s\n' "${cells[@]}" | awk -F- '!fs[$1]++')
fi
[ "${#cells[@]}" -gt 0 ] || die "no cell to export on ${flavours[*]}"
results_begin export "$results" "${flavours[@]}"
work=$(job_tmpdir)
trap 'rm -rf "$work"' EXIT
mkdir -p "$RESULTS_DIR/export" "$work/bin"
for c in "${cells[@]}"; do
	"$gupctl" export --dir "$RESULTS_DIR/export" "$c" >/dev/null
	# CELL.sh's own gcc line, strict and static
	read -ra cc < <(grep '^gcc ' "$RESULTS_DIR/export/$c.sh")
	(cd "$RESULTS_DIR/export" && gcc -Wall -Wextra -Werror -static "${cc[@]:1}" &&
		mv "$c" "$work/bin/") 2>"$work/$c.gcc" ||
		{ cat "$work/$c.gcc" >&2; die "$c: the exported reproducer does not build"; }
done
echo "# export: ${#cells[@]} reproducers: ${cells[*]}"

# export_flavour F: every cell in one boot of F, judged.  1 if one failed.
# shellcheck disable=SC2317 # called by job_parallel
export_flavour() {
	local f=$1 out=$RESULTS_DIR/$1 stage=$work/stage-$1 boot=$work/boot-$1 t0=$SECONDS
	local c want why status failed=0 pass reports expect
	local -a run=() began=()
	local -A started=()
	mkdir -p "$out" "$stage/export" "$stage/guest"
	# shellcheck disable=SC2046
	for c in "${cells[@]}"; do
		IFS=$'\t' read -r want why < <("$gupctl" export --expect $(kernel_args "$f") "$c")
		printf '%s\t%s\t%s\n' "$c" "$want" "$why"
		if [ "$want" != not-run ]; then
			run+=("$c")
			cp "$work/bin/$c" "$stage/export/"
		fi
	done >"$RESULTS_DIR/$f.expect.tsv"
	awk -F'\t' -v f="$f" '{ print "== " f " " $1 ": expect " ($2 == "not-run" ? "not run" : "exit " $2) }' \
		"$RESULTS_DIR/$f.expect.tsv"
	printf '%s\n' "${run[@]}" >"$stage/export.cells"
	cp jobs/guest/export.sh "$stage/guest/"
	job_boot "$out/boot.runner.log" --flavour "$f" --files "$stage" \
		--allow-kernel-reports --timeout $((180 + 60 * ${#run[@]})) \
		--report "$out/boot.report" --out "$boot" --results "$boot.out" \
		--exec 'bash /lab/guest/export.sh' || true
	cp "$boot/console.log" "$out/console.log" 2>/dev/null || : >"$out/console.log"
	mapfile -t began < <("$gupctl" slice --step export --console "$out/console.log" \
		--dir "$out" --suffix console.log --tail tail "${run[@]}")
	for c in "${began[@]}"; do started[$c]=1; done
	# 3. judge: one JSON object a cell, in the expectations' order; the
	# kernel report each holders cell expects, from the flavour's cells
	# shellcheck disable=SC2046 # the kernel's options, one word each
	"$gupctl" holders cells $(kernel_args "$f") >"$work/$f.cells.json"
	while IFS=$'\t' read -r c want why; do
		cp "$boot.out/$c.out" "$out/$c.out" 2>/dev/null || true
		status=$(cat "$boot.out/$c.status" 2>/dev/null || echo null)
		expect=$(jq -r --arg c "$c" '.[] | select(.name == $c) | .expect.report' "$work/$f.cells.json")
		reports=0
		if [ -f "$out/$c.console.log" ]; then
			qemu/scan-console.sh --reports "$out/$c.console.log" >"$out/$c.reports.json"
			reports=$(jq length "$out/$c.reports.json")
		fi
		jq -n --arg c "$c" --arg want "$want" --arg why "$why" --argjson status "$status" \
			--argjson began "$([ -n "${started[$c]:-}" ] && echo true || echo false)" \
			--arg result "$(grep -m1 '^RESULT: ' "$out/$c.out" 2>/dev/null | cut -c9-)" \
			--argjson reports "$reports" --arg report "$expect" '
			($want == "not-run") as $skip |
			{name: $c, run: ($skip | not), expect: {status: (if $skip then null else ($want | tonumber) end),
			 why: $why, kernel_report: $report}, began: $began, status: $status,
			 result: (if $result == "" then null else $result end), kernel_reports: $reports,
			 pass: ($skip or ($began and $status == ($want | tonumber? // -1) and
				($reports == 0 or $report != "none")))}'
	done <"$RESULTS_DIR/$f.expect.tsv" | jq -s --arg f "$f" --arg p "$(flavour_policy "$f")" \
		--arg s "$(flavour_field "$f" 5)" --arg e "$(flavour_field "$f" 4)" '
		{job: "export", flavour: $f, policy: $p, source: $s, ext4: $e, cells: .,
		 summary: {cells: length, run: map(select(.run)) | length,
			   passed: map(select(.run and .pass)) | length,
			   findings: map(select(.run and .status == 1)) | length}}' >"$RESULTS_DIR/$f.json"
	# 4. collect: the KTAP from the document
	jq -r '"TAP version 13", "1..\(.cells | length)",
		(.cells | to_entries[] | .key as $i | .value |
		 if .run | not then "ok \($i + 1) \(.name) # SKIP not run: \(.expect.why)"
		 elif .pass then "ok \($i + 1) \(.name) # exit \(.status): \(.result)"
		 elif .began | not then "not ok \($i + 1) \(.name) # the boot ended before it began"
		 elif .status != .expect.status then
			"not ok \($i + 1) \(.name) # exit \(.status), expected \(.expect.status) (\(.expect.why))"
		 else "not ok \($i + 1) \(.name) # \(.kernel_reports) kernel report(s) its cell does not expect" end),
		"# \(.flavour): \(.summary.passed) of \(.summary.run) reproducers gave their expected status"' \
		"$RESULTS_DIR/$f.json" >"$RESULTS_DIR/$f.ktap"
	pass=$(jq .summary.passed "$RESULTS_DIR/$f.json")
	[ "$pass" = "$(jq .summary.run "$RESULTS_DIR/$f.json")" ] || failed=1
	if [ "$(qemu/scan-console.sh --reports "$out/tail.console.log" 2>/dev/null | jq length)" != 0 ]; then
		echo "# $f: a kernel report after the last reproducer: $f/tail.console.log" >>"$RESULTS_DIR/$f.ktap"
		failed=1
	fi
	results_flavour "$f" boots=1 wall_seconds=$((SECONDS - t0)) cells="${#run[@]}" \
		passed="$pass" accel="$(job_accel "$out/boot.report")"
	grep -v '^TAP\|^1\.\.' "$RESULTS_DIR/$f.ktap" | sed "s/^/== $f /"
	return "$failed"
}

failed=0
job_parallel export_flavour "${flavours[@]}" || failed=1
results_end
exit "$failed"
