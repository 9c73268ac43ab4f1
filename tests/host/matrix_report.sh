#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Host tests of gupctl report (synthetic matrix documents in,
# docs/matrix.md and the SVG out; --collect: a synthetic console with
# markers and kernel reports in, FLAVOUR.json out) and of the command lines
# of matrix and xcheck.  Needs no /dev/gup_test (the test that needs it
# absent is skipped if it is there).
# Output: TAP version 13.  Exit status: 0 if every test passed.
#
# usage: tests/host/matrix_report.sh [PATH/TO/gupctl]
#   Without an argument (as tests/run.sh calls it) userspace/gupctl is built
#   with make and tested.
# Backticks in single quotes below are markdown, not command substitutions.
# shellcheck disable=SC2016
set -euo pipefail

# shellcheck source=../gupctl_harness.sh
. "$(dirname "$0")/../gupctl_harness.sh"

# check DESC COMMAND...: ok if COMMAND succeeds.
check() {
	local desc=$1
	shift
	if "$@"; then
		tap_ok "$desc"
	else
		not_ok "$desc" "failed: $*"
	fi
}

# md_cell MD FLAVOUR BACKING STATE COLUMN: the symbol in FLAVOUR's table
# at row BACKING STATE, column COLUMN (e.g. "pinF W"); empty if blank.
md_cell() {
	awk -F'|' -v head="## Flavour \`$2\`" -v b="$3" -v s="$4" -v c="$5" '
		function trim(x) { gsub(/^ +| +$/, "", x); return x }
		$0 == head { in_fl = 1; next }
		in_fl && /^## / { exit }
		in_fl && /^\| backing \|/ {
			for (i = 2; i < NF; i++)
				if (trim($i) == c)
					col = i
			next
		}
		in_fl && col && trim($2) == b && trim($3) == s { print trim($col); exit }
	' "$1"
}

# cell_is DESC MD FLAVOUR BACKING STATE COLUMN WANT
cell_is() {
	local got
	got=$(md_cell "$2" "$3" "$4" "$5" "$6")
	tap_is "$got" "$7" "$1"
}

# section MD HEADING: the lines from "## HEADING" to the next "## ".
section() {
	awk -v head="## $2" '
		$0 == head { on = 1; print; next }
		on && /^## / { exit }
		on { print }
	' "$1"
}

# ---- Synthetic documents: two flavours, a few cells each ----

# cell METHOD FLAGS BACKING STATE EXPECTED EXP_ERRNO MEASURED MEAS_ERRNO
#      MATCH REASON: one cell of a matrix document ("-": no errno).  The
# index is computed here from the documented cell order (gupctl.h), so
# that report's check of it is tested too.
cell() {
	jq -nc --arg m "$1" --arg f "$2" --arg b "$3" --arg s "$4" \
		--arg exp "$5" --arg experr "$6" --arg meas "$7" \
		--arg measerr "$8" --argjson match "$9" --arg reason "${10}" '
	def pos(l; v): l | index(v);
	def errno(e): if e == "-" then null else e end;
	((pos(["anon-private", "shmem-memfd", "hugetlb-memfd", "tmpfs-shared",
	       "ext4-shared", "ext4-private", "ext4-shared-ro", "ramfs-shared"]; $b)
	  * 3 + pos(["untouched", "read-faulted", "write-faulted"]; $s)) * 4 +
	 pos(["pin_user_pages", "pin_user_pages_fast", "get_user_pages",
	      "get_user_pages_fast"]; $m)) as $bsm |
	{index: ($bsm * 4 + pos(["none", "WRITE", "LONGTERM", "WRITE|LONGTERM"]; $f) + 1),
	 backing: $b, state: $s, method: $m, flags: $f,
	 expected: {outcome: $exp, errno: errno($experr), reason: $reason},
	 measured: {outcome: $meas, errno: errno($measerr),
		    nr_pinned: (if $meas == "pinned" then 1
				elif $meas == "not-run" then null else 0 end),
		    unpin_errno: null,
		    page: (if $meas == "pinned" then
			   {kind: "anon", fs: null, state: ["dma-pinned"]}
			   else null end)},
	 match: $match}'
}

