#!/bin/bash
# The 2018 ext4 crash and its 6.1 data loss, per flavour (`make repro`),
# and the same driver-held routes on xfs and btrfs.
#
# A flat list of steps; every decision is gupctl's (userspace/):
#   1. stage the flavour (module, guest gupctl) and read the line of the
#      BUG in its tree;
#   2. per cell (`gupctl repro cells`): print the expectation (model/repro.c,
#      from the flavour's gup, ext4 and source columns and the cell's file
#      system);
#   3. boot: one guest runs `gupctl repro ext4-2018` for every cell that
#      can share a boot, one after the other (a marker on /dev/kmsg and a
#      clear_warn_once between them: ext4's WARN_ON_ONCE fires again),
#      with a fresh scratch xfs and btrfs (qemu/run.sh --fs) when its cells
#      need them; each cell expected to BUG gets a boot of its own (the BUG
#      panics);
#   4. per boot: symbolise its console; per cell: read the file back from
#      its file system's image on the host (qemu/read-image.sh: debugfs,
#      xfs_db, btrfs restore; no mount: the guest's page cache cannot fool
#      it), list the kernel reports of the cell's slice of the console
#      (qemu/scan-console.sh --reports), and let `gupctl repro judge`
#      measure and compare (btrfs' error lines, ext4's warnings: the judge
#      reads them from the slice);
#   5. per flavour: `gupctl repro collect` writes FLAVOUR.json and
#      FLAVOUR.ktap into the results directory (docs/results.md).
#
#   jobs/repro.sh [--quick] [--flavour F]... [--results DIR] [--keep-images]
#
# A flavour of policy none (a registered kernel that matches no known
# policy: flavour_policy) runs every cell all the same, each "measured, no
# policy to compare" (gupctl repro judge), a cell that any policy of its
# source expects to BUG in a boot of its own (gupctl repro cells).
#
# Exit status: 0 every cell ran and matched its expectation (policy none:
# ran); 1 a cell mismatched or was not run; 2 usage error.  The last line is
# "results: PATH".
set -euo pipefail
# shellcheck source=../patches/flavours.sh
. "$(dirname "$0")/../patches/flavours.sh"
cd "$(dirname "$0")/.."
# shellcheck source=lib.sh
. jobs/lib.sh
job_guard "$@"

usage() {
	cat <<USAGE
usage: jobs/repro.sh [options]
  --quick          5 ext4 cells per flavour, and an xfs and a btrfs cell on
                   a 6.12 flavour (gupctl repro cells --quick) instead of
                   105 (35 per file system)
  --flavour F      only flavour F (repeatable; default: every flavour in
                   patches/flavours: $(all_flavours | paste -sd' '))
  --shard I/N      only shard I of N of the flavours (places I, I+N, ...;
                   jobs/merge.sh puts the parts together: docs/results.md)
  --results DIR    write the results here (default: a new directory under
                   $LAB_RESULTS/repro, and move the latest links)
  --keep-images    keep each boot's directory with its scratch and control
                   images (default: deleted once read, ~20 MB per boot,
                   ~90 MB with the xfs and btrfs images)
USAGE
}

