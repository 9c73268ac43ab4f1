#!/bin/bash
# The results explorer in a real browser (docs/results.md, "The
# explorer").  `gupctl report --html` writes the page of a small results
# directory cut from a real run (tests/fixtures/explorer/README); Debian's
# chromium loads it (tests/host/explorer_browser.py, chromedriver and
# python3-selenium: make deps installs them) and says what it shows.  Every
# expected figure below is read from the fixture's files with jq: the
# counts shown against the cells, a known cell's reason and console slice
# (cell 27: a WARNING its policy expects), the rows left by a filter, the
# mismatch the fixture has; the page fits a phone's width and has a dark
# scheme.  Screenshots at 1280x800 (light, dark) and 390x844 are kept in
# results/check/explorer/ and named in the output.
# Then the table view: the consumers' page of tests/fixtures/explorer/
# consumers (two flavours' columns, a cell with an expected WARNING
# clicked, a key filter, the one mismatch the fixture has), and a diff of
# the matrix fixture against a copy with one cell's measurement changed.
# shellcheck source=../suite.sh
. "$(dirname "$0")/../suite.sh"

# ere TEXT: TEXT as an extended regular expression that matches it
ere() {
	printf '%s\n' "$1" | sed 's/[][\\.*^$+?(){}|]/\\&/g'
}

# browse WHAT ARG...: tests/host/explorer_browser.py ARG... (what the
# browser saw, as JSON) into $seen, or the test says chromium did not load
# WHAT, with the browser's errors, and ends here.
browse() {
	local what=$1
	shift
	if ! seen=$(timeout 300 /usr/bin/python3 tests/host/explorer_browser.py "$@" \
		2>"$work/browser.err"); then
		tap_not_ok "chromium loads $what"
		sed 's/^/#   /' "$work/browser.err" | tail -20
		tap_done
		exit
	fi
	tap_ok "chromium loads $what"
}

fx=tests/fixtures/explorer/matrix
page=$work/explorer.html
shots=${GUP_LAB_RESULTS:-results}/check/explorer
mkdir -p "$shots"
shots=$(cd "$shots" && pwd)
make -s -C userspace gupctl

out=$(userspace/gupctl report --html "$page" "$fx" 2>&1) && status=0 || status=$?
# a flavour not run makes the report's status 1 (gupctl report --help)
tap_is "$status" 1 "gupctl report --html: status 1, a flavour of the run did not run"
tap_like "$out" "^explorer: $page\$" "gupctl report --html names the page it wrote"
tap_is "$(grep -c '<script type="application/json" id="data">' "$page")" 1 \
	"the page carries its data"
tap_is "$(grep -cE '<(script|link|img)[^>]* (src|href)=' "$page")" 0 \
	"the page loads nothing from elsewhere (no src or href)"

missing=''
for p in /usr/bin/chromium /usr/bin/chromedriver; do
	[ -x "$p" ] || missing="$missing $p"
done
/usr/bin/python3 -c 'import selenium' 2>/dev/null || missing="$missing python3-selenium"
if [ -n "$missing" ]; then
	tap_not_ok "the browser is installed (make deps):$missing missing"
	tap_done
	exit
fi

cell=27 state=read-faulted
browse "the page" "$page" "$shots" "$cell" "$state" '!'
tap_is "$(jq -c .errors <<<"$seen")" '[]' "no script error on the browser's console"

# the summary: each flavour's figures, the flavour not run and why
cells=$(jq '.cells | length' "$fx/stock.json")
tap_is "$(jq -c '.summary[0] | [.[0], .[3], .[6], .[7]]' <<<"$seen")" \
	"$(jq -c --arg n "$cells" '["stock", $n, ([.cells[] | select(.match | not)] | length | tostring),
		([.kernel_reports[] | select(.expected)] | length | tostring)]' "$fx/stock.json")" \
	"summary: stock's cells, mismatches and expected reports as in stock.json"
tap_is "$(jq -r '.summary[1][1]' <<<"$seen")" \
	"not run: $(jq -r '.flavours[] | select(.name == "gup-v1") | .why_not_run' "$fx/run.json")" \
	"summary: gup-v1 not run, with run.json's reason"

