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
# shellcheck source=../suite.sh
. "$(dirname "$0")/../suite.sh"

# ere TEXT: TEXT as an extended regular expression that matches it
ere() {
	printf '%s\n' "$1" | sed 's/[][\\.*^$+?(){}|]/\\&/g'
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
if ! seen=$(timeout 300 /usr/bin/python3 tests/host/explorer_browser.py "$page" "$shots" \
	"$cell" "$state" '!' 2>"$work/browser.err"); then
	tap_not_ok "chromium loads the page"
	sed 's/^/#   /' "$work/browser.err" | tail -20
	tap_done
	exit
fi
tap_ok "chromium loads the page"
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
tap_done
