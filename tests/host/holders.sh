#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Host tests of `make holders`' host side, no guest (jobs/holders.sh,
# userspace/holders/, userspace/model/holders.c):
#   - gupctl holders cells: the cells and their expectations, every rule
#     of docs/filesystems-guide.md section 6 checked on every cell it
#     covers, on every flavour's columns (patches/flavours);
#   - gupctl holders judge on synthetic inputs (the host's read of the
#     file, the guest's facts, console slices and their kernel reports),
#     each classification shown passing and failing; then collect (KTAP,
#     counts, exit status) and report (docs/filesystems.md's answer);
#   - qemu/read-image.sh on ext4, xfs and btrfs images made here, never
#     mounted;
#   - gupctl slice --step holders.
# Output: TAP version 13.  Exit status: 0 if every test passed.
#
# usage: tests/host/holders.sh [PATH/TO/gupctl]
#   Without an argument (as tests/run.sh calls it) userspace/gupctl is built
#   with make and tested.
set -euo pipefail

# shellcheck source=../gupctl_harness.sh
. "$(dirname "$0")/../gupctl_harness.sh"
# shellcheck source=../../patches/flavours.sh
. "$ROOT/patches/flavours.sh"

# ---- gupctl holders cells ---------------------------------------------------

# Every flavour's cells, from its gup, ext4 and source columns, as
# jobs/holders.sh asks for them.
mapfile -t flavours < <(all_flavours)
mkdir -p "$TMP/cells"
for f in "${flavours[@]}"; do
	for q in '' --quick; do
		cells_or_none "$TMP/cells/$f$q.json" holders cells $q --policy "$(flavour_field "$f" 3)" \
			--ext4 "$(flavour_field "$f" 4)" --source "$(flavour_field "$f" 5)"
	done
done

# The cells, from model/holders.h's enums and holders_cell_valid(): 4 file
# systems (ext4j: ext4 mounted data=journal) x 3 holders x the events
# valid on the file system.  Of the 12 events, 8 are every file system's
# (none, fsync, pageout, drop-caches, punch, collapse, truncate, ficlone),
# 2 ext4's and ext4j's alone (move-ext-donor, move-ext-orig), 1 xfs'
# (swapext), 1 btrfs' (defrag): per holder ext4 and ext4j have 8 + 2 = 10,
# xfs 8 + 1 = 9, btrfs 8 + 1 = 9, and 3 * (10 + 9 + 9 + 10) = 114.
common='fsync,pageout,drop-caches,punch,collapse,truncate,ficlone,none'
ncells=$((3 * ((8 + 2) + (8 + 1) + (8 + 1) + (8 + 2))))
declare -A fs_events=([ext4]="$common,move-ext-donor,move-ext-orig"
	[xfs]="$common,swapext" [btrfs]="$common,defrag" [ext4j]="$common,move-ext-donor,move-ext-orig")
for f in "${flavours[@]}"; do
	c=$TMP/cells/$f.json
	# a kernel the model has no cells for yet (7.3, exit 4): said, none given
	if grep -q 'no model of' "$c.err"; then
		tap_like "$(cat "$c.err") $(jq length "$c")" \
			'^gupctl holders cells: no model of [0-9.]+ yet: the cells are derived from .* 0$' \
			"cells of $f: none, and why (its kernel is not modelled yet)"
		continue
	fi
	tap_is "$(jq length "$c")" "$ncells" \
		"cells of $f: 3 holders x (ext4 10 + xfs 9 + btrfs 9 + ext4j 10 events)"
	bad=()
	for fs in ext4 xfs btrfs ext4j; do
		for h in odirect pvw uring; do
			got=$(jq -r --arg fs "$fs" --arg h "$h" \
				'[.[] | select(.fs == $fs and .holder == $h) | .event] | sort | join(",")' "$c")
			want=$(tr , '\n' <<<"${fs_events[$fs]}" | sort | paste -sd,)
			[ "$got" = "$want" ] || bad+=("$fs $h: $got")
		done
	done
	none_bad "cells of $f: each file system's events, for each holder" "differ" "${bad[@]}"
	tap_is "$(jq -r '[.[] | select(.name != "\(.fs)-\(.holder)-\(.event)")] | length' "$c") $(jq '[.[].name] | unique | length' "$c")" \
		"0 $ncells" "cells of $f: each named FS-HOLDER-EVENT, no name twice"
	# holders_cell_quick(): the O_DIRECT cell per file system that answers
	# "does writeback under a real pin lose data": ext4's MOVE_EXT donor,
	# xfs', btrfs' and ext4j's fsync; the same expectations as in the whole list.
	tap_is "$(jq -r '[.[].name] | join(" ")' "$TMP/cells/$f--quick.json")" \
		"ext4-odirect-move-ext-donor xfs-odirect-fsync btrfs-odirect-fsync ext4j-odirect-fsync" \
		"cells --quick of $f: exactly one cell per file system"
	tap_is "$(jq -c --slurpfile all "$c" '[.[] as $q | $all[0][] | select(.name == $q.name) | . == $q] | unique' \
		"$TMP/cells/$f--quick.json")" '[true]' "cells --quick of $f: the whole list's entries"
done

# rule DESC FILTER: FILTER (jq, on one cell: .flavour, .policy, .source,
# .ext4 and .stock, the same cell on stock, are set) is true for every
# cell of every flavour it covers (it answers null for a cell it does not
# cover); the cells where it is false are listed.
for f in "${flavours[@]}"; do
	jq --arg f "$f" --arg p "$(flavour_field "$f" 3)" --arg e "$(flavour_field "$f" 4)" \
		--arg s "$(flavour_field "$f" 5)" --slurpfile stock "$TMP/cells/stock.json" \
		'[.[] | . + {flavour: $f, policy: $p, ext4: $e, source: $s,
		  stock: (.name as $n | $stock[0][] | select(.name == $n))}]' "$TMP/cells/$f.json"
done | jq -s add >"$TMP/all.json"
rule() {
	local desc=$1 filter=$2 covered failing
	covered=$(jq "[.[] | select(($filter) != null)] | length" "$TMP/all.json")
	failing=$(jq -r "[.[] | select(($filter) == false) | \"\(.flavour) \(.name)\"] | join(\", \")" "$TMP/all.json")
	if [ "$covered" -gt 0 ] && [ -z "$failing" ]; then
		tap_ok "$desc ($covered cells)"
	else
		tap_not_ok "$desc ($covered cells)"
		echo "#   false for: ${failing:-nothing: no cell covered}"
	fi
}
modelled=0
for f in "${flavours[@]}"; do
	grep -q 'no model of' "$TMP/cells/$f.json.err" || modelled=$((modelled + 1))
done
tap_is "$(jq length "$TMP/all.json")" $((ncells * modelled)) \
	"every modelled flavour's cells read for the rules ($modelled flavours)"

