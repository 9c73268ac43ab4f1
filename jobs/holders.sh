#!/bin/bash
# Pages held by the kernel's own GUP users across file-system events, on
# ext4, xfs, btrfs and ext4 mounted data=journal, "ext4j" (`make holders`;
# docs/filesystems-guide.md).
# No test driver: every pin is an O_DIRECT read, a process_vm_writev() or
# an io_uring read.
#
# A flat list of steps; every decision is gupctl's (userspace/holders/,
# userspace/model/holders.c):
#   1. per flavour, the cells and their expectations (`gupctl holders
#      cells`, from the flavour's gup, ext4 and source columns), written
#      to FLAVOUR.cells.json and printed BEFORE the boot;
#   2. one boot per flavour with a scratch ext4, xfs, btrfs and ext4j and a
#      slow disk (qemu/run.sh --fs, --raw-disk): jobs/guest/holders.sh runs
#      every cell, a marker before each;
#   3. the console cut into the cells' slices (gupctl slice);
#   4. per cell: the file (and FICLONE's clone) read from the powered-off
#      guest's image, never mounted (qemu/read-image.sh), the slice's
#      kernel reports (qemu/scan-console.sh --reports), `gupctl holders
#      judge`;
#   5. per flavour: `gupctl holders collect` writes FLAVOUR.json and
#      FLAVOUR.ktap.
#
#   jobs/holders.sh [--quick] [--flavour F]... [--results DIR] [--keep-images]
#
# A flavour of policy none (a registered kernel that matches no known
# policy: flavour_policy) runs its cells all the same, each with no
# expectation ("expect": null) and judged "measured, no policy to compare".
#
# Exit status: 0 every cell that should run ran and matched (policy none:
# ran); 1 otherwise; 2 usage error.  The last line is "results: PATH".
set -euo pipefail
# shellcheck source=../patches/flavours.sh
. "$(dirname "$0")/../patches/flavours.sh"
cd "$(dirname "$0")/.."
# shellcheck source=lib.sh
. jobs/lib.sh
job_guard "$@"

usage() {
	cat <<USAGE
usage: jobs/holders.sh [options]
  --quick          one cell per file system (gupctl holders cells --quick)
                   instead of every one
  --flavour F      only flavour F (repeatable; default: every flavour in
                   patches/flavours: $(all_flavours | paste -sd' '))
  --shard I/N      only shard I of N of the flavours (places I, I+N, ...;
                   jobs/merge.sh puts the parts together: docs/results.md)
  --results DIR    write the results here (default: a new directory under
                   $LAB_RESULTS/holders, and move the latest links)
  --keep-images    keep each boot's directory and images (default: deleted
                   once read, ~70 MB per boot)
USAGE
}

quick=() results='' keep_images=0 shard='' flavours=()
# shellcheck disable=SC2317 # called by job_modelled
cells_of() {
	"$gupctl" holders cells "${quick[@]}" --policy "$(flavour_policy "$1")" \
		--ext4 "$(flavour_field "$1" 4)" --source "$(flavour_field "$1" 5)"
}
while [ $# -gt 0 ]; do
	case $1 in
	--quick) quick=(--quick) ;;
	--flavour) flavours+=("${2:?--flavour needs a value}"); shift ;;
	--results) results=${2:?--results needs a DIR}; shift ;;
	--shard) shard=${2:?--shard needs I/N}; shift ;;
	--keep-images) keep_images=1 ;;
	-h | --help) usage; exit 0 ;;
	*) usage >&2; echo "jobs/holders.sh: unknown option '$1'" >&2; exit 2 ;;
	esac
	shift
