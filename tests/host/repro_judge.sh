#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Host tests of the ext4-2018 reproduction's host side, no guest: gupctl
# repro judge on synthetic inputs (the guest's facts, the runner's report,
# consoles with a WARNING, a BUG, btrfs' refusal, none; the host's read of
# the file), on ext4, xfs and btrfs, then collect and report.  Each
# classification is also shown failing.
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

# facts FILE LABEL PINNED STEP_N STEP_NAME [GUEST DIRECT EVICTED [FSYNC]]:
# the guest's --json facts (reads omitted: the guest never got there;
# FSYNC, fsync's return: "0" or an errno name, default "0").
facts() {
	jq -n --arg lbl "$2" --arg pinned "$3" --argjson n "$4" --arg step "$5" \
		--arg g "${6:-}" --arg d "${7:-}" --arg e "${8:-}" --arg fsync "${9:-0}" '{
		scenario: "ext4-2018", cell: {"label": $lbl},
		kernel_release: "6.1.192", file: "/mnt/ext4/repro.dat",
		pinned: (if $pinned == "" then null else $pinned end),
		last_step: {number: $n, name: $step},
		reads: (if $g == "" then null else
			{guest: $g, direct: (if $d == "" then null else $d end),
			 evicted: (if $e == "" then null else $e end)} end),
		fsync: (if $g == "" then null else $fsync end), failed: null,
		finished: ($g != "")}' >"$1"
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

# btrfs 6.12's refusal at writeback: two error lines, no kernel report.
cat >"$TMP/btrfs.console" <<'EOF'
repro-step 10: fsync: btrfs writeback meets the page
[   44.334726] BTRFS error (device vdd): root 5 ino 266 folio 0 is marked dirty without notifying the fs
[   44.334726] BTRFS error (device vdd): failed to submit blocks, root=5 inode=266 folio=0 submit_bitmap=0: -117
EOF

# Each console's kernel reports, as jobs/repro.sh lists them for the judge.
for c in warn bug clean btrfs; do
	"$ROOT/qemu/scan-console.sh" --reports "$TMP/$c.console" >"$TMP/$c.reports"
done

STOCK=(--flavour stock --policy stock --ext4 warn)
MAINLINE=(--flavour mainline --policy mainline --ext4 warn --source 6.12)
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

# -- xfs and btrfs: the file systems' own outcomes --------------------------
# btrfs 6.12 refuses a page dirtied behind its back: the error lines (not a
# kernel report: the runner's verdict stays clean), fsync's EUCLEAN, OLD.
facts "$TMP/bw.json" btrfs:writeback:get+write yes 12 evict-read new old old EUCLEAN
BW=(--fs btrfs --route writeback --method get --write --guest-json "$TMP/bw.json"
	--report "$TMP/clean.report" --console "$TMP/btrfs.console" --reports "$TMP/btrfs.reports")
judge "mainline btrfs:writeback:get+write: the BTRFS error, fsync EUCLEAN, host reads OLD" \
	0 'BTRFS error + data lost (host reads OLD, fsync EUCLEAN)' true -- "${MAINLINE[@]}" \
	"${BW[@]}" --host-read "$TMP/old"
tap_is "$(field '.kernel_reports | length')" 0 "... no kernel report: the error lines are btrfs' own"
tap_is "$(field '.measured.btrfs_errors | join(" / ")')" \
	'error: root 5 ino 266 folio 0 is marked dirty without notifying the fs / error: failed to submit blocks, root=5 inode=266 folio=0 submit_bitmap=0: -117' \
	"... the error lines, kept in measured.btrfs_errors"
tap_is "$(field '"\(.fs) \(.route) \(.route_title)"')" 'btrfs writeback fsync while held' \
	"... the cell's file system and route"
tap_like "$(field .expected.reason)" '6\.12 fs/btrfs/extent_io\.c:1546-1556.*6\.1 fs/btrfs/inode\.c:3028-3067' \
	"... the reason cites both versions"