# The holders' GUP calls and each policy's refusal (guide sections 3, 6).
rule "v7 refuses process_vm_writev (FOLL_PIN) and no other holder" \
	'if .policy == "v7" then .expect.refused == (.holder == "pvw") else null end'
rule "v1 refuses the O_DIRECT and io_uring reads, with seed 005's WARNING, and nothing else" \
	'if .policy == "v1" then .expect.refused == (.holder != "pvw") and
		(.expect.report == "gup-v1-warning") == .expect.refused else null end'
rule "no other policy refuses anything, and only v1 expects its WARNING" \
	'if .policy != "v1" and .policy != "v7" then (.expect.refused | not) and
		.expect.report != "gup-v1-warning" else null end'
rule "every cell is run, but ext4-2018's ext4-lost cells (their fsync BUGs)" \
	'.expect.run == (.ext4 == "warn" or .expect.report != "ext4-lost")'
# The 6.1 columns hold for stock and gup-v9; v1's pvw and v7's O_DIRECT
# and io_uring are stock's; ext4-2018 is stock's but for not running.
rule "a cell a policy lets through expects what it does on stock, on every 6.1 flavour" \
	'if .source == "6.1" and (.expect.refused | not) then
		(.expect | del(.reason, .run)) == (.stock.expect | del(.reason, .run)) else null end'
# shellcheck disable=SC2016 # jq's variable
rule "ext4-2018's cells are stock's, reasons and all, but for run" \
	'if .ext4 == "bug" then (.expect | del(.reason, .run)) == (.stock.expect | del(.reason, .run)) and
		(.stock.expect.reason as $r | .expect.reason | startswith($r)) else null end'
# ext4, E2 (6.1 mm/vmscan.c:1904 protects FOLL_PIN only).
rule "6.1 ext4-{odirect,uring}-pageout (FOLL_GET): disk OLD + ext4-lost" \
	'if .source == "6.1" and .fs == "ext4" and .event == "pageout" and .holder != "pvw" and
		(.expect.refused | not) then .expect.disk == "OLD" and .expect.report == "ext4-lost" else null end'
rule "6.1 ext4-pvw-pageout (FOLL_PIN): disk NEW, no report" \
	'if .source == "6.1" and .fs == "ext4" and .event == "pageout" and .holder == "pvw" and
		(.expect.refused | not) then .expect.disk == "NEW" and .expect.report == "none" else null end'
rule "6.12 ext4-*-pageout (all pin): disk NEW, no report" \
	'if .source == "6.12" and .fs == "ext4" and .event == "pageout" then
		.expect.disk == "NEW" and .expect.report == "none" else null end'
# ext4, E4d: the loss on every kernel.
rule "ext4-*-move-ext-donor let through: disk ZEROS + ext4-lost, everywhere" \
	'if .fs == "ext4" and .event == "move-ext-donor" and (.expect.refused | not) then
		.expect.disk == "ZEROS" and .expect.report == "ext4-lost" else null end'
rule "ext4-lost only for ext4's (not ext4j's) MOVE_EXT donor and 6.1's FOLL_GET pageout" \
	'if .expect.report == "ext4-lost" then .fs == "ext4" and (.event == "move-ext-donor" or
		(.event == "pageout" and .source == "6.1" and .holder != "pvw")) else null end'
# btrfs: 6.12 refuses a page dirtied behind its back after its writeback.
rule "mainline btrfs-*-fsync: the fsync fails, disk OLD, btrfs-refused" \
	'if .source == "6.12" and .fs == "btrfs" and .event == "fsync" then .expect.fsync_fails and
		.expect.disk == "OLD" and .expect.report == "btrfs-refused" else null end'
rule "mainline btrfs: fsync fails exactly after fsync, pageout, drop-caches, defrag, FICLONE" \
	'if .source == "6.12" and .fs == "btrfs" then .expect.fsync_fails ==
		(.event | IN("fsync", "pageout", "drop-caches", "defrag", "ficlone")) else null end'
rule "no fsync fails on 6.1 or 7.3, nor on ext4 and xfs" \
	'if .source != "6.12" or .fs != "btrfs" then .expect.fsync_fails | not else null end'
# btrfs on 7.3: btrfs_data_dirty_folio() marks the page for the writepage
# fixup, which makes it delalloc: nothing refused, the write reaches the disk.
rule "latest (7.3) btrfs: no btrfs-refused; disk NEW unless the page left the file (punch, truncate: ZEROS)" \
	'if .source == "7.3" and .fs == "btrfs" then .expect.report == "none" and
		.expect.disk == (if .event | IN("punch", "truncate") then "ZEROS" else "NEW" end) else null end'
rule "latest (7.3) btrfs FICLONE: the file NEW, the clone OLD (COW)" \
	'if .source == "7.3" and .fs == "btrfs" and .event == "ficlone" then
		.expect.disk == "NEW" and .expect.clone == "OLD" else null end'
rule "7.3 ext4-*-pageout and -move-ext-orig (all pin; the orig gets buffers back): disk NEW, no report" \
	'if .source == "7.3" and .fs == "ext4" and (.event | IN("pageout", "move-ext-orig")) then
		.expect.disk == "NEW" and .expect.report == "none" else null end'
rule "a 7.3 reason cites 7.3 alone, a 6.1 or 6.12 one never 7.3" \
	'if .source == "7.3" then (.expect.reason | test("\\b6\\.12? [a-z]") | not) and
		(.expect.reason | test("7\\.3 [a-z]")) else (.expect.reason | test("7\\.3 ") | not) end'
# The events that take the page out of the file (guide section 5).
rule "punch and truncate: ZEROS; collapse on ext4 and xfs: NEXT; SWAPEXT: TMP" \
	'if .event | IN("punch", "truncate") then .expect.disk == "ZEROS"
	elif .event == "collapse" and .fs != "btrfs" then .expect.disk == "NEXT"
	elif .event == "swapext" then .expect.disk == "TMP" else null end'
rule "the event fails exactly for ext4's and ext4j's FICLONE, ext4j's MOVE_EXT and btrfs' collapse (EOPNOTSUPP)" \
	'.expect.event_fails == ((.fs | IN("ext4", "ext4j")) and .event == "ficlone" or
		(.fs == "ext4j" and (.event | startswith("move-ext"))) or
		(.fs == "btrfs" and .event == "collapse"))'
rule "xfs FICLONE let through: the clone reads NEW (X)" \
	'if .fs == "xfs" and .event == "ficlone" and (.expect.refused | not) then
		.expect.clone == "NEW" and .expect.disk == "NEW" else null end'
rule "a clone is expected exactly for xfs' and btrfs' FICLONE" \
	'(.expect.clone != "none") == (.event == "ficlone" and (.fs | IN("xfs", "btrfs")))'
