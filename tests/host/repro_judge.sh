#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Host tests of the ext4-2018 reproduction's host side, no guest: gupctl
# repro judge on synthetic inputs (the guest's facts, the runner's report,
# consoles with a WARNING, a BUG, none; the host's read of the file), then
# collect and report.  Each classification is also shown failing.
# Output: TAP version 13.  Exit status: 0 if every test passed.
#
# usage: tests/host/repro_judge.sh [PATH/TO/gupctl]
#   Without an argument (as tests/run.sh calls it) userspace/gupctl is built
#   with make and tested.
set -euo pipefail

# shellcheck source=../gupctl_harness.sh
. "$(dirname "$0")/../gupctl_harness.sh"

# pattern TAG: one 4 KiB page of the guest's pattern TAG (OLD or NEW).
pattern() {
	local i
	for i in $(seq 0 63); do
		printf '%-63s\n' "gup-lab repro $1 line $(printf %02d "$i")"
	done
}
pattern OLD >"$TMP/old"
pattern NEW >"$TMP/new"
head -c 4096 /dev/zero >"$TMP/zeros"

# facts FILE LABEL PINNED STEP_N STEP_NAME [GUEST DIRECT EVICTED]: the
# guest's --json facts (reads omitted: the guest never got there).
facts() {
	jq -n --arg lbl "$2" --arg pinned "$3" --argjson n "$4" --arg step "$5" \
		--arg g "${6:-}" --arg d "${7:-}" --arg e "${8:-}" '{
		scenario: "ext4-2018", cell: {"label": $lbl},
		kernel_release: "6.1.192", file: "/mnt/ext4/repro.dat",
		pinned: (if $pinned == "" then null else $pinned end),
		last_step: {number: $n, name: $step},
		reads: (if $g == "" then null else
			{guest: $g, direct: (if $d == "" then null else $d end),
			 evicted: (if $e == "" then null else $e end)} end),
		fsync: null, failed: null, finished: ($g != "")}' >"$1"
}

# report FILE VERDICT STATUS [TIMED_OUT]: the runner's report (qemu/run.sh
# --report's JSON; STATUS null: the guest reported none).
report() {
	jq -n --arg v "$2" --argjson s "$3" --argjson t "${4:-false}" '{
		flavour: "test", kernel_dir: "/nonexistent", run_dir: "/nonexistent",
		console: "/nonexistent/console.log", scratch_image: "/nonexistent/scratch.img",
		guest_status: $s, kernel_verdict: $v, timed_out: $t, wall_seconds: 4.5,
		first_report: null}' >"$1"
}

# A decoded WARNING (ext4_dirty_folio, a pin's dirty release), scheduler
# leftovers in the trace, then ext4's warning at writeback.
cat >"$TMP/warn.console" <<'EOF'
repro-step 8: release the pin with GUP_UNPIN_DIRTY (set_page_dirty: ext4_dirty_folio)
[    3.374274] ------------[ cut here ]------------
[    3.374473] WARNING: CPU: 0 PID: 45 at ../src/fs/ext4/inode.c:3664 ext4_dirty_folio (/var/cache/gup-lab/kernels/stock-0123/build/../src/fs/ext4/inode.c:3664 (discriminator 1))
[    3.375206] Modules linked in: gup_pin_test(O)
[    3.376204] RIP: 0010:ext4_dirty_folio (/var/cache/gup-lab/kernels/stock-0123/build/../src/fs/ext4/inode.c:3664 (discriminator 1))
[    3.378473] Call Trace:
[    3.378856]  <TASK>
[    3.378978] ? unpin_user_pages_dirty_lock (/var/cache/gup-lab/kernels/stock-0123/build/../src/mm/gup.c:361)
[    3.379000] ? asm_common_interrupt (/var/cache/gup-lab/kernels/stock-0123/build/../src/arch/x86/include/asm/idtentry.h:682)
[    3.379242] ? gpt_pin_put+0x55/0xb5 gup_pin_test
[    3.379564] ? gpt_ioctl+0x763/0xa3c gup_pin_test
[    3.379806] ? vfs_write (/var/cache/gup-lab/kernels/stock-0123/build/../src/fs/read_write.c:593)
[    3.380407]  </TASK>
[    3.380505] ---[ end trace 0000000000000000 ]---
repro-step 9: fsync: ext4 writeback meets the page
[    3.381680] EXT4-fs warning (device vdb): mpage_prepare_extent_to_map:2671: inode #12: comm gupctl: page 0 does not have buffers attached
EOF