# decode_console KDIR CONSOLE OUT: CONSOLE symbolised by the flavour's own
# tree, one line per console line, so that a report's console line (as
# scan-console.sh --reports gives it) finds its trace in OUT.  Only the
# frames (a "+0x" in the line, never a "Code:" line, which would get a
# disassembly) go through decode_stacktrace.sh, without their printk
# time, each once: addr2line costs 0.2-0.3 s a frame, and the cells of
# a boot repeat the same traces.  The frames it changed are kept beside
# the kernel (KDIR/decode-cache.tsv: a frame, a tab, its decoded line; the
# kernel's directory is keyed by every input of its build), merged under
# a lock into a new file renamed over the old one, so that the next run
# decodes only the frames it has not seen and an interrupted run leaves
# the cache whole.  Fails (OUT not written) if the script did not answer
# one line per frame.
# shellcheck disable=SC2317 # called from repro_boot
decode_console() {
	local cache=$1/decode-cache.tsv new=$3.frames
	[ -f "$cache" ] || : >"$cache"
	# a cache line: the frame, a tab, the decoded line (which may hold tabs)
	awk 'FILENAME == ARGV[1] { if (i = index($0, "\t")) known[substr($0, 1, i - 1)] = 1; next }
		{ sub(/\r$/, ""); sub(/^\[ *[0-9]+\.[0-9]+\] /, "") }
		index($0, "+0x") && !index($0, "Code:") && !index($0, "\t") &&
			!($0 in known) && !seen[$0]++' "$cache" "$2" >"$new"
	: >"$new.pairs"
	if [ -s "$new" ]; then
		"$1/src/scripts/decode_stacktrace.sh" "$1/build/vmlinux" "$1/src" \
			<"$new" >"$new.decoded" 2>/dev/null || true
		if [ "$(wc -l <"$new")" != "$(wc -l <"$new.decoded")" ]; then
			rm -f "$new" "$new.decoded" "$new.pairs"
			return 1
		fi
		paste "$new" "$new.decoded" | awk -F '\t' '$1 != $2' >"$new.pairs"
		# two jobs may decode beside each other: one merge at a time
		# shellcheck disable=SC2016 # expanded by that sh
		flock "$cache.lock" sh -c 'cat "$1" "$2" | sort -u -t "	" -k1,1 >"$1.new" &&
			mv "$1.new" "$1"' sh "$cache" "$new.pairs" || true
	fi
	awk 'FILENAME != ARGV[3] { if (i = index($0, "\t"))
			decoded[substr($0, 1, i - 1)] = substr($0, i + 1); next }
		{ line = $0; sub(/\r$/, "", line); time = ""
		  if (match(line, /^\[ *[0-9]+\.[0-9]+\] /)) {
			time = substr(line, 1, RLENGTH); line = substr(line, RLENGTH + 1) }
		  print (line in decoded) ? time decoded[line] : $0 }' \
		"$cache" "$new.pairs" "$2" >"$3"
	rm -f "$new" "$new.decoded" "$new.pairs"
}

quick=() results='' keep_images=0 shard='' flavours=()
# shellcheck disable=SC2317 # called by job_modelled
cells_of() {
	"$gupctl" repro cells "${quick[@]}" --policy "$(flavour_policy "$1")" \
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
	*) usage >&2; echo "jobs/repro.sh: unknown option '$1'" >&2; exit 2 ;;
	esac
	shift
