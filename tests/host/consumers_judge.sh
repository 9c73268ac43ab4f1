#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Host tests of gupctl consumers judge and report, no guest: a synthetic
# guest document of the quick subset, the cells' files as the host would
# read them from the scratch images (ext4, xfs, btrfs), and a console with
# the cells' markers and kernel reports.  The measurements are written out
# here from what each interface does under stock 6.1 and gup-v1 (not taken
# from the judge), an xfs or btrfs cell's as its ext4 twin's; the judge
# must pass them, and fail a changed errno, a write whose bytes are not on
# disk (DATA LOST, on ext4 and on btrfs), a WARNING no cell expects, an
# expected WARNING that never came, a missing cell, and the cells of a file
# system the guest had not mounted (not run, never a pass).  The
# interfaces of the overlays (AF_XDP, RDMA, uprobes) and the file systems
# are judged against the kernel's .config: a kernel without their option
# must not run them (KTAP SKIP, never a pass), one with it must.  Every
# xfs and btrfs cell of the full run is expected as its ext4 twin under
# every policy, and the page shows the twins side by side.
# Output: TAP version 13.  Exit status: 0 if every test passed.
#
# usage: tests/host/consumers_judge.sh [PATH/TO/gupctl]
#   Without an argument (as tests/run.sh calls it) userspace/gupctl is built
#   with make and tested.
set -euo pipefail

# shellcheck source=../gupctl_harness.sh
. "$(dirname "$0")/../gupctl_harness.sh"

# The quick subset, in its order: interface backing state outcome mapping
# file read, under stock 6.1.  An xfs or btrfs MAP_SHARED file is its ext4
# twin: their .mmap sets vm_ops with page_mkwrite as ext4's does.
cells="process_vm_writev anon-private untouched ok new null null
process_vm_writev ext4-shared untouched ok new new null
process_vm_writev ext4-shared write-faulted ok new new null
process_vm_writev xfs-shared untouched ok new new null
process_vm_writev btrfs-shared untouched ok new new null
process_vm_readv anon-private untouched ok old null old
process_vm_readv ext4-shared untouched ok old old old
process_vm_readv ext4-shared write-faulted ok old old old
process_vm_readv xfs-shared untouched ok old old old
process_vm_readv btrfs-shared untouched ok old old old
proc-pid-mem anon-private untouched ok new null null
proc-pid-mem ext4-shared untouched ok new new null
proc-pid-mem ext4-shared write-faulted ok new new null
proc-pid-mem xfs-shared untouched ok new new null
proc-pid-mem btrfs-shared untouched ok new new null
proc-pid-mem ext4-private-ro untouched ok new old null
ptrace-pokedata anon-private untouched ok new null null
ptrace-pokedata ext4-shared untouched ok new new null
ptrace-pokedata ext4-shared write-faulted ok new new null
ptrace-pokedata xfs-shared untouched ok new new null
ptrace-pokedata btrfs-shared untouched ok new new null
ptrace-pokedata ext4-private-ro untouched ok new old null
o-direct-read anon-private untouched ok new null null
o-direct-read ext4-shared untouched ok new new null
o-direct-read ext4-shared write-faulted ok new new null
o-direct-read xfs-shared untouched ok new new null
o-direct-read btrfs-shared untouched ok new new null
vmsplice anon-private untouched ok old null old
vmsplice ext4-shared untouched ok old old old
vmsplice ext4-shared write-faulted ok old old old
vmsplice xfs-shared untouched ok old old old
vmsplice btrfs-shared untouched ok old old old
io_uring anon-private untouched ok new null null
io_uring ext4-shared untouched EOPNOTSUPP old old null
io_uring ext4-shared write-faulted EOPNOTSUPP old old null
io_uring xfs-shared untouched EOPNOTSUPP old old null
io_uring btrfs-shared untouched EOPNOTSUPP old old null"
ncells=$(wc -l <<<"$cells")

# idx IFACE BACKING STATE: the cell's number in $cells (1..).
idx() {
	awk -v c="$1 $2 $3" '$1 " " $2 " " $3 == c { print NR; exit }' <<<"$cells"
}