# doc FLAVOUR POLICY KERNEL MATRIX_SECONDS < CELLS: a FLAVOUR.json.
doc() {
	jq -s --arg fl "$1" --arg p "$2" --arg k "$3" --argjson w "$4" '
	{job: "matrix", flavour: $fl, policy: $p, ext4: "warn",
	 kernel_release: $k, input_hash: "0123456789abcdef",
	 kernel_verdict: "clean", summary: null,
	 wall_seconds: {boot: 9.5, matrix: $w},
	 cells: .,
	 xcheck: {policy: $p, checked: 3, disagree: 0, cells: []},
	 kernel_reports: []}'
}

r_read="a read pin: GUP faults the page in readable and takes it"
r_stock_w="6.1 has no file-backed write policy: GUP takes it"
r_einval="driver guard: FOLL_LONGTERM needs FOLL_PIN"
r_ro="a PROT_READ mapping cannot be write-faulted from user space"
r_tmpfs="tmpfs | shmem: never dirty-tracked"
r_v7="check_vma_flags() -> writeable_file_mapping_allowed(): FOLL_PIN write"
r_nomem="synthetic: ENOMEM expected"

{
	cell pin_user_pages none anon-private untouched pinned - pinned - true "$r_read"
	cell pin_user_pages WRITE ext4-shared write-faulted pinned - pinned - true "$r_stock_w"
	cell get_user_pages LONGTERM anon-private untouched refused EINVAL refused EINVAL true "$r_einval"
	cell pin_user_pages WRITE ext4-shared-ro write-faulted not-run - not-run - true "$r_ro"
	cell pin_user_pages_fast WRITE tmpfs-shared read-faulted pinned - refused EFAULT false "$r_tmpfs"
	cell pin_user_pages none hugetlb-memfd untouched refused ENOMEM refused ENOMEM true "$r_nomem"
} | doc stock stock 6.1.0-test-stock 41.5 >"$TMP/stock.json"
{
	cell pin_user_pages none anon-private untouched pinned - pinned - true "$r_read"
	cell pin_user_pages WRITE ext4-shared write-faulted refused EFAULT refused EFAULT true "$r_v7"
	cell get_user_pages LONGTERM anon-private untouched refused EINVAL refused EINVAL true "$r_einval"
	cell pin_user_pages WRITE ext4-shared-ro write-faulted not-run - not-run - true "$r_ro"
} | doc gup-v7 v7 6.1.0-test-v7 39 >"$TMP/v7.json"
printf '<!-- hand-written -->\nThe *stock* kernel | pins: `ext4`.\n\n- a point\n' >"$TMP/learned.md"

# A results directory: run.json lists both, and a flavour not run.
RES=$TMP/results/matrix/20261203-100944
mkdir -p "$RES"
cp "$TMP/stock.json" "$RES/stock.json"
cp "$TMP/v7.json" "$RES/gup-v7.json"
jq -n '{job: "matrix", commit: "deadbeef-dirty", date: "2026-12-03T10:09:44Z",
	source_package: {name: "linux-source-6.1", version: "6.1.192-3"},
	wall_seconds: 95.2,
	flavours: [{name: "stock", ran: true, why_not_run: null},
		   {name: "gup-v7", ran: true, why_not_run: null},
		   {name: "ext4-2018", ran: false,
		    why_not_run: "no matrix came back (runner status 125, kernel verdict panic)"}]}' \
	>"$RES/run.json"

MD=$TMP/matrix.md
SVG=$TMP/matrix.svg

# ---- report: a results directory, two flavours, one mismatch, one not run ----

expect "report: a mismatch and a flavour not run: files written, exit 1" 1 out \
	"stock: 6 cells, 5 run, 1 not applicable, 1 mismatch, 0 kernel reports" \
	"gup-v7: 4 cells, 3 run, 1 not applicable, 0 mismatches, 0 kernel reports" \
	"ext4-2018: not run: no matrix came back (runner status 125, kernel verdict panic)" \
	"wrote $MD and $SVG" \
	-- report --md "$MD" --svg "$SVG" --learned "$TMP/learned.md" "$RES"