# the counts shown, against the cells: every cell of the document is in the
# grid once, under the symbol its outcome gives (docs/matrix.md's legend)
shown=$(jq '.cells_shown' <<<"$seen")
tap_is "$(jq '[.counts[]] | add' <<<"$seen")" "$shown" "counts: they add up to the cells shown"
tap_is "$(jq '.counts | del(."?") | [.[]] | add' <<<"$seen")" "$cells" \
	"counts: the cells not marked ? are the document's $cells"
tap_is "$(jq -c '.counts | {P, I, d, "-": .["-"], "!": .["!"]}' <<<"$seen")" \
	"$(jq -c '[.cells[] | select(.match)] as $ok | {
		P: [$ok[] | select(.measured.outcome == "pinned")] | length,
		I: [$ok[] | select(.measured.errno == "EINVAL" and .expected.kernel_report != null and .expected.by == "kernel")] | length,
		d: [$ok[] | select(.measured.outcome == "refused" and .expected.by == "driver")] | length,
		"-": [$ok[] | select(.measured.outcome == "not-run")] | length,
		"!": [.cells[] | select(.match | not)] | length}' "$fx/stock.json")" \
	"counts: P, I, d, - and ! as the cells' outcomes say"

# a known cell: its words and its slice of the console
c=$(jq --argjson i "$cell" '.cells[] | select(.index == $i)' "$fx/stock.json")
tap_is "$(jq -r .cell_symbol <<<"$seen")" I "cell $cell shows I (EINVAL with the WARNING its policy expects)"
tap_is "$(jq -r .detail.reason <<<"$seen")" "$(jq -r .expected.reason <<<"$c")" \
	"cell $cell: the reason shown is its expectation's"
tap_is "$(jq -r .detail.measured <<<"$seen")" "$(jq -r .measured.errno <<<"$c")" \
	"cell $cell: measured $(jq -r .measured.errno <<<"$c")"
title=$(jq -r --argjson i "$cell" '.kernel_reports[] | select(.cell == $i) | .title' "$fx/stock.json")
tap_like "$(jq -r '.detail.reports[0]' <<<"$seen")" "^$(ere "$title") \\(expected\\)" \
	"cell $cell: its kernel report is shown, expected"
slice=$(jq -r .detail.console <<<"$seen")
tap_like "$slice" "gup-lab: matrix cell $cell\$" "cell $cell: its console slice starts at its marker"
tap_like "$slice" "$(ere "$title")" "cell $cell: the slice holds the WARNING"
tap_is "$(grep -c "gup-lab: matrix cell" <<<"$slice")" 1 "cell $cell: the slice holds no other cell's marker"

# a filter: the rows left
rows=$(jq -r '.state_rows[]' <<<"$seen")
tap_is "$(grep -vc "· $state\$" <<<"$rows")" 0 "filter state=$state: every row left is $state"
tap_like "$rows" "^anon-private · $state\$" "filter state=$state: the fixture's own row is there"
tap_is "$(jq '.state_cells' <<<"$seen")" "$(( $(jq '.state_rows | length' <<<"$seen") * shown / $(jq .rows_shown <<<"$seen") ))" \
	"filter state=$state: each row left keeps all its cells"
tap_is "$(jq -c .symbol_cells <<<"$seen")" "$(jq -c '[.cells[] | select(.match | not) | .index | tostring]' "$fx/stock.json")" \
	"filter symbol=!: only the mismatches are left"

# widths and schemes
tap_is "$(jq '.phone_page_width <= .phone_viewport' <<<"$seen")" true \
	"390 px wide: the page fits ($(jq .phone_page_width <<<"$seen") px; the grid scrolls in its box)"
tap_like "$(jq -r .dark_background <<<"$seen")" '^rgb\((1|2|3)[0-9], ' "a dark scheme: a dark background"
for s in explorer-1280x800 explorer-390x844 explorer-dark-1280x800; do
	tap_is "$(head -c 4 "$shots/$s.png" | od -An -c | tr -d ' ')" '211PNG' "screenshot $s.png written"
done
echo "# screenshots: $shots/explorer-1280x800.png, explorer-390x844.png, explorer-dark-1280x800.png"

# ---- The table view: the consumers' page ----
cfx=tests/fixtures/explorer/consumers
cpage=$work/consumers.html
s=0
userspace/gupctl consumers report --html "$cpage" "$cfx" || s=$?
tap_is "$s" 0 "gupctl consumers report --html: status 0"
tap_is "$(grep -cE '<(script|link|img)[^>]* (src|href)=' "$cpage")" 0 \
	"the consumers page loads nothing from elsewhere"