# gup-v1 differs in these cells: seed 005 refuses, with its WARN, a FOLL_GET
# or FOLL_PIN write to an ext4, xfs or btrfs VMA from callers without
# FOLL_ALLOW_BROKEN_FILE_MAPPING (PTRACE_POKEDATA, O_DIRECT when GUP-fast
# finds no writable PTE, io_uring): interface backing state outcome.
v1_refusals="ptrace-pokedata ext4-shared untouched EIO
ptrace-pokedata ext4-shared write-faulted EIO
ptrace-pokedata xfs-shared untouched EIO
ptrace-pokedata btrfs-shared untouched EIO
ptrace-pokedata ext4-private-ro untouched EIO
o-direct-read ext4-shared untouched EFAULT
o-direct-read xfs-shared untouched EFAULT
o-direct-read btrfs-shared untouched EFAULT
io_uring ext4-shared untouched EFAULT
io_uring ext4-shared write-faulted EFAULT
io_uring xfs-shared untouched EFAULT
io_uring btrfs-shared untouched EFAULT"
nv1=$(wc -l <<<"$v1_refusals")
v1_cells=$(while read -r i b s o; do echo "$(idx "$i" "$b" "$s") $o"; done <<<"$v1_refusals")
v1_text='WARN_ON_ONCE(!can_write_file_mapping(vma, gup_flags))'

# guest FILE [N OUTCOME]...: the guest's document, stock's cells with the
# given cells' outcomes replaced (a refused write leaves old bytes).
guest() {
	local out=$1 n=0 iface backing state outcome mapping file read
	shift
	{
		echo '{"job": "consumers", "kernel_release": "6.1.0-test", "quick": true, "cells": ['
		while read -r iface backing state outcome mapping file read; do
			n=$((n + 1))
			local a=("$@") i
			for ((i = 0; i < ${#a[@]}; i += 2)); do
				if [ "${a[i]}" = "$n" ]; then
					outcome=${a[i + 1]}
					[ "$mapping" != new ] || mapping=old
					[ "$file" != new ] || file=old
				fi
			done
			q() { [ "$1" = null ] && echo null || echo "\"$1\""; }
			[ $n -eq 1 ] || echo ","
			printf '{"index": %d, "interface": "%s", "backing": "%s", "state": "%s", "measured": {"outcome": "%s", "bytes": %s, "errno": %s, "mapping": %s, "file": %s, "read": %s}}' \
				"$n" "$iface" "$backing" "$state" "$outcome" \
				"$([ "$outcome" = ok ] && echo 4096 || echo null)" \
				"$([ "$outcome" = ok ] && echo null || echo "\"$outcome\"")" \
				"$(q "$mapping")" "$(q "$file")" "$(q "$read")"
		done <<<"$cells"
		echo ']}'
	} >"$out"
}

# disk DIR [N...]: every ext4, xfs and btrfs cell's file as its expected
# bytes, as jobs/consumers.sh reads them from the images (NEW for a
# write that landed in a MAP_SHARED file, OLD otherwise); the cells N
# hold OLD (a write that did not land).
disk() {
	local dir=$1 n=0 iface backing state outcome mapping file read word
	shift
	rm -rf "$dir"
	mkdir -p "$dir"
	while read -r iface backing state outcome mapping file read; do
		n=$((n + 1))
		case $backing in ext4-* | xfs-* | btrfs-*) ;; *) continue ;; esac
		word=OLD
		[ "$file" != new ] || word=NEW
		# (no pipe into grep -q: under pipefail its early exit can
		# SIGPIPE printf and turn a match into a miss)
		if [[ " $* " == *" $n "* ]]; then word=OLD; fi
		yes "$(printf '%s consumers cell %4u' "$word" "$n")" | head -c 4096 >"$dir/$n.dat" || true
	done <<<"$cells"
}

# console LOG REPORTS [N...]: markers for the $ncells cells, and a WARNING at
# mm/gup.c:1113 during each cell N; REPORTS lists them as
# qemu/scan-console.sh --reports does.
console() {
	local log=$1 rep=$2 n line=0 first=1
	shift 2
	: >"$log"
	echo '[' >"$rep"
	for n in $(seq 1 "$ncells"); do
		echo "[    1.000000] gup-lab: consumers cell $n" >>"$log"
		line=$((line + 1))
		# (no pipe into grep -q: under pipefail its early exit can
		# SIGPIPE printf and turn a match into a miss)
		if [[ " $* " == *" $n "* ]]; then
			echo "[    1.000001] WARNING: CPU: 0 PID: 46 at ../src/mm/gup.c:1113 check_vma_flags+0x69/0xac" >>"$log"
			line=$((line + 1))
			[ $first = 1 ] || echo ',' >>"$rep"
			first=0
			printf '{"line": %d, "kind": "warning", "severity": 4, "title": "WARNING: CPU: 0 PID: 46 at ../src/mm/gup.c:1113 check_vma_flags+0x69/0xac", "location": "mm/gup.c:1113"}\n' \
				"$line" >>"$rep"
		fi
	done
	echo "[    2.000000] gup-lab: consumers end" >>"$log"
	echo ']' >>"$rep"
}