check "report: both files exist" test -s "$MD" -a -s "$SVG"

check "md: says it is generated from real runs" \
	grep -qF "Generated by \`gupctl report\` from real runs of \`gupctl matrix\`" "$MD"
check "md: names the results directory and run.json's commit, date, kernel" \
	grep -qzF -- $'\n- results: `'"$RES"$'`\n- commit: deadbeef-dirty\n- date: 2026-12-03T10:09:44Z\n- kernel source: linux-source-6.1 6.1.192-3\n- job wall time: 95.2 s\n' "$MD"
check "md: summary row of stock (kernel, cells, mismatches, gup_test, reports, wall time)" \
	grep -qF "| \`stock\` | stock | 6.1.0-test-stock | 6 of 384 | 5 | 1 | 1 | 0 of 3 | 0 | 41.5 s |" "$MD"
check "md: summary row of gup-v7" \
	grep -qF "| \`gup-v7\` | v7 | 6.1.0-test-v7 | 4 of 384 | 3 | 1 | 0 | 0 of 3 | 0 | 39.0 s |" "$MD"
check "md: the flavour not run is listed as not run, with why" \
	grep -qF "| \`ext4-2018\` | not run |" "$MD"
check "md: ... and why" \
	grep -qxF "Not run: \`ext4-2018\`: no matrix came back (runner status 125, kernel verdict panic)" "$MD"
check "md: a legend" grep -qxF "## Legend" "$MD"
check "md: one table per flavour, in run.json's order" \
	test "$(grep '^## Flavour ' "$MD" | tr '\n' ' ')" = \
	"## Flavour \`stock\` ## Flavour \`gup-v7\` "
columns="| backing | state | pin | pin W | pin L | pin LW | pinF | pinF W | pinF L | pinF LW | get | get W | get L | get LW | getF | getF W | getF L | getF LW |"
check "md: 16 columns, method x flags, short labels" \
	test "$(grep -cxF -- "$columns" "$MD")" -eq 2
rows=$(section "$MD" "Flavour \`stock\`" | grep -cE '^\| [a-z0-9-]+ \| (untouched|read-faulted|write-faulted) \|' || true)
tap_is "$rows" 24 "md: 24 rows (backing x state) per flavour"

cell_is "md: stock pinned read pin: P" "$MD" stock anon-private untouched "pin" P
cell_is "md: stock pinned ext4 write: P" "$MD" stock ext4-shared write-faulted "pin W" P
cell_is "md: gup-v7 refused ext4 write: F" "$MD" gup-v7 ext4-shared write-faulted "pin W" F
cell_is "md: EINVAL: I" "$MD" stock anon-private untouched "get L" I
cell_is "md: another errno by its name" "$MD" stock hugetlb-memfd untouched "pin" ENOMEM
cell_is "md: not applicable: ·" "$MD" stock ext4-shared-ro write-faulted "pin W" "·"
cell_is "md: the mismatch is marked !" "$MD" stock tmpfs-shared read-faulted "pinF W" "F!"
cell_is "md: a cell not in the results is blank" "$MD" stock shmem-memfd untouched "pin" ""

stock_sec=$(section "$MD" "Flavour \`stock\`")
v7_sec=$(section "$MD" "Flavour \`gup-v7\`")
tap_like "$stock_sec" '^Mismatches: 1$' "md: stock has 1 mismatch"
tap_like "$v7_sec" '^Mismatches: 0\.$' "md: gup-v7 has none"
tap_like "$stock_sec" \
	'^- `pin_user_pages_fast WRITE tmpfs-shared read-faulted`: measured EFAULT, expected pinned: tmpfs \\\| shmem: never dirty-tracked$' \
	"md: the mismatch listed with its reason (markdown-escaped)"
n=$(grep -c '^- `' <<<"$stock_sec" || true)
tap_is "$n" 1 "md: only the mismatch is listed"
tap_like "$stock_sec" 'Kernel verdict of the boot: clean; the matrix took 41\.5 s in the guest, the boot 9\.5 s' \
	"md: the flavour's verdict and wall times"