# ext4 data=journal (guide, "ext4 data=journal"): the page keeps the
# buffers ext4_page_mkwrite() journalled, and a page dirtied through a pin
# is journalled at writeback, on 6.1, 6.12 and 7.3 alike.
rule "ext4j: NEW unless the page left the file (punch, truncate: ZEROS; collapse: NEXT); never a report" \
	'if .fs == "ext4j" and (.expect.refused | not) then .expect.report == "none" and
		.expect.disk == (if .event | IN("punch", "truncate") then "ZEROS"
		elif .event == "collapse" then "NEXT" else "NEW" end) else null end'
rule "every reason names at least one file:line of the kernel" \
	'.expect.reason | test("[a-z0-9_]+/[a-z0-9_/-]+\\.[ch]:[0-9]+")'

expect "cells without --policy: exit 2" 2 err "--policy is required" -- holders cells --source 6.1
expect "cells of an unknown policy: exit 2" 2 err "unknown policy 'v3'" -- \
	holders cells --policy v3 --source 6.1
expect "cells --source 6.2: exit 2" 2 err "6.2" -- holders cells --policy stock --source 6.2

# ---- gupctl holders judge ---------------------------------------------------

# page FILE KIND N: append page N of KIND to FILE, as holders_fill()
# makes it: "gup-lab %-5s page %u\n" over 4096 bytes (the last line cut).
page() {
	local line i
	line=$(printf 'gup-lab %-5s page %u' "$2" "$3")
	for ((i = 0; i < 196; i++)); do echo "$line"; done | head -c 4096 >>"$1"
}
# disk FILE KIND: the cell's 4-page file as the host reads it, page 1
# (HOLDERS_PAGE) of KIND, the others OLD; NEXT is a collapsed file (no
# page 1: OLD 2 and 3 one page down), ZEROS a zero page, SHORT a file
# that ends before page 1, OTHER half NEW, half OLD.
disk() {
	local p
	: >"$1"
	page "$1" OLD 0
	case $2 in
	NEW | OLD | TMP) page "$1" "$2" 1 ;;
	ZEROS) head -c 4096 /dev/zero >>"$1" ;;
	OTHER) page "$TMP/p" NEW 1; page "$TMP/p" OLD 1
		head -c 2048 "$TMP/p" >>"$1"; tail -c 2048 "$TMP/p" >>"$1"; rm "$TMP/p" ;;
	SHORT) return ;;
	esac
	for p in 2 3; do page "$1" OLD "$p"; done
}
mkdir -p "$TMP/disk"
for k in NEW OLD ZEROS NEXT TMP OTHER SHORT; do disk "$TMP/disk/$k" "$k"; done

# cell FILE FLAVOUR NAME: NAME's entry of gupctl holders cells for FLAVOUR.
cell() {
	jq --arg n "$3" '.[] | select(.name == $n)' "$TMP/cells/$2.json" >"$1"
}
# guest FILE NAME [FILTER]: gupctl holders run's facts for cell NAME
# (cell_run()'s keys) of a holder that was held, wrote 4096 bytes and
# released; FILTER (jq) changes them.
guest() {
	jq -n --arg n "$2" '($n | split("-")) as $p | {cell: $n, fs: $p[0], holder: $p[1],
		event: ($p[2:] | join("-")), held: true, page_held: "lru mmap private",
		event_error: null, page_after_event: "lru mmap", release_error: null,
		holder_result: 4096, holder_error: null, page_released: "dirty lru mmap",
		fsync_error: null, guest_cached: "NEW", guest_direct: "NEW",
		guest_after_drop: "NEW"}' | jq "${3:-.}" >"$1"
}

# The consoles' slices: kernel lines as a 6.1 or 6.12 guest prints them.
marker='[    4.100000] gup-lab: holders cell 1'
ext4_warn='[    4.200000] WARNING: CPU: 0 PID: 97 at fs/ext4/inode.c:3664 ext4_dirty_folio+0x5c/0x70'
ext4_line='[    4.300000] EXT4-fs warning (device vda): mpage_prepare_extent_to_map:2671: inode #14: comm gupctl: page 1 does not have buffers attached'
btrfs_line='[    4.300000] BTRFS error (device vdc): root 5 ino 257 folio 4096 is marked dirty without notifying the fs'
btrfs_submit='[    4.300001] BTRFS error (device vdc): failed to submit blocks, root=5 inode=257 folio=4096 submit_bitmap=0: -117'
v1_warn='[    4.200000] WARNING: CPU: 0 PID: 97 at mm/gup.c:1113 check_vma_flags+0x151/0x160'
other_warn='[    4.250000] WARNING: CPU: 0 PID: 97 at mm/filemap.c:1520 folio_end_writeback+0x8a/0xa0'
bug='[    4.260000] kernel BUG at mm/filemap.c:1540!'
# console NAME LINE...: the slice NAME.console and its kernel reports
# NAME.reports, as qemu/scan-console.sh --reports lists them for the job.
console() {
	local name=$TMP/$1
	shift
	printf '%s\n' "$marker" '[    4.150000] some other line' "$@" >"$name.console"
	"$ROOT/qemu/scan-console.sh" --reports "$name.console" >"$name.reports"
}
console clean
console ext4-lost "$ext4_warn" '[    4.250000] RIP: 0010:ext4_dirty_folio+0x5c/0x70' "$ext4_line"
console ext4-warn-only "$ext4_warn"
console ext4-line-only "$ext4_line"
console ext4-lost-other "$ext4_warn" "$other_warn" "$ext4_line"
console ext4-lost-bug "$ext4_warn" "$ext4_line" "$bug"
console btrfs "$btrfs_line" "$btrfs_submit"
console v1 "$v1_warn"
tap_is "$(jq -c 'map([.kind, .location])' "$TMP/ext4-lost-other.reports")" \
	'[["warning","fs/ext4/inode.c:3664"],["warning","mm/filemap.c:1520"]]' \
	"scan-console.sh --reports: the two WARNINGs, not ext4's or btrfs' lines"

# judge DESC WANT_VERDICT WANT_DIFFERENCES FLAVOUR NAME CONSOLE [JUDGE_ARGS...]:
# judge cell NAME of FLAVOUR into $TMP/j.json, with the synthetic
# console CONSOLE and its reports (- none); its exit status, verdict and
# differences (joined by " | ").
judge() {
	local desc=$1 want="0|$2|$3" got seen=()
	cell "$TMP/cell.json" "$4" "$5"
	[ "$6" = - ] || seen=(--console "$TMP/$6.console" --reports "$TMP/$6.reports")
	shift 6
	rm -f "$TMP/j.json"
	run holders judge --cell "$TMP/cell.json" -o "$TMP/j.json" "${seen[@]}" "$@"
	got="$rc|$(jq -r .verdict "$TMP/j.json" 2>/dev/null)|$(jq -r '.differences | join(" | ")' "$TMP/j.json" 2>/dev/null)"
	if [ "$got" = "$want" ]; then
		tap_ok "$desc"
	else
		not_ok "$desc" "got exit|verdict|differences '$got'" "want '$want'"
	fi
}
# field FILTER: a field of the last judged cell.
field() {
	jq -r "$1" "$TMP/j.json"
}
ok='as expected' mm=mismatch