# A source tree whose mm/gup.c:1113 holds seed 005's WARN.
mkdir -p "$TMP/src/mm"
{
	for _ in $(seq 1 1112); do echo; done
	echo "		    $v1_text)"
} >"$TMP/src/mm/gup.c"

# The quick subset's cells of the overlays' interfaces, after those above:
# AF_XDP, rxe and siw as the other interfaces take the backings, the
# uprobes on ext4 untouched: interface backing state mapping file.
overlays="af-xdp-umem anon-private untouched old null
af-xdp-umem ext4-shared untouched old old
af-xdp-umem ext4-shared write-faulted old old
af-xdp-umem xfs-shared untouched old old
af-xdp-umem btrfs-shared untouched old old
rdma-rxe anon-private untouched new null
rdma-rxe ext4-shared untouched new new
rdma-rxe ext4-shared write-faulted new new
rdma-rxe xfs-shared untouched new new
rdma-rxe btrfs-shared untouched new new
rdma-siw anon-private untouched old null
rdma-siw ext4-shared untouched old old
rdma-siw ext4-shared write-faulted old old
rdma-siw xfs-shared untouched old old
rdma-siw btrfs-shared untouched old old
uprobe-refctr ext4-private untouched new old
uprobe ext4-private-ro untouched new old"
overlay_cells=$(wc -l <<<"$overlays")
total=$((ncells + overlay_cells))
# A base flavour's .config (no overlay), and one with every overlay.
printf 'CONFIG_IO_URING=y\n# CONFIG_XDP_SOCKETS is not set\n' >"$TMP/base.config"
printf 'CONFIG_IO_URING=y\nCONFIG_XDP_SOCKETS=y\nCONFIG_RDMA_RXE=y\nCONFIG_RDMA_SIW=y\nCONFIG_UPROBE_EVENTS=y\n' \
	>"$TMP/overlays.config"
# Every lab kernel has xfs and btrfs (patches/config.fragment).
printf 'CONFIG_XFS_FS=y\nCONFIG_BTRFS_FS=y\n' | tee -a "$TMP/base.config" >>"$TMP/overlays.config"

# The quick subset as gupctl lists it: the same cells, in the same order.
gupctl_quick=$("$GUPCTL" consumers expect --quick --policy stock | awk '/^ *[0-9]/ { print $2, $3, $4 }')
tap_is "$gupctl_quick" "$(printf '%s\n%s' "$cells" "$overlays" | awk '{ print $1, $2, $3 }')" \
	"gupctl's quick subset is this test's $ncells + $overlay_cells cells, in order"

# judge NAME POLICY [ARGS...]: judge into $TMP/NAME.json; rc is its status.
# The kernel is a base flavour's unless ARGS give another --config.
judge() {
	local name=$1 policy=$2
	shift 2
	run consumers judge --flavour "$name" --policy "$policy" --quick \
		--src "$TMP/src" --json "$TMP/$name.json" --ktap "$TMP/$name.ktap" \
		--config "$TMP/base.config" "$@"
}

field() {
	jq -r "$2" "$TMP/$1.json"
}

# cell NAME IFACE BACKING STATE FILTER: a field of that cell of NAME.json.
cell() {
	jq -r --arg i "$2" --arg b "$3" --arg s "$4" \
		".cells[] | select(.interface == \$i and .backing == \$b and .state == \$s) | $5" \
		"$TMP/$1.json"
}

# 1. stock as measured: everything as expected.
guest "$TMP/stock.guest"
disk "$TMP/disk"
console "$TMP/clean.log" "$TMP/clean.json"
judge stock stock --guest "$TMP/stock.guest" --disk "$TMP/disk" \
	--console "$TMP/clean.log" --reports "$TMP/clean.json"