judge "... the same on stock (6.1: the COW fixup writes NEW): MISMATCH" \
	1 'BTRFS error + data lost (host reads OLD, fsync EUCLEAN)' false -- "${STOCK[@]}" \
	"${BW[@]}" --host-read "$TMP/old"
facts "$TMP/bw0.json" btrfs:writeback:get+write yes 12 evict-read new old old 0
judge "... an fsync that returned 0 is said: MISMATCH" \
	1 'BTRFS error + data lost (host reads OLD, fsync 0)' false -- "${MAINLINE[@]}" \
	"${BW[@]}" --guest-json "$TMP/bw0.json" --host-read "$TMP/old"
judge "... without the error line it is a silent loss: MISMATCH" \
	1 'data lost silently (host reads OLD)' false -- "${MAINLINE[@]}" "${BW[@]}" \
	--console "$TMP/clean.console" --reports "$TMP/clean.reports" --host-read "$TMP/old"
judge "... the error line and the host reading NEW: spelled out, MISMATCH" \
	1 'clean + host reads NEW (btrfs: marked dirty without notifying the fs)' false -- \
	"${MAINLINE[@]}" "${BW[@]}" --host-read "$TMP/new"
facts "$TMP/bw1.json" btrfs:writeback:get+write yes 12 evict-read new new new 0
judge "stock btrfs:writeback:get+write: clean, host reads NEW (the fixup)" \
	0 'no loss (host reads NEW)' true -- "${STOCK[@]}" "${BW[@]}" --guest-json "$TMP/bw1.json" \
	--console "$TMP/clean.console" --reports "$TMP/clean.reports" --host-read "$TMP/new"
# 7.3 (latest): btrfs_data_dirty_folio() marks the clean page for the
# writepage fixup, which makes it delalloc: clean, the host reads NEW.
LATEST=(--flavour latest --policy latest --ext4 warn --source 7.3)
judge "latest btrfs:writeback:get+write: clean, host reads NEW (7.3's writepage fixup)" \
	0 'no loss (host reads NEW)' true -- "${LATEST[@]}" "${BW[@]}" --guest-json "$TMP/bw1.json" \
	--console "$TMP/clean.console" --reports "$TMP/clean.reports" --host-read "$TMP/new"
tap_like "$(field .expected.reason)" '7\.3 fs/btrfs/inode\.c:10803-10817.*7\.3 fs/btrfs/extent_io\.c:1558-1577' \
	"... the reason cites 7.3's btrfs_data_dirty_folio() and writepage_fixup()"
judge "... 6.12's refusal (the error line, fsync EUCLEAN, OLD) on latest: MISMATCH" \
	1 'BTRFS error + data lost (host reads OLD, fsync EUCLEAN)' false -- "${LATEST[@]}" \
	"${BW[@]}" --host-read "$TMP/old"

# xfs skips a dirty page over a hole without a word: the guest's cache
# says NEW, the disk zeros.
facts "$TMP/xh.json" xfs:hole:pin yes 11 evict-read new zeros zeros
XH=(--fs xfs --route hole --method pin --guest-json "$TMP/xh.json" --report "$TMP/clean.report"
	--console "$TMP/clean.console" --reports "$TMP/clean.reports")
judge "xfs:hole:pin: clean, the cache NEW, the host zeros: a silent loss" \
	0 'data lost silently (host reads ZEROS)' true -- "${STOCK[@]}" "${XH[@]}" --host-read "$TMP/zeros"
judge "... the host reading NEW: MISMATCH" 1 'no loss (host reads NEW)' false -- \
	"${STOCK[@]}" "${XH[@]}" --host-read "$TMP/new"
judge "... a missing host read is said: MISMATCH" 1 'data lost silently (host reads MISSING)' false -- \
	"${STOCK[@]}" "${XH[@]}" --host-read "$TMP/nonexistent"