# -- the host's read: every class, and a disk that differs ---------------------
guest "$TMP/g-fsync.json" ext4-odirect-fsync
for k in NEW OLD ZEROS NEXT TMP OTHER SHORT; do
	want=$k
	[ "$k" != SHORT ] || want=ZEROS
	diffs="the host's read: expected NEW, measured $want"
	[ "$want" != NEW ] || diffs=''
	judge "stock ext4-odirect-fsync, the host reads $k: $want" "$([ -z "$diffs" ] && echo "$ok" || echo "$mm")" \
		"$diffs" stock ext4-odirect-fsync clean --guest-json "$TMP/g-fsync.json" \
		--host-read "$TMP/disk/$k"
	tap_is "$(field .measured.disk)" "$want" "... measured.disk is $want (the page format is holders_fill()'s)"
done
judge "no host read: measured disk none, a mismatch" "$mm" \
	"the host's read: expected NEW, measured none" stock ext4-odirect-fsync clean \
	--guest-json "$TMP/g-fsync.json"
tap_is "$(field '[.expect.disk, .measured.disk, .guest.guest_cached] | join(" ")')" "NEW none NEW" \
	"the judged cell keeps the expectation, the measurement and the guest's facts"

# -- the fsync's result ---------------------------------------------------------
guest "$TMP/g-bt.json" btrfs-odirect-fsync '.fsync_error = "EUCLEAN" | .guest_cached = "NEW"'
guest "$TMP/g-bt-ok.json" btrfs-odirect-fsync
judge "mainline btrfs-odirect-fsync: fsync fails, btrfs' line, host OLD" "$ok" '' \
	mainline btrfs-odirect-fsync btrfs --guest-json "$TMP/g-bt.json" --host-read "$TMP/disk/OLD"
tap_is "$(field '.measured | "\(.fsync_fails) \(.report) \(.disk)"')" "true btrfs-refused OLD" \
	"... measured: fsync fails, btrfs-refused, OLD"
tap_is "$(field '.unexpected_reports | length')" 0 "... btrfs' error lines are no kernel report"
judge "... the fsync succeeding: mismatch" "$mm" "the fsync: expected fails, measured succeeds" \
	mainline btrfs-odirect-fsync btrfs --guest-json "$TMP/g-bt-ok.json" --host-read "$TMP/disk/OLD"
judge "stock btrfs-odirect-fsync: fsync succeeds, host NEW" "$ok" '' \
	stock btrfs-odirect-fsync clean --guest-json "$TMP/g-bt-ok.json" --host-read "$TMP/disk/NEW"
judge "... the fsync failing: mismatch" "$mm" "the fsync: expected succeeds, measured fails" \
	stock btrfs-odirect-fsync clean --guest-json "$TMP/g-bt.json" --host-read "$TMP/disk/NEW"
judge "mainline btrfs-odirect-fsync without btrfs' line: mismatch" "$mm" \
	"the console: expected btrfs-refused, measured none" \
	mainline btrfs-odirect-fsync clean --guest-json "$TMP/g-bt.json" --host-read "$TMP/disk/OLD"

# -- the console: ext4's loss, and kernel reports no policy explains -------------
guest "$TMP/g-donor.json" ext4-odirect-move-ext-donor '.moved_blocks = 4 | .guest_direct = "ZEROS"'
D=(--guest-json "$TMP/g-donor.json" --host-read "$TMP/disk/ZEROS")
judge "stock ext4-odirect-move-ext-donor: WARNING + no buffers, host ZEROS" "$ok" '' \
	stock ext4-odirect-move-ext-donor ext4-lost "${D[@]}"
tap_is "$(field '"\(.measured.report) \(.unexpected_reports | length)"')" "ext4-lost 0" \
	"... measured ext4-lost, its WARNING the expected one"
judge "... a clean console: mismatch" "$mm" "the console: expected ext4-lost, measured none" \
	stock ext4-odirect-move-ext-donor clean "${D[@]}"
# ext4-lost is both halves (model/holders.h): the WARNING when the
# release dirties the page, the line when writeback meets it.
judge "... the WARNING without 'does not have buffers attached': mismatch" "$mm" \
	"the console: expected ext4-lost, measured ext4_dirty_folio WARNING without 'does not have buffers attached'" \
	stock ext4-odirect-move-ext-donor ext4-warn-only "${D[@]}"
judge "... 'does not have buffers attached' without the WARNING: mismatch" "$mm" \
	"the console: expected ext4-lost, measured 'does not have buffers attached' without ext4_dirty_folio WARNING" \
	stock ext4-odirect-move-ext-donor ext4-line-only "${D[@]}"
judge "... another WARNING besides: mismatch" "$mm" "1 kernel report(s) no policy explains" \
	stock ext4-odirect-move-ext-donor ext4-lost-other "${D[@]}"
tap_is "$(field '.unexpected_reports | map("\(.kind) \(.line) \(.title)") | join(",")')" \
	"warning 4 ${other_warn#*] }" "... listed with its kind, console line and title"
judge "... a BUG besides: mismatch" "$mm" "1 kernel report(s) no policy explains" \
	stock ext4-odirect-move-ext-donor ext4-lost-bug "${D[@]}"
judge "stock ext4-odirect-fsync with ext4's loss on the console: mismatch, the WARNING unexpected" \
	"$mm" "the console: expected none, measured ext4-lost | 1 kernel report(s) no policy explains" \
	stock ext4-odirect-fsync ext4-lost --guest-json "$TMP/g-fsync.json" --host-read "$TMP/disk/NEW"
rm -f "$TMP/j.json"
run holders judge --cell "$TMP/cell.json" -o "$TMP/j.json" --guest-json "$TMP/g-fsync.json" \
	--host-read "$TMP/disk/NEW" --console "$TMP/ext4-lost.console" --reports "$TMP/nonexistent"
tap_is "$rc $([ -f "$TMP/j.json" ] && echo judged || echo 'no judged cell')" "2 no judged cell" \
	"a console whose kernel reports cannot be read: exit 2, nothing judged"