if [ "$rc" -eq 0 ] && [ "$(field stock .summary.passed)" = true ] &&
	[ "$(field stock '.summary | "\(.cells) \(.ran) \(.skipped) \(.mismatches) \(.data_lost)"')" = "$total $ncells $overlay_cells 0 0" ] &&
	[ "$(grep -c '^ok ' "$TMP/stock.ktap")" = "$total" ] &&
	[ "$(grep -c ' # SKIP this kernel has no CONFIG_' "$TMP/stock.ktap")" = "$overlay_cells" ]; then
	tap_ok "stock's measurements pass: $ncells cells ran, all as expected; the $overlay_cells of the overlays' interfaces are KTAP SKIPs"
else
	not_ok "stock's measurements pass" "rc $rc, summary $(field stock -c .summary 2>/dev/null)"
fi
tap_is "$(cell stock ptrace-pokedata ext4-private-ro untouched '"\(.expected.outcome) \(.expected.file) \(.expected.disk)"')" \
	"ok old old" \
	"stock: the breakpoint into a read-only MAP_PRIVATE file is a COW copy: the file and disk keep OLD"
tap_is "$(cell stock io_uring ext4-shared untouched .expected.outcome) $(cell stock io_uring xfs-shared untouched .expected.outcome) $(cell stock io_uring btrfs-shared untouched .expected.outcome)" \
	"EOPNOTSUPP EOPNOTSUPP EOPNOTSUPP" \
	"stock: io_uring's own 6.1 check refuses the ext4, xfs and btrfs buffer alike"
tap_is "$(cell stock af-xdp-umem anon-private untouched '"\(.verdict) \(.match)"')" \
	"not run: no CONFIG_XDP_SOCKETS true" \
	"a kernel without CONFIG_XDP_SOCKETS: AF_XDP is 'not run: no CONFIG_XDP_SOCKETS'"
tap_is "$(cell stock o-direct-read btrfs-shared untouched '"\(.verdict) \(.expected.disk) \(.measured.disk)"')" \
	"ok new new" "stock: an O_DIRECT read into a btrfs MAP_SHARED page: its bytes on the btrfs disk"

# 2. a changed errno fails its cell.
n=$(idx ptrace-pokedata ext4-private-ro untouched)
guest "$TMP/errno.guest" "$n" EIO
judge errno stock --guest "$TMP/errno.guest" --disk "$TMP/disk" \
	--console "$TMP/clean.log" --reports "$TMP/clean.json"
tap_is "$rc $(field errno '.summary.mismatches') $(field errno ".cells[$((n - 1))].match")" "1 1 false" \
	"stock: PTRACE_POKEDATA failing with EIO is a mismatch (exit 1)"
tap_like "$(grep "^not ok $n " "$TMP/errno.ktap" || true)" 'expected ok, measured EIO' \
	"... and its KTAP line says expected ok, measured EIO"

# 3. success whose bytes are not on disk: DATA LOST, on ext4 and on btrfs.
n=$(idx o-direct-read ext4-shared untouched)
nb=$(idx process_vm_writev btrfs-shared untouched)
disk "$TMP/lost" "$n" "$nb"
judge lost stock --guest "$TMP/stock.guest" --disk "$TMP/lost" \
	--console "$TMP/clean.log" --reports "$TMP/clean.json"
tap_is "$rc $(field lost '.summary.data_lost') $(field lost ".cells[$((n - 1))].verdict")" \
	"1 2 DATA LOST" "an O_DIRECT read that returned ok but left OLD on the ext4 disk is DATA LOST"
tap_is "$(field lost ".cells[$((nb - 1))] | \"\(.verdict) \(.measured.file) \(.measured.disk)\"")" \
	"DATA LOST new old" "... and so is a process_vm_writev() whose bytes the btrfs image lacks"

# 4. a WARNING no stock cell expects.
console "$TMP/warn.log" "$TMP/warn.json" 2
judge warn stock --guest "$TMP/stock.guest" --disk "$TMP/disk" \
	--console "$TMP/warn.log" --reports "$TMP/warn.json"
tap_is "$rc $(field warn '.summary.unexpected_kernel_reports') $(field warn '.kernel_reports[0].cell') $(field warn '.kernel_reports[0].expected')" \
	"1 1 2 false" "a WARNING during stock's cell 2 is attributed to it and unexpected"