# XFS_IOC_SWAPEXT truncates the held page out of the file: the write is
# nobody's, the guest and the host read the other file's OLD.
facts "$TMP/xs.json" xfs:swapext:get+write yes 13 evict-read old old old
judge "xfs:swapext:get+write: the guest and the host read OLD: the write was dropped" \
	0 'write dropped (host reads OLD)' true -- "${MAINLINE[@]}" --fs xfs --route swapext \
	--method get --write --guest-json "$TMP/xs.json" --report "$TMP/clean.report" \
	--console "$TMP/clean.console" --reports "$TMP/clean.reports" --host-read "$TMP/old"
judge "... the guest reading another thing than the host: spelled out, MISMATCH" \
	1 'clean + host reads ZEROS, guest cache old' false -- "${MAINLINE[@]}" --fs xfs \
	--route swapext --method get --write --guest-json "$TMP/xs.json" --report "$TMP/clean.report" \
	--console "$TMP/clean.console" --reports "$TMP/clean.reports" --host-read "$TMP/zeros"
# ext4's hole: no buffers either, and no block: zeros.
facts "$TMP/eh.json" hole:get yes 11 evict-read new zeros zeros
judge "ext4 hole:get: WARNING, ext4 warned, host reads ZEROS" \
	0 'WARNING + data lost (host reads ZEROS)' true -- "${STOCK[@]}" --route hole --method get \
	--guest-json "$TMP/eh.json" --report "$TMP/warn.report" --console "$TMP/warn.console" \
	--reports "$TMP/warn.reports" --host-read "$TMP/zeros"
expect "the facts of the ext4 cell for the xfs one: exit 2" 2 err \
	"is the facts of cell 'hole:get', not 'xfs:hole:get'" -- repro judge "${STOCK[@]}" --fs xfs \
	--route hole --method get --guest-json "$TMP/eh.json" --report "$TMP/clean.report" \
	--console "$TMP/clean.console" --reports "$TMP/clean.reports"
expect "swapext on ext4: exit 2" 2 err "swapext xfs' XFS_IOC_SWAPEXT" -- \
	repro judge "${STOCK[@]}" --route swapext --method pin --write
expect "--source that is not the policy's: exit 2" 2 err \
	"--source 6.12, but policy stock is the code of 6.1" -- \
	repro judge "${STOCK[@]}" --source 6.12 --method pin

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
# Per file system: read: 3 pin methods x {-, W, L, LW} + pin-unlocked x
# {-, W} + 4 get methods x {-, W} = 22; its second route (move-ext,
# swapext, writeback; W only): 3 x {W, LW} + 1 + 4 = 11; hole: pin, get.
expect "cells: 105, cells --quick: 5" 0 out '"label": "move-ext:get-unlocked+write"' \
	'"label": "xfs:swapext:get-unlocked+write"' '"label": "btrfs:writeback:pin+write"' \
	'"label": "btrfs:hole:get"' -- repro cells
tap_is "$("$GUPCTL" repro cells | jq -c '[length, ([.[] | select(.fs == "ext4")] | length),
	([.[] | select(.fs == "xfs")] | length)]') $("$GUPCTL" repro cells --quick | jq length)" \
	"[105,35,35] 5" "... 105 (35 per file system) and 5 of them"
tap_is "$("$GUPCTL" repro cells --quick --policy mainline --ext4 warn | jq -r '.[5:] | map(.label) | join(" ")')" \
	'xfs:swapext:get+write btrfs:writeback:get+write' \
	"cells --quick on a 6.12 policy: and one xfs and one btrfs cell"
tap_is "$("$GUPCTL" repro cells --quick --policy latest --ext4 warn | jq -r '.[5:] | map(.label) | join(" ")')" \
	'xfs:swapext:get+write btrfs:writeback:get+write' \
	"cells --quick on a 7.3 policy: the same xfs and btrfs twins"