jq '.[0].line = "x"' "$TMP/ext4-lost.reports" >"$TMP/bad.reports"
expect "a list of reports without a line: exit 2" 2 err 'bad.reports: [0]: want "line" (1..)' -- \
	holders judge --cell "$TMP/cell.json" -o "$TMP/j.json" --guest-json "$TMP/g-fsync.json" \
	--host-read "$TMP/disk/NEW" --console "$TMP/ext4-lost.console" --reports "$TMP/bad.reports"

# -- refused, with and without seed 005's WARNING ----------------------------------
guest "$TMP/g-efault.json" ext4-odirect-fsync \
	'.held = false | .holder_result = -14 | .holder_error = "EFAULT" | .release_error = null'
judge "gup-v1 ext4-odirect-fsync: refused (EFAULT) with its WARNING, host OLD" "$ok" '' \
	gup-v1 ext4-odirect-fsync v1 --guest-json "$TMP/g-efault.json" --host-read "$TMP/disk/OLD"
judge "... without the WARNING: mismatch" "$mm" "the console: expected gup-v1-warning, measured none" \
	gup-v1 ext4-odirect-fsync clean --guest-json "$TMP/g-efault.json" --host-read "$TMP/disk/OLD"
judge "stock ext4-odirect-fsync refused with v1's WARNING: mismatch" "$mm" \
	"the holder: expected let through, measured refused | the host's read: expected NEW, measured OLD | the console: expected none, measured gup-v1-warning | 1 kernel report(s) no policy explains" \
	stock ext4-odirect-fsync v1 --guest-json "$TMP/g-efault.json" --host-read "$TMP/disk/OLD"

# -- held: proven, or the cell did not test anything ---------------------------------
guest "$TMP/g-pvw-efault.json" ext4-pvw-fsync '.held = false | .holder_result = -14 | .holder_error = "EFAULT"'
judge "gup-v7 ext4-pvw-fsync: refused, never held, no WARNING" "$ok" '' \
	gup-v7 ext4-pvw-fsync clean --guest-json "$TMP/g-pvw-efault.json" --host-read "$TMP/disk/OLD"
guest "$TMP/g-unheld.json" ext4-odirect-fsync '.held = false | .held_error = "the pin was not seen held within 10 s"'
judge "stock ext4-odirect-fsync completed but never seen held: mismatch" "$mm" \
	"the holder completed, but its pin was never seen held: the event did not run under it" \
	stock ext4-odirect-fsync clean --guest-json "$TMP/g-unheld.json" --host-read "$TMP/disk/NEW"

# -- setup failure, and the cells that did not run -----------------------------------
jq -n '{cell: "ext4-odirect-fsync", fs: "ext4", holder: "odirect", event: "fsync",
	setup_error: "ENOSPC"}' >"$TMP/g-setup.json"
cell "$TMP/cell.json" stock ext4-odirect-fsync
run holders judge --cell "$TMP/cell.json" -o "$TMP/j.json" --guest-json "$TMP/g-setup.json" \
	--host-read "$TMP/disk/OLD" --console "$TMP/clean.console" --reports "$TMP/clean.reports"
tap_is "$rc $(field .verdict) $(field '.differences[0]')" \
	"0 mismatch the cell's setup failed: ENOSPC" "a setup that failed: mismatch, said first"
judge "... and without setup_error the same cell's facts judge as expected" "$ok" '' \
	stock ext4-odirect-fsync clean --guest-json "$TMP/g-fsync.json" --host-read "$TMP/disk/NEW"
judge "--not-run WHY: not run" 'not run' '' stock ext4-odirect-fsync - --not-run 'staging failed'
tap_is "$(field .why_not_run) $(field 'has("measured")')" "staging failed false" "... why, and nothing measured"
judge "no --guest-json: not run" 'not run' '' stock ext4-odirect-fsync clean
tap_like "$(field .why_not_run)" 'the guest left no facts' "... said so"
judge "a --guest-json that is not there: not run" 'not run' '' stock ext4-odirect-fsync - \
	--guest-json "$TMP/nonexistent"
judge "ext4-2018 ext4-odirect-move-ext-donor (expected not run): not run, facts or not" 'not run' '' \
	ext4-2018 ext4-odirect-move-ext-donor ext4-lost "${D[@]}"
tap_like "$(field .why_not_run)" 'BUGs in page_buffers\(\).*not run here' "... the model's reason"

# -- FICLONE's clone, read on the host --------------------------------------------
guest "$TMP/g-clone.json" xfs-odirect-ficlone '.clone_direct = "NEW"'
judge "stock xfs-odirect-ficlone: the clone reads NEW" "$ok" '' stock xfs-odirect-ficlone clean \
	--guest-json "$TMP/g-clone.json" --host-read "$TMP/disk/NEW" --host-clone "$TMP/disk/NEW"
judge "... the clone reading OLD: mismatch" "$mm" "the clone on the host: expected NEW, measured OLD" \
	stock xfs-odirect-ficlone clean --guest-json "$TMP/g-clone.json" --host-read "$TMP/disk/NEW" \
	--host-clone "$TMP/disk/OLD"

expect "judge without --cell: exit 2" 2 err "--cell and -o are required" -- holders judge -o "$TMP/x.json"
expect "judge of a cell file that is not there: exit 2" 2 err "nonexistent" -- \
	holders judge --cell "$TMP/nonexistent" -o "$TMP/x.json"
expect "judge --help" 0 out "--host-read FILE" -- holders judge --help

# ---- collect and report -------------------------------------------------------

# judged OUT FLAVOUR NAME CONSOLE JUDGE_ARGS...: one judged cell into OUT
# (CONSOLE as judge's).
judged() {
	local out=$1 seen=()
	cell "$TMP/cell.json" "$2" "$3"
	[ "$4" = - ] || seen=(--console "$TMP/$4.console" --reports "$TMP/$4.reports")
	shift 4
	"$GUPCTL" holders judge --cell "$TMP/cell.json" -o "$out" "${seen[@]}" "$@" >/dev/null
}
guest "$TMP/g-punch.json" ext4-odirect-punch
guest "$TMP/g-xfs.json" xfs-pvw-fsync
mkdir -p "$TMP/j" "$TMP/res"
judged "$TMP/j/donor.json" stock ext4-odirect-move-ext-donor ext4-lost "${D[@]}" \
	--console-name stock/ext4-odirect-move-ext-donor.console.log
judged "$TMP/j/fsync.json" stock ext4-odirect-fsync clean --guest-json "$TMP/g-fsync.json" \
	--host-read "$TMP/disk/NEW" --console-name stock/ext4-odirect-fsync.console.log
judged "$TMP/j/punch.json" stock ext4-odirect-punch clean --guest-json "$TMP/g-punch.json" \
	--host-read "$TMP/disk/ZEROS"