# 5. gup-v1: its refusals, each with seed 005's WARNING, pass.
mapfile -t v1 < <(tr ' ' '\n' <<<"$v1_cells")
v1_warn=$(awk '{ print $1 }' <<<"$v1_cells")
# the refused writes leave OLD on disk (the read-only mapping's file keeps it anyway)
guest "$TMP/v1.guest" "${v1[@]}"
# shellcheck disable=SC2086 # word lists
disk "$TMP/v1disk" $v1_warn
# shellcheck disable=SC2086
console "$TMP/v1.log" "$TMP/v1.json" $v1_warn
judge v1 v1 --guest "$TMP/v1.guest" --disk "$TMP/v1disk" \
	--console "$TMP/v1.log" --reports "$TMP/v1.json"
tap_is "$rc $(field v1 '.summary | "\(.mismatches) \(.expected_kernel_reports) \(.unexpected_kernel_reports)"')" \
	"0 0 $nv1 0" "gup-v1: PTRACE_POKEDATA, O_DIRECT and io_uring refused with seed 005's WARNING on ext4, xfs and btrfs ($nv1 cells), as expected"
tap_is "$(cell v1 ptrace-pokedata ext4-private-ro untouched .verdict)" "WARN EIO" \
	"gup-v1: the breakpoint into the read-only MAP_PRIVATE file is WARN EIO (seed 005 misses ptrace)"
tap_is "$(cell v1 o-direct-read xfs-shared untouched .verdict) $(cell v1 o-direct-read btrfs-shared untouched .verdict)" \
	"WARN EFAULT WARN EFAULT" "gup-v1: an O_DIRECT read into an untouched xfs or btrfs MAP_SHARED page is WARN EFAULT, as on ext4"

# 6. gup-v1 without the WARNINGs: each refusal misses its report.
judge v1quiet v1 --guest "$TMP/v1.guest" --disk "$TMP/v1disk" \
	--console "$TMP/clean.log" --reports "$TMP/clean.json"
tap_is "$rc $(field v1quiet '.summary.mismatches')" "1 $nv1" \
	"gup-v1: a refusal without its expected WARNING is a mismatch"
tap_like "$(cell v1quiet ptrace-pokedata ext4-shared untouched .note)" "expected warning .* was not seen" \
	"... and the cell's note says the WARNING was not seen"

# 7. a missing cell fails the run.
jq --argjson n "$((ncells - 1))" 'del(.cells[$n])' "$TMP/stock.guest" >"$TMP/short.guest"
judge short stock --guest "$TMP/short.guest" --disk "$TMP/disk" \
	--console "$TMP/clean.log" --reports "$TMP/clean.json"
tap_is "$rc $(field short '.summary | "\(.ran) \(.passed)"') $(field short ".cells[$((ncells - 1))].measured.outcome")" \
	"1 $((ncells - 1)) false not-run" "a cell missing from the guest's document is not-run and fails the run"

# 8. no guest at all: every cell not run, the reason kept.
judge none stock --not-run "the guest did not finish"
tap_is "$rc $(field none '.summary.ran') $(field none .why_not_run)" "1 0 the guest did not finish" \
	"--not-run: nothing ran, and the document says why"

# 9. a kernel with the overlays whose guest ran none of their cells: each
# is a mismatch, never a skip.
judge noover stock --config "$TMP/overlays.config" --guest "$TMP/stock.guest" \
	--disk "$TMP/disk" --console "$TMP/clean.log" --reports "$TMP/clean.json"
tap_is "$rc $(field noover '.summary | "\(.skipped) \(.mismatches)"')" "1 0 $overlay_cells" \
	"a kernel with CONFIG_XDP_SOCKETS, RDMA and uprobes: their cells must run (not run is a mismatch)"

# 10. the overlays' cells as stock 6.1 runs them: AF_XDP registers
# (no data moves), rxe registers and its RDMA WRITE lands (NEW in the
# ext4, xfs and btrfs file), siw registers, the uprobes write the child's
# private pages.
jq --argjson n "$ncells" --arg o "$overlays" '.cells += ($o | split("\n") | map(split(" "))
	| to_entries | map({index: (.key + $n + 1), interface: .value[0],
		backing: .value[1], state: .value[2],
		measured: {outcome: "ok", bytes: 4096, errno: null,
			   mapping: .value[3], file: (if .value[4] == "null" then null else .value[4] end),
			   read: null}}))' \
	"$TMP/stock.guest" >"$TMP/over.guest"
