#!/bin/bash
# The 2018 ext4 crash and its 6.1 data loss, per flavour (`make repro`).
#
# A flat list of steps; every decision is gupctl's (userspace/):
#   1. stage the flavour (module, guest gupctl) and read the line of the
#      BUG in its tree;
#   2. per cell (`gupctl repro cells`): print the expectation (policy.c,
#      from the flavour's gup and ext4 columns), boot one guest that runs
#      `gupctl repro ext4-2018` for the cell (one cell per boot: ext4's
#      WARN_ON_ONCE and the BUG are once per boot), read the file back
#      from the scratch image on the host (debugfs, no mount: the guest's
#      page cache cannot fool it), list the console's kernel reports
#      (qemu/scan-console.sh --reports), symbolise the console, and let
#      `gupctl repro judge` measure and compare;
#   3. per flavour: `gupctl repro collect` writes FLAVOUR.json and
#      FLAVOUR.ktap into the results directory (docs/results.md).
#
#   jobs/repro.sh [--quick] [--flavour F]... [--results DIR] [--keep-images]
#
# Exit status: 0 every cell ran and matched its expectation; 1 a cell
# mismatched or was not run; 2 usage error.  The last line is
# "results: PATH".
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=../qemu/lib.sh
. qemu/lib.sh
# shellcheck source=lib.sh
. jobs/lib.sh

usage() {
	cat <<USAGE
usage: jobs/repro.sh [options]
  --quick          5 cells per flavour (gupctl repro cells --quick)
                   instead of 18
  --flavour F      only flavour F (repeatable; default: every flavour in
                   patches/flavours: $(all_flavours | paste -sd' '))
  --results DIR    write the results here (default: a new directory under
                   $LAB_RESULTS/repro, and move the latest links)
  --keep-images    keep each boot's directory with its scratch and control
                   images (default: deleted once read, ~20 MB per cell)
USAGE
}

# decode_console KDIR CONSOLE OUT: CONSOLE symbolised by the flavour's own
# tree, one line per console line, so that a report's console line (as
# scan-console.sh --reports gives it) finds its trace in OUT: a "Code:"
# line stays as it is (decode_stacktrace.sh would add a disassembly).
# shellcheck disable=SC2317 # called from repro_flavour
decode_console() {
	awk '{ print index($0, "Code:") ? "" : $0 }' "$2" |
		"$1/src/scripts/decode_stacktrace.sh" "$1/build/vmlinux" "$1/src" 2>/dev/null |
		awk 'NR == FNR { if (index($0, "Code:")) code[FNR] = $0; next }
			{ print (FNR in code) ? code[FNR] : $0 }' "$2" - >"$3"
}

quick=() results='' keep_images=0 flavours=()
while [ $# -gt 0 ]; do
	case $1 in
	--quick) quick=(--quick) ;;
	--flavour) flavours+=("${2:?--flavour needs a value}"); shift ;;
	--results) results=${2:?--results needs a DIR}; shift ;;
	--keep-images) keep_images=1 ;;
	-h | --help) usage; exit 0 ;;
	*) usage >&2; echo "jobs/repro.sh: unknown option '$1'" >&2; exit 2 ;;
	esac
	shift
done
list=$(job_flavours repro "${flavours[@]}") || exit 2
mapfile -t flavours <<<"$list"