judged "$TMP/j/bug.json" ext4-2018 ext4-odirect-move-ext-donor -
judged "$TMP/j/staging.json" stock xfs-odirect-fsync - --not-run 'staging failed'
judged "$TMP/j/nohost.json" gup-v9 xfs-pvw-fsync clean --guest-json "$TMP/g-xfs.json"
judged "$TMP/j/bt.json" mainline btrfs-odirect-fsync btrfs --guest-json "$TMP/g-bt.json" \
	--host-read "$TMP/disk/OLD" --console-name mainline/btrfs-odirect-fsync.console.log

expect "collect: as expected and expected not run: exit 0" 0 out 'KTAP version 1' '1..4' \
	'ok 1 ext4-odirect-move-ext-donor' 'ok 2 ext4-odirect-fsync' 'ok 3 ext4-odirect-punch' \
	'ok 4 ext4-odirect-move-ext-donor # SKIP ' \
	'# stock: 3 as expected, 0 mismatched, 1 not run' -- \
	holders collect --flavour stock -o "$TMP/mixed.json" "$TMP/j/donor.json" \
	"$TMP/j/fsync.json" "$TMP/j/punch.json" "$TMP/j/bug.json"
tap_is "$(jq -c '[.flavour, .counts, (.cells | length)]' "$TMP/mixed.json")" \
	'["stock",{"as_expected":3,"mismatched":0,"not_run":1},4]' "collect: the flavour's document, counts and cells"
expect "collect: a mismatch and a cell that should have run: exit 1" 1 out '1..3' \
	'ok 1 ext4-odirect-fsync' 'not ok 2 xfs-odirect-fsync # SKIP staging failed' \
	"not ok 3 xfs-pvw-fsync # the host's read: expected NEW, measured none" \
	'# stock: 1 as expected, 1 mismatched, 1 not run' -- \
	holders collect --flavour stock -o "$TMP/x.json" "$TMP/j/fsync.json" "$TMP/j/staging.json" \
	"$TMP/j/nohost.json"
tap_is "$(jq -c .counts "$TMP/x.json")" '{"as_expected":1,"mismatched":1,"not_run":1}' \
	"collect: ... counted in the document"
expect "collect: an unreadable cell: not ok, exit 1" 1 out "not ok 2 $TMP/nonexistent # unreadable" -- \
	holders collect --flavour stock -o "$TMP/x.json" "$TMP/j/fsync.json" "$TMP/nonexistent"
expect "collect without --flavour: exit 2" 2 err "--flavour and -o are required" -- \
	holders collect -o "$TMP/x.json" "$TMP/j/fsync.json"

# The report: stock lost the MOVE_EXT donor's page, mainline btrfs' fsync
# page, the punch dropped its page by design; gup-v9's one cell has no
# host read; ext4-2018's one cell is expected not to run.
"$GUPCTL" holders collect --flavour stock -o "$TMP/res/stock.json" "$TMP/j/donor.json" \
	"$TMP/j/fsync.json" "$TMP/j/punch.json" >/dev/null
"$GUPCTL" holders collect --flavour ext4-2018 -o "$TMP/res/ext4-2018.json" "$TMP/j/bug.json" >/dev/null
"$GUPCTL" holders collect --flavour mainline -o "$TMP/res/mainline.json" "$TMP/j/bt.json" >/dev/null
"$GUPCTL" holders collect --flavour gup-v9 -o "$TMP/res/gup-v9.json" "$TMP/j/nohost.json" >/dev/null || true
jq -n '{job: "holders", commit: "abc1234", date: "2026-01-01T00:00:00Z", wall_seconds: 9,
	flavours: [{name: "stock"}, {name: "mainline"}, {name: "gup-v9"},
		   {name: "ext4-2018"}]}' >"$TMP/res/run.json"
ln -s res "$TMP/latest"
run holders report --results "$TMP/latest"
sed -n '/^## The answer/,/^## ext4/p' "$TMP/out" >"$TMP/answer"
tap_is "$rc" 0 "report: exit 0"
# flavour_answer F: F's part of the answer, its lines after **F**.
flavour_answer() {
	awk -v f="**$1**" 'index($0, f) == 1 { on = 1; next } /^\*\*|^## / { on = 0 } on && /^- /' "$TMP/answer"
}
tap_like "$(flavour_answer stock)" \
	'^- ext4\b.*fsync \+ EXT4_IOC_MOVE_EXT, the file as donor: .* by O_DIRECT read \(.stock/ext4-odirect-move-ext-donor\.console\.log.\).*ZEROS' \
	"report: the answer names stock's lost cell, its console in the run's directory (no link: results/ is not published), its read"
tap_is "$(flavour_answer stock | grep -c 'fsync(2)\|punch\|PUNCH' || true)" 0 \
	"report: ... not the cell that kept NEW, nor the punch that dropped the page by design"
tap_like "$(flavour_answer mainline)" \
	'^- btrfs\b.*fsync\(2\).*\(.mainline/btrfs-odirect-fsync\.console\.log.\).*OLD' \
	"report: ... and mainline's"
tap_is "$(flavour_answer gup-v9 | grep -c xfs || true)" 0 \
	"report: a cell the host could not read (disk none) is no lost data"
tap_like "$(cat "$TMP/out")" '^\| odirect \| fsync \+ EXT4_IOC_MOVE_EXT, the file as donor \| ZEROS \+ report ✓ \| n/a \| n/a \| not run \|$' \
	"report: ext4's table, a flavour column each, ext4-2018's cell not run"
tap_like "$(cat "$TMP/out")" '^\| pvw \| fsync\(2\) \| n/a \| n/a \| none ✗ mismatch \| n/a \|$' \
	"report: xfs' table, gup-v9's mismatch"
tap_like "$(cat "$TMP/out")" 'generated by gupctl holders report from res: do not edit' "report: says it is generated"
tap_is "$(grep -c '](\.\./results\|](results/' "$TMP/out" || true)" 0 "report: no link into results/ (not published)"
tap_is "$(grep -n '^\*\*' "$TMP/answer" | head -1 | cut -d: -f2-)" "**mainline** (1 cells ran):" \
	"report: the newest kernel's answer first (mainline here; latest before it when it ran)"
expect "report without --results: exit 2" 2 err "--results is required" -- holders report
expect "report of a directory without run.json: exit 2" 2 err "run.json" -- holders report --results "$TMP/j"

# ---- policy none: measured, no policy to compare ----------------------------------

# A kernel that matches no known policy: every cell listed with nothing
# expected, run all the same; not run only where a policy of its source,
# with its ext4 column, expects it not run (the BUG that would end the
# one boot): on ext4=bug exactly ext4-2018's not-run cells.
for x in "none 6.1 warn" "none-bug 6.1 bug" "none-612 6.12 warn" "none-73 7.3 warn"; do
	read -r f src ext <<<"$x"
	"$GUPCTL" holders cells --policy none --source "$src" --ext4 "$ext" >"$TMP/cells/$f.json"