# A raw (not decoded) BUG, then the panic oops=panic makes of it.
cat >"$TMP/bug.console" <<'EOF'
repro-step 9: fsync: ext4 writeback meets the page
[    3.204167] ------------[ cut here ]------------
[    3.204167] kernel BUG at ../src/fs/ext4/inode.c:2658!
[    3.204167] invalid opcode: 0000 [#1] SMP
[    3.204167] RIP: 0010:mpage_prepare_extent_to_map+0x2a7/0x3a5
[    3.204167] Call Trace:
[    3.204167]  <TASK>
[    3.204167]  ? ext4_writepages+0x2f1/0x9e4
[    3.204167]  ? schedule+0x6b/0x9c
[    3.204167]  ? do_writepages+0xc5/0x13c
[    3.204167]  ? ext4_sync_file+0x1a3/0x2c4
[    3.204167]  ? __x64_sys_fsync+0x11/0x17
[    3.204167]  ? do_syscall_64+0x39/0x46
[    3.204167]  </TASK>
[    3.208167] ---[ end trace 0000000000000000 ]---
[    3.208167] RIP: 0010:mpage_prepare_extent_to_map+0x2a7/0x3a5
[    3.212167] Kernel panic - not syncing: Fatal exception
[    3.212167] ---[ end Kernel panic - not syncing: Fatal exception ]---
EOF

printf 'repro-step 11: release the observer (no dirtying), drop caches, pread\n' >"$TMP/clean.console"

# Each console's kernel reports, as jobs/repro.sh lists them for the judge.
for c in warn bug clean; do
	"$ROOT/qemu/scan-console.sh" --reports "$TMP/$c.console" >"$TMP/$c.reports"
done

STOCK=(--flavour stock --policy stock --ext4 warn)
V7=(--flavour gup-v7 --policy v7 --ext4 warn)
BUG=(--flavour ext4-2018 --policy stock --ext4 bug --bug-site fs/ext4/inode.c:2658)

# judge DESC WANT_RC WANT_OUTCOME WANT_MATCH -- JUDGE_ARGS...: judge a cell
# into $TMP/cell.json; its exit status, outcome and match.
judge() {
	local desc=$1 want_rc=$2 want_outcome=$3 want_match=$4 got
	shift 5
	run repro judge "$@" -o "$TMP/cell.json"
	got="$rc|$(jq -r .measured.outcome "$TMP/cell.json" 2>/dev/null)|$(jq -r .match "$TMP/cell.json" 2>/dev/null)"
	if [ "$got" = "$want_rc|$want_outcome|$want_match" ]; then
		tap_ok "$desc"
	else
		not_ok "$desc" "got exit|outcome|match '$got'" \
			"want '$want_rc|$want_outcome|$want_match'"
	fi
}

# field FILTER: a field of the last judged cell.
field() {
	jq -r "$1" "$TMP/cell.json"
}

# -- the WARNING route: data lost ------------------------------------------
facts "$TMP/pin.json" pin yes 11 evict-read new old old
report "$TMP/warn.report" warning 0
judge "stock pin: WARNING, ext4 warned, host reads OLD: the expected data loss" \
	0 'WARNING + data lost (host reads OLD)' true -- "${STOCK[@]}" --method pin \
	--guest-json "$TMP/pin.json" --report "$TMP/warn.report" \
	--console "$TMP/warn.console" --reports "$TMP/warn.reports" --host-read "$TMP/old"
tap_is "$(field '.kernel_reports | map(.kind) | join(",")')" warning "one kernel report, a warning"
tap_is "$(field '.kernel_reports[0] | "\(.location) \(.cell) \(.expected)"')" \
	'fs/ext4/inode.c:3664 pin true' "its location from the source root, its cell, expected"
tap_is "$(field '.kernel_reports[0].frames | map("\(.function)@\(.location)") | join(" ")')" \
	'ext4_dirty_folio@fs/ext4/inode.c:3664 unpin_user_pages_dirty_lock@mm/gup.c:361 gpt_pin_put@gup_pin_test.ko gpt_ioctl@gup_pin_test.ko' \
	"frames: the RIP first, interrupt leftovers dropped, up to the driver's ioctl"
tap_is "$(field '.measured.reads | "\(.guest) \(.direct) \(.evicted) \(.host)"')" 'new old old old' \
	"reads: the guest's three and the host's"
tap_like "$(field '.measured.ext4_warnings[0]')" '^mpage_prepare_extent_to_map:2671: .*does not have buffers attached$' \
	"ext4's warning, kept"
tap_like "$(field .expected.reason)" 'fs/ext4/readpage\.c:[0-9]+' "the reason names the kernel code (file:line)"

judge "... the same boot with the host reading NEW is no data loss: MISMATCH" \
	1 'warning + host reads NEW (ext4 warned: no buffers)' false -- "${STOCK[@]}" \
	--method pin --guest-json "$TMP/pin.json" --report "$TMP/warn.report" \
	--console "$TMP/warn.console" --reports "$TMP/warn.reports" --host-read "$TMP/new"
judge "... and without ext4's warning it is no WARNING + data lost: MISMATCH" \
	1 'warning + host reads OLD' false -- "${STOCK[@]}" --method pin \
	--guest-json "$TMP/pin.json" --report "$TMP/warn.report" \
	--console <(grep -v 'EXT4-fs warning' "$TMP/warn.console") \
	--reports "$TMP/warn.reports" --host-read "$TMP/old"
facts "$TMP/mx.json" move-ext:get+write yes 13 evict-read new zeros zeros
judge "move-ext:get+write: the host reads zeros" \
	0 'WARNING + data lost (host reads ZEROS)' true -- "${STOCK[@]}" --route move-ext \
	--method get --write --guest-json "$TMP/mx.json" \
	--report "$TMP/warn.report" --console "$TMP/warn.console" --reports "$TMP/warn.reports" --host-read "$TMP/zeros"
judge "a missing host read is 'missing'" \
	1 'WARNING + data lost (host reads MISSING)' false -- "${STOCK[@]}" --method pin \
	--guest-json "$TMP/pin.json" --report "$TMP/warn.report" \
	--console "$TMP/warn.console" --reports "$TMP/warn.reports" --host-read "$TMP/nonexistent"

# -- no loss: clean, host NEW ------------------------------------------------
facts "$TMP/w.json" pin+write yes 11 evict-read new new new
report "$TMP/clean.report" clean 0
judge "stock pin+write: clean, host reads NEW" 0 'no loss (host reads NEW)' true -- \
	"${STOCK[@]}" --method pin --write --guest-json "$TMP/w.json" \
	--report "$TMP/clean.report" --console "$TMP/clean.console" --reports "$TMP/clean.reports" --host-read "$TMP/new"
judge "... an unexpected WARNING on the console: MISMATCH" \
	1 'warning + host reads NEW (ext4 warned: no buffers)' false -- "${STOCK[@]}" \
	--method pin --write --guest-json "$TMP/w.json" --report "$TMP/warn.report" \
	--console "$TMP/warn.console" --reports "$TMP/warn.reports" --host-read "$TMP/new"
tap_is "$(field '.kernel_reports[0].expected')" false "... and the report is marked unexpected"

# -- blocked ---------------------------------------------------------------
facts "$TMP/b.json" pin+write EFAULT 4 pin old
judge "gup-v7 pin+write: blocked (EFAULT)" 0 'blocked (EFAULT)' true -- "${V7[@]}" \
	--method pin --write --guest-json "$TMP/b.json" --report "$TMP/clean.report" \
	--console "$TMP/clean.console" --reports "$TMP/clean.reports" --host-read "$TMP/old"
judge "stock pin+write refused: MISMATCH" 1 'blocked (EFAULT)' false -- "${STOCK[@]}" \
	--method pin --write --guest-json "$TMP/b.json" --report "$TMP/clean.report" \
	--console "$TMP/clean.console" --reports "$TMP/clean.reports" --host-read "$TMP/old"
judge "gup-v7 blocked, but the kernel warned: MISMATCH" 1 'blocked (EFAULT) + kernel warning' false -- \
	"${V7[@]}" --method pin --write --guest-json "$TMP/b.json" --report "$TMP/warn.report" \
	--console "$TMP/warn.console" --reports "$TMP/warn.reports" --host-read "$TMP/old"

# -- the BUG ---------------------------------------------------------------
facts "$TMP/bug.json" pin yes 9 fsync
report "$TMP/bug.report" panic null
judge "ext4-2018 pin: the BUG at the flavour's line, in fsync" 0 'BUG (fs/ext4/inode.c:2658)' true -- \
	"${BUG[@]}" --method pin --guest-json "$TMP/bug.json" --report "$TMP/bug.report" \
	--console "$TMP/bug.console" --reports "$TMP/bug.reports" --host-read "$TMP/old"
tap_is "$(field '.kernel_reports | map("\(.kind):\(.expected)") | join(",")')" 'bug:true,panic:true' \
	"the BUG and its panic, both expected"
tap_is "$(field '.kernel_reports[0].frames | map(.function) | join(" ")')" \
	'mpage_prepare_extent_to_map ext4_writepages do_writepages ext4_sync_file __x64_sys_fsync' \
	"frames of a raw console: scheduler leftovers dropped, up to the system call"
tap_is "$(field '.expected.kernel_reports | map(.kind) | join(",")')" 'warning,bug,panic' \
	"the expectation lists the reports it allows"
judge "... a BUG at another line: MISMATCH" 1 'BUG (fs/ext4/inode.c:2658)' false -- \
	--flavour ext4-2018 --policy stock --ext4 bug --bug-site fs/ext4/inode.c:2600 --method pin \
	--guest-json "$TMP/bug.json" --report "$TMP/bug.report" \
	--console "$TMP/bug.console" --reports "$TMP/bug.reports" --host-read "$TMP/old"
facts "$TMP/bug8.json" pin yes 8 unpin-dirty
judge "... a BUG before fsync says at which step: MISMATCH" \
	1 'BUG (fs/ext4/inode.c:2658) at step 8 unpin-dirty' false -- "${BUG[@]}" --method pin \
	--guest-json "$TMP/bug8.json" --report "$TMP/bug.report" \
	--console "$TMP/bug.console" --reports "$TMP/bug.reports" --host-read "$TMP/old"
judge "stock pin with a BUG: MISMATCH" 1 'BUG (fs/ext4/inode.c:2658)' false -- "${STOCK[@]}" \
	--method pin --guest-json "$TMP/bug.json" --report "$TMP/bug.report" \
	--console "$TMP/bug.console" --reports "$TMP/bug.reports" --host-read "$TMP/old"

# The traces come from the decoded console, found by the report's console
# line: decode_stacktrace.sh's output has the console's lines one for one.
sed -e 's#mpage_prepare_extent_to_map+0x2a7/0x3a5#mpage_prepare_extent_to_map (/k/build/../src/fs/ext4/inode.c:2658)#' \
	-e 's#ext4_writepages+0x2f1/0x9e4#ext4_writepages (/k/build/../src/fs/ext4/inode.c:2789)#' \
	"$TMP/bug.console" >"$TMP/bug.decoded"
run repro judge "${BUG[@]}" --method pin --guest-json "$TMP/bug.json" --report "$TMP/bug.report" \
	--console "$TMP/bug.console" --reports "$TMP/bug.reports" --decoded "$TMP/bug.decoded" \
	--host-read "$TMP/old" -o "$TMP/cell.json"
tap_is "$(field '.kernel_reports[0].frames[0:2] | map("\(.function)@\(.location)") | join(" ")')" \
	'mpage_prepare_extent_to_map@fs/ext4/inode.c:2658 ext4_writepages@fs/ext4/inode.c:2789' \
	"--decoded: the frames' file:line from the symbolised console, by the report's line"
tap_is "$(field '.kernel_reports | map("\(.console_line) \(.title)") | join(", ")')" \
	'3 kernel BUG at ../src/fs/ext4/inode.c:2658!, 17 Kernel panic - not syncing: Fatal exception' \
	"... the title and console line scan-console.sh gave; the panic's end line starts no report"
{ echo 'an extra line'; cat "$TMP/bug.decoded"; } >"$TMP/bug.shifted"
run repro judge "${BUG[@]}" --method pin --guest-json "$TMP/bug.json" --report "$TMP/bug.report" \
	--console "$TMP/bug.console" --reports "$TMP/bug.reports" --decoded "$TMP/bug.shifted" \
	--host-read "$TMP/old" -o "$TMP/cell.json"
if [ "$rc" = 0 ] && [ "$(field '.kernel_reports[0].frames[0].location')" = null ] &&
	grep -qF "not the console's lines one for one" "$TMP/err"; then
	tap_ok "a decoded console with other lines: not used, and said so; the raw console's frames"
else
	not_ok "a decoded console with other lines: not used, and said so; the raw console's frames" \
		"exit $rc, frame 0 at $(field '.kernel_reports[0].frames[0].location')"
fi

# -- not run ---------------------------------------------------------------
judge "no run report: not run" 1 'not run (no run report)' false -- "${STOCK[@]}" --method pin \
	--report "$TMP/nonexistent" --console "$TMP/clean.console" --reports "$TMP/clean.reports"
judge "--not-run WHY" 1 'not run (staging failed)' false -- "${STOCK[@]}" --method pin \
	--not-run 'staging failed'
facts "$TMP/early.json" pin '' 3 mmap
report "$TMP/early.report" clean 1
judge "a guest that stopped early: not run, with its last step" \
	1 'not run (guest status 1, verdict clean, last step 3 mmap)' false -- "${STOCK[@]}" \
	--method pin --guest-json "$TMP/early.json" --report "$TMP/early.report" \
	--console "$TMP/clean.console" --reports "$TMP/clean.reports"
report "$TMP/late.report" clean null true
judge "a guest that timed out: not run, and says so" \
	1 'not run (guest status none, timed out, verdict clean, last step 3 mmap)' false -- \
	"${STOCK[@]}" --method pin --guest-json "$TMP/early.json" --report "$TMP/late.report" \
	--console "$TMP/clean.console" --reports "$TMP/clean.reports"
judge "no list of the kernel reports: not run" \
	1 "not run (no list of the console's kernel reports)" false -- "${STOCK[@]}" --method pin \
	--guest-json "$TMP/pin.json" --report "$TMP/warn.report" --console "$TMP/warn.console" \
	--reports "$TMP/nonexistent"
printf '%s\n' guest_status=0 kernel_verdict=clean >"$TMP/kv.report"
expect "a run report that is not the runner's JSON: exit 2" 2 err "kv.report" "not JSON" -- \
	repro judge "${STOCK[@]}" --method pin --guest-json "$TMP/pin.json" \
	--report "$TMP/kv.report" --console "$TMP/warn.console" --reports "$TMP/warn.reports"
jq 'del(.timed_out)' "$TMP/warn.report" >"$TMP/partial.report"
expect "a run report without timed_out: exit 2" 2 err '"timed_out" (bool)' -- \
	repro judge "${STOCK[@]}" --method pin --guest-json "$TMP/pin.json" \
	--report "$TMP/partial.report" --console "$TMP/warn.console" --reports "$TMP/warn.reports"
jq '.[0].line = "x"' "$TMP/warn.reports" >"$TMP/bad.reports"
expect "a list of reports without a line: exit 2" 2 err 'bad.reports: [0]: want "line" (1..)' -- \
	repro judge "${STOCK[@]}" --method pin --guest-json "$TMP/pin.json" \
	--report "$TMP/warn.report" --console "$TMP/warn.console" --reports "$TMP/bad.reports"
expect "the facts of another cell: exit 2" 2 err "is the facts of cell 'pin', not 'get'" -- \
	repro judge "${STOCK[@]}" --method get --guest-json "$TMP/pin.json" \
	--report "$TMP/warn.report" --console "$TMP/warn.console" --reports "$TMP/warn.reports"
expect "judge without --policy: exit 2" 2 err "no --policy and --ext4" -- repro judge --method pin
expect "judge --help" 0 out "--guest-json FILE" -- repro judge --help

# -- the expectation, without a device ----------------------------------------
expect "ext4-2018 --expect prints the expectation and its reason" 0 out \
	'repro-expect: blocked (EFAULT) because ' 'writeable_file_mapping_allowed' -- \
	repro ext4-2018 --expect --policy v7 --ext4 warn --method pin-fast --write
expect "--expect needs the flavour's columns" 2 err "no --policy and --ext4" -- \
	repro ext4-2018 --expect
expect "--longterm with get: exit 2" 2 err "FOLL_LONGTERM without FOLL_PIN is refused by every kernel" -- \
	repro ext4-2018 --expect --policy stock --ext4 warn --method get --longterm
# read: 3 pin methods x {-, W, L, LW} + pin-unlocked x {-, W} + 4 get
# methods x {-, W} = 22; move-ext (W only): 3 x {W, LW} + 1 + 4 = 11.
expect "cells: 33, cells --quick: 5" 0 out '"label": "move-ext:get-unlocked+write"' -- repro cells
tap_is "$("$GUPCTL" repro cells | jq length) $("$GUPCTL" repro cells --quick | jq length)" "33 5" \
	"... 33 and 5 of them"
# Given the columns, a cell boots alone exactly when its expectation is a
# BUG (the guest panics).  Which cells those are is read from --expect,
# cell by cell, never from a second list here (on stock's policy with
# ext4=bug: the 11 read-route cells without FOLL_WRITE and the 11 move-ext
# cells; the 11 write-fault cells keep their buffers).
expect "cells --policy without --ext4: exit 2" 2 err "--policy and --ext4 go together" -- \
	repro cells --policy stock
for cols in "stock bug" "stock warn" "v7 warn" "v1 warn"; do
	read -r pol ext <<<"$cols"
	agree=0 own=0
	"$GUPCTL" repro cells --policy "$pol" --ext4 "$ext" >"$TMP/cells.json"
	# one jq for every cell's boot and arguments (shell-quoted by @sh)
	cargs=()
	while IFS=$'\t' read -r boot args; do
		eval "cargs=($args)"
		want=shared
		"$GUPCTL" repro ext4-2018 --expect --policy "$pol" --ext4 "$ext" "${cargs[@]}" |
			grep -q '^repro-expect: BUG ' && want=own
		[ "$want" != "$boot" ] || agree=$((agree + 1))
		[ "$want" != own ] || own=$((own + 1))
	done < <(jq -r '.[] | [.boot, (.args | @sh)] | @tsv' "$TMP/cells.json")
	tap_is "$agree" 33 "cells --policy $pol --ext4 $ext: \"boot\" is \"own\" exactly for the cells expected to BUG ($own)"
done

# -- collect and report ----------------------------------------------------------
mkdir -p "$TMP/res"
run repro judge "${STOCK[@]}" --method pin --guest-json "$TMP/pin.json" --report "$TMP/warn.report" \
	--console "$TMP/warn.console" --reports "$TMP/warn.reports" --host-read "$TMP/old" --console-name stock/pin.console.log \
	-o "$TMP/c1.json"
run repro judge "${STOCK[@]}" --method pin --write --guest-json "$TMP/w.json" \
	--report "$TMP/clean.report" --console "$TMP/clean.console" --reports "$TMP/clean.reports" --host-read "$TMP/new" \
	-o "$TMP/c2.json"
expect "collect: two matching cells" 0 out -- repro collect --input-hash 0123 \
	--json "$TMP/res/stock.json" --ktap "$TMP/res/stock.ktap" "$TMP/c1.json" "$TMP/c2.json"
tap_is "$(jq -r '"\(.kernel_verdict) \(.cells | length) \(.kernel_reports | length) \(.kernel_reports[0].cell)"' \
	"$TMP/res/stock.json")" "warning 2 1 pin" "FLAVOUR.json: the worst verdict, the cells, the reports by cell"
tap_is "$(grep -c '^ok ' "$TMP/res/stock.ktap")" 2 "FLAVOUR.ktap: one line per cell"
expect "collect with a mismatch: exit 1" 1 out -- repro collect --input-hash 0123 \
	--json "$TMP/res/x.json" "$TMP/c1.json" "$TMP/cell.json"
jq -n '{job: "repro", commit: "abc", date: "2026-01-01T00:00:00Z",
	source_packages: [{name: "linux-source-6.1", version: "6.1.192-3"}], wall_seconds: 9,
	flavours: [{name: "stock", ran: true}, {name: "gup-v7", ran: false,
		    why_not_run: "staging failed"}]}' >"$TMP/res/run.json"
