#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Host tests of gupctl report (synthetic matrix documents in,
# docs/matrix.md and the SVG out; --collect: a synthetic console with
# markers and kernel reports and a planted source tree in, FLAVOUR.json
# out: expected WARNINGs attributed to their cells) and of the command
# lines of matrix and xcheck.  Needs no /dev/gup_test (the test that needs it
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

# md_str MD FLAVOUR BACKING STATE FLAGS: the string of symbols in
# FLAVOUR's table at row BACKING STATE, column FLAGS (e.g. "WL").
md_str() {
	awk -F'|' -v head="## Flavour \`$2\`" -v b="$3" -v s="$4" -v c="$5" '
		function trim(x) { gsub(/^ +| +$|`/, "", x); return x }
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

# str_is DESC MD FLAVOUR BACKING STATE FLAGS WANT
str_is() {
	tap_is "$(md_str "$2" "$3" "$4" "$5" "$6")" "$7" "$1"
}

# section MD HEADING: the lines from "## HEADING" to the next "## ".
section() {
	awk -v head="## $2" '
		$0 == head { on = 1; print; next }
		on && /^## / { exit }
		on { print }
	' "$1"
}

# ---- Synthetic documents ----

# The matrix's axes (tests/matrix_axes.jq), and the documents' pieces.
JQLIB=$(cat "$ROOT/tests/matrix_axes.jq")'
def errno($e): if $e == "-" then null else $e end;
def cell($m; $f; $b; $s; $exp; $experr; $meas; $measerr; $match; $reason):
	{index: cellno($m; $f; $b; $s), backing: $b, state: $s, method: $m, flags: $f,
	 expected: {outcome: $exp, errno: errno($experr), reason: $reason,
		    by: "kernel", kernel_report: null},
	 measured: {outcome: $meas, errno: errno($measerr),
		    nr_pinned: (if $meas == "pinned" then 1
				elif $meas == "not-run" then null else 0 end),
		    unpin_errno: null,
		    page: (if $meas == "pinned" then
			   {kind: "anon", fs: null, state: ["dma-pinned"],
			    mapcount: 1, refcount: 2}
			   else null end)},
	 match: $match};
def warn($text): .expected.kernel_report =
	{kind: "warning", file: "mm/gup.c", text: $text};
def every_cell: [backings[] as $b | states[] as $s | methods[] as $m |
	flagsets[] as $f |
	cell($m; $f; $b; $s; "pinned"; "-"; "pinned"; "-"; true; "synthetic: pinned")];
'
# The matrix's size from its axes: 19 backings x 4 states x 8 methods x
# 12 flag mixes = 7296 cells, a table row per backing and state.
NCELLS=$(jq -n "$JQLIB"' (backings | length) * (states | length) * (methods | length) * (flagsets | length)')
NROWS=$(jq -n "$JQLIB"' (backings | length) * (states | length)')
# cells < LINES: cell objects from lines "METHOD FLAGS BACKING STATE
# EXPECTED EXP_ERRNO MEASURED MEAS_ERRNO MATCH REASON..." ("-": no errno).
cells() {
	local m f b s exp experr meas measerr match reason
	while read -r m f b s exp experr meas measerr match reason; do
		jq -nc --arg m "$m" --arg f "$f" --arg b "$b" --arg s "$s" \
			--arg exp "$exp" --arg experr "$experr" --arg meas "$meas" \
			--arg measerr "$measerr" --argjson match "$match" \
			--arg reason "$reason" "$JQLIB"'
			cell($m; $f; $b; $s; $exp; $experr; $meas; $measerr; $match; $reason)'
	done
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

W61='WARN_ON_ONCE(gup_flags & FOLL_LONGTERM)'
r_einval="is_valid_gup_flags(): FOLL_LONGTERM requires FOLL_PIN: WARN_ON_ONCE, -EINVAL"
r_v7="check_vma_flags() -> writeable_file_mapping_allowed(): FOLL_PIN write"
r_tmpfs="tmpfs | shmem: never dirty-tracked"
r_nofsync="anonymous memory has no file to fsync"

# stock: one cell of each symbol; gup-v7 changes one and has a whole row
# not applicable.
cells >"$TMP/stock.cells" <<EOF
pin_user_pages none anon-private untouched pinned - pinned - true a read pin
pin_user_pages WRITE ext4-shared write-faulted pinned - pinned - true 6.1 has no file-backed write policy
get_user_pages LONGTERM anon-private untouched refused EINVAL refused EINVAL true $r_einval
pin_user_pages WRITE ext4-shared-ro write-faulted not-run - not-run - true a PROT_READ mapping cannot be write-faulted
pin_user_pages_fast WRITE tmpfs-shared read-faulted pinned - refused EFAULT false $r_tmpfs
pin_user_pages none hugetlb-memfd untouched refused ENOMEM refused ENOMEM true synthetic: ENOMEM expected
pin_user_pages WRITE|ALLOW_BROKEN anon-private untouched refused EOPNOTSUPP refused EOPNOTSUPP true no FOLL_ALLOW_BROKEN_FILE_MAPPING here
pin_user_pages_remote WRITE anon-thp write-faulted pinned - pinned - true remote: the same slow path
EOF
jq -s "$JQLIB"'
	map(if .expected.errno == "EINVAL" then warn("'"$W61"'")
	    elif .flags == "WRITE|ALLOW_BROKEN" then .expected.by = "driver"
	    elif .backing == "anon-thp" then .measured.thp_kb = 2048
	    else . end) | .[]' "$TMP/stock.cells" |
	doc stock stock 6.1.0-test-stock 41.5 >"$TMP/stock.json"
{
	cells <<EOF
pin_user_pages none anon-private untouched pinned - pinned - true a read pin
pin_user_pages WRITE ext4-shared write-faulted refused EFAULT refused EFAULT true $r_v7
get_user_pages LONGTERM anon-private untouched refused EINVAL refused EINVAL true $r_einval
pin_user_pages WRITE ext4-shared-ro write-faulted not-run - not-run - true a PROT_READ mapping cannot be write-faulted
EOF
	jq -c --arg r "$r_nofsync" "$JQLIB"'every_cell[] |
		select(.backing == "anon-private" and .state == "written-back") |
		.expected = {outcome: "not-run", errno: null, reason: $r, by: "kernel",
			     kernel_report: null} |
		.measured = {outcome: "not-run", errno: null, nr_pinned: null,
			     unpin_errno: null, page: null}' -n
} | jq -s "$JQLIB"'map(if .expected.errno == "EINVAL" then warn("'"$W61"'") else . end) | .[]' |
	doc gup-v7 v7 6.1.0-test-v7 39 >"$TMP/v7.json"
printf '<!-- hand-written -->\nThe *stock* kernel | pins: `ext4`.\n\n- a point\n' >"$TMP/learned.md"

# A results directory: run.json lists both, and a flavour not run.
RES=$TMP/results/matrix/20261203-100944
mkdir -p "$RES"
cp "$TMP/stock.json" "$RES/stock.json"
cp "$TMP/v7.json" "$RES/gup-v7.json"
jq -n '{job: "matrix", commit: "deadbeef-dirty", date: "2026-12-03T10:09:44Z",
	source_packages: [{name: "linux-source-6.1", version: "6.1.192-3"}],
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
	"stock: 8 cells, 7 run, 1 not applicable, 1 mismatch, kernel reports: 0 expected, 0 unexpected" \
	"gup-v7: 100 cells, 3 run, 97 not applicable, 0 mismatches, kernel reports: 0 expected, 0 unexpected" \
	"ext4-2018: not run: no matrix came back (runner status 125, kernel verdict panic)" \
	"wrote $MD and $SVG" \
	-- report --md "$MD" --svg "$SVG" --learned "$TMP/learned.md" "$RES"
check "report: both files exist" test -s "$MD" -a -s "$SVG"

check "md: says it is generated from real runs" \
	grep -qF "Generated by \`gupctl report\` from real runs of \`gupctl matrix\`" "$MD"
check "md: names the results directory and run.json's commit, date, kernel" \
	grep -qzF -- $'\n- results: `'"$RES"$'`\n- commit: deadbeef-dirty\n- date: 2026-12-03T10:09:44Z\n- kernel source: linux-source-6.1 6.1.192-3\n- job wall time: 95.2 s\n' "$MD"
check "md: summary row of stock (cells, mismatches, gup_test, reports expected and not, wall time)" \
	grep -qF "| \`stock\` | stock | 6.1.0-test-stock | 8 of $NCELLS | 7 | 1 | 1 | 0 of 3 | 0 | 0 | 41.5 s |" "$MD"
check "md: summary row of gup-v7" \
	grep -qF "| \`gup-v7\` | v7 | 6.1.0-test-v7 | 100 of $NCELLS | 3 | 97 | 0 | 0 of 3 | 0 | 0 | 39.0 s |" "$MD"
check "md: the flavour not run is listed as not run" \
	grep -qF "| \`ext4-2018\` | not run |" "$MD"
check "md: ... and why" \
	grep -qxF "Not run: \`ext4-2018\`: no matrix came back (runner status 125, kernel verdict panic)" "$MD"
check "md: a legend" grep -qxF "## Legend" "$MD"
check "md: the legend names the methods in the strings' order" \
	grep -qF "pin_user_pages(), pin_user_pages_fast(), pin_user_pages_remote(), pin_user_pages_unlocked(); then get_user_pages(), get_user_pages_fast(), get_user_pages_remote(), get_user_pages_unlocked()" "$MD"
check "md: one table per flavour, in run.json's order" \
	test "$(grep '^## Flavour ' "$MD" | tr '\n' ' ')" = \
	"## Flavour \`stock\` ## Flavour \`gup-v7\` "
columns="| backing | state | none | W | L | WL | F | WF | LF | WLF | WA | WLA | WFA | WLFA |"
check "md: 12 columns, one per flag mix" \
	test "$(grep -cxF -- "$columns" "$MD")" -eq 2
rows=$(section "$MD" "Flavour \`stock\`" | grep -cE '^\| [a-z0-9-]+ \| (untouched|read-faulted|write-faulted|written-back) \|' || true)
tap_is "$rows" "$NROWS" "md: $NROWS rows (backing x state) for stock"

str_is "md: pinned, the other methods not in the results" "$MD" stock anon-private untouched none "P??? ????"
str_is "md: an ext4 write pinned" "$MD" stock ext4-shared write-faulted W "P??? ????"
str_is "md: EINVAL with the expected WARNING: I, in the get half" "$MD" stock anon-private untouched L "???? I???"
str_is "md: not applicable: -" "$MD" stock ext4-shared-ro write-faulted W "-??? ????"
str_is "md: the mismatch: !" "$MD" stock tmpfs-shared read-faulted W "?!?? ????"
str_is "md: another errno: x" "$MD" stock hugetlb-memfd untouched none "x??? ????"
str_is "md: refused by the driver: d" "$MD" stock anon-private untouched WA "d??? ????"
str_is "md: the remote method, third of the pins" "$MD" stock anon-thp write-faulted W "??P? ????"
str_is "md: gup-v7 refused the ext4 write: e" "$MD" gup-v7 ext4-shared write-faulted W "e??? ????"

stock_sec=$(section "$MD" "Flavour \`stock\`")
v7_sec=$(section "$MD" "Flavour \`gup-v7\`")
tap_like "$v7_sec" '^Not shown, every cell not applicable: `anon-private written-back`: anonymous memory has no file to fsync\.$' \
	"md: a row every cell of which is not applicable is named, with its reason"
rows=$(grep -cE '^\| anon-private \| written-back \|' <<<"$v7_sec" || true)
tap_is "$rows" 0 "md: ... and not drawn"
tap_like "$stock_sec" '^Mismatches: 1$' "md: stock has 1 mismatch"
tap_like "$v7_sec" '^Mismatches: 0\.$' "md: gup-v7 has none"
tap_like "$stock_sec" \
	"^- $(jq '.cells[4].index' "$TMP/stock.json") \`pin_user_pages_fast WRITE tmpfs-shared read-faulted\`: measured EFAULT, expected pinned: tmpfs \\\\\\| shmem: never dirty-tracked\$" \
	"md: the mismatch listed with its number and reason (markdown-escaped)"
n=$(grep -c '^- [0-9]* `' <<<"$stock_sec" || true)
tap_is "$n" 1 "md: only the mismatch is listed"
tap_like "$stock_sec" 'Kernel verdict of the boot: clean; the matrix took 41\.5 s in the guest, the boot 9\.5 s' \
	"md: the flavour's verdict and wall times"
tap_like "$stock_sec" "^Cross-check with the kernel's own \`gup_test\`: it agrees on all 3 cells it can express\.$" \
	"md: the gup_test cross-check"
tap_like "$stock_sec" '^Kernel reports on the console: none\.$' "md: no kernel reports"

counts=$(section "$MD" "Counts")
tap_like "$counts" '^\| flavour \| `P` \| `e` \| `E` \| `i` \| `I` \| `o` \| `O` \| `x` \| `X` \| `d` \| `0` \| `-` \| `!` \| `\?` \|$' \
	"md: the counts table has a column per symbol"
# stock's 8 cells, the rest not in its results (?)
tap_like "$counts" '^\| `stock` \| 3 \| 0 \| 0 \| 0 \| 1 \| 0 \| 0 \| 1 \| 0 \| 1 \| 0 \| 1 \| 1 \| '"$((NCELLS - 8))"' \|$' \
	"md: stock's counts"

diff_sec=$(section "$MD" "Where flavours differ from \`stock\`")
tap_like "$diff_sec" \
	'^\| ext4-shared \| write-faulted \| W \| `P\?\?\? \?\?\?\?` \| `e\?\?\? \?\?\?\?` \|$' \
	"md: the difference, as the two flavours' strings"
n=$(grep -c '^| [a-z]' <<<"$diff_sec" || true)
tap_is "$n" 2 "md: only rows that differ (a header and one row)"
tap_like "$diff_sec" '^### `gup-v7`: 1 cell differs from `stock`$' "md: per flavour, how many cells differ"
tap_like "$diff_sec" '^- `P` → `e`, 1 cell: check_vma_flags\(\) -> writeable_file_mapping_allowed\(\): FOLL_PIN write$' \
	"md: ... grouped by change, with the flavour's reason"
check "md: the differences come before the flavours' tables" \
	test "$(grep -n -m1 '^## Where flavours differ' "$MD" | cut -d: -f1)" -lt \
	"$(grep -n -m1 '^## Flavour ' "$MD" | cut -d: -f1)"

got=$(sed -n '/^## What we learned$/,$p' "$MD" | tail -n +3)
tap_is "$got" "$(cat "$TMP/learned.md")" "md: --learned appended verbatim under What we learned"
check "md: What we learned is the last section" \
	test "$(grep '^## ' "$MD" | tail -1)" = "## What we learned"

# The SVG.
if command -v python3 >/dev/null; then
	got=$(python3 - "$SVG" <<'EOF'
import sys
import xml.dom.minidom

doc = xml.dom.minidom.parse(sys.argv[1])
groups = doc.getElementsByTagName("g")
panels = [g for g in groups if g.getAttribute("class") == "panel"]
uses = [len(p.getElementsByTagName("use")) for p in panels]
bad = [r for r in doc.getElementsByTagName("rect")
       if r.getAttribute("class") == "mismatch"]
defs = [g.getAttribute("id") for g in groups if g.getAttribute("id").startswith("s")]
print(" ".join(p.getAttribute("id") for p in panels), uses, len(bad), len(defs),
      doc.documentElement.tagName)
EOF
	) || got="not valid XML"
	tap_is "$got" "panel-stock panel-gup-v7 [$NCELLS, $NCELLS] 1 13 svg" \
		"svg: valid XML, one panel of $NCELLS cells per flavour, the mismatch outlined, a definition per symbol"
else
	tap_ok "svg: valid XML and its panels # SKIP no python3"
fi
check "svg: the results directory and commit in the title" \
	grep -qF "results: $RES, commit deadbeef-dirty" "$SVG"
check "svg: the flavour not run" grep -qF "not run: ext4-2018" "$SVG"
check "svg: a tooltip on the cell that differs from stock" \
	grep -qF "<title>gup-v7 $(jq '.cells[1].index' "$TMP/v7.json"): pin_user_pages WRITE ext4-shared write-faulted: measured EFAULT, expected EFAULT: check_vma_flags() -&gt; writeable_file_mapping_allowed(): FOLL_PIN write</title>" "$SVG"

# A long reason: cut at 200 bytes after a word in the tooltip of a cell
# that only differs from stock (the picture's size), whole in a
# mismatch's and in the markdown.
long=$(printf 'word%03d ' $(seq 60))
jq --arg r "$long" '.cells[1].expected.reason = $r' "$TMP/v7.json" >"$TMP/v7long.json"
jq --arg r "$long" '(.cells[] | select(.match == false)).expected.reason = $r' "$TMP/stock.json" >"$TMP/stocklong.json"
run report --md "$TMP/l.md" --svg "$TMP/l.svg" "$TMP/stocklong.json" "$TMP/v7long.json"
cut=$(sed -n "s/.*<title>gup-v7 $(jq '.cells[1].index' "$TMP/v7.json"): [^<]*expected EFAULT: \([^<]*\)<\/title>.*/\1/p" "$TMP/l.svg")
tap_is "$cut" "$(printf 'word%03d ' $(seq 25))..." \
	"svg: a differing cell's long reason cut after its last word within 200 bytes, and '...'"
tap_is "$(grep -oF "expected pinned: ${long}</title>" "$TMP/l.svg" | wc -l) $(grep -qF -- "${long% }" "$TMP/l.md" && echo md)" \
	"2 md" "svg: a mismatch's long reason whole (its cell's and its outline's tooltip), and in the markdown"

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

# Exit 1 also for a partial matrix: gup-v7 has 100 of $NCELLS cells.
expect "report: no mismatch but cells missing: exit 1" 1 out "gup-v7: 100 cells" \
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
# bad_doc DESC MESSAGE JQ: stock.json changed by JQ is refused with MESSAGE.
bad_doc() {
	jq "$3" "$TMP/stock.json" >"$TMP/bad2.json"
	expect "report: $1" 2 err "$TMP/bad2.json: $2" \
		-- report --md "$TMP/e.md" --svg "$TMP/e.svg" "$TMP/bad2.json"
}
bad_doc "an unknown backing names file and cell" "cells[1]: unknown backing 'mars'" \
	'.cells[1].backing = "mars"'
bad_doc "flags that are no mix of the matrix" \
	"cells[0]: flags 'LONGTERM|ALLOW_BROKEN' are not one of the matrix's mixes" \
	'.cells[0].flags = "LONGTERM|ALLOW_BROKEN"'
bad_doc "an index that is not the cell's" \
	"cells[0]: \"index\" is not 1, the index of pin_user_pages none anon-private untouched" \
	'.cells[0].index = 7'
bad_doc "refused without an errno" "cells[2]: measured refused without an errno" \
	'.cells[2].measured.errno = null'
bad_doc "expected.by missing" "cells[0]: \"by\" is missing" 'del(.cells[0].expected.by)'
bad_doc "expected.by neither driver nor kernel" \
	"cells[0]: expected \"by\" 'user': want \"driver\" or \"kernel\"" '.cells[0].expected.by = "user"'
bad_doc "by the driver, but pinned" "cells[0]: expected pinned by the driver" \
	'.cells[0].expected.by = "driver"'
bad_doc "a kernel report expected from a driver refusal" \
	"cells[6]: expected a kernel report from a refusal by the driver" \
	'.cells[6].expected.kernel_report = {kind: "warning", file: "mm/gup.c", text: "x"}'
bad_doc "kernel_report missing" "cells[0]: \"kernel_report\" is missing" \
	'del(.cells[0].expected.kernel_report)'
bad_doc "kernel_report with an empty text" \
	"cells[2]: \"kernel_report\" has an empty kind, file or text" \
	'.cells[2].expected.kernel_report.text = ""'
bad_doc "a kernel report expected from a cell not run" \
	"cells[3]: expected a kernel report from a cell that is not run" \
	'.cells[3].expected.kernel_report = {kind: "warning", file: "mm/gup.c", text: "x"}'
bad_doc "thp_kb on a backing without THP" \
	"cells[0]: \"thp_kb\" on anon-private, not a transparent huge page backing" \
	'.cells[0].measured.thp_kb = 2048'
bad_doc "thp_kb not a number" "cells[7]: \"thp_kb\" is not a number of kB" \
	'.cells[7].measured.thp_kb = "big"'
expect "report: the same flavour twice" 2 err "flavour stock is in both" \
	-- report --md "$TMP/e.md" --svg "$TMP/e.svg" "$TMP/stock.json" "$TMP/stock.json"
expect "report: a directory without run.json" 2 err "$TMP/run.json" \
	-- report --md "$TMP/e.md" --svg "$TMP/e.svg" "$TMP"
check "report: nothing written on a usage error" test ! -e "$TMP/e.md" -a ! -e "$TMP/e.svg"

bad_doc "why_not_run on a cell that ran" \
	"cells[0]: \"why_not_run\" on a cell measured pinned and matched: it says why a cell did not run, which is never a match" \
	'.cells[0].measured.why_not_run = "no xfs mounted at /mnt/xfs"'

# ---- report: xfs and btrfs against their ext4 twins ----

# Every cell pinned as expected but two: an xfs-private cell refused where
# its ext4 twin was pinned (a finding), and a btrfs-shared cell not run,
# its file system not mounted (gupctl matrix's why_not_run: a failure).
why_btrfs="no btrfs mounted at /mnt/btrfs (it is on file system magic 0xef53)"
jq -n --arg why "$why_btrfs" "$JQLIB"'{job: "matrix", flavour: "mainline", policy: "mainline",
	ext4: "warn", kernel_release: "6.12.0-test", input_hash: "0", kernel_verdict: "clean",
	summary: null, wall_seconds: {boot: 1, matrix: 1}, xcheck: null, kernel_reports: [],
	cells: (every_cell | map(
		if .index == cellno("pin_user_pages"; "WRITE"; "xfs-private"; "write-faulted") then
			.measured = {outcome: "refused", errno: "EFAULT", nr_pinned: 0,
				     unpin_errno: null, page: null} | .match = false
		elif .index == cellno("pin_user_pages"; "none"; "btrfs-shared"; "untouched") then
			.measured = {outcome: "not-run", errno: null, nr_pinned: null,
				     unpin_errno: null, page: null, why_not_run: $why} | .match = false
		else . end))}' >"$TMP/twins.json"
run report --md "$TMP/twins.md" --svg "$TMP/twins.svg" "$TMP/twins.json"
twins=$(section "$TMP/twins.md" "xfs and btrfs against their ext4 twins")
# 4 backings of each x 384 cells, all run but the one btrfs cell
tap_is "$rc $(grep -F '| `mainline` |' <<<"$twins")" \
	"1 | \`mainline\` | $((4 * NCELLS / 19)) | $((4 * NCELLS / 19 - 1)) | $((4 * NCELLS / 19 - 1)) | $((4 * NCELLS / 19 - 1)) |" \
	"md: twins: per flavour, the xfs and btrfs cells run beside their ext4 twin and how many came out the same"
xfs_idx=$(jq -n "$JQLIB"'cellno("pin_user_pages"; "WRITE"; "xfs-private"; "write-faulted")')
ext4_idx=$(jq -n "$JQLIB"'cellno("pin_user_pages"; "WRITE"; "ext4-private"; "write-faulted")')
tap_like "$twins" "^- \`mainline\` $xfs_idx \`pin_user_pages WRITE xfs-private write-faulted\`: EFAULT; its ext4 twin, $ext4_idx: pinned\$" \
	"md: twins: a cell that differs from its ext4 twin is listed, with the twin"
tap_like "$twins" "^- \`mainline\` [0-9]+ \`pin_user_pages none btrfs-shared untouched\`: not run: ${why_btrfs//[()]/.}; its ext4 twin, [0-9]+: pinned\$" \
	"md: twins: a cell not run, its file system not mounted, is listed with why"
tap_like "$(section "$TMP/twins.md" "Flavour \`mainline\`")" \
	"^- [0-9]+ \`pin_user_pages none btrfs-shared untouched\`: measured not run: ${why_btrfs//[()]/.}, expected pinned: " \
	"md: a cell not run for want of its file system is a mismatch that says why"

# ---- report --collect: kernel reports attributed to the marker before ----

C=$TMP/collect
mkdir -p "$C/src/mm"
# The flavour's tree: the WARN the cells expect at line 3, another at 4.
printf '%s\n' '/* planted */' 'static bool f(void)' "	if ($W61)" \
	'	if (WARN_ON_ONCE(1))' >"$C/src/mm/gup.c"
# The guest's matrix document: every cell pinned as expected, but four
# that expect the WARNING: cell 27 (get_user_pages LONGTERM anon-private
# untouched) gets it, 28 (the same with WRITE) gets none, 31 (LONGTERM|FORCE)
# gets a WARN at a line without the text, 39 (get_user_pages_fast
# LONGTERM) a report of another kind.
jq -n "$JQLIB"'{job: "matrix", flavour: "stock", policy: "stock",
	kernel_release: "6.1.0-test-stock", wall_seconds: {matrix: 1.2},
	cells: (every_cell | map(if .index == 27 or .index == 28 or .index == 31 or
				    .index == 39 then
		.expected = {outcome: "refused", errno: "EINVAL", reason: "'"$r_einval"'",
			     by: "kernel", kernel_report: {kind: "warning",
			     file: "mm/gup.c", text: "'"$W61"'"}} |
		.measured = {outcome: "refused", errno: "EINVAL", nr_pinned: 0,
			     unpin_errno: null, page: null}
		else . end))}' >"$C/matrix.json"
tap_is "$(jq -r '.cells[26, 27, 30, 38] | "\(.method) \(.flags) \(.backing) \(.state)"' "$C/matrix.json" | paste -sd,)" \
	"get_user_pages LONGTERM anon-private untouched,get_user_pages WRITE|LONGTERM anon-private untouched,get_user_pages LONGTERM|FORCE anon-private untouched,get_user_pages_fast LONGTERM anon-private untouched" \
	"collect: the synthetic cells are the ones meant (cell order)"
jq -n '{policy: "stock", gup_test: "/lab/bin/gup_test", foll_longterm: "0x10000",
	foll_force: "0x10", wall_seconds: {xcheck: 3.5}, checked: 1, disagree: 0,
	cells: [{index: 1, gup_test: "pinned", error: null, expected: "pinned",
		 matrix: "pinned", agree: true}],
	not_checked: [{reason: "synthetic", cells: 4223}]}' >"$C/xcheck.json"
# console LINES...: the console, with the matrix's $NCELLS markers.
console() {
	{
		printf '%s\n' '[    1.000000] WARNING: CPU: 0 PID: 1 at mm/early.c:1 early+0x0/0x1' \
			'gup-lab: running /lab/run.sh'
		for i in $(seq 1 "$NCELLS"); do
			echo "[    2.000000] gup-lab: matrix cell $i"
			case $i in
			27) echo "[    2.100000] WARNING: CPU: 1 PID: 99 at ../src/mm/gup.c:3 get_user_pages+0x1/0x2" ;;
			31) echo "[    2.100000] WARNING: CPU: 1 PID: 99 at mm/gup.c:4 internal_get_user_pages_fast+0x1/0x2" ;;
			39) echo "[    2.100000] kernel BUG at mm/gup.c:3!" ;;
			17) [ "${1:-}" != clean ] || continue
			    echo "[    2.200000] WARNING: CPU: 1 PID: 99 at ../src/fs/ext4/inode.c:3578 ext4_writepage+0x1/0x2" ;;
			esac
		done
		echo '[    3.000000] gup-lab: matrix end'
		echo '[    4.000000] gup-lab: xcheck cell 5'
		echo '[    4.100000] BUG: Bad page state in process gup_test'
		echo 'gup-lab: command exited with status 0'
	} | sed 's/$/\r/'
}
console >"$C/console.log"
"$ROOT/qemu/scan-console.sh" --reports "$C/console.log" >"$C/reports.json"
tap_is "$(jq -c '[.[] | [.kind, .location]]' "$C/reports.json")" \
	'[["warning","mm/early.c:1"],["warning","fs/ext4/inode.c:3578"],["warning","mm/gup.c:3"],["warning","mm/gup.c:4"],["bug","mm/gup.c:3"],["bug",null]]' \
	"scan-console.sh --reports: every report, its kind and location"

collect=(report --collect "$C/stock.json" --flavour stock --policy stock
	--ext4 warn --input-hash 0123456789abcdef --kernel-verdict bug
	--boot-seconds 9.7 --console "$C/console.log" --reports "$C/reports.json"
	--src "$C/src")
expect "collect: unexpected kernel reports: the flavour failed, exit 1" 1 out \
	"stock: $NCELLS of $NCELLS cells, 3 mismatches, gup_test: 1 checked, 0 disagree, kernel reports: 1 expected, 5 unexpected, kernel verdict bug, matrix 1.2 s, boot 9.7 s: FAILED" \
	-- "${collect[@]}" --matrix "$C/matrix.json" --xcheck "$C/xcheck.json"
tap_is "$(tail -n +2 "$TMP/out" | cut -d: -f1)" \
"  cell 28 get_user_pages WRITE|LONGTERM anon-private untouched
  cell 31 get_user_pages LONGTERM|FORCE anon-private untouched
  cell 39 get_user_pages_fast LONGTERM anon-private untouched
  unexpected warning
  unexpected warning during matrix cell 17
  ... 3 more in $C/stock.json" \
	"collect: then the first five problems, and how many more"
tap_is "$(jq -c '[.kernel_reports[] | [.step, .cell, .expected]]' "$C/stock.json" 2>&1)" \
	'[[null,null,false],["matrix",17,false],["matrix",27,true],["matrix",31,false],["matrix",39,false],["xcheck",5,false]]' \
	"collect: each report with the step and cell of the marker before it; the WARNING cell 27 expects is expected"
notes=$(jq -r '.kernel_reports[].note' "$C/stock.json" 2>&1)
tap_like "$notes" "^cell 27 expects it: mm/gup.c:3 holds '${W61//[()&]/.}'$" \
	"collect: an expected report says which line holds the text"
tap_like "$notes" "^cell 31 expects a line holding '${W61//[()&]/.}'; mm/gup.c:4 of the flavour's tree does not: the line reads 'if .WARN_ON_ONCE.1..'$" \
	"collect: a WARNING at a line without the expected text is unexpected, and says so"
tap_like "$notes" '^cell 17 expects no kernel report$' "collect: a report in a cell that expects none is unexpected"
tap_like "$notes" '^cell 39 expects a warning, not a bug$' "collect: a report of another kind is unexpected"
tap_like "$notes" '^before the first marker: no cell was running$' "collect: a report before the matrix is unexpected"
tap_like "$notes" '^during a step that expects no kernel report$' "collect: a report during the cross-check is unexpected"
tap_is "$(jq -c '[.cells[] | select(.match | not) | [.index, .note != null]]' "$C/stock.json" 2>&1)" \
	'[[28,true],[31,true],[39,true]]' \
	"collect: the cells that expect a WARNING and got none attributed no longer match"
tap_like "$(jq -r '.cells[27].note' "$C/stock.json")" \
	"^the expected warning \(mm/gup.c, a line holding '${W61//[()&]/.}'\) was not seen on the console during this cell$" \
	"collect: ... with a note that says so"
tap_is "$(jq -c '[.job, .flavour, .policy, .ext4, .kernel_release, .input_hash,
	.kernel_verdict, .wall_seconds, (.cells | length), .xcheck.checked,
	.summary]' "$C/stock.json" 2>&1)" \
	'["matrix","stock","stock","warn","6.1.0-test-stock","0123456789abcdef","bug",{"boot":9.7,"matrix":1.2,"xcheck":3.5},'"$NCELLS"',1,{"cells":'"$NCELLS"',"run":'"$NCELLS"',"not_applicable":0,"mismatches":3,"xcheck_disagree":0,"kernel_reports":6,"expected_kernel_reports":1,"unexpected_kernel_reports":5,"series_findings":0,"passed":false}]' \
	"collect: the run's facts, the guest's cells and cross-check, the summary"
expect "collect: the document reads back" 1 out \
	"stock: $NCELLS cells, $NCELLS run, 0 not applicable, 3 mismatches, kernel reports: 1 expected, 5 unexpected" \
	-- report --md "$C/m.md" --svg "$C/m.svg" "$C/stock.json"
sec=$(section "$C/m.md" "Flavour \`stock\`")
tap_like "$sec" \
	'^- \*\*not expected\*\* `warning` during matrix cell 17 `pin_user_pages_fast FORCE anon-private untouched`: WARNING: CPU: 1 PID: 99 at \.\./src/fs/ext4/inode\.c:3578 ext4_writepage\+0x1/0x2 \(cell 17 expects no kernel report\)$' \
	"md: an unexpected kernel report with its cell and why"
tap_like "$sec" '^Kernel reports on the console: 1 expected, 5 not expected\. Expected, each during the cell that expects it: 1 `warning` at `mm/gup\.c:3`\.$' \
	"md: the expected reports counted per location"
tap_like "$sec" '^- 28 `get_user_pages WRITE\|LONGTERM anon-private untouched`: measured EINVAL, expected EINVAL with a WARNING: .* \*\*the expected warning .* was not seen on the console during this cell\*\*$' \
	"md: the cell whose WARNING was not seen is a mismatch, with the note"
str_is "md: the expected WARNING seen: I; not seen: !" "$C/m.md" stock anon-private untouched L "PPPP I!PP"
tap_like "$sec" '^- 4223 cells: synthetic$' "md: the cells gup_test did not check, with the reason"

# Only the expected WARNING on the console: the flavour passes, although
# the kernel's verdict is "warning".
jq '.cells |= map(if .index == 28 or .index == 31 or .index == 39 then
	.expected.kernel_report = null else . end)' "$C/matrix.json" >"$C/matrix-ok.json"
console clean | grep -v -e 'early' -e 'inode.c' -e 'mm/gup.c:4' -e 'BUG' >"$C/clean.log"
"$ROOT/qemu/scan-console.sh" --reports "$C/clean.log" >"$C/clean.json"
expect "collect: only expected WARNINGs, verdict warning: passed, exit 0" 0 out \
	"stock: $NCELLS of $NCELLS cells, 0 mismatches, gup_test: 1 checked, 0 disagree, kernel reports: 1 expected, 0 unexpected, kernel verdict warning, matrix 1.2 s, boot 1.0 s: passed" \
	-- report --collect "$C/ok.json" --flavour stock --policy stock --ext4 warn \
	--input-hash 0 --kernel-verdict warning --boot-seconds 1 --console "$C/clean.log" \
	--reports "$C/clean.json" --src "$C/src" --matrix "$C/matrix-ok.json" --xcheck "$C/xcheck.json"
tap_is "$(jq -c '.summary | [.expected_kernel_reports, .unexpected_kernel_reports, .passed]' "$C/ok.json" 2>&1)" \
	'[1,0,true]' "collect: the summary counts it expected"

# The cross-check's judge step is the host's: the guest's gupctl xcheck
# (no --matrix) compares gup_test with the policy only; the collect fills
# in our driver's outcome from the matrix and counts again.  Planted: cell
# 1 as the guest leaves it (matrix null, agree true), cell 28 where
# gup_test and the policy say pinned but the driver measured a refusal.
jq '.checked = 2 | .cells = [
	{index: 1, gup_test: "pinned", error: null, expected: "pinned", matrix: null, agree: true},
	{index: 28, gup_test: "pinned", error: null, expected: "pinned", matrix: null, agree: true}]' \
	"$C/xcheck.json" >"$C/xcheck-guest.json"
expect "collect: gup_test and the policy agree, our driver does not: a disagreement, exit 1" 1 out \
	"stock: $NCELLS of $NCELLS cells, 0 mismatches, gup_test: 2 checked, 1 disagree," \
	"gup_test disagrees on cell 28: gup_test pinned, expected pinned, our driver refused" \
	-- report --collect "$C/judged.json" --flavour stock --policy stock --ext4 warn \
	--input-hash 0 --kernel-verdict warning --boot-seconds 1 --console "$C/clean.log" \
	--reports "$C/clean.json" --src "$C/src" --matrix "$C/matrix-ok.json" --xcheck "$C/xcheck-guest.json"
tap_is "$(jq -c '[.xcheck.disagree, [.xcheck.cells[] | [.index, .matrix, .agree]]]' "$C/judged.json" 2>&1)" \
	'[1,[[1,"pinned",true],[28,"refused",false]]]' \
	"collect: each cross-checked cell gets our driver's outcome, agree and the count judged again"

# The series' own finding (series_findings[], userspace/model/policy.c): gup-v7's
# lockdep_assert_irqs_disabled() WARNs in a cell that expects nothing.  On
# a v7 flavour it is listed as that finding, neither expected nor failing;
# on any other policy it is an unexpected report.
mkdir -p "$C/v7src/mm"
printf '%s\n' '/* planted */' 'static bool f(void)' "	if ($W61)" \
	'	lockdep_assert_irqs_disabled();' >"$C/v7src/mm/gup.c"
sed '/gup-lab: matrix cell 5\r$/a [    2.100000] WARNING: CPU: 0 PID: 180 at ../src/mm/gup.c:4 try_grab_folio+0xa6/0x148\r' \
	"$C/clean.log" >"$C/v7.log"
"$ROOT/qemu/scan-console.sh" --reports "$C/v7.log" >"$C/v7.json"
for p in v7 v9; do
	jq --arg p $p '.flavour = "gup-" + $p | .policy = $p' "$C/matrix-ok.json" >"$C/matrix-$p.json"
	jq --arg p $p '.policy = $p' "$C/xcheck.json" >"$C/xcheck-$p.json"
done
v7collect=(report --collect "$C/v7out.json" --ext4 warn --input-hash 0
	--kernel-verdict warning --boot-seconds 1 --console "$C/v7.log" --reports "$C/v7.json"
	--src "$C/v7src")
expect "collect: the series' own finding is listed as one, and the flavour passes" 0 out \
	"kernel reports: 1 expected, 0 unexpected, 1 the series' own finding, kernel verdict warning" \
	-- "${v7collect[@]}" --flavour gup-v7 --policy v7 --matrix "$C/matrix-v7.json" \
	--xcheck "$C/xcheck-v7.json"
tap_is "$(jq -c '[.kernel_reports[] | [.cell, .expected, .series_finding.doc]], .summary.series_findings' "$C/v7out.json" 2>&1)" \
	'[[5,false,"docs/reliability.md#the-series-own-findings"],[27,true,null]]
1' "collect: ... kept in the document with the cell it happened in, never dropped"
expect "md: ... and on the page" 0 out "1 the series' own finding" \
	-- report --md "$C/v7.md" --svg "$C/v7.svg" "$C/v7out.json"
tap_like "$(cat "$C/v7.md")" "^- \*\*the series' own finding\*\* \`warning\` during matrix cell 5 .*\(a finding of the series, not of the lab: v7's lockdep_assert_irqs_disabled\(\) fired" \
	"md: the finding with its cell and what it is"
expect "collect: the same report on another policy is unexpected" 1 out \
	"kernel reports: 1 expected, 1 unexpected, kernel verdict warning" \
	-- "${v7collect[@]}" --flavour gup-v9 --policy v9 --matrix "$C/matrix-v9.json" \
	--xcheck "$C/xcheck-v9.json"
expect "findings: a boot's reports, the series' own and the rest: exit 1 when any is not" 1 out \
	"2 kernel reports: 1 the series' own, 1 not" \
	-- report --findings "$C/f.json" --policy v7 --reports "$C/v7.json" --src "$C/v7src"
tap_is "$(jq -c '[.[] | [.location, .series_finding.doc]]' "$C/f.json" 2>&1)" \
	'[["mm/gup.c:4","docs/reliability.md#the-series-own-findings"],["mm/gup.c:3",null]]' \
	"findings: each report marked"
jq '[.[] | select(.location == "mm/gup.c:4")]' "$C/v7.json" >"$C/v7only.json"
expect "findings: only the series' own: exit 0" 0 out "1 kernel report: 1 the series' own, 0 not" \
	-- report --findings "$C/f.json" --policy v7 --reports "$C/v7only.json" --src "$C/v7src"
expect "findings: needs --src" 2 err "--findings needs --policy, --reports and --src" \
	-- report --findings "$C/f.json" --policy v7 --reports "$C/v7only.json"
expect "findings: not with --collect" 2 err "--collect or --findings, not both" \
	-- report --findings "$C/f.json" "${v7collect[@]}" --flavour gup-v7 --policy v7

expect "collect: the same with a worse verdict than warning fails" 1 out ": FAILED" \
	-- report --collect "$C/ok2.json" --flavour stock --policy stock --ext4 warn \
	--input-hash 0 --kernel-verdict oops --boot-seconds 1 --console "$C/clean.log" \
	--reports "$C/clean.json" --src "$C/src" --matrix "$C/matrix-ok.json"
expect "collect: a tree without the file: the report is unexpected" 1 out \
	"kernel reports: 0 expected, 1 unexpected" \
	-- report --collect "$C/ok3.json" --flavour stock --policy stock --ext4 warn \
	--input-hash 0 --kernel-verdict warning --boot-seconds 1 --console "$C/clean.log" \
	--reports "$C/clean.json" --src "$C/none" --matrix "$C/matrix-ok.json"
tap_like "$(jq -r '.kernel_reports[0].note' "$C/ok3.json")" "cannot read $C/none/mm/gup.c: ENOENT" \
	"collect: ... and says why"

# Without the guest's documents: not run, but the reports are kept.
expect "collect: no matrix came back: a document without cells" 1 out \
	"stock: 0 of $NCELLS cells" "no gup_test cross-check" -- "${collect[@]}"
tap_is "$(jq -c '[(.cells | length), .xcheck, .kernel_release, (.kernel_reports | length), ([.kernel_reports[].expected] | any)]' "$C/stock.json" 2>&1)" \
	'[0,null,null,6,false]' "collect: without --matrix: no cells, no cross-check, the reports, none expected"

expect "collect: a missing option is named" 2 err "--collect needs --kernel-verdict" \
	-- report --collect "$C/x.json" --flavour stock --policy stock --ext4 warn \
	--input-hash 0 --boot-seconds 1 --console "$C/console.log" --reports "$C/reports.json" \
	--src "$C/src"
expect "collect: --src is required" 2 err "--collect needs --src" \
	-- report --collect "$C/x.json" --flavour stock --policy stock --ext4 warn \
	--input-hash 0 --kernel-verdict clean --boot-seconds 1 --console "$C/console.log" \
	--reports "$C/reports.json"
expect "collect: --matrix of another flavour" 2 err \
	"$C/matrix.json: of flavour stock policy stock, not --flavour gup-v7 --policy v7" \
	-- report --collect "$C/x.json" --flavour gup-v7 --policy v7 --ext4 warn \
	--input-hash 0 --kernel-verdict clean --boot-seconds 1 --src "$C/src" \
	--console "$C/console.log" --reports "$C/reports.json" --matrix "$C/matrix.json"
expect "collect: no pages with it" 2 err "--collect writes one document" \
	-- "${collect[@]}" --md "$C/y.md"
check "collect: nothing written on a usage error" test ! -e "$C/x.json"

# ---- matrix and xcheck: command lines ----

expect "matrix: no --flavour" 2 err "no --flavour" -- matrix --policy stock
expect "matrix: bad --flavour" 2 err "bad --flavour 'a b'" \
	-- matrix --flavour 'a b' --policy stock
expect "matrix: no --policy names the policies" 2 err "no --policy: give one of: stock, v1, v7, v9" \
	-- matrix --flavour stock
expect "matrix: unknown --policy" 2 err "unknown --policy 'v8'" \
	-- matrix --flavour stock --policy v8
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
expect "xcheck: unknown --policy" 2 err "unknown --policy 'v8'" \
	-- xcheck --policy v8 --gup-test /bin/true
expect "xcheck: bad --foll-longterm" 2 err "bad --foll-longterm 'x'" \
	-- xcheck --policy stock --gup-test /bin/true --foll-longterm x
expect "xcheck: bad --foll-force" 2 err "bad --foll-force 0" \
	-- xcheck --policy stock --gup-test /bin/true --foll-force 0
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

matrix_opts="--btrfs-dir --expect --ext4-dir --flavour --help --json --policy --quick --ramfs-dir
--tmpfs-dir --xfs-dir"
xcheck_opts="--btrfs-dir --ext4-dir --foll-force --foll-longterm --foll-touch --gup-test --help --json
--matrix --policy --quick --ramfs-dir --tmpfs-dir --tool-foll-touch --xfs-dir"
report_opts="--boot-seconds --collect --console --ext4 --findings --flavour --help --html --input-hash
--kernel-verdict --learned --matrix --md --policies --policy --reports --src --svg --xcheck"

# --quick (make check's subset): on the six backings of
# matrix_quick_backing() (userspace/model/cell.c) every policy's answer is
# the full run's; every other cell is not run, saying why.
quick_backings='anon-private|shmem-memfd|ext4-shared|ext4-private|ext4-shared-ro|btrfs-shared'
for p in stock v1 v7 v9 mainline; do
	"$GUPCTL" matrix --flavour x --policy "$p" --expect >"$TMP/full"
	"$GUPCTL" matrix --flavour x --policy "$p" --expect --quick >"$TMP/quick"
	same=$(paste "$TMP/full" "$TMP/quick" | awk -F'\t' -v q="^($quick_backings)\$" '
		{ split($2, c, " ") }
		c[3] ~ q && ($3 != $7 || $4 != $8) { bad++ }
		c[3] !~ q && $3 !~ /^not-run/ && $8 !~ /^not in the quick subset/ { bad++ }
		c[3] !~ q && $7 != "not-run" { bad++ }
		END { print bad + 0 }')
	tap_is "$same" 0 "matrix --expect --quick --policy $p: the full run's answers on the quick backings, the other cells not run and saying why"
done

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

# value OPT: an argument OPT accepts (none for a switch).
value() {
	case $1 in
	--expect) ;;
	--flavour) echo stock ;;
	--policy) echo v7 ;;
	--foll-longterm) echo 0x10000 ;;
	--foll-force) echo 0x10 ;;
	--foll-touch | --tool-foll-touch) echo 0x02 ;;
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
		# shellcheck disable=SC2046 # a switch takes no word at all
		run "$@" "$opt" $(value "$opt")
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
	"$(tr ' ' '\n' <<<"$report_opts" | grep -vxE -- '--(md|svg|learned|help|findings)')" \
	report --collect "$TMP/x.json" --flavour stock --policy stock --md x

# mainline (6.12.118) and gup-v9 (our 6.5 semantics on 6.1) differ only
# where 6.12 changed something besides the series: pin_user_pages_unlocked()
# takes FOLL_LONGTERM (6.12 mm/gup.c:3663-3676; 6.1 mm/gup.c:2367 WARNs).
differ=$(paste <("$GUPCTL" matrix --expect --flavour gup-v9 --policy v9 | cut -f2,3) \
	<("$GUPCTL" matrix --expect --flavour mainline --policy mainline | cut -f3) |
	awk -F'\t' '$2 != $3 { split($1, c, " "); print c[1], c[2] }' | sort | uniq -c)
tap_like "$differ" '^ +[0-9]+ pin_user_pages_unlocked [A-Z|]*LONGTERM' \
	"mainline differs from v9 on pin_user_pages_unlocked + LONGTERM"
tap_is "$(grep -cv ' pin_user_pages_unlocked [A-Z|]*LONGTERM' <<<"$differ")" 0 \
	"... and on no other cell"
tap_is "$("$GUPCTL" matrix --expect --flavour mainline --policy mainline |
	grep -c 'get_user_pages_unlocked LONGTERM anon-private untouched.*EINVAL + WARN')" 1 \
	"mainline: get_user_pages_unlocked + LONGTERM is is_valid_gup_args()'s WARN"

tap_done