# 7.3 against 6.12, cell by cell (model/repro.c): btrfs' every cell is
# "no loss" (the writepage fixup), ext4's and xfs' the outcome 6.12 has
# (the routes' code differs in lines, not in what it does to the page);
# and a 7.3 reason cites 7.3 alone.
differ=() bad73=() n=0
while IFS=$'\t' read -r fs args; do
	eval "cargs=($args)"
	n=$((n + 1))
	m=$("$GUPCTL" repro ext4-2018 --expect --policy mainline --ext4 warn "${cargs[@]}")
	l=$("$GUPCTL" repro ext4-2018 --expect --policy latest --ext4 warn "${cargs[@]}")
	mo=${m%% because *} lo=${l%% because *}
	if [ "$fs" = btrfs ]; then
		case $mo in *'blocked'*) want=$mo ;; *) want='repro-expect: no loss (host reads NEW)' ;; esac
	else
		want=$mo
	fi
	[ "$lo" = "$want" ] || differ+=("$fs ${cargs[*]}: $lo, want $want")
	! grep -qE '\b6\.12? [a-z]' <<<"${l#* because }" || bad73+=("$fs ${cargs[*]}")
done < <("$GUPCTL" repro cells | jq -r '.[] | [.fs, (.args | @sh)] | @tsv')
tap_is "$n" 105 "latest's expectations: every cell compared"
none_bad "latest's expectations: btrfs no loss where pinned, ext4 and xfs mainline's outcomes" \
	differ "${differ[@]}"
none_bad "latest's reasons cite no 6.1 or 6.12 line" cite "${bad73[@]}"
tap_is "$("$GUPCTL" repro cells | jq -r '[.[] | select(.fs != "ext4") | .args[0:2] | join(" ")] | unique | join(", ")')" \
	'--fs btrfs, --fs xfs' "an xfs or btrfs cell's arguments name its --fs"
# Given the columns, a cell boots alone exactly when its expectation is a
# BUG (the guest panics).  Which cells those are is read from --expect,
# cell by cell, never from a second list here (on stock's policy with
# ext4=bug: the 11 ext4 read-route cells without FOLL_WRITE, the 11
# move-ext cells and the 2 hole cells; the 11 write-fault cells keep their
# buffers, and xfs and btrfs never BUG).
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
	tap_is "$agree" "$(jq length "$TMP/cells.json")" "cells --policy $pol --ext4 $ext: \"boot\" is \"own\" exactly for the cells expected to BUG ($own)"
done

# -- policy none: measured, no policy to compare ------------------------------
# A kernel that matches no known policy: every cell run all the same,
# nothing expected, each that ran "measured", the reports of its slice its
# findings; a boot of its own for a cell any policy of its source expects
# to BUG.
NONE=(--flavour mine --policy none --ext4 warn --source 6.1)
cp "$TMP/cell.json" "$TMP/cell.kept"	# collect's mismatch below is the last stock cell
expect "cells --policy none without --source: exit 2" 2 err "--policy none needs --source 6.1, 6.12 or 7.3" -- \
	repro cells --policy none --ext4 warn
expect "cells --policy bogus: exit 2, none among the choices" 2 err "unknown --policy 'bogus'" ', or none' -- \
	repro cells --policy bogus --ext4 warn
tap_is "$("$GUPCTL" repro cells --policy none --ext4 warn --source 6.1 | jq -c '[length, ([.[] | select(.boot == "shared")] | length)]') $("$GUPCTL" repro cells --quick --policy none --ext4 warn --source 6.1 | jq length) $("$GUPCTL" repro cells --quick --policy none --ext4 warn --source 6.12 | jq -r '.[5:] | map(.label) | join(" ")')" \
	"[105,105] 5 xfs:swapext:get+write btrfs:writeback:get+write" \
	"cells --policy none: every cell, all in a shared boot on ext4=warn; the quick set of its source"
# own = a boot of its own under any 6.1 policy with ext4=bug, read from their cells
for pol in stock v1 v7 v9; do
	"$GUPCTL" repro cells --policy "$pol" --ext4 bug | jq -c 'map(.boot == "own")'