done
tap_is "$(jq -c '[length, ([.[] | select(.expect == null and .measured_only and .run and
	.reason == "measured, no policy to compare")] | length)]' "$TMP/cells/none.json")" "[$ncells,$ncells]" \
	"cells --policy none: the $ncells cells, each \"expect\": null, run, measured, no policy to compare"
tap_is "$(jq -c '[.[] | select(.run | not) | .name]' "$TMP/cells/none-bug.json")" \
	"$(jq -c '[.[] | select(.expect.run | not) | .name]' "$TMP/cells/ext4-2018.json")" \
	"cells --policy none --ext4 bug: not run exactly where ext4-2018's policy expects a BUG"
tap_like "$(jq -r '[.[] | select(.run | not)][0].reason' "$TMP/cells/none-bug.json")" \
	'^policy stock expects it not run: .*BUGs in page_buffers' "... each saying which policy and why"
tap_is "$(jq -c '[.[] | select(.run)] | length' "$TMP/cells/none-612.json")" "$ncells" \
	"cells --policy none --source 6.12: every cell runs"
tap_is "$(jq -c '[.[] | select(.run)] | length' "$TMP/cells/none-73.json")" "$ncells" \
	"cells --policy none --source 7.3: every cell runs"
expect "cells --policy bogus: exit 2, none among the choices" 2 err "unknown policy 'bogus'" \
	', or none' -- holders cells --policy bogus --source 6.1

# judge: the measurement recorded, "measured", every report in the slice a finding
judge "none ext4-odirect-move-ext-donor: measured, two WARNINGs its findings" measured '' \
	none ext4-odirect-move-ext-donor ext4-lost-other "${D[@]}"
tap_is "$(field '"\(.measured.disk) \(.measured.report) \(.findings | length) \(.unexpected_reports | length) \(.expect)"')" \
	"ZEROS ext4-lost 2 0 null" "... the host's read and the console recorded; findings, not unexpected reports"
judge "... a BUG in its slice: a finding too, still measured" measured '' \
	none ext4-odirect-move-ext-donor ext4-lost-bug "${D[@]}"
judge "none ext4-odirect-fsync, clean, the host reads NEW: measured" measured '' \
	none ext4-odirect-fsync clean --guest-json "$TMP/g-fsync.json" --host-read "$TMP/disk/NEW"
judge "none: a cell whose setup failed did not run cleanly" 'did not run cleanly' \
	"the cell's setup failed: ENOSPC | the holder completed, but its pin was never seen held: the event did not run under it" \
	none ext4-odirect-fsync clean --guest-json "$TMP/g-setup.json" \
	--host-read "$TMP/disk/OLD"
judge "none --ext4 bug: the MOVE_EXT donor cell is not run" 'not run' '' \
	none-bug ext4-odirect-move-ext-donor - "${D[@]}"
tap_like "$(field .why_not_run)" '^policy stock expects it not run' "... why"
judge "none: no facts from the guest: not run" 'not run' '' none xfs-pvw-fsync clean

mkdir -p "$TMP/jn" "$TMP/resn"
judged "$TMP/jn/donor.json" none ext4-odirect-move-ext-donor ext4-lost-other "${D[@]}" \
	--console-name none/ext4-odirect-move-ext-donor.console.log
judged "$TMP/jn/fsync.json" none ext4-odirect-fsync clean --guest-json "$TMP/g-fsync.json" \
	--host-read "$TMP/disk/NEW"
judged "$TMP/jn/bug.json" none-bug ext4-odirect-move-ext-donor -
judged "$TMP/jn/setup.json" none ext4-odirect-fsync clean --guest-json "$TMP/g-setup.json" \
	--host-read "$TMP/disk/OLD"
judged "$TMP/jn/notrun.json" none xfs-pvw-fsync clean
expect "collect, policy none: measured cells are SKIPs, exit 0" 0 out '1..3' \
	'ok 1 ext4-odirect-move-ext-donor # SKIP measured, no policy to compare: let through, disk ZEROS, console ext4-lost' \
	'ok 2 ext4-odirect-fsync # SKIP measured, no policy to compare: let through, disk NEW' \
	'ok 3 ext4-odirect-move-ext-donor # SKIP policy stock expects it not run' \
	'# none: 0 as expected, 0 mismatched, 1 not run, 2 measured, no policy to compare' -- \
	holders collect --flavour none -o "$TMP/resn/none.json" "$TMP/jn/donor.json" \
	"$TMP/jn/fsync.json" "$TMP/jn/bug.json"
tap_is "$(jq -c .counts "$TMP/resn/none.json")" \
	'{"as_expected":0,"mismatched":0,"not_run":1,"measured_only":2}' "collect: ... measured_only counted"
expect "collect, policy none: a cell that did not run cleanly, one not run: exit 1" 1 out \
	"not ok 1 ext4-odirect-fsync # the cell's setup failed: ENOSPC" \
	'not ok 2 xfs-pvw-fsync # SKIP the guest left no facts' -- \
	holders collect --flavour none -o "$TMP/x.json" "$TMP/jn/setup.json" "$TMP/jn/notrun.json"
cp "$TMP/res/stock.json" "$TMP/resn/"
jq -n '{job: "holders", commit: "abc1234", date: "2026-01-01T00:00:00Z", wall_seconds: 9,
	flavours: [{name: "stock"}, {name: "none"}]}' >"$TMP/resn/run.json"
run holders report --results "$TMP/resn"
tap_is "$rc" 0 "report with a flavour of policy none: exit 0"
tap_like "$(cat "$TMP/out")" '^\| odirect \| fsync \+ EXT4_IOC_MOVE_EXT, the file as donor \| ZEROS \+ report ✓ \| ZEROS \+ report \(measured\) \|$' \
	"report: none's cells shown as measured, never ✓ or ✗"
tap_like "$(cat "$TMP/out")" '^\*\*none\*\* \(2 cells ran; policy none: 2 measured, no policy to compare' \
	"report: ... and said so in the answer"
tap_like "$(cat "$TMP/out")" '^- ext4\b.*the file as donor.*\(.none/ext4-odirect-move-ext-donor\.console\.log.\).*ZEROS' \
	"report: ... its measured loss in the answer, with its console"

# ---- qemu/read-image.sh ---------------------------------------------------------