tap_like "$stock_sec" "^Cross-check with the kernel's own \`gup_test\`: it agrees on all 3 cells it can express\.$" \
	"md: the gup_test cross-check"
tap_like "$stock_sec" '^Kernel reports on the console: none\.$' "md: no kernel reports"

diff_sec=$(section "$MD" "Where flavours disagree")
tap_like "$diff_sec" \
	'^\| pin_user_pages \| WRITE \| ext4-shared \| write-faulted \| P \| F \| `gup-v7`: expected EFAULT: check_vma_flags\(\) -> writeable_file_mapping_allowed\(\): FOLL_PIN write \|$' \
	"md: the disagreement, with the refusing flavour's reason"
n=$(grep -c '^| [a-z]*_user_pages' <<<"$diff_sec" || true)
tap_is "$n" 1 "md: only cells that differ (and that both ran) are compared"
check "md: the disagreement table has one column per flavour" \
	grep -qF '| method | flags | backing | state | `stock` | `gup-v7` |' <<<"$diff_sec"

got=$(sed -n '/^## What we learned$/,$p' "$MD" | tail -n +3)
tap_is "$got" "$(cat "$TMP/learned.md")" "md: --learned appended verbatim under What we learned"
check "md: What we learned is the last section" \
	test "$(grep '^## ' "$MD" | tail -1)" = "## What we learned"

# The SVG.
if command -v python3 >/dev/null; then
	if python3 -c 'import xml.dom.minidom,sys; xml.dom.minidom.parse(sys.argv[1])' "$SVG" 2>"$TMP/err"; then
		tap_ok "svg: valid XML"
	else
		not_ok "svg: valid XML"
	fi
	got=$(python3 - "$SVG" <<'EOF'
import sys
import xml.dom.minidom

doc = xml.dom.minidom.parse(sys.argv[1])
groups = doc.getElementsByTagName("g")
panels = [g.getAttribute("id") for g in groups
          if g.getAttribute("class") == "panel"]
cells = [g for g in groups if "cell" in g.getAttribute("class").split()]
bad = [g for g in cells if "mismatch" in g.getAttribute("class").split()]
print(" ".join(panels), len(cells), len(bad),
      doc.documentElement.tagName)
EOF
	)
	tap_is "$got" "panel-stock panel-gup-v7 768 1 svg" \
		"svg: one 24x16 panel per flavour, one mismatch outlined"
else
	tap_ok "svg: valid XML # SKIP no python3"
	tap_ok "svg: one panel per flavour # SKIP no python3"
fi
check "svg: the results directory and commit in the title" \
	grep -qF "results: $RES, commit deadbeef-dirty" "$SVG"
check "svg: the flavour not run" grep -qF "not run: ext4-2018" "$SVG"
check "svg: mismatch outline is thick and black" \
	grep -qF 'stroke="#000000" stroke-width="2.5"' "$SVG"

# FLAVOUR.json files instead of a directory: no run.json, no flavour not run.
run report --md "$TMP/b.md" --svg "$TMP/b.svg" "$TMP/stock.json" "$TMP/v7.json"
if [ "$rc" -eq 1 ] && ! grep -q ext4-2018 "$TMP/b.md" "$TMP/b.svg" &&
	! grep -q "What we learned" "$TMP/b.md" &&
	grep -qF -- "- results: \`$TMP/stock.json\`, \`$TMP/v7.json\` (no run.json: commit and date unknown)" "$TMP/b.md"; then
	tap_ok "report: FLAVOUR.json files: named as the source; no flavour not run, no --learned"
else
	not_ok "report: FLAVOUR.json files: named as the source; no flavour not run, no --learned" "exit $rc"
fi
expect "report: a --learned file that does not exist is skipped" 1 out \
	"wrote" -- report --md "$TMP/c.md" --svg "$TMP/c.svg" \
	--learned "$TMP/no-such.md" "$TMP/stock.json"