done | jq -sc 'transpose | map(any)' >"$TMP/union"
tap_is "$("$GUPCTL" repro cells --policy none --ext4 bug --source 6.1 | jq -c 'map(.boot == "own")')" \
	"$(cat "$TMP/union")" \
	"cells --policy none --ext4 bug: a boot of its own exactly where a 6.1 policy expects a BUG ($(jq 'map(select(.)) | length' "$TMP/union"))"
expect "ext4-2018 --expect --policy none: nothing expected, exit 0" 0 out \
	'repro-expect: nothing because measured, no policy to compare' -- \
	repro ext4-2018 --expect "${NONE[@]:2}" --method pin
judge "none pin: the WARNING, ext4's warning and OLD: measured, exit 0" \
	0 'WARNING + data lost (host reads OLD)' true -- "${NONE[@]}" --method pin \
	--guest-json "$TMP/pin.json" --report "$TMP/warn.report" \
	--console "$TMP/warn.console" --reports "$TMP/warn.reports" --host-read "$TMP/old"
tap_is "$(field '"\(.expected) \(.measured_only) \(.verdict) \(.reason)"')" \
	"null true measured measured, no policy to compare" "... \"expected\": null, the verdict measured"
tap_is "$(field '.kernel_reports | map("\(.kind) \(.expected) \(.finding)") | join(",")')" \
	"warning false true" "... its WARNING a finding, not expected and no failure"
tap_is "$(field '.measured.reads | "\(.guest) \(.direct) \(.host)"')" "new old old" "... the reads recorded"
judge "none pin with the BUG: measured BUG, its reports findings" 0 'BUG (fs/ext4/inode.c:2658)' true -- \
	"${NONE[@]}" --method pin --guest-json "$TMP/bug.json" --report "$TMP/bug.report" \
	--console "$TMP/bug.console" --reports "$TMP/bug.reports" --host-read "$TMP/old"
tap_is "$(field '.kernel_reports | map("\(.kind):\(.finding)") | join(",")')" 'bug:true,panic:true' \
	"... the BUG and its panic, both findings"
judge "none pin+write: clean, NEW: measured" 0 'no loss (host reads NEW)' true -- "${NONE[@]}" \
	--method pin --write --guest-json "$TMP/w.json" --report "$TMP/clean.report" \
	--console "$TMP/clean.console" --reports "$TMP/clean.reports" --host-read "$TMP/new"
cp "$TMP/cell.json" "$TMP/n2.json"
judge "none --not-run: not run, exit 1" 1 'not run (staging failed)' false -- "${NONE[@]}" \
	--method pin --not-run 'staging failed'
tap_is "$(field .verdict)" "not run" "... its verdict not run"
cp "$TMP/cell.json" "$TMP/n3.json"
run repro judge "${NONE[@]}" --method pin --guest-json "$TMP/pin.json" --report "$TMP/warn.report" \
	--console "$TMP/warn.console" --reports "$TMP/warn.reports" --host-read "$TMP/old" \
	--console-name mine/pin.console.log -o "$TMP/n1.json"
mkdir -p "$TMP/resn"
expect "collect, policy none: measured cells are KTAP SKIPs, exit 0" 0 out -- repro collect \
	--input-hash 89ab --json "$TMP/resn/mine.json" --ktap "$TMP/resn/mine.ktap" "$TMP/n1.json" "$TMP/n2.json"
tap_is "$(sed -n '4,5p' "$TMP/resn/mine.ktap" | paste -sd'|') $(tail -1 "$TMP/resn/mine.ktap")" \
	'ok 1 pin # SKIP measured, no policy to compare: WARNING + data lost (host reads OLD)|ok 2 pin+write # SKIP measured, no policy to compare: no loss (host reads NEW) # repro: 2 cells, 0 as expected, 2 measured, no policy to compare, 0 mismatched or not run' \
	"... one ok # SKIP a cell, the counts in the last line"
tap_is "$(jq -c '[.policy, .measured_only, .kernel_verdict, (.kernel_reports | map(.finding))]' "$TMP/resn/mine.json")" \
	'["none",2,"warning",[true]]' "... FLAVOUR.json: measured_only, the finding"
