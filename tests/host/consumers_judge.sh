#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Host tests of gupctl consumers judge, no guest: a synthetic guest
# document of the quick subset, the ext4 files as the host would read them
# from the scratch image, and a console with the cells' markers and kernel
# reports.  The measurements are written out here from what each interface
# does under stock 6.1 and gup-v1 (not taken from the judge); the judge
# must pass them, and fail a changed errno, a write whose bytes are not on
# disk (DATA LOST), a WARNING no cell expects, an expected WARNING that
# never came, and a missing cell.  The interfaces of the overlays (AF_XDP,
# RDMA, uprobes) are judged against the kernel's .config: a kernel without
# their option must not run them (KTAP SKIP, never a pass), one with it must.
# Output: TAP version 13.  Exit status: 0 if every test passed.
#
# usage: tests/host/consumers_judge.sh [PATH/TO/gupctl]
#   Without an argument (as tests/run.sh calls it) userspace/gupctl is built
#   with make and tested.
set -euo pipefail

# shellcheck source=../gupctl_harness.sh
. "$(dirname "$0")/../gupctl_harness.sh"

# The quick subset, in its order: interface backing state outcome mapping
# file read, under stock 6.1.
cells="process_vm_writev anon-private untouched ok new null null
process_vm_writev ext4-shared untouched ok new new null
process_vm_writev ext4-shared write-faulted ok new new null
process_vm_readv anon-private untouched ok old null old
process_vm_readv ext4-shared untouched ok old old old
process_vm_readv ext4-shared write-faulted ok old old old
proc-pid-mem anon-private untouched ok new null null
proc-pid-mem ext4-shared untouched ok new new null
proc-pid-mem ext4-shared write-faulted ok new new null
proc-pid-mem ext4-private-ro untouched ok new old null
ptrace-pokedata anon-private untouched ok new null null
ptrace-pokedata ext4-shared untouched ok new new null
ptrace-pokedata ext4-shared write-faulted ok new new null
ptrace-pokedata ext4-private-ro untouched ok new old null
o-direct-read anon-private untouched ok new null null
o-direct-read ext4-shared untouched ok new new null
o-direct-read ext4-shared write-faulted ok new new null
vmsplice anon-private untouched ok old null old
vmsplice ext4-shared untouched ok old old old
vmsplice ext4-shared write-faulted ok old old old
io_uring anon-private untouched ok new null null
io_uring ext4-shared untouched EOPNOTSUPP old old null
io_uring ext4-shared write-faulted EOPNOTSUPP old old null"

# gup-v1 differs in six cells: seed 005 refuses, with its WARN, a FOLL_GET
# or FOLL_PIN write to an ext4 VMA from callers without
# FOLL_ALLOW_BROKEN_FILE_MAPPING (PTRACE_POKEDATA, O_DIRECT when GUP-fast
# finds no writable PTE, io_uring), number outcome.
v1_cells="12 EIO
13 EIO
14 EIO
16 EFAULT
22 EFAULT
23 EFAULT"
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

# disk DIR [N...]: every ext4 cell's file as its expected bytes (NEW for a
# write that landed in a MAP_SHARED file, OLD otherwise); the cells N
# hold OLD (a write that did not land).
disk() {
	local dir=$1 n=0 iface backing state outcome mapping file read word
	shift
	rm -rf "$dir"
	mkdir -p "$dir"
	while read -r iface backing state outcome mapping file read; do
		n=$((n + 1))
		case $backing in ext4-*) ;; *) continue ;; esac
		word=OLD
		[ "$file" != new ] || word=NEW
		if printf '%s\n' "$@" | grep -qx "$n"; then word=OLD; fi
		yes "$(printf '%s consumers cell %4u' "$word" "$n")" | head -c 4096 >"$dir/$n.dat" || true
	done <<<"$cells"
}