# Exit 1 also for a partial matrix: gup-v7 has 4 of 384 cells.
expect "report: no mismatch but cells missing: exit 1" 1 out "gup-v7: 4 cells" \
	-- report --md "$TMP/d.md" --svg "$TMP/d.svg" "$TMP/v7.json"
check "report: one flavour: nothing to compare" \
	grep -qF "Only one flavour in the results: nothing to compare." "$TMP/d.md"

# Exit 2: usage errors and bad input; nothing written.
expect "report: no arguments" 2 err "no --md FILE" -- report
expect "report: no --svg" 2 err "no --svg FILE" -- report --md "$TMP/e.md" "$TMP/v7.json"
expect "report: no RESULTS" 2 err "no RESULTS" -- report --md "$TMP/e.md" --svg "$TMP/e.svg"
expect "report: unknown option" 2 err "gupctl report: unknown option '--frob'" \
	"Try 'gupctl report --help'." -- report --frob
expect "report: option without its argument" 2 err \
	"option '--learned' needs an argument" -- report --md a --svg b --learned
expect "report: missing document names it" 2 err "$TMP/none.json" \
	-- report --md "$TMP/e.md" --svg "$TMP/e.svg" "$TMP/none.json"
printf '{"flavour": "stock",' >"$TMP/bad.json"
expect "report: not JSON: file, line and column" 2 err "$TMP/bad.json:1:" "not JSON" \
	-- report --md "$TMP/e.md" --svg "$TMP/e.svg" "$TMP/bad.json"
jq '.cells[1].backing = "mars"' "$TMP/stock.json" >"$TMP/bad2.json"
expect "report: an unknown backing names file and cell" 2 err \
	"$TMP/bad2.json: cells[1]: unknown backing 'mars'" \
	-- report --md "$TMP/e.md" --svg "$TMP/e.svg" "$TMP/bad2.json"
jq '.cells[0].index = 7' "$TMP/stock.json" >"$TMP/bad3.json"
expect "report: an index that is not the cell's" 2 err \
	"$TMP/bad3.json: cells[0]: \"index\" is not 1, the index of pin_user_pages none anon-private untouched" \
	-- report --md "$TMP/e.md" --svg "$TMP/e.svg" "$TMP/bad3.json"
jq '.cells[2].measured.errno = null' "$TMP/stock.json" >"$TMP/bad4.json"
expect "report: refused without an errno" 2 err \
	"$TMP/bad4.json: cells[2]: measured refused without an errno" \
	-- report --md "$TMP/e.md" --svg "$TMP/e.svg" "$TMP/bad4.json"
expect "report: the same flavour twice" 2 err "flavour stock is in both" \
	-- report --md "$TMP/e.md" --svg "$TMP/e.svg" "$TMP/stock.json" "$TMP/stock.json"
expect "report: a directory without run.json" 2 err "$TMP/run.json" \
	-- report --md "$TMP/e.md" --svg "$TMP/e.svg" "$TMP"
check "report: nothing written on a usage error" test ! -e "$TMP/e.md" -a ! -e "$TMP/e.svg"

# ---- report --collect: kernel reports attributed to the marker before ----

C=$TMP/collect
mkdir -p "$C"
# The guest's matrix document: the stock cells less the mismatch, whose
# match is true, as the guest writes it (no verdict, no reports).
jq '{job, flavour, policy, kernel_release, wall_seconds: {matrix: 1.2},
     cells: [.cells[] | select(.match)]}' "$TMP/stock.json" >"$C/matrix.json"
jq -n '{policy: "stock", gup_test: "/lab/bin/gup_test", foll_longterm: "0x10000",
	wall_seconds: {xcheck: 3.5}, checked: 1, disagree: 0,
	cells: [{index: 1, gup_test: "pinned", error: null, expected: "pinned",
		 matrix: "pinned", agree: true}]}' >"$C/xcheck.json"