mkdir -p "$TMP/overdisk"
cp "$TMP/disk"/*.dat "$TMP/overdisk/"
n=$ncells
while read -r iface backing state mapping file; do
	n=$((n + 1))
	case $iface/$backing in uprobe*) continue ;; */ext4-* | */xfs-* | */btrfs-*) ;; *) continue ;; esac
	word=OLD
	[ "$file" != new ] || word=NEW
	yes "$(printf '%s consumers cell %4u' "$word" "$n")" | head -c 4096 >"$TMP/overdisk/$n.dat" || true
done <<<"$overlays"
judge over stock --config "$TMP/overlays.config" --guest "$TMP/over.guest" \
	--disk "$TMP/overdisk" --console "$TMP/clean.log" --reports "$TMP/clean.json"
tap_is "$rc $(field over '.summary | "\(.ran) \(.skipped) \(.mismatches)"')" "0 $total 0 0" \
	"a kernel with the overlays: AF_XDP, rxe (its RDMA WRITE on the ext4, xfs and btrfs disks), siw and both uprobes as expected"

# 11. a file system the guest had not mounted: its cells are not run, with
# the guest's reason, and each is a mismatch (never a pass, never a skip:
# the kernel has the file system).
why='no xfs mounted at /mnt/xfs (it is on file system magic 0xef53); jobs/guest/consumers.sh mounts the disk of qemu/run.sh --fs xfs there'
jq --arg why "$why" '.cells |= map(if .backing | startswith("xfs-") then
	.unsupported = $why | .measured = {outcome: "not-run", bytes: null, errno: null,
		mapping: null, file: null, read: null} else . end)' "$TMP/stock.guest" >"$TMP/noxfs.guest"
nxfs=$(grep -c ' xfs-' <<<"$cells")
judge noxfs stock --guest "$TMP/noxfs.guest" --disk "$TMP/disk" \
	--console "$TMP/clean.log" --reports "$TMP/clean.json"
tap_is "$rc $(field noxfs '.summary | "\(.ran) \(.skipped) \(.mismatches) \(.passed)"')" \
	"1 $((ncells - nxfs)) $overlay_cells $nxfs false" \
	"xfs not mounted: its $nxfs cells are not run and fail the run"
tap_is "$(cell noxfs process_vm_writev xfs-shared untouched '"\(.verdict) | \(.match)"')" \
	"not run: no xfs mounted at /mnt/xfs | false" "... each one's verdict says why, in short"
tap_like "$(grep "^not ok $(idx process_vm_writev xfs-shared untouched) " "$TMP/noxfs.ktap" || true)" \
	'the guest did not run it: no xfs mounted at /mnt/xfs .* expected ok, measured not-run' \
	"... and its KTAP line gives the guest's reason"

# 12. a kernel without btrfs: its cells are expected not run (SKIP).
grep -v BTRFS "$TMP/base.config" >"$TMP/nobtrfs.config"
jq '.cells |= map(if .backing | startswith("btrfs-") then
	.unsupported = "no btrfs at /mnt/btrfs: this kernel has no btrfs (/proc/filesystems)" |
	.measured = {outcome: "not-run", bytes: null, errno: null, mapping: null, file: null,
		read: null} else . end)' "$TMP/stock.guest" >"$TMP/nobtrfs.guest"
nbtrfs=$(grep -c ' btrfs-' <<<"$cells")
judge nobtrfs stock --config "$TMP/nobtrfs.config" --guest "$TMP/nobtrfs.guest" \
	--disk "$TMP/disk" --console "$TMP/clean.log" --reports "$TMP/clean.json"
tap_is "$rc $(field nobtrfs '.summary | "\(.skipped) \(.mismatches)"') $(cell nobtrfs vmsplice btrfs-shared untouched .verdict)" \
	"0 $((overlay_cells + nbtrfs)) 0 not run: no CONFIG_BTRFS_FS" \
	"a kernel without CONFIG_BTRFS_FS: its $nbtrfs cells are SKIPs, 'not run: no CONFIG_BTRFS_FS'"
tap_is "$(grep -c '# SKIP this kernel has no CONFIG_BTRFS_FS' "$TMP/nobtrfs.ktap")" "$nbtrfs" \
	"... each one's KTAP line an ok # SKIP naming the option"

