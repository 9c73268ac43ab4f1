#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Host tests of gupctl export (userspace/export/), no guest: the exported
# reproducer builds alone (gcc -Wall -Wextra -Werror, static), includes
# nothing of the lab, carries lib/holders_steps.c as the guest compiles it
# (one source), and its --expect and
# --findings follow the findings docs/filesystems-guide.md section 12
# lists.  Never run here: a reproducer mounts file systems and loses data
# by design, which belongs in a guest (jobs/export.sh).
# Output: TAP version 13.  Exit status: 0 if every test passed.
#
# usage: tests/host/export.sh [PATH/TO/gupctl]
set -euo pipefail

# shellcheck source=../gupctl_harness.sh
. "$(dirname "$0")/../gupctl_harness.sh"

cell=xfs-pvw-ficlone
run export --dir "$TMP" "$cell"
tap_is "$rc $(sed 's|.*/||' "$TMP/out" | paste -sd' ')" "0 $cell.c $cell.sh" \
	"export CELL: writes CELL.c and CELL.sh and prints their paths"
if gcc -O2 -Wall -Wextra -Werror -pthread -static -o "$TMP/$cell" "$TMP/$cell.c" 2>"$TMP/gcc"; then
	tap_ok "the reproducer builds alone, static, with -Wall -Wextra -Werror"
else
	tap_not_ok "the reproducer builds alone, static, with -Wall -Wextra -Werror"
	sed 's/^/#   /' "$TMP/gcc" | head -10
fi
tap_is "$(grep -c '^#include "' "$TMP/$cell.c" || true)" 0 \
	"the reproducer includes no header of the lab's (only the system's)"
# one source: the exported text holds lib/holders_steps.c whole, but its two
# lab includes
grep -v 'export: lab include' "$ROOT/userspace/lib/holders_steps.c" >"$TMP/steps.c"
if python3 - "$TMP/$cell.c" "$TMP/steps.c" <<'PY'
import sys
sys.exit(0 if open(sys.argv[2]).read() in open(sys.argv[1]).read() else 1)
PY
then
	tap_ok "the reproducer carries lib/holders_steps.c as the guest's gupctl compiles it"
else
	tap_not_ok "the reproducer carries lib/holders_steps.c as the guest's gupctl compiles it"
fi
tap_like "$(grep '^#define REPRO_' "$TMP/$cell.c" | paste -sd' ')" \
	'REPRO_EVENT 11[[:space:]].*REPRO_PAGE_STAYS 1[[:space:]].*"mkfs.xfs".*REPRO_FSTYPE "xfs"' \
	"the cell's definitions: FICLONE, the page stays in the file, the lab's mkfs.xfs"
tap_like "$(cat "$TMP/$cell.sh")" 'gcc -O2 -pthread -o xfs-pvw-ficlone xfs-pvw-ficlone\.c' \
	"CELL.sh builds it with gcc alone"

# the O_DIRECT and io_uring holders: dm-delay over a second loop device,
# made by the reproducer through the DM ioctls (lib/dm.c, carried along);
# only io_uring's links liburing
for c in ext4-odirect-pageout ext4-uring-pageout; do
	run export --dir "$TMP" "$c"
	lib=()
	[ "$c" = ext4-odirect-pageout ] || lib=(-luring)
	if [ "$rc" = 0 ] && grep -qx "gcc -O2 -pthread -o $c $c.c${lib[*]/#/ }" "$TMP/$c.sh" &&
		gcc -O2 -Wall -Wextra -Werror -pthread -static -o "$TMP/$c" "$TMP/$c.c" "${lib[@]}" 2>"$TMP/gcc"; then
		tap_ok "$c: exported, and builds with its script's line (${lib[*]:-libc alone})"
	else
		tap_not_ok "$c: exported, and builds with its script's line (${lib[*]:-libc alone})"
		sed 's/^/#   /' "$TMP/gcc" | head -10
	fi
done
tap_is "$(grep -c '^#define HOLDERS_NO_URING' "$TMP/ext4-odirect-pageout.c") $(grep -c '^#define HOLDERS_NO_URING' "$TMP/ext4-uring-pageout.c")" \
	"1 0" "only the io_uring reproducer compiles steps.c's io_uring holder"

expect "an unknown cell is a usage error" 2 err "not a holders cell" -- export nosuch-pvw-fsync
expect "--expect without a kernel is a usage error" 2 err "need --policy and --source" \
	-- export --expect xfs-pvw-ficlone

# --expect: section 12's findings.  xfs FICLONE changes the clone on every
# kernel; ext4's MOVE_EXT donor loses the write (6.1, 6.12, 7.3) but
# panics ext4-2018's kernel (not run); btrfs loses fsync's writeback on
# 6.12 only; a plain fsync on ext4 loses nothing.
while read -r policy source ext4 c want; do
	run export --expect --policy "$policy" --source "$source" --ext4 "$ext4" "$c"
	tap_is "$rc $(cut -f1 "$TMP/out")" "0 $want" "--expect $c on $policy ($source, ext4 $ext4): $want"
done <<'CASES'
stock 6.1 warn xfs-pvw-ficlone 1
mainline 6.12 warn xfs-pvw-ficlone 1
latest 7.3 warn xfs-pvw-ficlone 1
stock 6.1 warn ext4-pvw-move-ext-donor 1
latest 7.3 warn ext4-pvw-move-ext-donor 1
stock 6.1 bug ext4-pvw-move-ext-donor not-run
mainline 6.12 warn btrfs-pvw-fsync 1
stock 6.1 warn btrfs-pvw-fsync 0
latest 7.3 warn btrfs-pvw-fsync 0
mainline 6.12 warn ext4-pvw-fsync 0
mainline 6.12 warn ext4-pvw-punch 0
CASES

# --findings: section 12's findings on mainline, each with the three
# holders: btrfs' five writeback events (15 cells), ext4's MOVE_EXT donor
# (3), xfs' FICLONE (3); on 7.3 btrfs' are gone (its writepage fixup);
# on 6.1 ext4's reclaim of an O_DIRECT or io_uring page (FOLL_GET) too.
run export --findings --policy mainline --source 6.12 --ext4 warn
tap_is "$rc $(grep -c '^btrfs-' "$TMP/out") $(grep -c 'ext4-.*-move-ext-donor' "$TMP/out") $(grep -c 'xfs-.*-ficlone' "$TMP/out") $(wc -l <"$TMP/out")" \
	"0 15 3 3 21" "--findings on mainline: btrfs' 15 writeback cells, ext4's 3 MOVE_EXT donors, xfs' 3 FICLONEs"
run export --findings --policy latest --source 7.3 --ext4 warn
tap_is "$rc $(grep -c '^btrfs-' "$TMP/out") $(wc -l <"$TMP/out")" "0 0 6" \
	"--findings on latest: btrfs' are gone, ext4's and xfs' remain"
run export --findings --policy stock --source 6.1 --ext4 warn
tap_is "$rc $(grep -E '^ext4-(odirect|uring)-pageout$' "$TMP/out" | paste -sd' ') $(grep -c pvw-pageout "$TMP/out")" \
	"0 ext4-odirect-pageout ext4-uring-pageout 0" \
	"--findings on stock: ext4's reclaim of a FOLL_GET page (O_DIRECT, io_uring), not of process_vm_writev()'s pin"

tap_done