# shellcheck disable=SC2016 # backquotes: markdown
expect "report: the table from a results directory" 0 out \
	'| stock | read fault (no buffers) | `pin` | WARNING + data lost (host reads OLD) [1] | WARNING + data lost (host reads OLD) | MATCH | new / old / old | T1, T2 |' \
	'| gup-v7 | - | - | - | not run: staging failed |' \
	'- **T1**: WARNING at fs/ext4/inode.c:3664: ext4_dirty_folio (fs/ext4/inode.c:3664)' \
	'- **T2**: ext4_warning in mpage_prepare_extent_to_map:2671: page 0 does not have buffers attached' \
	'2 cells, 2 as expected' '(results `'"$TMP/res"'`, commit `abc`' -- \
	repro report --results "$TMP/res"
mkdir -p "$TMP/other"
jq '.job = "matrix"' "$TMP/res/run.json" >"$TMP/other/run.json"
expect "report of a run of another job: exit 2" 2 err "not of repro" -- \
	repro report --results "$TMP/other"

# gupctl repro slice: a boot's console cut by its markers (every job's
# format, console/markers.c): before the first marker to the first cell,
# a \r before the end of a marker line, another step's marker ignored, a
# cell number beyond the boot's cells changing nothing, the tail after end.
printf '%s\n' 'boot line' '[ 1.0] gup-lab: repro cell 1' 'one' \
	$'[ 2.0] gup-lab: repro cell 2\r' 'two' '[ 2.5] gup-lab: matrix cell 1' 'still two' \
	'[ 3.0] gup-lab: repro cell 9' 'still two again' '[ 4.0] gup-lab: repro end' 'shutdown' \
	>"$TMP/boot.console"