make -s -C userspace
gupctl=$LAB_ROOT/userspace/gupctl
results_begin repro "$results"
mkdir -p "$LAB_CACHE/runs"
work=$(mktemp -d "$LAB_CACHE/runs/repro-$(date +%Y%m%d-%H%M%S).XXXX")
"$gupctl" repro cells "${quick[@]}" >"$work/cells.json"
# One flavour's cells, one boot each (flavours two at a time:
# jobs/lib.sh's job_parallel).  Returns 1 if a cell failed.
# shellcheck disable=SC2317 # called by job_parallel
repro_flavour() {
	local f=$1 failed=0
	local t0=$SECONDS boots=0 why='' cell_docs=()
	kdir=$(flavour_dir "$f")
	out=$RESULTS_DIR/$f
	mkdir -p "$out"

	# Stage: module, gupctl, guest programs.  Then the BUG's file:line,
	# page_buffers() in the tree's mpage_prepare_extent_to_map() (the
	# line cc5095747edf guards): read from the tree, handed to gupctl.
	if ! rootfs/stage-guest.sh "$f" "$work/stage-$f" >"$out/stage.log" 2>&1; then
		why="staging failed (module or gupctl does not build): see $f/stage.log"
		log "$f: $why"
	fi
	line=$(awk '/^static int mpage_prepare_extent_to_map\(/ { f = 1 }
		f && /page_buffers\(page\)/ { print NR; exit }' "$kdir/src/fs/ext4/inode.c" 2>/dev/null || true)
	flavour_args=(--policy "$(flavour_field "$f" 3)" --ext4 "$(flavour_field "$f" 4)"
		--bug-site "fs/ext4/inode.c:${line:-?}")

	while read -r cell; do
		label=$(jq -r .label <<<"$cell")
		name=$(jq -r .file <<<"$cell")
		mapfile -t args < <(jq -r '.args[]' <<<"$cell")
		c=$out/$name
		"$gupctl" repro ext4-2018 --expect "${args[@]}" "${flavour_args[@]}" |
			sed "s/^repro-expect: \(.*\) because /== $f $label: expect \1\n   because /"
		judge_in=(--not-run "$why")
		boot=$work/$f-$name
		if [ -z "$why" ]; then
			job_boot "$c.runner.log" --flavour "$f" --files "$work/stage-$f" \
				--allow-kernel-reports --timeout 180 --report "$c.report" \
				--out "$boot" --results "$boot.out" \
				--exec "insmod /lab/gup_pin_test.ko && gupctl repro ext4-2018 $(printf '%q ' "${args[@]}" "${flavour_args[@]}")--json /lab/out/repro.json" ||
				true
			boots=$((boots + 1))
			cp "$boot/console.log" "$c.console.log" 2>/dev/null || true
			cp "$boot.out/repro.json" "$c.guest.json" 2>/dev/null || true
			# the host's read of the file the guest named (scratch at /mnt/ext4)
			file=$(jq -r '.file // empty' "$c.guest.json" 2>/dev/null || true)
			rm -f "$c.host-read"
			[ -z "$file" ] ||
				debugfs -R "cat /${file#/mnt/ext4/}" "$boot/scratch.img" >"$c.host-read" 2>/dev/null || true
			# the console's kernel reports, then their traces symbolised
			rm -f "$boot.reports.json"
			[ ! -f "$c.console.log" ] ||
				qemu/scan-console.sh --reports "$c.console.log" >"$boot.reports.json" ||
				rm -f "$boot.reports.json"
			decode_console "$kdir" "$c.console.log" "$c.console.decoded" ||
				rm -f "$c.console.decoded"
			judge_in=(--guest-json "$c.guest.json" --report "$c.report"
				--console "$c.console.log" --reports "$boot.reports.json"
				--decoded "$c.console.decoded"
				--host-read "$c.host-read" --runner-log "$c.runner.log")
		fi
		"$gupctl" repro judge "${args[@]}" "${flavour_args[@]}" --flavour "$f" \
			"${judge_in[@]}" --console-name "$f/$name.console.log" -o "$work/$f-$name.json" ||
			true
		[ "$keep_images" = 1 ] || rm -rf "$boot" "$boot.out" "$boot.reports.json"
		cell_docs+=("$work/$f-$name.json")
	done < <(jq -c '.[]' "$work/cells.json")

	"$gupctl" repro collect --input-hash "$(flavour_key "$f")" --json "$RESULTS_DIR/$f.json" \
		--ktap "$RESULTS_DIR/$f.ktap" "${cell_docs[@]}" || failed=1
	results_flavour "$f" \
		kernel_release="$(jq .kernel_release "$RESULTS_DIR/$f.json")" \
		ran="$([ "$boots" -gt 0 ] && echo true || echo false)" \
		why_not_run="$(jq -n --arg w "$why" 'if $w == "" then null else $w end')" \
		boots="$boots" wall_seconds=$((SECONDS - t0)) \
		cells="$(jq '.cells | length' "$RESULTS_DIR/$f.json")" \
		mismatches="$(jq '[.cells[] | select(.match | not)] | length' "$RESULTS_DIR/$f.json")"
	job_verbose "$RESULTS_DIR/$f.ktap"
	echo "== $f: $(tail -1 "$RESULTS_DIR/$f.ktap" | sed 's/^# repro: //')"
	return "$failed"
}

failed=0
job_parallel repro_flavour "${flavours[@]}" || failed=1

if [ "$keep_images" = 1 ]; then
	log "boot directories kept in $work"
else
	rm -rf "$work"
fi
results_end
exit "$failed"
