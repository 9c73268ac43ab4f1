#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Host tests of gupctl export (userspace/export/), no guest: the exported
# reproducer builds alone (gcc -Wall -Wextra -Werror, static), includes
# nothing of the lab, carries holders/steps.c as the guest compiles it
# (one source), refuses what it cannot export, and its --expect and
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
# one source: the exported text holds holders/steps.c whole, but its two
# lab includes
grep -v 'export: lab include' "$ROOT/userspace/holders/steps.c" >"$TMP/steps.c"
if python3 - "$TMP/$cell.c" "$TMP/steps.c" <<'PY'
import sys
sys.exit(0 if open(sys.argv[2]).read() in open(sys.argv[1]).read() else 1)
PY
then
	tap_ok "the reproducer carries holders/steps.c as the guest's gupctl compiles it"
else
	tap_not_ok "the reproducer carries holders/steps.c as the guest's gupctl compiles it"
fi
tap_like "$(grep '^#define REPRO_' "$TMP/$cell.c" | paste -sd' ')" \
	'REPRO_EVENT 11[[:space:]].*REPRO_PAGE_STAYS 1[[:space:]].*"mkfs.xfs".*REPRO_FSTYPE "xfs"' \
	"the cell's definitions: FICLONE, the page stays in the file, the lab's mkfs.xfs"
tap_like "$(cat "$TMP/$cell.sh")" 'gcc -O2 -pthread -o xfs-pvw-ficlone xfs-pvw-ficlone\.c' \
	"CELL.sh builds it with gcc alone"

expect "a cell held through dm-delay is not exported yet: exit 2, the pvw cell named" 2 err \
	"the same event held by process_vm_writev() is xfs-pvw-ficlone" -- export --dir "$TMP" xfs-odirect-ficlone
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

# --findings: mainline's three findings, through process_vm_writev():
# btrfs' five writeback events, ext4's MOVE_EXT donor, xfs' FICLONE.
run export --findings --policy mainline --source 6.12 --ext4 warn
tap_is "$rc $(sort "$TMP/out" | paste -sd' ')" \
	"0 btrfs-pvw-defrag btrfs-pvw-drop-caches btrfs-pvw-ficlone btrfs-pvw-fsync btrfs-pvw-pageout ext4-pvw-move-ext-donor xfs-pvw-ficlone" \
	"--findings on mainline: btrfs' writeback cells, ext4's MOVE_EXT donor, xfs' FICLONE"
run export --findings --policy latest --source 7.3 --ext4 warn
tap_is "$rc $(sort "$TMP/out" | paste -sd' ')" "0 ext4-pvw-move-ext-donor xfs-pvw-ficlone" \
	"--findings on latest: btrfs' are gone (its writepage fixup), ext4's and xfs' remain"

tap_done
