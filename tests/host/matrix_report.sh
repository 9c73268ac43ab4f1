#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Host tests of gupctl report (synthetic matrix TSVs in, docs/matrix.md and
# the SVG out) and of gupctl matrix's command line.  Needs no /dev/gup_test
# (the test that needs it absent is skipped if it is there).
# Output: TAP version 13.  Exit status: 0 if every test passed.
#
# usage: tests/host/matrix_report.sh [PATH/TO/gupctl]
#   Without an argument (as tests/run.sh calls it) userspace/gupctl is built
#   with make and tested.
# Backticks in single quotes below are markdown, not command substitutions.
# shellcheck disable=SC2016
set -euo pipefail

HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
# shellcheck source=../tap.sh
. "$ROOT/tests/tap.sh"

if [ $# -ge 1 ]; then
	GUPCTL=$1
else
	make -s -C "$ROOT/userspace" >&2
	GUPCTL=$ROOT/userspace/gupctl
fi
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
rc=0

echo "TAP version 13"

# run ARGS...: run gupctl; rc, $TMP/out, $TMP/err hold the outcome.
run() {
	rc=0
	"$GUPCTL" "$@" >"$TMP/out" 2>"$TMP/err" </dev/null || rc=$?
}

# not_ok DESC [DIAGNOSTIC...]: fail, with gupctl's last output as comments.
not_ok() {
	tap_not_ok "$1"
	shift
	local line
	for line in "$@"; do
		echo "#   $line"
	done
	sed 's/^/#   stdout: /' "$TMP/out"
	sed 's/^/#   stderr: /' "$TMP/err"
}

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

# expect DESC RC STREAM TEXT... -- ARGS...: gupctl ARGS exits RC and every
# TEXT (a fixed string) appears in STREAM (out or err).
expect() {
	local desc=$1 want=$2 stream=$3 texts=() t missing=()
	shift 3
	while [ "$1" != "--" ]; do
		texts+=("$1")
		shift
	done
	shift
	run "$@"
	for t in "${texts[@]}"; do
		grep -qF -- "$t" "$TMP/$stream" || missing+=("missing in std$stream: $t")
	done
	if [ "$rc" -eq "$want" ] && [ ${#missing[@]} -eq 0 ]; then
		tap_ok "$desc"
	else
		not_ok "$desc" "gupctl $* -> exit $rc, want $want" "${missing[@]}"
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

# ---- Synthetic results: two flavours, a few cells each ----

tab=$'\t'
header="flavour${tab}policy${tab}method${tab}flags${tab}backing${tab}state${tab}expected${tab}expected_errno${tab}measured${tab}measured_errno${tab}nr_pinned${tab}page_kind${tab}page_fs${tab}page_state${tab}reason"

# row FIELD...: one TSV line of the fields.
row() {
	local IFS=$tab
	echo "$*"
}

r_read="a read pin: GUP faults the page in readable and takes it"
r_stock_w="6.1 has no file-backed write policy: GUP takes it"
r_einval="driver guard: FOLL_LONGTERM needs FOLL_PIN"
r_ro="a PROT_READ mapping cannot be write-faulted from user space"
r_tmpfs="tmpfs | shmem: never dirty-tracked"
r_v7="check_vma_flags() -> writeable_file_mapping_allowed(): FOLL_PIN write"
r_nomem="synthetic: ENOMEM expected"

{
	echo "$header"
	row stock stock pin_user_pages none anon-private untouched pinned - pinned - 1 anon - dma-pinned,uptodate "$r_read"
	row stock stock pin_user_pages WRITE ext4-shared write-faulted pinned - pinned - 1 file ext4 dirty,buffers,dma-pinned "$r_stock_w"
	row stock stock get_user_pages LONGTERM anon-private untouched refused EINVAL refused EINVAL 0 - - - "$r_einval"
	row stock stock pin_user_pages WRITE ext4-shared-ro write-faulted not-run - not-run - - - - - "$r_ro"
	row stock stock pin_user_pages_fast WRITE tmpfs-shared read-faulted pinned - refused EFAULT 0 - - - "$r_tmpfs"
	row stock stock pin_user_pages none hugetlb-memfd untouched refused ENOMEM refused ENOMEM 0 - - - "$r_nomem"
	echo "# flavour=stock policy=stock kernel=6.1.0-test-stock wall_seconds=41.5"
} >"$TMP/stock.tsv"
{
	echo "$header"
	row gup-v7 v7 pin_user_pages none anon-private untouched pinned - pinned - 1 anon - dma-pinned,uptodate "$r_read"
	row gup-v7 v7 pin_user_pages WRITE ext4-shared write-faulted refused EFAULT refused EFAULT 0 - - - "$r_v7"
	row gup-v7 v7 get_user_pages LONGTERM anon-private untouched refused EINVAL refused EINVAL 0 - - - "$r_einval"
	row gup-v7 v7 pin_user_pages WRITE ext4-shared-ro write-faulted not-run - not-run - - - - - "$r_ro"
	echo "# flavour=gup-v7 policy=v7 kernel=6.1.0-test-v7 wall_seconds=39.0"
} >"$TMP/v7.tsv"
printf '<!-- hand-written -->\nThe *stock* kernel | pins: `ext4`.\n\n- a point\n' >"$TMP/learned.md"

MD=$TMP/matrix.md
SVG=$TMP/matrix.svg

# ---- report: two flavours, one mismatch, one not run ----

expect "report: a mismatch: files written, exit 1" 1 out \
	"stock: 6 cells, 5 run, 1 not applicable, 1 mismatch" \
	"gup-v7: 4 cells, 3 run, 1 not applicable, 0 mismatches" \
	"ext4-2018: not run" "wrote $MD and $SVG" \
	-- report --md "$MD" --svg "$SVG" --learned "$TMP/learned.md" \
	--meta date=2026-12-03 --meta "commit=deadbeef (dirty)" \
	--not-run ext4-2018 "$TMP/stock.tsv" "$TMP/v7.tsv"
check "report: both files exist" test -s "$MD" -a -s "$SVG"

check "md: says it is generated from real runs" \
	grep -qF "Generated by \`gupctl report\` from real runs of \`gupctl matrix\`" "$MD"
check "md: the meta, in order" \
	grep -qzF -- $'\n- date: 2026-12-03\n- commit: deadbeef (dirty)\n' "$MD"
check "md: summary row of stock (kernel, cells, mismatches, wall time)" \
	grep -qF "| \`stock\` | stock | 6.1.0-test-stock | 6 of 384 | 5 | 1 | 1 | 41.5 s |" "$MD"
check "md: summary row of gup-v7" \
	grep -qF "| \`gup-v7\` | v7 | 6.1.0-test-v7 | 4 of 384 | 3 | 1 | 0 | 39.0 s |" "$MD"
check "md: the flavour not run is listed as not run" \
	grep -qF "| \`ext4-2018\` | not run |" "$MD"
check "md: a legend" grep -qxF "## Legend" "$MD"
check "md: one table per flavour, in argument order" \
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
check "svg: the meta in the title" grep -qF "date=2026-12-03" "$SVG"
check "svg: the flavour not run" grep -qF "not run: ext4-2018" "$SVG"
check "svg: mismatch outline is thick and black" \
	grep -qF 'stroke="#000000" stroke-width="2.5"' "$SVG"

# Without --not-run, a flavour without results is not mentioned at all.
run report --md "$TMP/b.md" --svg "$TMP/b.svg" "$TMP/stock.tsv" "$TMP/v7.tsv"
if [ "$rc" -eq 1 ] && ! grep -q ext4-2018 "$TMP/b.md" "$TMP/b.svg" &&
	! grep -q "What we learned" "$TMP/b.md"; then
	tap_ok "report: flavours not given and no --learned: not mentioned"
else
	not_ok "report: flavours not given and no --learned: not mentioned" "exit $rc"
fi
expect "report: a --learned file that does not exist is skipped" 1 out \
	"wrote" -- report --md "$TMP/c.md" --svg "$TMP/c.svg" \
	--learned "$TMP/no-such.md" "$TMP/stock.tsv"

# Exit 0: no mismatch.
expect "report: no mismatch: exit 0" 0 out "gup-v7: 4 cells" \
	-- report --md "$TMP/d.md" --svg "$TMP/d.svg" "$TMP/v7.tsv"
check "report: one flavour: nothing to compare" \
	grep -qF "Only one flavour in the results: nothing to compare." "$TMP/d.md"

# Exit 2: usage errors and bad input; nothing written.
expect "report: no arguments" 2 err "no --md FILE" -- report
expect "report: no --svg" 2 err "no --svg FILE" -- report --md "$TMP/e.md" "$TMP/v7.tsv"
expect "report: no TSV" 2 err "no TSV" -- report --md "$TMP/e.md" --svg "$TMP/e.svg"
expect "report: unknown option" 2 err "gupctl report: unknown option '--frob'" \
	"Try 'gupctl report --help'." -- report --frob
expect "report: option without its argument" 2 err \
	"option '--meta' needs an argument" -- report --md a --svg b --meta
expect "report: bad --meta" 2 err "bad --meta 'novalue'" \
	-- report --md a --svg b --meta novalue "$TMP/v7.tsv"
expect "report: missing TSV names it" 2 err "cannot open $TMP/none.tsv: ENOENT" \
	-- report --md "$TMP/e.md" --svg "$TMP/e.svg" "$TMP/none.tsv"
printf 'a\tb\n' >"$TMP/bad.tsv"
expect "report: a TSV without the header" 2 err \
	"$TMP/bad.tsv:1: the header line has no column 'flavour'" \
	-- report --md "$TMP/e.md" --svg "$TMP/e.svg" "$TMP/bad.tsv"
{
	echo "$header"
	row stock stock pin_user_pages none mars untouched pinned - pinned - 1 - - - x
} >"$TMP/bad2.tsv"
expect "report: an unknown backing names file and line" 2 err \
	"$TMP/bad2.tsv:2: unknown backing 'mars'" \
	-- report --md "$TMP/e.md" --svg "$TMP/e.svg" "$TMP/bad2.tsv"
expect "report: the same flavour twice" 2 err "flavour stock is in both" \
	-- report --md "$TMP/e.md" --svg "$TMP/e.svg" "$TMP/stock.tsv" "$TMP/stock.tsv"
expect "report: a flavour with results given as --not-run" 2 err \
	"flavour gup-v7 has results" -- report --md "$TMP/e.md" --svg "$TMP/e.svg" \
	--not-run gup-v7 "$TMP/v7.tsv"
check "report: nothing written on a usage error" test ! -e "$TMP/e.md" -a ! -e "$TMP/e.svg"

# ---- matrix: command line ----

expect "matrix: no --flavour" 2 err "no --flavour" -- matrix --policy stock
expect "matrix: bad --flavour" 2 err "bad --flavour 'a b'" \
	-- matrix --flavour 'a b' --policy stock
expect "matrix: no --policy names the policies" 2 err "no --policy: give one of: stock, v7" \
	-- matrix --flavour stock
expect "matrix: unknown --policy" 2 err "unknown --policy 'v9'" \
	-- matrix --flavour stock --policy v9
expect "matrix: unknown option" 2 err "gupctl matrix: unknown option '--frob'" \
	"Try 'gupctl matrix --help'." -- matrix --frob
expect "matrix: extra argument" 2 err "unexpected argument 'x'" \
	-- matrix --flavour stock --policy stock x
expect "matrix: option without its argument" 2 err \
	"option '--tsv' needs an argument" -- matrix --flavour stock --policy stock --tsv
if [ -e /dev/gup_test ]; then
	tap_ok "matrix without the module: exit 3 # SKIP /dev/gup_test exists here"
else
	expect "matrix without the module: exit 3 with the insmod hint" 3 err \
		"gupctl matrix: /dev/gup_test not found" "insmod gup_pin_test.ko" \
		-- matrix --flavour stock --policy stock --tsv "$TMP/m.tsv"
	check "matrix without the module: no output file" test ! -e "$TMP/m.tsv"
fi

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

matrix_opts="--ext4-dir --flavour --help --json --policy --ramfs-dir --tmpfs-dir --tsv"
report_opts="--help --learned --md --meta --not-run --svg"

check_help "matrix --help lists every matrix option and only those" \
	"usage: gupctl matrix --flavour NAME --policy POLICY [OPTIONS]" \
	"$matrix_opts" matrix --help
cp "$TMP/out" "$TMP/matrix-help"
check "matrix --help names every TSV column" \
	grep -qzF $'flavour policy method flags backing state expected expected_errno\n  measured measured_errno nr_pinned page_kind page_fs page_state reason' \
	"$TMP/matrix-help"
run help matrix
check "help matrix prints the same as matrix --help" cmp -s "$TMP/out" "$TMP/matrix-help"

check_help "report --help lists every report option and only those" \
	"usage: gupctl report --md FILE --svg FILE [OPTIONS] TSV..." \
	"$report_opts" report --help
cp "$TMP/out" "$TMP/report-help"
run help report
check "help report prints the same as report --help" cmp -s "$TMP/out" "$TMP/report-help"

run --help
if grep -qE '^  matrix ' "$TMP/out" && grep -qE '^  report ' "$TMP/out"; then
	tap_ok "--help lists the commands matrix and report"
else
	not_ok "--help lists the commands matrix and report"
fi

# Every listed option parses: with the required options and an extra
# argument, parsing must get as far as the "unexpected argument" error.
bad=()
for opt in $matrix_opts; do
	case $opt in
	--help) continue ;;
	--flavour) args=("$opt" stock) ;;
	--policy) args=("$opt" v7) ;;
	*) args=("$opt" "$TMP/x") ;;
	esac
	run matrix --flavour stock --policy stock "${args[@]}" extra
	[ "$rc" -eq 2 ] && grep -qF "unexpected argument 'extra'" "$TMP/err" || bad+=("$opt")
done
if [ ${#bad[@]} -eq 0 ]; then
	tap_ok "every option matrix --help lists is accepted"
else
	not_ok "every option matrix --help lists is accepted" "rejected: ${bad[*]}"
fi
# ... and for report, as far as the "no TSV" error.
bad=()
for opt in $report_opts; do
	case $opt in
	--help) continue ;;
	--meta) args=("$opt" k=v) ;;
	--not-run) args=("$opt" ext4-2018) ;;
	*) args=("$opt" "$TMP/y") ;;
	esac
	run report --md "$TMP/x.md" --svg "$TMP/x.svg" "${args[@]}"
	[ "$rc" -eq 2 ] && grep -qF "no TSV" "$TMP/err" || bad+=("$opt")
done
if [ ${#bad[@]} -eq 0 ]; then
	tap_ok "every option report --help lists is accepted"
else
	not_ok "every option report --help lists is accepted" "rejected: ${bad[*]}"
fi

tap_done