done
explicit=$([ ${#flavours[@]} -gt 0 ] && echo 1 || echo 0)
list=$(job_flavours holders "${flavours[@]}") || exit 2
mapfile -t flavours <<<"$list"
job_shard holders "$shard" || exit 2

make -s -C userspace
gupctl=$LAB_ROOT/userspace/gupctl
# A registered kernel given no POLICY=: its policy, read from its kernel
# first (one boot, cached).
job_detect "${flavours[@]}" || exit 1
# a kernel the model has no cells for yet (7.3): said, and not run
job_modelled holders cells_of "$explicit" || exit 2
results_begin holders "$results" "${flavours[@]}"
mkdir -p "$LAB_CACHE/runs"
work=$(mktemp -d "$LAB_CACHE/runs/holders-$(date +%Y%m%d-%H%M%S).XXXX")

# holders_flavour F: one flavour's cells in one boot, judged.  Returns 1
# if a cell that should have run failed.
# shellcheck disable=SC2317 # called by job_parallel
holders_flavour() {
	local f=$1 out=$RESULTS_DIR/$1 boot=$work/$1 t0=$SECONDS failed=0 why=''
	local cells n i c name cell fs file img boots=0
	local -a names began docs args files
	local -A seen=()
	mkdir -p "$out" "$boot.files"
	cells=$(cells_of "$f")
	# the expectations, fixed before the boot
	jq . <<<"$cells" >"$RESULTS_DIR/$f.cells.json"
	# policy none: "expect" is null, the cell's own "run" says whether it runs
	jq -r --arg f "$f" '.[] | "== \($f) \(.name): expect \(if .measured_only then
		(if .run then "nothing (\(.reason))" else "not run" end)
		elif .expect.run | not then "not run"
		elif .expect.refused then "refused" else "disk \(.expect.disk)" end)"
		+ (if (.expect.report // "none") != "none" then ", console \(.expect.report)" else "" end)' <<<"$cells"
	n=$(jq length <<<"$cells")
	jq -r '.[] | select(.expect.run // .run) | [.name, .fs, .holder, .event] | @tsv' <<<"$cells" |
		tr '\t' ' ' >"$boot.files/holders.cells"
	mapfile -t names < <(cut -d' ' -f1 "$boot.files/holders.cells")
	if ! rootfs/stage-guest.sh "$f" "$work/stage-$f" >"$out/stage.log" 2>&1; then
		why="staging failed (gupctl does not build): see $f/stage.log"
	elif [ "${#names[@]}" -gt 0 ]; then
		job_boot "$out/boot.runner.log" --flavour "$f" --files "$work/stage-$f" \
			--files "$boot.files" --fs xfs --fs btrfs --fs ext4j --raw-disk slow:16 \
			--allow-kernel-reports --raw-trace --timeout $((180 + 20 * n)) \
			--report "$out/boot.report" --out "$boot" --results "$boot.out" \
			--exec 'bash /lab/guest/holders.sh' || true
		boots=1
		cp "$boot/console.log" "$out/console.log" 2>/dev/null || : >"$out/console.log"
		mapfile -t began < <("$gupctl" slice --step holders --console "$out/console.log" \
			--dir "$out" --suffix console.log --tail tail "${names[@]}")
		for c in "${began[@]}"; do seen[$c]=1; done
		if [ "$(qemu/scan-console.sh --reports "$out/tail.console.log" | jq length)" != 0 ]; then
			echo "== $f: a kernel report after the last cell (no cell's): $f/tail.console.log"
			failed=1
		fi
	fi
	for ((i = 0; i < n; i++)); do
		cell=$(jq -c ".[$i]" <<<"$cells")
		name=$(jq -r .name <<<"$cell")
		fs=$(jq -r .fs <<<"$cell")
		jq . <<<"$cell" >"$work/$f-$name.cell"
		docs+=("$work/$f-$name.json")
		if [ -n "$why" ] || { [ "$boots" = 1 ] && [ -z "${seen[$name]:-}" ] &&
			[ "$(jq '.expect.run // .run' <<<"$cell")" = true ]; }; then
			"$gupctl" holders judge --cell "$work/$f-$name.cell" -o "$work/$f-$name.json" \
				--not-run "${why:-its boot ended before it began: $f/console.log}" >/dev/null || true
			continue
		fi
		img=$(jq -r --arg fs "$fs" '.images[$fs] // empty' "$out/boot.report" 2>/dev/null || true)
		args=()
		if [ -n "$img" ] && [ -f "$img" ]; then
			files=(f)
			[ "$(jq -r .event <<<"$cell")" != ficlone ] || files+=(clone)
			for file in "${files[@]}"; do
				qemu/read-image.sh "$fs" "$img" "/$name/$file.dat" \
					>"$out/$name.$file.host-read" 2>"$out/$name.$file.host-read.err" ||
					rm -f "$out/$name.$file.host-read"
			done
			[ ! -f "$out/$name.f.host-read" ] || args+=(--host-read "$out/$name.f.host-read")
			[ ! -f "$out/$name.clone.host-read" ] || args+=(--host-clone "$out/$name.clone.host-read")
		fi
		[ ! -f "$boot.out/$name.json" ] || args+=(--guest-json "$boot.out/$name.json")
		cp "$boot.out/$name.out" "$out/$name.guest.out" 2>/dev/null || true
		if [ -f "$out/$name.console.log" ]; then
			qemu/scan-console.sh --reports "$out/$name.console.log" >"$out/$name.reports.json" &&
				args+=(--console "$out/$name.console.log" --reports "$out/$name.reports.json")
		fi
		"$gupctl" holders judge --cell "$work/$f-$name.cell" -o "$work/$f-$name.json" \
			--console-name "$f/$name.console.log" "${args[@]}" | sed "s/^/== $f /"
	done
	"$gupctl" holders collect --flavour "$f" -o "$RESULTS_DIR/$f.json" "${docs[@]}" \
		>"$RESULTS_DIR/$f.ktap" || failed=1
	results_flavour "$f" boots="$boots" wall_seconds=$((SECONDS - t0)) \
		quick="$([ ${#quick[@]} -gt 0 ] && echo true || echo false)" \
		why_not_run="$(jq -n --arg w "$why" 'if $w == "" then null else $w end')" \
		counts="$(jq -c .counts "$RESULTS_DIR/$f.json")" \
		accel="$(job_accel "$out/boot.report")"
	echo "== $f: $(tail -1 "$RESULTS_DIR/$f.ktap" | sed 's/^# //')"
	[ "$keep_images" = 1 ] || rm -rf "$boot" "$boot.out" "$boot.files"
	return "$failed"
}

failed=0
job_parallel holders_flavour "${flavours[@]}" || failed=1
if [ "$keep_images" = 1 ]; then
	log "boot directories kept in $work"
else
	rm -rf "$work"
fi
results_end
exit "$failed"
