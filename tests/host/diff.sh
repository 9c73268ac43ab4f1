#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Host tests of gupctl diff, on fixtures cut from the real results present
# (GUP_LAB_RESULTS, else results/): a few cells of two flavours of the
# newest matrix, repro, consumers and holders runs copied into a scratch
# results root, then one measured field of one cell changed on one side.
# Each job without a run to cut from is skipped, never passed.  The cell
# changed is picked from the run by what it measured (one that ran), never
# named here: the expectations are the mutation's, not a run's.
# Output: TAP version 13.  Exit status: 0 if every test passed.
#
# usage: tests/host/diff.sh [PATH/TO/gupctl]
set -euo pipefail

# shellcheck source=../gupctl_harness.sh
. "$(dirname "$0")/../gupctl_harness.sh"

SRC=${GUP_LAB_RESULTS:-$ROOT/results}
ROOTDIR=$TMP/results
NCELLS=400		# matrix cells kept: the first ones, most of which run

# expect_rc DESC WANT ARGS...: run gupctl diff ARGS; ok if it exits WANT.
expect_rc() {
	local desc=$1 want=$2
	shift 2
	run diff "$@"
	if [ "$rc" -eq "$want" ]; then
		tap_ok "$desc"
	else
		not_ok "$desc" "exit $rc, want $want"
	fi
}

# newest_run JOB: the newest run of JOB under $SRC whose run.json lists two
# flavours that ran with a document of cells each; "DIR F1 F2", or nothing.
newest_run() {
	local dir fl runs
	mapfile -t runs < <(find "$SRC/$1" -mindepth 1 -maxdepth 1 -type d -name '2*' 2>/dev/null | sort -r)
	for dir in "${runs[@]}"; do
		if [ ! -f "$dir/run.json" ] || [ -e "$dir/.running" ]; then
			continue
		fi
		mapfile -t fl < <(jq -r '.flavours[] | select(.why_not_run == null and .ran != false) | .name' \
			"$dir/run.json")
		local good=() f
		for f in "${fl[@]}"; do
			[ -f "$dir/$f.json" ] && [ "$(jq '.cells | length' "$dir/$f.json")" -gt 0 ] &&
				good+=("$f")
		done
		if [ "${#good[@]}" -ge 2 ]; then
			echo "$dir ${good[0]} ${good[1]}"
			return
		fi
	done
}

# cut_run JOB SRCDIR DSTDIR N FLAVOUR...: a run directory with FLAVOUR...
# only, each document cut to its first N cells (tests), with the consoles
# those cells name.
cut_run() {
	local job=$1 src=$2 dst=$3 n=$4 f c
	shift 4
	mkdir -p "$dst"
	jq --args '.flavours |= map(select(.name as $n | $ARGS.positional | index($n)))' \
		"$@" <"$src/run.json" >"$dst/run.json"
	for f in "$@"; do
		jq --argjson n "$n" '.cells |= .[0:$n]' "$src/$f.json" >"$dst/$f.json"
		[ ! -f "$src/$f.console.log" ] || cp "$src/$f.console.log" "$dst/"
		[ ! -f "$src/$f.longterm.json" ] ||
			jq --argjson n "$n" '.tests |= .[0:$n]' "$src/$f.longterm.json" \
				>"$dst/$f.longterm.json"
		# repro and holders: each cell's own slice of the console
		jq -r '.cells[].console // empty' "$dst/$f.json" | while read -r c; do
			mkdir -p "$dst/$(dirname "$c")"
			[ ! -f "$src/$c" ] || cp "$src/$c" "$dst/$c"
		done
	done
}

# mutate FILE JQ: FILE rewritten by the jq program JQ.
mutate() {
	jq "$2" "$1" >"$1.new"
	mv "$1.new" "$1"
}

# listed JSON: the cells gupctl diff --json listed as differing, "JOB CELL" a line.
listed() {
	jq -r '.groups[] | .by[].cells[] | "\(.job) \(.cell)"' "$1"
}