mkdir -p "$TMP/slices"
expect "slice: the names of the cells that began, in order" 0 out 'a' 'b' -- \
	repro slice --console "$TMP/boot.console" --dir "$TMP/slices" --suffix log --tail t a b c
tap_is "$(paste -sd'|' "$TMP/slices/a.log")" 'boot line|[ 1.0] gup-lab: repro cell 1|one' \
	"slice: cell 1's from the boot's start to cell 2's marker"
tap_is "$(tr -d '\r' <"$TMP/slices/b.log" | paste -sd'|')" \
	'[ 2.0] gup-lab: repro cell 2|two|[ 2.5] gup-lab: matrix cell 1|still two|[ 3.0] gup-lab: repro cell 9|still two again' \
	"slice: cell 2's to the end marker, another step's and an unknown cell's markers in it"
tap_is "$(wc -c <"$TMP/slices/c.log") $(paste -sd'|' "$TMP/slices/t.log")" \
	'0 [ 4.0] gup-lab: repro end|shutdown' "slice: a cell that never began is empty; the tail from the end marker"
expect "slice without the cells' names: exit 2" 2 err "give the boot's cells' NAMEs" -- \
	repro slice --console "$TMP/boot.console" --dir "$TMP/slices" --suffix log --tail t

guest=$(dirname "$GUPCTL")/gupctl-guest
if [ -x "$guest" ]; then
	GUPCTL=$guest expect "the guest build has no judge" 2 err "host-only command" -- repro judge --method pin
fi

tap_done