expect "collect, policy none, a cell not run: not ok, exit 1" 1 out -- repro collect \
	--input-hash 89ab --json "$TMP/x.json" --ktap "$TMP/x.ktap" "$TMP/n1.json" "$TMP/n3.json"
tap_is "$(grep '^not ok' "$TMP/x.ktap")" 'not ok 2 pin # not run (staging failed) (measured, no policy to compare)' \
	"... its KTAP line says it did not run"
jq -n '{job: "repro", commit: "abc", date: "2026-01-01T00:00:00Z",
	source_packages: [{name: "linux-source-6.1", version: "6.1.192-3"}], wall_seconds: 9,
	flavours: [{name: "mine", ran: true}]}' >"$TMP/resn/run.json"
# shellcheck disable=SC2016 # backquotes: markdown
expect "report: a flavour of policy none, its outcomes measured, not judged" 0 out \
	'| mine | ext4 | read fault (no buffers) | `pin` | measured, no policy to compare | WARNING + data lost (host reads OLD) | MEASURED | new / old / old | T1, T2 |' \
	'2 cells, 0 as expected, 2 measured, no policy to compare (a kernel of policy none' -- \
	repro report --results "$TMP/resn"
mv "$TMP/cell.kept" "$TMP/cell.json"

# -- collect and report ----------------------------------------------------------
mkdir -p "$TMP/res"
run repro judge "${STOCK[@]}" --method pin --guest-json "$TMP/pin.json" --report "$TMP/warn.report" \
	--console "$TMP/warn.console" --reports "$TMP/warn.reports" --host-read "$TMP/old" --console-name stock/pin.console.log \
	-o "$TMP/c1.json"
run repro judge "${STOCK[@]}" --method pin --write --guest-json "$TMP/w.json" \
	--report "$TMP/clean.report" --console "$TMP/clean.console" --reports "$TMP/clean.reports" --host-read "$TMP/new" \
	-o "$TMP/c2.json"
run repro judge "${STOCK[@]}" "${XH[@]}" --host-read "$TMP/zeros" -o "$TMP/c3.json"
expect "collect: three matching cells" 0 out -- repro collect --input-hash 0123 \
	--json "$TMP/res/stock.json" --ktap "$TMP/res/stock.ktap" "$TMP/c1.json" "$TMP/c2.json" \
	"$TMP/c3.json"
tap_is "$(jq -r '"\(.kernel_verdict) \(.cells | length) \(.kernel_reports | length) \(.kernel_reports[0].cell)"' \
	"$TMP/res/stock.json")" "warning 3 1 pin" "FLAVOUR.json: the worst verdict, the cells, the reports by cell"
tap_is "$(grep -c '^ok ' "$TMP/res/stock.ktap")" 3 "FLAVOUR.ktap: one line per cell"
run repro judge "${MAINLINE[@]}" "${BW[@]}" --host-read "$TMP/old" -o "$TMP/m1.json"
expect "collect: mainline's btrfs cell" 0 out -- repro collect --input-hash 4567 \
	--json "$TMP/res/mainline.json" "$TMP/m1.json"
expect "collect with a mismatch: exit 1" 1 out -- repro collect --input-hash 0123 \
	--json "$TMP/res/x.json" "$TMP/c1.json" "$TMP/cell.json"
jq -n '{job: "repro", commit: "abc", date: "2026-01-01T00:00:00Z",
	source_packages: [{name: "linux-source-6.1", version: "6.1.192-3"}], wall_seconds: 9,
	flavours: [{name: "stock", ran: true}, {name: "gup-v7", ran: false,
		    why_not_run: "staging failed"}, {name: "mainline", ran: true}]}' >"$TMP/res/run.json"