# A cell's file, 4 pages (page 1 NEW), in a cell's subdirectory, on an
# image of each file system made here from a directory, never mounted.
mkdir -p "$TMP/tree/xfs-odirect-fsync"
disk "$TMP/tree/xfs-odirect-fsync/f.dat" NEW
want=$(md5sum <"$TMP/tree/xfs-odirect-fsync/f.dat")
# image FS: make $TMP/FS.img holding $TMP/tree (its status, its output in $TMP/mkfs.log).
image() {
	local img=$TMP/$1.img
	case $1 in
	ext4) mkfs.ext4 -q -F -d "$TMP/tree" "$img" 8M ;;
	xfs)
		# xfs' protofile (mkfs.xfs(8)): root, a directory, the file
		printf '%s\n' proto '0 0' 'd--755 0 0' 'xfs-odirect-fsync d--755 0 0' \
			"f.dat ---644 0 0 $TMP/tree/xfs-odirect-fsync/f.dat" '$' '$' >"$TMP/proto"
		truncate -s 300M "$img"
		mkfs.xfs -q -f -p "$TMP/proto" "$img" ;;
	btrfs)
		truncate -s 128M "$img"
		mkfs.btrfs -q --rootdir "$TMP/tree" "$img" ;;
	esac >"$TMP/mkfs.log" 2>&1
}
# the tools are in sbin, not always on a user's PATH
PATH=$PATH:/usr/sbin:/sbin
declare -A mkfs=([ext4]=mkfs.ext4 [xfs]=mkfs.xfs [btrfs]=mkfs.btrfs)
declare -A reader=([ext4]=debugfs [xfs]=xfs_db [btrfs]=btrfs)
for fs in ext4 xfs btrfs; do
	for tool in "${mkfs[$fs]}" "${reader[$fs]}"; do
		command -v "$tool" >/dev/null || { lacking=$tool; break; }
	done
	if [ -n "${lacking:-}" ]; then
		for t in "the file's bytes (md5), 4 pages in a subdirectory" \
			"a missing path: status 1, nothing on stdout, said on stderr"; do
			tap_skip "read-image.sh $fs: $t" "$lacking not installed (qemu/install-host-deps.sh)"
		done
		unset lacking
		continue
	fi
	if ! image "$fs"; then
		tap_not_ok "read-image.sh $fs: ${mkfs[$fs]} made the image"
		sed 's/^/#   /' "$TMP/mkfs.log"
		continue
	fi
	rc=0
	"$ROOT/qemu/read-image.sh" "$fs" "$TMP/$fs.img" \
		/xfs-odirect-fsync/f.dat >"$TMP/read" 2>"$TMP/read.err" || rc=$?
	tap_is "$rc $(md5sum <"$TMP/read")" "0 $want" "read-image.sh $fs: the file's bytes (md5), 4 pages in a subdirectory"
	[ "$rc" = 0 ] || sed 's/^/#   /' "$TMP/read.err"
	rc=0
	"$ROOT/qemu/read-image.sh" "$fs" "$TMP/$fs.img" \
		/xfs-odirect-fsync/clone.dat >"$TMP/read" 2>"$TMP/read.err" || rc=$?
	tap_is "$rc $(wc -c <"$TMP/read") $(grep -c 'no /xfs-odirect-fsync/clone.dat in' "$TMP/read.err" || true)" \
		"1 0 1" "read-image.sh $fs: a missing path: status 1, nothing on stdout, said on stderr"
	rm -f "$TMP/$fs.img"
done
for args in "" ext4 "ext4 $TMP/x.img" "ext4 $TMP/x.img relative/f.dat" "zfs $TMP/tree /f.dat"; do
	rc=0
	# shellcheck disable=SC2086 # the words of args
	"$ROOT/qemu/read-image.sh" $args >/dev/null 2>"$TMP/read.err" || rc=$?
	words=${args//"$TMP/"/}
	tap_is "$rc" 2 "read-image.sh ${words:-without arguments}: usage, status 2"
done
rc=0
"$ROOT/qemu/read-image.sh" ext4 "$TMP/nonexistent.img" /f.dat >/dev/null 2>&1 || rc=$?
tap_is "$rc" 1 "read-image.sh of an image that is not there: status 1"

# ---- gupctl slice --step holders -----------------------------------------------

printf '%s\n' 'boot line' '[ 1.0] gup-lab: holders cell 1' 'one' \
	$'[ 2.0] gup-lab: holders cell 2\r' 'two' '[ 2.5] gup-lab: repro cell 1' 'still two' \
	'[ 3.0] gup-lab: holders cell 9' 'still two again' '[ 4.0] gup-lab: holders end' 'shutdown' \
	>"$TMP/boot.console"
mkdir -p "$TMP/slices"
expect "slice --step holders: the names of the cells that began, in order" 0 out \
	'ext4-odirect-fsync' 'xfs-pvw-none' -- slice --step holders --console "$TMP/boot.console" \
	--dir "$TMP/slices" --suffix console.log --tail tail ext4-odirect-fsync xfs-pvw-none btrfs-uring-defrag
tap_is "$(paste -sd' ' "$TMP/out")" 'ext4-odirect-fsync xfs-pvw-none' "slice: ... only those"
tap_is "$(paste -sd'|' "$TMP/slices/ext4-odirect-fsync.console.log")" \
	'boot line|[ 1.0] gup-lab: holders cell 1|one' "slice: cell 1's from the boot's start to cell 2's marker"
tap_is "$(tr -d '\r' <"$TMP/slices/xfs-pvw-none.console.log" | paste -sd'|')" \
	'[ 2.0] gup-lab: holders cell 2|two|[ 2.5] gup-lab: repro cell 1|still two|[ 3.0] gup-lab: holders cell 9|still two again' \
	"slice: cell 2's to the end marker, another step's and an unknown cell's markers in it"
tap_is "$(wc -c <"$TMP/slices/btrfs-uring-defrag.console.log") $(paste -sd'|' "$TMP/slices/tail.console.log")" \
	'0 [ 4.0] gup-lab: holders end|shutdown' "slice: a cell that never began is empty; the tail from the end marker"
expect "slice --step repro of the same console: repro's cell 1 only" 0 out 'a' -- \
	slice --step repro --console "$TMP/boot.console" --dir "$TMP/slices" --suffix r --tail t a b
tap_is "$(paste -sd' ' "$TMP/out")" a "slice: ... another step's markers are not holders'"
expect "slice without the cells' names: exit 2" 2 err "give the boot's cells' NAMEs" -- \
	slice --step holders --console "$TMP/boot.console" --dir "$TMP/slices" --suffix log --tail t
expect "slice without --step: exit 2" 2 err "give --step" -- \
	slice --console "$TMP/boot.console" --dir "$TMP/slices" --suffix log --tail t a

guest_build=$(dirname "$GUPCTL")/gupctl-guest
if [ -x "$guest_build" ]; then
	GUPCTL=$guest_build expect "the guest build has no holders judge" 2 err "host-only command" -- \
		holders judge --cell x -o y
	GUPCTL=$guest_build expect "... but holders cells" 0 out '"name":"ext4-odirect-move-ext-donor"' -- \
		holders cells --quick --policy stock --source 6.1
fi

tap_done