printf '%s\r\n' \
	'[    1.000000] WARNING: CPU: 0 PID: 1 at mm/early.c:1 early+0x0/0x1' \
	'gup-lab: running /lab/run.sh' \
	'[    2.000000] gup-lab: matrix cell 1' \
	'ok 1 pin_user_pages none anon-private untouched # pinned' \
	'[    2.100000] gup-lab: matrix cell 17' \
	'[    2.200000] WARNING: CPU: 1 PID: 99 at ../src/fs/ext4/inode.c:3578 ext4_writepage+0x1/0x2' \
	'[    2.300000] gup-lab: matrix cell 18' \
	'[    3.000000] gup-lab: matrix end' \
	'[    3.100000] kernel BUG at fs/ext4/inode.c:100!' \
	'[    4.000000] gup-lab: xcheck cell 5' \
	'[    4.100000] BUG: Bad page state in process gup_test' \
	'gup-lab: command exited with status 0' >"$C/console.log"
"$ROOT/qemu/scan-console.sh" --reports "$C/console.log" >"$C/reports.json"
tap_is "$(jq -c '[.[] | [.line, .kind, .location]]' "$C/reports.json")" \
	'[[1,"warning","mm/early.c:1"],[6,"warning","fs/ext4/inode.c:3578"],[9,"bug","fs/ext4/inode.c:100"],[11,"bug",null]]' \
	"scan-console.sh --reports: every report, its line, kind and location"

collect=(report --collect "$C/stock.json" --flavour stock --policy stock
	--ext4 warn --input-hash 0123456789abcdef --kernel-verdict bug
	--boot-seconds 9.7 --console "$C/console.log" --reports "$C/reports.json")
expect "collect: kernel reports: the flavour failed, exit 1" 1 out \
	"stock: 5 of 384 cells, 0 mismatches, gup_test: 1 checked, 0 disagree, 4 kernel reports, kernel verdict bug: FAILED" \
	-- "${collect[@]}" --matrix "$C/matrix.json" --xcheck "$C/xcheck.json"
tap_is "$(jq -c '[.kernel_reports[] | [.console_line, .step, .cell, .expected]]' "$C/stock.json" 2>&1)" \
	'[[1,null,null,false],[6,"matrix",17,false],[9,"matrix",null,false],[11,"xcheck",5,false]]' \
	"collect: each report with the step and cell of the marker before it, none expected"
tap_is "$(jq -c '[.job, .flavour, .policy, .ext4, .kernel_release, .input_hash,
	.kernel_verdict, .wall_seconds, (.cells | length), .xcheck.checked,
	.summary]' "$C/stock.json" 2>&1)" \
	'["matrix","stock","stock","warn","6.1.0-test-stock","0123456789abcdef","bug",{"boot":9.7,"matrix":1.2,"xcheck":3.5},5,1,{"cells":5,"run":4,"not_applicable":1,"mismatches":0,"xcheck_disagree":0,"kernel_reports":4,"unexpected_kernel_reports":4,"passed":false}]' \
	"collect: the run's facts, the guest's cells and cross-check, the summary"
expect "collect: the document reads back" 1 out \
	"stock: 5 cells, 4 run, 1 not applicable, 0 mismatches, 4 kernel reports" \
	-- report --md "$C/m.md" --svg "$C/m.svg" "$C/stock.json"