done
explicit=$([ ${#flavours[@]} -gt 0 ] && echo 1 || echo 0)
list=$(job_flavours repro "${flavours[@]}") || exit 2
mapfile -t flavours <<<"$list"
job_shard repro "$shard" || exit 2

make -s -C userspace
gupctl=$LAB_ROOT/userspace/gupctl
# A registered kernel given no POLICY=: its policy, read from its kernel
# first (one boot, cached).
job_detect "${flavours[@]}" || exit 1
# a kernel the model has no routes for yet (7.3): said, and not run
job_modelled repro cells_of "$explicit" || exit 2
results_begin repro "$results" "${flavours[@]}"
mkdir -p "$LAB_CACHE/runs"
work=$(mktemp -d "$LAB_CACHE/runs/repro-$(date +%Y%m%d-%H%M%S).XXXX")
# repro_boot F NAME CELLS: one boot of F running CELLS (a JSON array of
# `gupctl repro cells`) in order, with a scratch xfs and btrfs if a cell is
# on one: jobs/guest/repro.sh, given them as /lab/repro.cells (one line per
# cell: its file name, its file system, then its `gupctl repro ext4-2018`
# arguments and the flavour's, separated by tabs), runs
# each in a directory of its own after a marker on /dev/kmsg ("gup-lab:
# repro cell N", N its line) and a clear_warn_once, with ext4's warning
# rate limit off; each cell ends with a sync, so that the writeback of what
# it left dirty is printed before the next marker, and its output goes to a
# file.  Then each cell is judged on its own slice of the console
# (gupctl slice --step repro): from its marker to the next (the first cell's
# from the boot's start), the runner's report with the slice's verdict,
# first report and the cell's own exit status.  What comes after the last
# cell (`gup-lab: repro end`: the shutdown's sync and unmount) is
# NAME.tail.log, which must hold no kernel report: a report there would
# belong to no cell.  A cell whose marker never came (the boot ended before
# it) is not run, and says in which cell the boot ended.  Uses
# repro_flavour's f, kdir, out, flavour_args.  Returns 1 if the tail holds
# a report.
# shellcheck disable=SC2317 # called from repro_flavour
repro_boot() {
	local name=$2 cells=$3 boot=$work/$1-$2 cell c file n i
	local scan last='' status ret=0 fs img
	local -a args names began fsargs=()
	local -A seen=()
	n=$(jq length <<<"$cells")
	mapfile -t names < <(jq -r '.[].file' <<<"$cells")
	for fs in $(jq -r '[.[].fs | select(. != "ext4")] | unique | .[]' <<<"$cells"); do
		fsargs+=(--fs "$fs")
	done
	mkdir -p "$boot.files"
	jq -r --argjson fa "$(printf '%s\n' "${flavour_args[@]}" | jq -R . | jq -sc .)" \
		'.[] | [.file, .fs] + .args + $fa | @tsv' <<<"$cells" >"$boot.files/repro.cells"
	job_boot "$out/$name.runner.log" --flavour "$f" --files "$work/stage-$f" \
		--files "$boot.files" "${fsargs[@]}" --allow-kernel-reports --raw-trace \
		--timeout $((120 + 60 * n)) --report "$out/$name.report" \
		--out "$boot" --results "$boot.out" --exec 'bash /lab/guest/repro.sh' || true
	cp "$boot/console.log" "$out/$name.console.log" 2>/dev/null || : >"$out/$name.console.log"
	decode_console "$kdir" "$out/$name.console.log" "$out/$name.console.decoded" ||
		cp "$out/$name.console.log" "$out/$name.console.decoded"
	# The boot's console in its cells' slices, by the markers every job
	# writes, read by gupctl's one parser of them (console/markers.c): the
	# name of each cell that began, in order, on stdout.
	mapfile -t began < <("$gupctl" slice --step repro --console "$out/$name.console.log" \
		--dir "$out" --suffix console.log --tail "$name.tail" "${names[@]}")
	"$gupctl" slice --step repro --console "$out/$name.console.decoded" --dir "$out" \
		--suffix console.decoded --tail "$name.tail" "${names[@]}" >/dev/null
	for c in "${began[@]}"; do
		seen[$c]=1 last=$c
	done
	if [ "$(qemu/scan-console.sh --reports "$out/$name.tail.console.log" | jq length)" != 0 ]; then
		echo "== $f: a kernel report after the last cell of $name (no cell's): $f/$name.tail.console.log"
		ret=1
	fi
	for ((i = 0; i < n; i++)); do
		c=$out/${names[$i]}
		cell=$(jq -c ".[$i]" <<<"$cells")
		mapfile -t args < <(jq -r '.args[]' <<<"$cell")
		echo "== $f $(jq -r .label <<<"$cell"):"
		if [ -z "${seen[${names[$i]}]:-}" ]; then
			rm -f "$c.console.log" "$c.console.decoded"
			"$gupctl" repro judge "${args[@]}" "${flavour_args[@]}" --flavour "$f" \
				--not-run "its boot ended before it began (in cell ${last:-none}: $f/$name.console.log)" \
				-o "$work/$f-${names[$i]}.json" || true
			continue
		fi
		cp "$boot.out/${names[$i]}.json" "$c.guest.json" 2>/dev/null || rm -f "$c.guest.json"
		cp "$boot.out/${names[$i]}.out" "$c.guest.out" 2>/dev/null || rm -f "$c.guest.out"
		status=$(cat "$boot.out/${names[$i]}.status" 2>/dev/null || true)
		scan=$(qemu/scan-console.sh "$c.console.log")
		jq --arg v "$(sed -n '1s/^verdict=//p' <<<"$scan")" \
			--arg first "$(sed -n 's/^first_report=//p' <<<"$scan")" \
			--arg st "$status" --argjson last "$([ "${names[$i]}" = "$last" ] && echo true || echo false)" \
			'.kernel_verdict = $v
			| .first_report = (if $first == "" then null else $first end)
			| .guest_status = (if $st == "" then null else ($st | tonumber) end)
			| .timed_out = (.timed_out and $st == "" and $last)' \
			"$out/$name.report" >"$c.report" 2>/dev/null || rm -f "$c.report"
		# the host's read of the file the guest named, from the image of
		# its file system (mounted at /mnt/FS), never mounted here
		file=$(jq -r '.file // empty' "$c.guest.json" 2>/dev/null || true)
		fs=$(jq -r .fs <<<"$cell")
		img=$(jq -r --arg fs "$fs" '.images[$fs] // empty' "$out/$name.report" 2>/dev/null || true)
		rm -f "$c.host-read"
		[ -z "$file" ] || [ -z "$img" ] ||
			qemu/read-image.sh "$fs" "$img" "/${file#/mnt/"$fs"/}" >"$c.host-read" \
				2>"$c.host-read.err" || rm -f "$c.host-read"
		[ -s "$c.host-read.err" ] || rm -f "$c.host-read.err"
		# the console's kernel reports (their traces in the decoded slice)
		qemu/scan-console.sh --reports "$c.console.log" >"$c.reports.json" ||
			rm -f "$c.reports.json"
		"$gupctl" repro judge "${args[@]}" "${flavour_args[@]}" --flavour "$f" \
			--guest-json "$c.guest.json" --report "$c.report" \
			--console "$c.console.log" --reports "$c.reports.json" \
			--decoded "$c.console.decoded" --host-read "$c.host-read" \
			--runner-log "$out/$name.runner.log" \
			--console-name "$f/${names[$i]}.console.log" -o "$work/$f-${names[$i]}.json" ||
			true
	done
	[ "$keep_images" = 1 ] || rm -rf "$boot" "$boot.out" "$boot.files"
	return "$ret"
}

# One flavour's cells: those that can share a boot in one, each that ends
# its boot (a BUG) in one of its own (`gupctl repro cells`' "boot"), the
# flavours two at a time (jobs/lib.sh's job_parallel).  Returns 1 if a
# cell failed.
# shellcheck disable=SC2317 # called by job_parallel
repro_flavour() {
	local f=$1 failed=0
	local t0=$SECONDS boots=0 why='' cell_docs=() cells shared share policy ext4 columns
	local only=()
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
	policy=$(flavour_policy "$f")
	ext4=$(flavour_field "$f" 4)
	columns=(--policy "$policy" --ext4 "$ext4" --source "$(flavour_field "$f" 5)")
	flavour_args=("${columns[@]}" --bug-site "fs/ext4/inode.c:${line:-?}")
	cells=$(cells_of "$f") || return 1

	while read -r cell; do
		mapfile -t args < <(jq -r '.args[]' <<<"$cell")
		"$gupctl" repro ext4-2018 --expect "${args[@]}" "${flavour_args[@]}" |
			sed "s/^repro-expect: \(.*\) because /== $f $(jq -r .label <<<"$cell"): expect \1\n   because /"
	done < <(jq -c '.[]' <<<"$cells")
	if [ -n "$why" ]; then
		while read -r cell; do
			mapfile -t args < <(jq -r '.args[]' <<<"$cell")
			"$gupctl" repro judge "${args[@]}" "${flavour_args[@]}" --flavour "$f" \
				--not-run "$why" -o "$work/$f-$(jq -r .file <<<"$cell").json" || true
		done < <(jq -c '.[]' <<<"$cells")
	else
		# The debug overlay's KASAN reports once a boot and lockdep turns
		# itself off after its first report: a shared boot would hide a
		# later cell's, so there every cell boots alone.
		share='.boot == "shared"'
		! grep -qx debug <<<"$(flavour_overlays "$f")" || share=false
		shared=$(jq -c "[.[] | select($share)]" <<<"$cells")
		if [ "$shared" != '[]' ]; then
			repro_boot "$f" boot-shared "$shared" || failed=1
			boots=$((boots + 1))
		fi
		while read -r cell; do
			repro_boot "$f" "boot-$(jq -r .file <<<"$cell")" "[$cell]" || failed=1
			boots=$((boots + 1))
		done < <(jq -c ".[] | select($share | not)" <<<"$cells")
	fi
	mapfile -t cell_docs < <(jq -r --arg p "$work/$f-" '.[] | "\($p)\(.file).json"' <<<"$cells")

	"$gupctl" repro collect --input-hash "$(flavour_key "$f")" --json "$RESULTS_DIR/$f.json" \
		--ktap "$RESULTS_DIR/$f.ktap" "${cell_docs[@]}" || failed=1
	# policy none's count of cells measured (its document's)
	[ "$policy" != none ] ||
		only=(measured_only="$(jq '.measured_only // 0' "$RESULTS_DIR/$f.json")")
	results_flavour "$f" "${only[@]}" \
		kernel_release="$(jq .kernel_release "$RESULTS_DIR/$f.json")" \
		ran="$([ "$boots" -gt 0 ] && echo true || echo false)" \
		why_not_run="$(jq -n --arg w "$why" 'if $w == "" then null else $w end')" \
		boots="$boots" wall_seconds=$((SECONDS - t0)) \
		cells="$(jq '.cells | length' "$RESULTS_DIR/$f.json")" \
		mismatches="$(jq '[.cells[] | select(.match | not)] | length' "$RESULTS_DIR/$f.json")" \
		accel="$(job_accel "$out"/boot-*.report)"
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