# console LOG REPORTS [N...]: markers for the 23 cells, and a WARNING at
# mm/gup.c:1113 during each cell N; REPORTS lists them as
# qemu/scan-console.sh --reports does.
console() {
	local log=$1 rep=$2 n line=0 first=1
	shift 2
	: >"$log"
	echo '[' >"$rep"
	for n in $(seq 1 23); do
		echo "[    1.000000] gup-lab: consumers cell $n" >>"$log"
		line=$((line + 1))
		if printf '%s\n' "$@" | grep -qx "$n"; then
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

# The quick subset's cells of the overlays' interfaces, after the 23 above.
overlay_cells=11
total=$((23 + overlay_cells))
# A base flavour's .config (no overlay), and one with every overlay.
printf 'CONFIG_IO_URING=y\n# CONFIG_XDP_SOCKETS is not set\n' >"$TMP/base.config"
printf 'CONFIG_IO_URING=y\nCONFIG_XDP_SOCKETS=y\nCONFIG_RDMA_RXE=y\nCONFIG_RDMA_SIW=y\nCONFIG_UPROBE_EVENTS=y\n' \
	>"$TMP/overlays.config"

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

# 1. stock as measured: everything as expected.
guest "$TMP/stock.guest"
disk "$TMP/disk"
console "$TMP/clean.log" "$TMP/clean.json"
judge stock stock --guest "$TMP/stock.guest" --disk "$TMP/disk" \
	--console "$TMP/clean.log" --reports "$TMP/clean.json"
if [ "$rc" -eq 0 ] && [ "$(field stock .summary.passed)" = true ] &&
	[ "$(field stock '.summary | "\(.cells) \(.ran) \(.skipped) \(.mismatches) \(.data_lost)"')" = "$total 23 $overlay_cells 0 0" ] &&
	[ "$(grep -c '^ok ' "$TMP/stock.ktap")" = "$total" ] &&
	[ "$(grep -c ' # SKIP this kernel has no CONFIG_' "$TMP/stock.ktap")" = "$overlay_cells" ]; then
	tap_ok "stock's measurements pass: 23 cells ran, all as expected; the $overlay_cells of the overlays' interfaces are KTAP SKIPs"
else
	not_ok "stock's measurements pass" "rc $rc, summary $(field stock -c .summary 2>/dev/null)"
fi
tap_is "$(field stock '.cells[13] | "\(.interface) \(.backing) \(.expected.outcome) \(.expected.file) \(.expected.disk)"')" \
	"ptrace-pokedata ext4-private-ro ok old old" \
	"stock: the breakpoint into a read-only MAP_PRIVATE file is a COW copy: the file and disk keep OLD"
tap_is "$(field stock '.cells[21].expected.outcome')" EOPNOTSUPP \
	"stock: io_uring's own 6.1 check refuses the ext4 buffer"
tap_is "$(field stock '.cells[23] | "\(.interface) \(.verdict) \(.match)"')" \
	"af-xdp-umem not run: no CONFIG_XDP_SOCKETS true" \
	"a kernel without CONFIG_XDP_SOCKETS: AF_XDP is 'not run: no CONFIG_XDP_SOCKETS'"

# 2. a changed errno fails its cell.
guest "$TMP/errno.guest" 14 EIO
judge errno stock --guest "$TMP/errno.guest" --disk "$TMP/disk" \
	--console "$TMP/clean.log" --reports "$TMP/clean.json"
tap_is "$rc $(field errno '.summary.mismatches') $(field errno '.cells[13].match')" "1 1 false" \
	"stock: PTRACE_POKEDATA failing with EIO is a mismatch (exit 1)"
tap_like "$(grep '^not ok 14 ' "$TMP/errno.ktap" || true)" 'expected ok, measured EIO' \
	"... and its KTAP line says expected ok, measured EIO"

# 3. success whose bytes are not on disk: DATA LOST.
disk "$TMP/lost" 16
judge lost stock --guest "$TMP/stock.guest" --disk "$TMP/lost" \
	--console "$TMP/clean.log" --reports "$TMP/clean.json"
tap_is "$rc $(field lost '.summary.data_lost') $(field lost '.cells[15].verdict')" \
	"1 1 DATA LOST" "an O_DIRECT read that returned ok but left OLD on disk is DATA LOST"

# 4. a WARNING no stock cell expects.
console "$TMP/warn.log" "$TMP/warn.json" 2
judge warn stock --guest "$TMP/stock.guest" --disk "$TMP/disk" \
	--console "$TMP/warn.log" --reports "$TMP/warn.json"
tap_is "$rc $(field warn '.summary.unexpected_kernel_reports') $(field warn '.kernel_reports[0].cell') $(field warn '.kernel_reports[0].expected')" \
	"1 1 2 false" "a WARNING during stock's cell 2 is attributed to it and unexpected"

# 5. gup-v1: its six refusals, each with seed 005's WARNING, pass.
mapfile -t v1 < <(tr ' ' '\n' <<<"$v1_cells")
v1_warn=$(awk '{ print $1 }' <<<"$v1_cells")
refused=$(awk '{ print $1 }' <<<"$v1_cells" | grep -vx 14 || true)
guest "$TMP/v1.guest" "${v1[@]}"
# shellcheck disable=SC2086 # word lists
disk "$TMP/v1disk" $refused
# shellcheck disable=SC2086
console "$TMP/v1.log" "$TMP/v1.json" $v1_warn
judge v1 v1 --guest "$TMP/v1.guest" --disk "$TMP/v1disk" \
	--console "$TMP/v1.log" --reports "$TMP/v1.json"
tap_is "$rc $(field v1 '.summary | "\(.mismatches) \(.expected_kernel_reports) \(.unexpected_kernel_reports)"')" \
	"0 0 6 0" "gup-v1: PTRACE_POKEDATA, O_DIRECT and io_uring refused with seed 005's WARNING, as expected"
tap_is "$(field v1 '.cells[13].verdict')" "WARN EIO" \
	"gup-v1: the breakpoint into the read-only MAP_PRIVATE file is WARN EIO (seed 005 misses ptrace)"

# 6. gup-v1 without the WARNINGs: each refusal misses its report.
judge v1quiet v1 --guest "$TMP/v1.guest" --disk "$TMP/v1disk" \
	--console "$TMP/clean.log" --reports "$TMP/clean.json"
tap_is "$rc $(field v1quiet '.summary.mismatches')" "1 6" \
	"gup-v1: a refusal without its expected WARNING is a mismatch"
tap_like "$(field v1quiet '.cells[11].note')" "expected warning .* was not seen" \
	"... and the cell's note says the WARNING was not seen"

# 7. a missing cell fails the run.
jq 'del(.cells[22])' "$TMP/stock.guest" >"$TMP/short.guest"
judge short stock --guest "$TMP/short.guest" --disk "$TMP/disk" \
	--console "$TMP/clean.log" --reports "$TMP/clean.json"
tap_is "$rc $(field short '.summary | "\(.ran) \(.passed)"') $(field short '.cells[22].measured.outcome')" \
	"1 22 false not-run" "a cell missing from the guest's document is not-run and fails the run"

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
# ext4 file), siw registers, the uprobes write the child's private pages.
jq --argjson n 23 '.cells += ([
	["af-xdp-umem", "anon-private", "untouched", "old", null],
	["af-xdp-umem", "ext4-shared", "untouched", "old", "old"],
	["af-xdp-umem", "ext4-shared", "write-faulted", "old", "old"],
	["rdma-rxe", "anon-private", "untouched", "new", null],
	["rdma-rxe", "ext4-shared", "untouched", "new", "new"],
	["rdma-rxe", "ext4-shared", "write-faulted", "new", "new"],
	["rdma-siw", "anon-private", "untouched", "old", null],
	["rdma-siw", "ext4-shared", "untouched", "old", "old"],
	["rdma-siw", "ext4-shared", "write-faulted", "old", "old"],
	["uprobe-refctr", "ext4-private", "untouched", "new", "old"],
	["uprobe", "ext4-private-ro", "untouched", "new", "old"]]
	| to_entries | map({index: (.key + $n + 1), interface: .value[0],
		backing: .value[1], state: .value[2],
		measured: {outcome: "ok", bytes: 4096, errno: null, mapping: .value[3],
			   file: .value[4], read: null}}))' \
	"$TMP/stock.guest" >"$TMP/over.guest"
mkdir -p "$TMP/overdisk"
cp "$TMP/disk"/*.dat "$TMP/overdisk/"
for n in 25 26 27 28 29 30 31 32; do
	word=OLD
	case $n in 28 | 29) word=NEW ;; esac
	yes "$(printf '%s consumers cell %4u' "$word" "$n")" | head -c 4096 >"$TMP/overdisk/$n.dat" || true
done
judge over stock --config "$TMP/overlays.config" --guest "$TMP/over.guest" \
	--disk "$TMP/overdisk" --console "$TMP/clean.log" --reports "$TMP/clean.json"
tap_is "$rc $(field over '.summary | "\(.ran) \(.skipped) \(.mismatches)"')" "0 $total 0 0" \
	"a kernel with the overlays: AF_XDP, rxe (its RDMA WRITE on disk), siw and both uprobes as expected"

tap_done
