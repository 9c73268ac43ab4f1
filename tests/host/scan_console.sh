#!/bin/bash
# qemu/scan-console.sh on the report lines of every kernel the lab builds:
# each report's kind and its file:line, which the jobs compare with the
# expected report's site (userspace/console/kreports.c).  6.1 and 6.12
# print a WARN as "WARNING: CPU: N PID: N at FILE:LINE FUNC+0x.."; 7.3
# prints "WARNING: FILE:LINE at FUNC+0x.., CPU#N: COMM/PID"
# (kernel/panic.c:1090 of 7.3.4), or without a file when the kernel has
# no bug table entry for it ("WARNING: at FUNC", :1094).  A scanner that
# knew only the first form found no site on 7.3, and every expected WARN
# of a 7.3 run would read as another report.
# shellcheck source=../suite.sh
. "$(dirname "$0")/../suite.sh"

log=$work/console.log
cat >"$log" <<'LOG'
[    1.000000] WARNING: CPU: 0 PID: 1 at mm/gup.c:2184 is_valid_gup_flags+0x1/0x2
[    2.000000] WARNING: ../src/mm/gup.c:2525 at is_valid_gup_args+0x12/0x40, CPU#1: gupctl/123
[    3.000000] WARNING: at foo+0x1/0x2, CPU#1: a/1
[    4.000000] kernel BUG at fs/ext4/inode.c:2658!
[    5.000000] ------------[ cut here ]------------
LOG
reports=$(qemu/scan-console.sh --reports "$log")
loc() { jq -r --argjson l "$1" '.[] | select(.line == $l) | "\(.kind) \(.location)"' <<<"$reports"; }
tap_is "$(jq length <<<"$reports")" 4 "four report lines, the cut line none"
tap_is "$(loc 1)" "warning mm/gup.c:2184" "6.x: WARNING: CPU: N PID: N at FILE:LINE"
tap_is "$(loc 2)" "warning mm/gup.c:2525" "7.3: WARNING: FILE:LINE at FUNC, CPU#N (an O= build's ../src/ taken off)"
tap_is "$(loc 3)" "warning null" "7.3: WARNING: at FUNC, no file: no location, not a wrong one"
tap_is "$(loc 4)" "bug fs/ext4/inode.c:2658" "kernel BUG at FILE:LINE!"
tap_is "$(qemu/scan-console.sh "$log" | head -1)" "verdict=bug" "the verdict is the worst report"
tap_done