tap_like "$(section "$C/m.md" "Flavour \`stock\`")" \
	'^- \*\*not expected\*\* `warning` during matrix cell 17 `pin_user_pages none anon-private read-faulted`: WARNING: CPU: 1 PID: 99 at \.\./src/fs/ext4/inode\.c:3578 ext4_writepage\+0x1/0x2$' \
	"md: a kernel report with its cell"

# Without the guest's documents: not run, but the reports are kept.
expect "collect: no matrix came back: a document without cells" 1 out \
	"stock: 0 of 384 cells" "no gup_test cross-check" -- "${collect[@]}"
tap_is "$(jq -c '[(.cells | length), .xcheck, .kernel_release, (.kernel_reports | length)]' "$C/stock.json" 2>&1)" \
	'[0,null,null,4]' "collect: without --matrix: no cells, no cross-check, the reports"

# A clean console: passed, exit 0.
grep -v -e WARNING -e BUG "$C/console.log" >"$C/clean.log"
"$ROOT/qemu/scan-console.sh" --reports "$C/clean.log" >"$C/clean.json"
expect "collect: a clean console and every cell as expected, but cells missing: exit 1" 1 out \
	"0 kernel reports" -- report --collect "$C/clean-stock.json" --flavour stock \
	--policy stock --ext4 warn --input-hash 0 --kernel-verdict clean \
	--boot-seconds 1 --console "$C/clean.log" --reports "$C/clean.json" \
	--matrix "$C/matrix.json"

expect "collect: a missing option is named" 2 err "--collect needs --kernel-verdict" \
	-- report --collect "$C/x.json" --flavour stock --policy stock --ext4 warn \
	--input-hash 0 --boot-seconds 1 --console "$C/console.log" --reports "$C/reports.json"
expect "collect: --matrix of another flavour" 2 err \
	"$C/matrix.json: of flavour stock policy stock, not --flavour gup-v7 --policy v7" \
	-- report --collect "$C/x.json" --flavour gup-v7 --policy v7 --ext4 warn \
	--input-hash 0 --kernel-verdict clean --boot-seconds 1 \
	--console "$C/console.log" --reports "$C/reports.json" --matrix "$C/matrix.json"
expect "collect: no pages with it" 2 err "--collect writes one document" \
	-- "${collect[@]}" --md "$C/y.md"
check "collect: nothing written on a usage error" test ! -e "$C/x.json"

# ---- matrix and xcheck: command lines ----

expect "matrix: no --flavour" 2 err "no --flavour" -- matrix --policy stock
expect "matrix: bad --flavour" 2 err "bad --flavour 'a b'" \
	-- matrix --flavour 'a b' --policy stock
expect "matrix: no --policy names the policies" 2 err "no --policy: give one of: stock, v7" \
	-- matrix --flavour stock
expect "matrix: unknown --policy" 2 err "unknown --policy 'v9'" \
	-- matrix --flavour stock --policy v9
expect "matrix: unknown option" 2 err "gupctl matrix: unknown option '--frob'" \
	"Try 'gupctl matrix --help'." -- matrix --frob
expect "matrix: the TSV is gone" 2 err "gupctl matrix: unknown option '--tsv'" \
	-- matrix --flavour stock --policy stock --tsv "$TMP/m.tsv"
expect "matrix: extra argument" 2 err "unexpected argument 'x'" \
	-- matrix --flavour stock --policy stock x
expect "matrix: option without its argument" 2 err \
	"option '--json' needs an argument" -- matrix --flavour stock --policy stock --json
if [ -e /dev/gup_test ]; then
	tap_ok "matrix without the module: exit 3 # SKIP /dev/gup_test exists here"
else
	expect "matrix without the module: exit 3 with the insmod hint" 3 err \
		"gupctl matrix: /dev/gup_test not found" "insmod gup_pin_test.ko" \
		-- matrix --flavour stock --policy stock --json "$TMP/m.json"
	check "matrix without the module: no output file" test ! -e "$TMP/m.json"
fi
expect "xcheck: required options" 2 err "--policy and --gup-test are required" \
	-- xcheck --policy stock
expect "xcheck: unknown --policy" 2 err "unknown --policy 'v9'" \
	-- xcheck --policy v9 --gup-test /bin/true
expect "xcheck: bad --foll-longterm" 2 err "bad --foll-longterm 'x'" \
	-- xcheck --policy stock --gup-test /bin/true --foll-longterm x
expect "xcheck: --matrix of another policy" 2 err \
	"--matrix $C/matrix.json is of policy stock, not --policy v7" \
	-- xcheck --policy v7 --gup-test /bin/true --matrix "$C/matrix.json"

# ---- help: lists exactly the options that exist ----

# check_help DESC USAGE EXPECTED_OPTIONS ARGS...: exit 0, the USAGE line
# on stdout, and the --options named are exactly EXPECTED_OPTIONS.
check_help() {
	local desc=$1 usage=$2 want listed
	want=$(tr ' ' '\n' <<<"$3" | { grep . || true; } | sort -u)
	shift 3
	run "$@"
	listed=$({ grep -oE -- '--[a-z][a-z0-9-]*' "$TMP/out" || true; } | sort -u)
	if [ "$rc" -eq 0 ] && [ "$listed" = "$want" ] && [ ! -s "$TMP/err" ] &&
		grep -qF -- "$usage" "$TMP/out"; then
		tap_ok "$desc"
	else
		not_ok "$desc" "exit $rc" "listed: $(echo "$listed" | tr '\n' ' ')" \
			"want: $(echo "$want" | tr '\n' ' ')"
	fi
}

matrix_opts="--ext4-dir --flavour --help --json --policy --ramfs-dir --tmpfs-dir"
xcheck_opts="--ext4-dir --foll-longterm --gup-test --help --json --matrix --policy --ramfs-dir --tmpfs-dir"
report_opts="--boot-seconds --collect --console --ext4 --flavour --help --input-hash
--kernel-verdict --learned --matrix --md --policy --reports --svg --xcheck"

for cmd in matrix xcheck report; do
	case $cmd in
	matrix) opts=$matrix_opts ;;
	xcheck) opts=$xcheck_opts ;;
	report) opts=$report_opts ;;
	esac
	check_help "$cmd --help lists every $cmd option and only those" \
		"usage: gupctl $cmd " "$opts" "$cmd" --help
	cp "$TMP/out" "$TMP/$cmd-help"
	check "$cmd --help points to its section of docs/gupctl.md" \
		grep -qF "docs/gupctl.md, section \"gupctl $cmd\"" "$TMP/$cmd-help"
	check "docs/gupctl.md has that section" \
		grep -qxF "## gupctl $cmd" "$ROOT/docs/gupctl.md"
	run help "$cmd"
	check "help $cmd prints the same as $cmd --help" cmp -s "$TMP/out" "$TMP/$cmd-help"
	n=$(awk 'length > 100' "$TMP/$cmd-help" | wc -l)
	tap_is "$n" 0 "$cmd --help: no line over 100 columns"
done

run --help
if grep -qE '^  matrix ' "$TMP/out" && grep -qE '^  report ' "$TMP/out" &&
	grep -qE '^  xcheck ' "$TMP/out"; then
	tap_ok "--help lists the commands matrix, xcheck and report"
else
	not_ok "--help lists the commands matrix, xcheck and report"
fi

# value OPT: an argument OPT accepts.
value() {
	case $1 in
	--flavour) echo stock ;;
	--policy) echo v7 ;;
	--foll-longterm) echo 0x10000 ;;
	*) echo "$TMP/x" ;;
	esac
}

# accepted DESC ERROR OPTIONS ARGS...: for every OPTION but --help,
# "gupctl ARGS OPTION VALUE" gets as far as the usage error ERROR, which
# only comes after all options were parsed.
accepted() {
	local desc=$1 err=$2 opts=$3 opt n=0 bad=()
	shift 3
	for opt in $opts; do
		[ "$opt" != --help ] || continue
		n=$((n + 1))
		run "$@" "$opt" "$(value "$opt")"
		[ "$rc" -eq 2 ] && grep -qF -- "$err" "$TMP/err" || bad+=("$opt")
	done
	if [ ${#bad[@]} -eq 0 ] && [ "$n" -gt 1 ]; then
		tap_ok "$desc ($n)"
	else
		not_ok "$desc" "rejected: ${bad[*]}" "options tried: $n"
	fi
}

accepted "every option matrix --help lists is accepted" "unexpected argument 'extra'" \
	"$matrix_opts" matrix --flavour stock --policy stock extra
accepted "every option xcheck --help lists is accepted" "unexpected argument 'extra'" \
	"$xcheck_opts" xcheck --policy stock --gup-test /bin/true extra
accepted "every page option report --help lists is accepted" "no RESULTS" \
	"--md --svg --learned" report --md "$TMP/a.md" --svg "$TMP/a.svg"
accepted "every --collect option report --help lists is accepted" \
	"--collect writes one document" \
	"$(tr ' ' '\n' <<<"$report_opts" | grep -vxE -- '--(md|svg|learned|help)')" \
	report --collect "$TMP/x.json" --flavour stock --policy stock --md x

tap_done