# shellcheck disable=SC2016 # backquotes: markdown
expect "report: the table from a results directory, with the fs column" 0 out \
	'| stock | ext4 | read fault (no buffers) | `pin` | WARNING + data lost (host reads OLD) [1] | WARNING + data lost (host reads OLD) | MATCH | new / old / old | T1, T2 |' \
	'| stock | xfs | read fault over a hole | `xfs:hole:pin` | data lost silently (host reads ZEROS) [3] | data lost silently (host reads ZEROS) | MATCH | new / zeros / zeros | - |' \
	'| gup-v7 | - | - | - | - | not run: staging failed |' \
	'| mainline | btrfs | fsync while held | `btrfs:writeback:get+write` | BTRFS error + data lost (host reads OLD, fsync EUCLEAN) [4] |' \
	'- **T1**: WARNING at fs/ext4/inode.c:3664: ext4_dirty_folio (fs/ext4/inode.c:3664)' \
	'- **T2**: ext4_warning in mpage_prepare_extent_to_map:2671: page 0 does not have buffers attached' \
	'- **T3**: BTRFS error: folio is marked dirty without notifying the fs' \
	'- **T4**: BTRFS error: failed to submit blocks: -117' \
	'4 cells, 4 as expected' '(results `'"$TMP/res"'`, commit `abc`' -- \
	repro report --results "$TMP/res"
# a results directory from before the fs column: its cells are ext4's
jq '.cells |= map(select(.fs == "ext4") | del(.fs))' "$TMP/res/stock.json" >"$TMP/res/old.json" &&
	mv "$TMP/res/old.json" "$TMP/res/stock.json"
# shellcheck disable=SC2016 # backquotes: markdown
expect "report: a document without fs fields shows ext4" 0 out \
	'| stock | ext4 | read fault (no buffers) | `pin` |' '3 cells, 3 as expected' -- \
	repro report --results "$TMP/res"
mkdir -p "$TMP/other"
jq '.job = "matrix"' "$TMP/res/run.json" >"$TMP/other/run.json"
expect "report of a run of another job: exit 2" 2 err "not of repro" -- \
	repro report --results "$TMP/other"

# gupctl slice --step repro: a boot's console cut by its markers (every job's
# format, console/markers.c): before the first marker to the first cell,
# a \r before the end of a marker line, another step's marker ignored, a
# cell number beyond the boot's cells changing nothing, the tail after end.
printf '%s\n' 'boot line' '[ 1.0] gup-lab: repro cell 1' 'one' \
	$'[ 2.0] gup-lab: repro cell 2\r' 'two' '[ 2.5] gup-lab: matrix cell 1' 'still two' \
	'[ 3.0] gup-lab: repro cell 9' 'still two again' '[ 4.0] gup-lab: repro end' 'shutdown' \
	>"$TMP/boot.console"
mkdir -p "$TMP/slices"
expect "slice: the names of the cells that began, in order" 0 out 'a' 'b' -- \
	slice --step repro --console "$TMP/boot.console" --dir "$TMP/slices" --suffix log --tail t a b c
tap_is "$(paste -sd'|' "$TMP/slices/a.log")" 'boot line|[ 1.0] gup-lab: repro cell 1|one' \
	"slice: cell 1's from the boot's start to cell 2's marker"
tap_is "$(tr -d '\r' <"$TMP/slices/b.log" | paste -sd'|')" \
	'[ 2.0] gup-lab: repro cell 2|two|[ 2.5] gup-lab: matrix cell 1|still two|[ 3.0] gup-lab: repro cell 9|still two again' \
	"slice: cell 2's to the end marker, another step's and an unknown cell's markers in it"
tap_is "$(wc -c <"$TMP/slices/c.log") $(paste -sd'|' "$TMP/slices/t.log")" \
	'0 [ 4.0] gup-lab: repro end|shutdown' "slice: a cell that never began is empty; the tail from the end marker"
expect "slice without the cells' names: exit 2" 2 err "give the boot's cells' NAMEs" -- \
	slice --step repro --console "$TMP/boot.console" --dir "$TMP/slices" --suffix log --tail t

guest=$(dirname "$GUPCTL")/gupctl-guest
if [ -x "$guest" ]; then
	GUPCTL=$guest expect "the guest build has no judge" 2 err "host-only command" -- repro judge --method pin
fi

tap_done