# the cell to click: gup-v1's first cell with a kernel report (column 1)
wcell=$(jq '[.kernel_reports[].cell] | min' "$cfx/gup-v1.json")
wc=$(jq --argjson i "$wcell" '.cells[] | select(.index == $i)' "$cfx/gup-v1.json")
wkey=$(jq -r '"\(.interface) \(.backing) \(.state)"' <<<"$wc")
filter=proc-pid-mem
browse "the consumers page" --table consumers "$cpage" "$shots" "$wkey" 1 0 "$filter"
tap_is "$(jq -c .errors <<<"$seen")" '[]' "consumers page: no script error"
tap_is "$(jq -c '[.summary[] | [.[0], .[3]]]' <<<"$seen")" \
	"$(jq -sc 'map(.summary as $s | [.flavour, "\($s.cells) cells, \($s.ran) ran, \($s.cells - $s.mismatches) as expected, \($s.data_lost) DATA LOST, \($s.kernel_reports) kernel reports (\($s.unexpected_kernel_reports) unexpected)"])' \
		"$cfx/stock.json" "$cfx/gup-v1.json")" \
	"consumers page: a column per flavour, with its summary's figures"
# every row a cell of either document; each cell counted under its verdict
facts=$(jq -sc '(map(.cells[] | "\(.interface) \(.backing) \(.state)") | unique | length) as $rows |
	{rows: $rows, yes: (map(.cells[] | select(.match)) | length),
	 no: (map(.cells[] | select(.match | not)) | length),
	 missing: ($rows * 2 - (map(.cells | length) | add)),
	 filtered: ([.[0].cells[] | select(.interface == "'$filter'")] | length),
	 mismatches: [.[].cells[] | select(.match | not) | "\(.interface) \(.backing) \(.state)"]}' \
	"$cfx/stock.json" "$cfx/gup-v1.json")
tap_is "$(jq .rows_shown <<<"$seen")" "$(jq .rows <<<"$facts")" \
	"consumers page: a row per interface, backing and state of the documents ($(jq .rows <<<"$facts"))"
tap_is "$(jq -c '.counts | [.yes, .no, .missing]' <<<"$seen")" "$(jq -c '[.yes, .no, .missing]' <<<"$facts")" \
	"consumers page: cells as expected, not, and not in the results, as the documents say"
tap_is "$(jq -r .cell_text <<<"$seen")" "$(jq -r .verdict <<<"$wc")" \
	"gup-v1, cell $wcell ($wkey): shows its verdict, $(jq -r .verdict <<<"$wc")"
tap_is "$(jq -r '.detail.reason' <<<"$seen")" "$(jq -r .expected.reason <<<"$wc")" \
	"gup-v1, cell $wcell: the reason shown is its expectation's"
wtitle=$(jq -r --argjson i "$wcell" '[.kernel_reports[] | select(.cell == $i)][0].title' "$cfx/gup-v1.json")
tap_like "$(jq -r '.detail_reports[0]' <<<"$seen")" "^$(ere "$wtitle") \\(expected\\)" \
	"gup-v1, cell $wcell: its kernel report is shown, expected"
cslice=$(jq -r .detail_console <<<"$seen")
tap_like "$cslice" "gup-lab: consumers cell $wcell\$" "gup-v1, cell $wcell: its console slice starts at its marker"
tap_like "$cslice" "$(ere "$wtitle")" "gup-v1, cell $wcell: the slice holds the WARNING"
tap_is "$(grep -c 'gup-lab: consumers cell' <<<"$cslice")" 1 "gup-v1, cell $wcell: the slice holds no other cell's marker"
tap_is "$(jq '[.key_rows[] | select(.[0] != "'$filter'")] | length' <<<"$seen"):$(jq '.key_rows | length' <<<"$seen")" \
	"0:$(jq .filtered <<<"$facts")" "filter interface=$filter: its $(jq .filtered <<<"$facts") rows, no other"
tap_is "$(jq -c .mismatch_rows <<<"$seen")" "$(jq -c .mismatches <<<"$facts")" \
	"filter verdict=not as expected: only the fixture's mismatch"
tap_is "$(jq '.phone_page_width <= .phone_viewport' <<<"$seen")" true \
	"consumers page, 390 px wide: the page fits ($(jq .phone_page_width <<<"$seen") px)"

# ---- The table view with a slice file per cell: the reproduction's page ----
rfx=tests/fixtures/explorer/repro
rpage=$work/repro.html
s=0
userspace/gupctl repro report --results "$rfx" --html "$rpage" || s=$?
tap_is "$s" 0 "gupctl repro report --html: status 0"
rc=$(jq '.cells[] | select(.cell == "pin")' "$rfx/stock.json")
rkey="$(jq -r '"\(.fs) \(.route_title) \(.cell)"' <<<"$rc")"
browse "the reproduction's page" --table repro "$rpage" "$shots" "$rkey" 0 2 pin
tap_is "$(jq -c '[.errors, .rows_shown]' <<<"$seen")" "[[],$(jq '.cells | length' "$rfx/stock.json")]" \
	"repro page: no script error, a row per cell of stock.json"
tap_is "$(jq -r .cell_text <<<"$seen")" "$(jq -r .measured.outcome <<<"$rc")" \
	"repro page, $rkey: shows its measured outcome"
tap_is "$(jq -r '.detail.reason, .detail.result' <<<"$seen")" "$(jq -r .expected.reason <<<"$rc")
MATCH" "repro page, $rkey: its expectation's reason, and MATCH"
tap_like "$(jq -r '.detail_reports[0]' <<<"$seen")" \
	"^WARNING at $(ere "$(jq -r '[.kernel_reports[] | select(.cell == "pin")][0].location' "$rfx/stock.json")")" \
	"repro page, $rkey: its kernel report, where the kernel put it"
rslice=$(jq -r .detail_console <<<"$seen")
rfile=$rfx/$(jq -r .console <<<"$rc")
tap_is "$(wc -l <<<"$rslice") $(head -1 <<<"$rslice" | cut -c1-40)" \
	"$(wc -l <"$rfile") $(head -1 "$rfile" | cut -c1-40)" \
	"repro page, $rkey: its console slice is the job's slice file, $(jq -r .console <<<"$rc")"
tap_like "$rslice" 'gup-lab: repro cell 1' "repro page, $rkey: the slice holds its marker"
tap_is "$(jq -c .key_rows <<<"$seen" | jq -c 'map(.[2])')" '["pin"]' "repro page: filter cell=pin, its row only"

# ---- The diff view: the matrix fixture against a copy, one cell changed ----
cp -r "$fx" "$work/b"
dcell=6
jq --argjson i "$dcell" '(.cells[] | select(.index == $i) | .measured) |=
	(.outcome = "refused" | .errno = "EFAULT" | .nr_pinned = 0)' "$fx/stock.json" >"$work/b/stock.json"
s=0
userspace/gupctl diff --html "$work/diff.html" "$fx:stock" "$work/b:stock" >"$work/diff.out" 2>&1 || s=$?
tap_is "$s" 1 "gupctl diff --html of the fixture and its copy: status 1, a cell differs"
browse "the diff page" --table diff "$work/diff.html" "$shots" '#1' 1 2 differ
tap_is "$(jq -c .errors <<<"$seen")" '[]' "diff page: no script error"
tap_is "$(jq .rows_shown <<<"$seen")" 1 "diff page: one row, the one cell changed"
tap_like "$(jq -r .detail_title <<<"$seen")" \
	"^B: matrix, stock -> stock, differ, $(ere "$(jq -r --argjson i "$dcell" '.cells[] | select(.index == $i) |
		"\(.backing) \(.state) \(.method)"' "$fx/stock.json")")" \
	"diff page: the row is cell $dcell's"
tap_like "$(jq -r .cell_text <<<"$seen")" EFAULT "diff page: B's side shows the changed measurement (EFAULT)"
tap_like "$(jq -r .detail_console <<<"$seen")" "gup-lab: matrix cell $dcell\$" \
	"diff page: B's side's console evidence, from cell $dcell's marker"
tap_is "$(jq '.key_rows | length' <<<"$seen")" 1 "diff page: filter change=differ keeps it"
for s in consumers-1280x800 consumers-390x844 repro-1280x800 diff-1280x800; do
	tap_is "$(head -c 4 "$shots/$s.png" | od -An -c | tr -d ' ')" '211PNG' "screenshot $s.png written"
done
echo "# screenshots: $shots/consumers-1280x800.png, consumers-390x844.png, repro-1280x800.png, repro-390x844.png, diff-1280x800.png, diff-390x844.png"
tap_done