# 12b. policy none (a kernel that matches no known policy): the same
# measurements, nothing expected; every cell that ran is "measured", a
# KTAP SKIP; a WARNING during a cell its finding; one after the last cell
# still fails the flavour.
expect "expect --policy none: each cell measured, no policy to compare" 0 out \
	'  1 process_vm_writev anon-private untouched' 'measured, no policy to compare' -- \
	consumers expect --quick --policy none
expect "judge --policy bogus: exit 2, none among the choices" 2 err "unknown policy 'bogus'" \
	', or none' -- consumers judge --flavour x --policy bogus --json "$TMP/x.json"
# the gup-v1 guest's refusals: no policy to hold them against
console "$TMP/none.log" "$TMP/none.reports" "${v1_warn%%$'\n'*}"
judge none none --source 6.1 --guest "$TMP/v1.guest" --disk "$TMP/v1disk" \
	--console "$TMP/none.log" --reports "$TMP/none.reports"
n=${v1_warn%%$'\n'*}
tap_is "$rc $(field none '.summary | "\(.cells) \(.ran) \(.measured_only) \(.skipped) \(.mismatches) \(.findings) \(.unexpected_kernel_reports) \(.data_lost) \(.passed)"') $(field none .source)" \
	"0 $total $ncells $ncells $overlay_cells 0 1 0 0 true 6.1.192" \
	"policy none: all $ncells cells that ran are measured, the overlays' SKIPs stay, exit 0, passed"
tap_is "$(field none "[.cells[] | select(.measured_only) | .expected] | unique | map(tostring) | join(\",\")") $(field none ".cells[$((n - 1))] | \"\(.verdict) \(.match) \(.reason)\"")" \
	"null WARN EIO true measured, no policy to compare" \
	"... each with \"expected\": null; the refused cell with its WARNING: 'WARN EIO', measured"
tap_is "$(field none '.kernel_reports[0] | "\(.cell) \(.expected) \(.finding)"')" "$n false true" \
	"... the WARNING during it: its cell's finding, neither expected nor a failure"
tap_is "$(cell none o-direct-read xfs-shared untouched '"\(.measured.disk) \(.measured.file)"')" "old old" \
	"... what the host read from the xfs image is recorded, with nothing to compare it to"
tap_is "$(grep -c "^ok [0-9]* .* # SKIP measured, no policy to compare: " "$TMP/none.ktap") $(grep -c '^not ok' "$TMP/none.ktap" || true)" \
	"$ncells 0" "... its KTAP: one ok # SKIP measured, no policy to compare per cell that ran, no not ok"
tap_like "$(tail -1 "$TMP/none.ktap")" "$ncells measured, no policy to compare" "... and the KTAP's last line counts them"
# a report after the last cell is no cell's: it fails the flavour
sed -i 's/^\[    2.000000\] gup-lab: consumers end$/&\n[    2.000001] WARNING: CPU: 0 PID: 46 at ..\/src\/mm\/gup.c:1113 check_vma_flags+0x69\/0xac/' \
	"$TMP/none.log"
jq --argjson l "$(grep -n 'consumers end' "$TMP/none.log" | cut -d: -f1)" \
	'. + [{line: ($l + 1), kind: "warning", severity: 4, title: "WARNING: after", location: "mm/gup.c:1113"}]' \
	"$TMP/none.reports" >"$TMP/none2.reports"
judge none2 none --source 6.1 --guest "$TMP/v1.guest" --disk "$TMP/v1disk" \
	--console "$TMP/none.log" --reports "$TMP/none2.reports"
tap_is "$rc $(field none2 '.summary | "\(.findings) \(.unexpected_kernel_reports) \(.passed)"')" "1 1 1 false" \
	"policy none: a WARNING after the last cell is no cell's finding: unexpected, exit 1"
# a cell the guest did not measure is not run: that fails, policy or not
jq 'del(.cells[0])' "$TMP/v1.guest" >"$TMP/none3.guest"
judge none3 none --source 6.1 --guest "$TMP/none3.guest" --disk "$TMP/v1disk" \
	--console "$TMP/clean.log" --reports "$TMP/clean.json"
tap_is "$rc $(field none3 '.summary | "\(.measured_only) \(.mismatches)"') $(grep -c '^not ok 1 ' "$TMP/none3.ktap")" \
	"1 $((ncells - 1)) 1 1" "policy none: a cell not measured is not run, a failure (not ok)"