# ---- The command line ----

run diff --help
tap_like "$(cat "$TMP/out")" '--markdown FILE' "diff: --help lists the options of its table"
tap_like "$(cat "$TMP/out")" 'DIR:FLAVOUR' "diff: --help says the operands' grammar"
expect_rc "diff: one side only is a usage error (exit 2)" 2 stock
expect_rc "diff: a side that names no directory is exit 2" 2 "$TMP/nonexistent" stock
expect_rc "diff: a side that is not a flavour name is exit 2" 2 --results "$TMP" 'no such' stock

# ---- The matrix and gup_longterm ----

read -r MSRC F1 F2 <<<"$(newest_run matrix)" || true
if [ -z "${MSRC:-}" ]; then
	tap_skip "diff: matrix fixtures" "no matrix run with two flavours under $SRC"
else
	A=$ROOTDIR/matrix/20990101-000000
	B=$ROOTDIR/matrix/20990101-000001
	cut_run matrix "$MSRC" "$A" "$NCELLS" "$F1"
	cp -r "$A" "$B"
	mkdir -p "$TMP/page"

	expect_rc "diff: a run directory against its copy: exit 0" 0 "$A" "$B"
	tap_like "$(cat "$TMP/out")" '^0 cells differ' "diff: ... and says nothing differs"

	# a cell that ran and pinned, or else one refused: its outcome turned over
	idx=$(jq '[.cells[] | select(.measured.outcome == "pinned" or .measured.outcome == "refused")][0].index' "$A/$F1.json")
	key=$(jq -r --argjson i "$idx" '.cells[] | select(.index == $i) | "\(.backing) \(.state) \(.method) \(.flags)"' "$A/$F1.json")
	was=$(jq -r --argjson i "$idx" '.cells[] | select(.index == $i) | .measured.outcome' "$A/$F1.json")
	if [ "$was" = pinned ]; then
		mutate "$B/$F1.json" "(.cells[] | select(.index == $idx) | .measured) |= (.outcome = \"refused\" | .errno = \"EFAULT\" | .nr_pinned = 0)"
	else
		mutate "$B/$F1.json" "(.cells[] | select(.index == $idx) | .measured) |= (.outcome = \"pinned\" | .errno = null | .nr_pinned = 1)"
	fi
	expect_rc "diff: one matrix cell measured otherwise: exit 1" 1 --json "$TMP/d.json" \
		--markdown "$TMP/page/d.md" "$A" "$B"
	out=$(cat "$TMP/out")
	tap_is "$(listed "$TMP/d.json")" "matrix $key" "diff: exactly that cell is listed ($key)"
	tap_like "$out" "^matrix $F1 -> $F1: [0-9]+ compared, 1 differ" "diff: the text counts first"
	tap_like "$out" "^    - $key \\($idx\\)" "diff: the text lists the cell"
	tap_is "$(jq -r '.groups[0].by[0].cells[0].a.evidence.console' "$TMP/d.json")" \
		"$A/$F1.console.log" "diff: the cell's console evidence is its flavour's console"
	lines=$(jq -r '.groups[0].by[0].cells[0].a.evidence.lines[0]' "$TMP/d.json")
	if [ "$lines" != null ]; then
		tap_like "$(sed -n "${lines}p" "$A/$F1.console.log" | tr -d '\r')" "gup-lab: matrix cell $idx\$" \
			"diff: its slice starts at the cell's marker (line $lines)"
	else
		tap_skip "diff: its slice starts at the cell's marker" "cell $idx has no marker in the console"
	fi
	tap_is "$(jq -r '.groups[0].by[0].cells[0] | [.a.reason != null, .b.reason != null] | @tsv' "$TMP/d.json")" \
		"$(printf 'true\ttrue')" "diff: both sides' reasons are in the JSON"
	link=$(grep -o "\]([^)]*$F1.console.log)" "$TMP/page/d.md" | head -1 | sed 's/^](//; s/)$//')
	if [ -n "$link" ] && [ -f "$TMP/page/$link" ]; then
		tap_ok "diff: the page links the console relative to itself ($link)"
	else
		not_ok "diff: the page links the console relative to itself" "link '$link'"
	fi
	tap_like "$(cat "$TMP/page/d.md")" "\`$key\` \\($idx\\)" "diff: the page lists the cell"
	# --page: the same differences for docs/, nothing of this machine in it
	expect_rc "diff --page: exit 1 (a cell differs)" 1 --page "$TMP/page/p.md" "$A" "$B"
	tap_like "$(head -1 "$TMP/page/p.md")" "^# What changed from \`$F1\` to \`$F1\`\$" \
		"diff --page: titled by the sides' flavours, not their operands"
	tap_is "$(grep -c "]([^)]*console\.log)\|$TMP\|results/" "$TMP/page/p.md" || true)" 0 \
		"diff --page: no link to a console, no path of this machine, nothing of results/"
	tap_like "$(cat "$TMP/page/p.md")" "\`$key\` \\($idx\\) \\| $F1\\.console\\.log" \
		"diff --page: the cell, its console named in words"
	tap_like "$(cat "$TMP/page/p.md")" "^- matrix $F1 -> $F1: ([0-9]+) of \\1 cells compared measured the same|^- matrix $F1 -> $F1: [0-9]+ of [0-9]+ cells compared measured the same\$" \
		"diff --page: what did not change, job by job"
	expect_rc "diff --page and --markdown the same file: exit 2" 2 --page "$TMP/page/p.md" \
		--markdown "$TMP/page/p.md" "$A" "$B"

	# what does not count: the page's bookkeeping, the wall times, the expectation
	cp "$A/$F1.json" "$B/$F1.json"
	mutate "$B/$F1.json" "(.cells[] | select(.index == $idx)) |= (.measured.page.refcount += 7 | .expected.reason = \"another reason\" | .match = (.match | not)) | .wall_seconds.boot += 100"
	expect_rc "diff: a page refcount, a reason, a verdict and a wall time do not count: exit 0" 0 "$A" "$B"

	# a cell present on one side only, one not run on one side
	cp "$A/$F1.json" "$B/$F1.json"
	mutate "$B/$F1.json" "del(.cells[] | select(.index == $idx))"
	expect_rc "diff: a cell only in A alone: exit 0" 0 --json "$TMP/d.json" "$A" "$B"
	tap_is "$(jq -r '.only_in_a[] | .cell' "$TMP/d.json")" "$key" "diff: ... listed as only in A"
	cp "$A/$F1.json" "$B/$F1.json"
	mutate "$B/$F1.json" "(.cells[] | select(.index == $idx) | .measured) |= (.outcome = \"not-run\" | .errno = null | .why_not_run = \"planted: its file system was not there\")"
	expect_rc "diff: a cell not run in B alone: exit 0" 0 --json "$TMP/d.json" "$A" "$B"
	tap_is "$(jq -r '.not_run_in_b[] | "\(.cell): \(.b.why_not_run)"' "$TMP/d.json")" \
		"$key: planted: its file system was not there" "diff: ... listed as not run in B, with why"
	cp "$A/$F1.json" "$B/$F1.json"

	# gup_longterm: one verdict turned over
	if [ -f "$A/$F1.longterm.json" ]; then
		t=$(jq '[.tests[] | select(.measured.verdict == "ok" or .measured.verdict == "not ok")][0].index' "$A/$F1.longterm.json")
		name=$(jq -r --argjson t "$t" '.tests[] | select(.index == $t) | "\(.local_fs // "ext4") \(.name)"' "$A/$F1.longterm.json")
		mutate "$B/$F1.longterm.json" "(.tests[] | select(.index == $t) | .measured.verdict) |= (if . == \"ok\" then \"not ok\" else \"ok\" end)"
		expect_rc "diff: one gup_longterm verdict otherwise: exit 1" 1 --json "$TMP/d.json" "$A" "$B"
		tap_is "$(listed "$TMP/d.json")" "gup_longterm $name" "diff: exactly that test is listed"
		cp "$A/$F1.longterm.json" "$B/$F1.longterm.json"
	else
		tap_skip "diff: a gup_longterm verdict difference" "$MSRC has no $F1.longterm.json"
	fi

	# FLAVOUR: the newest run under the root that holds it
	mutate "$B/$F1.json" "(.cells[] | select(.index == $idx) | .measured.errno) |= \"EPLANTED\""
	expect_rc "diff: FLAVOUR is its newest run under --results (the changed one): exit 1" 1 \
		--results "$ROOTDIR" "$A:$F1" "$F1"
	tap_like "$(head -2 "$TMP/out")" "^B: $F1: $B\$" "diff: ... B is $B"
	expect_rc "diff: a flavour no run under the root holds: exit 2" 2 --results "$ROOTDIR" \
		"$F1" no-such-flavour
	mkdir -p "$ROOTDIR/matrix/20990101-000002"
	cp "$A"/* "$ROOTDIR/matrix/20990101-000002/"
	touch "$ROOTDIR/matrix/20990101-000002/.running"
	expect_rc "diff: a run still in progress is not the newest" 1 --results "$ROOTDIR" "$A:$F1" "$F1"
	rm -r "$ROOTDIR/matrix/20990101-000002"
	cp "$A/$F1.json" "$B/$F1.json"

	# flavour by flavour: two flavours each side
	A2=$TMP/two/a B2=$TMP/two/b
	cut_run matrix "$MSRC" "$A2" "$NCELLS" "$F1" "$F2"
	cp -r "$A2" "$B2"
	idx2=$(jq '[.cells[] | select(.measured.outcome == "pinned")][0].index // empty' "$A2/$F2.json")
	if [ -n "$idx2" ]; then
		key2=$(jq -r --argjson i "$idx2" '.cells[] | select(.index == $i) | "\(.backing) \(.state) \(.method) \(.flags)"' "$A2/$F2.json")
		mutate "$B2/$F2.json" "(.cells[] | select(.index == $idx2) | .measured) |= (.outcome = \"none-pinned\" | .nr_pinned = 0)"
		expect_rc "diff: two run directories of the same flavours, flavour by flavour: exit 1" 1 \
			--json "$TMP/d.json" "$A2" "$B2"
		tap_is "$(jq -r '.groups[] | "\(.flavours.a) \(.flavours.b) \(.by[].cells[].cell)"' "$TMP/d.json")" \
			"$F2 $F2 $key2" "diff: ... the cell is listed under $F2 -> $F2 only"
		tap_is "$(jq -r '[.pairs[] | select(.job == "matrix") | "\(.a.flavour)>\(.b.flavour)"] | join(" ")' "$TMP/d.json")" \
			"$F1>$F1 $F2>$F2" "diff: ... each flavour against its own"
	else
		tap_skip "diff: flavour by flavour" "$F2 pinned none of its first $NCELLS cells"
	fi
	# make diff's script, on results directories (running jobs needs guests: tests/lab)
	rc=0
	jobs/diff.sh "$A:$F1" "$B:$F1" >"$TMP/out" 2>"$TMP/err" || rc=$?
	tap_is "$rc" 0 "jobs/diff.sh: two results directories, nothing differs: exit 0"
	rc=0
	jobs/diff.sh "$A2" "$B2" >"$TMP/out" 2>"$TMP/err" || rc=$?
	tap_is "$rc" 1 "jobs/diff.sh: a cell differs: exit 1"
	rc=0
	jobs/diff.sh --bisect "$A2" "$A" >"$TMP/out" 2>"$TMP/err" || rc=$?
	tap_is "$rc" 125 "jobs/diff.sh --bisect: sides that cannot be compared: exit 125 (git bisect's skip)"
	rc=0
	jobs/diff.sh --bisect "$A" >"$TMP/out" 2>"$TMP/err" || rc=$?
	tap_is "$rc" 2 "jobs/diff.sh --bisect: a usage error is still exit 2"
	expect_rc "diff: run directories of different flavours are exit 2" 2 "$A2" "$A"
	expect_rc "diff: DIR:FLAVOUR picks one of them: exit 0" 0 "$A2:$F1" "$A"
	expect_rc "diff: DIR:FLAVOUR of a flavour the run lacks is exit 2" 2 "$A:$F2" "$A"
fi

# ---- repro, consumers, holders: one measured field of one cell ----

# job_case JOB KEYJQ FIELDJQ NEWJQ: cut JOB's newest run, change FIELDJQ
# (a path under .measured) of its first cell that ran to NEWJQ; exit 1 and
# exactly that cell (KEYJQ: its key) listed.
job_case() {
	local job=$1 keyjq=$2 field=$3 new=$4 src f1 a b n key
	read -r src f1 _ <<<"$(newest_run "$job")" || true
	if [ -z "${src:-}" ]; then
		tap_skip "diff: a $job difference" "no $job run with two flavours under $SRC"
		return
	fi
	a=$TMP/$job/a
	b=$TMP/$job/b
	cut_run "$job" "$src" "$a" 12 "$f1"
	cp -r "$a" "$b"
	n=$(jq "[.cells | to_entries[] | select(.value.measured != null and (.value.measured$field) != null and (.value.why_not_run // null) == null and ((.value.measured.outcome // \"\") | startswith(\"not run\") | not))][0].key // empty" "$a/$f1.json")
	if [ -z "$n" ]; then
		tap_skip "diff: a $job difference" "none of $f1's first cells ran"
		return
	fi
	key=$(jq -r ".cells[$n] | $keyjq" "$a/$f1.json")
	mutate "$b/$f1.json" ".cells[$n].measured$field = $new"
	expect_rc "diff: one $job cell measured otherwise: exit 1" 1 --json "$TMP/d.json" "$a" "$b"
	tap_is "$(listed "$TMP/d.json")" "$job $key" "diff: exactly that $job cell is listed ($key)"
	# both sides as comma-separated parts with the matrix run
	if [ -n "${MSRC:-}" ]; then
		expect_rc "diff: A and B each a matrix and a $job run, comma-separated: exit 1" 1 \
			--json "$TMP/d.json" "$A,$a" "$A,$b"
		tap_is "$(jq -r '[.pairs[].job] | unique | join(" ")' "$TMP/d.json")" \
			"$(printf '%s\n' gup_longterm matrix "$job" | sort | paste -sd' ')" \
			"diff: ... both jobs compared"
	fi
}

job_case repro '.cell' '.outcome' '"planted (host reads PLANTED)"'
job_case consumers '"\(.interface) \(.backing) \(.state)"' '.outcome' '"EPLANTED"'
job_case holders '.name' '.disk' '"PLANTED"'

# a source line number inside a measured string does not count
read -r RSRC RF1 _ <<<"$(newest_run repro)" || true
if [ -n "${RSRC:-}" ]; then
	a=$TMP/lines/a b=$TMP/lines/b
	cut_run repro "$RSRC" "$a" 3 "$RF1"
	cp -r "$a" "$b"
	mutate "$a/$RF1.json" '.cells[0].measured.outcome = "BUG (fs/ext4/inode.c:2658)"'
	mutate "$b/$RF1.json" '.cells[0].measured.outcome = "BUG (fs/ext4/inode.c:2671)"'
	expect_rc "diff: the same BUG at another source line does not count: exit 0" 0 "$a" "$b"
	mutate "$b/$RF1.json" '.cells[0].measured.outcome = "BUG (fs/ext4/page-io.c:2671)"'
	expect_rc "diff: a BUG in another file does: exit 1" 1 "$a" "$b"
else
	tap_skip "diff: source line numbers" "no repro run with two flavours under $SRC"
fi

tap_done