mkdir -p "$TMP/resnone"
cp "$TMP/none.json" "$TMP/resnone/none.json"
cp "$TMP/stock.json" "$TMP/resnone/stock.json"
# shellcheck disable=SC2016 # markdown
echo '{"job": "consumers", "commit": "test", "date": "today", "flavours": [{"name": "stock"}, {"name": "none"}]}' \
	>"$TMP/resnone/run.json"
expect "report: a flavour of policy none, its cells measured, its finding listed" 0 out -- \
	consumers report --md "$TMP/nonepage.md" "$TMP/resnone"
tap_like "$(grep '^| none | none | ' "$TMP/nonepage.md")" \
	"\\| none \\| none \\| 6\\.1\\.0-test \\| $total \\| $ncells \\| $overlay_cells, $ncells measured, no policy to compare \\|" \
	"the page's summary: none's cells measured, not 'as expected'"
tap_like "$(grep '^| anon-private, untouched |' "$TMP/nonepage.md" | head -1)" '\| ok \| ok \(measured\) \|$' \
	"... its table cells: the measurement, '(measured)', never bold"
tap_like "$(grep -A2 '^none, policy none' "$TMP/nonepage.md" | tr '\n' ' ')" \
	"$ncells cells measured, no policy to compare.*1 kernel report\\(s\\) during its cells.*- cell $n ptrace-pokedata ext4-shared untouched: warning" \
	"... and its finding, by cell"

# 13. every xfs and btrfs cell of the full run is expected as its ext4
# twin (same interface, mapping and state), under every policy: outcome,
# report, and what each view reads back.
mapfile -t policies < <("$GUPCTL" consumers expect 2>&1 | sed -n 's/.*give --policy: //p' |
	sed 's/, or none$//' | tr -d ' ' | tr ',' '\n')
twins_bad=() ntwins=0
for policy in "${policies[@]}"; do
	"$GUPCTL" consumers expect --policy "$policy" |
		awk '/^ *[0-9]/ { $1 = ""; print }' >"$TMP/expect.$policy"
	while read -r fs; do
		# "IFACE FS-MAPPING STATE rest" -> "IFACE ext4-MAPPING STATE rest"
		diff <(grep -E "^ [^ ]+ $fs-" "$TMP/expect.$policy" | sed "s/^\( [^ ]*\) $fs-/\1 ext4-/") \
			<(grep -E "^ [^ ]+ ext4-" "$TMP/expect.$policy") >"$TMP/twins.diff" ||
			twins_bad+=("$policy $fs: $(head -3 "$TMP/twins.diff" | tr '\n' ' ')")
		ntwins=$((ntwins + $(grep -cE "^ [^ ]+ $fs-" "$TMP/expect.$policy")))
	done <<<"xfs
btrfs"
done
next=$(grep -cE '^ [^ ]+ ext4-' "$TMP/expect.stock")
none_bad "every policy (${policies[*]}): each of the $next xfs and $next btrfs cells is expected as its ext4 twin ($ntwins in all)" \
	"differ" "${twins_bad[@]}"
tap_is "$(grep -cE '^ [^ ]+ xfs-' "$TMP/expect.stock") $(grep -cE '^ [^ ]+ btrfs-' "$TMP/expect.stock")" \
	"$next $next" "the full run has as many xfs and btrfs cells as ext4 ones (no twin the model lacks)"

# 14. the page: the twins side by side, xfs and btrfs as their ext4 twins.
mkdir -p "$TMP/res"
cp "$TMP/stock.json" "$TMP/res/stock.json"
echo '{"job": "consumers", "commit": "test", "date": "today", "flavours": [{"name": "stock"}]}' \
	>"$TMP/res/run.json"
run consumers report --md "$TMP/page.md" "$TMP/res"
nx=$(grep -c ' xfs-' <<<"$cells")
nbt=$(grep -c ' btrfs-' <<<"$cells")
tap_like "$(grep -A3 '^## xfs and btrfs against their ext4 twins' "$TMP/page.md" | tail -1; grep '^| stock | ' "$TMP/page.md" | tail -1)" \
	"\| stock \| $nx of $nx \| $nbt of $nbt \|" "the page: stock's $nx xfs and $nbt btrfs cells as their ext4 twins"
tap_like "$(grep -c '^| xfs-shared, untouched |' "$TMP/page.md")" "^[1-9]" \
	"the page's tables have the xfs rows"

tap_done
