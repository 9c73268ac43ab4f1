#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Host tests of gupctl detect's pure half (userspace/model/probe.c: the
# probes derived from the policies, the verdict; run through gupctl detect
# --plan and --simulate, no device) and of --policy none (gupctl matrix
# --expect, gupctl report --collect of a synthetic none document: every
# cell measured only, a WARNING during a cell a finding, a BUG a failure,
# no mislabelled check; the pages it makes).
# Output: TAP version 13.  Exit status: 0 if every test passed.
#
# usage: tests/host/detect.sh [PATH/TO/gupctl]
# Backticks in single quotes below are markdown, not command substitutions.
# shellcheck disable=SC2016
set -euo pipefail

# shellcheck source=../gupctl_harness.sh
. "$(dirname "$0")/../gupctl_harness.sh"

R61=6.1.192
R612=6.12.118

# ---- the probes ----

run detect --plan --release "$R612"
plan612=$(cat "$TMP/out")
tap_like "$plan612" $'\tpin_user_pages WRITE\\|LONGTERM ext4-shared [a-z-]+\tmainline=EFAULT none=pinned' \
	"detect --plan 6.12: a FOLL_LONGTERM pin_user_pages write to a shared dirty-tracked file, mainline refuses, the no-policy reference pins"
tap_like "$plan612" $'\tpin_user_pages_fast WRITE\\|LONGTERM ext4-shared write-faulted\tmainline=EFAULT' \
	"detect --plan 6.12: GUP-fast on the writable PTE of an ext4-shared page (gup_fast_folio_allowed())"
tap_like "$plan612" $'\tpin_user_pages WRITE ext4-shared [a-z-]+\tmainline=pinned none=pinned v1-like=EFAULT' \
	"detect --plan 6.12: a non-long-term pin write mainline allows and a stricter check (v7-like) refuses"
tap_like "$plan612" 'sanity: every model answers pinned' "detect --plan 6.12: an anonymous sanity probe"
run detect --plan --release "$R61"
plan61=$(cat "$TMP/out")
tap_like "$plan61" '^# 4 models: stock v1 v7 v9$' "detect --plan 6.1: its four policies; stock is the no-policy reference"
tap_like "$plan61" $'\tget_user_pages WRITE ext4-shared [a-z-]+\tstock=pinned v1=EFAULT \\+ WARNING v7=pinned v9=pinned' \
	"detect --plan 6.1: seed 005's FOLL_GET refusal is probed"
tap_like "$plan61" $'\tpin_user_pages WRITE ext4-shared [a-z-]+\tstock=pinned v1=EFAULT \\+ WARNING v7=EFAULT v9=pinned' \
	"detect --plan 6.1: v7's non-long-term pin refusal tells v7 from v9"
for p in "$plan61" "$plan612"; do
	n=$(grep -c $'^[0-9]*\t' <<<"$p")
	if [ "$n" -ge 3 ] && [ "$n" -le 24 ]; then
		tap_ok "detect --plan: $n probes (3 to 24)"
	else
		tap_not_ok "detect --plan: $n probes, want 3 to 24"
	fi
done
tap_is "$(grep -c 'ext4-shared\|ext4-private\|anon-private' <<<"$plan61$plan612")" \
	"$(grep -c $'^[0-9]*\t' <<<"$plan61$plan612")" "detect --plan: probes on anon-private and ext4 only"
# each pair of models differs on a probe
for p in "$plan61" "$plan612"; do
	bad=$(awk -F'\t' '/^[0-9]/ { n = split($3, a, " "); k = 0
		for (i = 1; i <= n; i++) if (a[i] ~ /=/) { split(a[i], kv, "="); name[++k] = kv[1]; v[k] = kv[2] }
		else v[k] = v[k] " " a[i]
		for (i = 1; i <= k; i++) for (j = i + 1; j <= k; j++) if (v[i] != v[j]) sep[name[i] "/" name[j]] = 1
		nm = k; for (i = 1; i <= k; i++) all[i] = name[i] }
		END { for (i = 1; i <= nm; i++) for (j = i + 1; j <= nm; j++) if (!((all[i] "/" all[j]) in sep)) print all[i] "/" all[j] }' <<<"$p")
	tap_is "$bad" "" "detect --plan: every pair of models answers a probe differently ($(head -1 <<<"$p" | cut -c3-))"
done

# ---- the verdict ----

# simulate RELEASE MODEL [CANDIDATE]: the verdict's policy (null: none)
simulate() {
	local cand=()
	[ $# -lt 3 ] || cand=(--candidate "$3")
	run detect --simulate "$2" --release "$1" "${cand[@]}" --json "$TMP/d.json"
	[ "$rc" -eq 0 ] || { echo "exit $rc"; return; }
	jq -r '"\(.policy) \(.candidate_confirmed)"' "$TMP/d.json"
}
for p in stock v1 v7 v9; do
	tap_is "$(simulate "$R61" "$p" "$p")" "$p true" "detect: 6.1 measured as $p predicts, candidate $p: $p, confirmed"
done
tap_is "$(simulate "$R61" v7 stock)" "v7 false" "detect: candidate stock refuted by v7's answers: v7"
tap_is "$(simulate "$R61" v1 v9)" "v1 false" "detect: candidate v9 refuted by v1's answers: v1"
tap_is "$(simulate "$R612" mainline mainline)" "mainline true" "detect: 6.12 as mainline predicts: mainline, confirmed"
tap_is "$(simulate "$R612" none mainline)" "null false" \
	"detect: 6.12 whose writable_file_mapping_allowed() always allows: not mainline, none"
tap_is "$(simulate "$R612" v7-like mainline)" "null false" \
	"detect: 6.12 whose writable_file_mapping_allowed() refuses every pin write (v7-like): none"
tap_is "$(simulate "$R612" v1-like)" "null false" "detect: 6.12 refusing FOLL_GET writes too (v1-like), no candidate: none"
simulate "$R612" none mainline >/dev/null
tap_like "$(jq -r .evidence "$TMP/d.json")" '^release 6\.12\.118, candidate mainline .*[0-9]+ probes, as predicted by: mainline [0-9]+ of [0-9]+, none [0-9]+ of [0-9]+.*: none$' \
	"detect --json: one evidence sentence with the facts and the probe counts"
tap_is "$(jq -c '[.probes[] | select(.index == 2308) | .expected.mainline, .expected.none, .measured]' "$TMP/d.json")" \
	'["EFAULT","pinned","pinned"]' "detect --json: a probe's measured outcome and every model's expectation"
expect "detect: --simulate needs --release" 2 err "--simulate needs --release" -- detect --simulate none
expect "detect: a release of no family is refused" 2 err "neither 6.1.N, 6.12.N nor 7.3.N" -- detect --plan --release 5.15.1
expect "detect --help: its options" 0 out "--json FILE" "--plan" "--simulate MODEL" -- detect --help

# ---- --policy none ----

run matrix --flavour mine --policy none --expect
tap_like "$(sed -n 2308p "$TMP/out")" $'^2308\tpin_user_pages WRITE\\|LONGTERM ext4-shared untouched\tmeasured\tmeasured, no policy to compare$' \
	"matrix --policy none --expect: a cell is measured, with no expectation"
tap_like "$(grep -m1 'anon-private written-back' "$TMP/out")" $'\tnot-run\t.*fsync' \
	"matrix --policy none --expect: a cell user space cannot set up is still not applicable"
expect "matrix: an unknown --policy names none among the choices" 2 err "or none" -- \
	matrix --flavour x --policy bogus --expect

C=$TMP/none
mkdir -p "$C/src/mm"
printf '%s\n' '/* planted */' 'static bool f(void)' '	WARN_ON_ONCE(1);' >"$C/src/mm/gup.c"
# every cell measured only: cells 1-3 pinned, the rest refused EFAULT
jq -n "$(cat "$ROOT/tests/matrix_axes.jq")"'
{job: "matrix", flavour: "mine", policy: "none", kernel_release: "6.12.118-mine",
 kernel_policy: {name: "mainline", evidence: "release 6.12.118: on 6.12 the lab models mainline only"},
 wall_seconds: {matrix: 1.5},
 cells: [foreach (backings[] as $b | states[] as $s | methods[] as $m | flagsets[] as $f
		  | [$b, $s, $m, $f]) as $c (0; . + 1;
	{index: ., backing: $c[0], state: $c[1], method: $c[2], flags: $c[3], expected: null,
	 measured: (if . <= 3 then {outcome: "pinned", errno: null, nr_pinned: 1,
				    unpin_errno: null, page: null}
		    else {outcome: "refused", errno: "EFAULT", nr_pinned: 0,
			  unpin_errno: null, page: null} end),
	 match: true})]}' >"$C/matrix.json"
jq -n '{policy: "none", gup_test: "/lab/bin/gup_test", foll_longterm: "0x10000",
	foll_force: "0x10", wall_seconds: {xcheck: 0.1}, checked: 0, disagree: 0, cells: [],
	not_checked: [{reason: "policy none", cells: 7296}]}' >"$C/xcheck.json"
# none_console [bug]: markers for cells 1-3, a WARNING in cell 2 (a BUG in 3)
none_console() {
	{
		echo 'gup-lab: running /lab/run.sh'
		for i in 1 2 3; do
			echo "[    2.000000] gup-lab: matrix cell $i"
			[ "$i" != 2 ] || echo "[    2.100000] WARNING: CPU: 1 PID: 99 at mm/gup.c:3 f+0x1/0x2"
			[ "$i" != 3 ] || [ "${1:-}" != bug ] || echo "[    2.100000] kernel BUG at mm/gup.c:3!"
		done
		echo '[    3.000000] gup-lab: matrix end'
	} | sed 's/$/\r/'
}
none_collect=(report --collect "$C/mine.json" --flavour mine --policy none
	--ext4 warn --input-hash 0123456789abcdef --kernel-verdict warning
	--boot-seconds 9.7 --console "$C/console.log" --reports "$C/reports.json"
	--src "$C/src" --matrix "$C/matrix.json" --xcheck "$C/xcheck.json")
none_console >"$C/console.log"
"$ROOT/qemu/scan-console.sh" --reports "$C/console.log" >"$C/reports.json"
expect "collect --policy none: a WARNING in a cell, kernel 6.12 read as mainline: passed, exit 0" 0 out \
	"7296 measured, no policy to compare" "1 WARNING in cells with no policy (findings)" "passed" \
	-- "${none_collect[@]}"
tap_is "$(jq -c '.summary | [.measured_only, .mismatches, .unexpected_kernel_reports, .no_policy_findings, .passed]' "$C/mine.json")" \
	'[7296,0,0,1,true]' "collect --policy none: summary measured_only, no mismatch, the WARNING a finding, passed"
tap_is "$(jq -c '.kernel_reports[0] | [.cell, .expected, .no_policy_finding]' "$C/mine.json")" \
	'[2,false,true]' "collect --policy none: the WARNING attributed to its cell, a finding"
tap_is "$(jq -c '.cells[1] | [.expected, .measured.outcome]' "$C/mine.json")" \
	'[null,"pinned"]' "collect --policy none: a cell with expected null and its measured outcome"
none_console bug >"$C/console.log"
"$ROOT/qemu/scan-console.sh" --reports "$C/console.log" >"$C/reports.json"
none_collect[12]=bug
expect "collect --policy none: a BUG in a cell still fails the flavour, exit 1" 1 out \
	"FAILED" "unexpected bug during matrix cell 3" -- "${none_collect[@]}"

# the pages: measured outcomes as codes, said so, no crash
none_console >"$C/console.log"
"$ROOT/qemu/scan-console.sh" --reports "$C/console.log" >"$C/reports.json"
none_collect[12]=warning
run "${none_collect[@]}"
RES=$TMP/results/matrix/20261205-180000
mkdir -p "$RES"
cp "$C/mine.json" "$RES/mine.json"
jq -n '{job: "matrix", commit: "deadbeef", date: "2026-12-05T18:00:00Z",
	source_packages: [{name: "linux-source-6.12", version: "6.12.118-1"}],
	wall_seconds: 10, flavours: [{name: "mine", ran: true, why_not_run: null}]}' >"$RES/run.json"
expect "report --md of a none flavour: written, exit 0" 0 out "mine: 7296 cells, 7296 run, 0 not applicable, 7296 measured, no policy to compare, 0 mismatches" -- \
	report --md "$C/matrix.md" --svg "$C/matrix.svg" "$RES"
tap_like "$(cat "$C/matrix.md")" 'Policy `none`: 7296 cells measured, no policy to compare' \
	"report --md: the none flavour says its cells are measured only"
tap_like "$(cat "$C/matrix.md")" 'finding, measured, no policy to compare' \
	"report --md: the WARNING listed as a finding"
tap_like "$(grep -F '| anon-private | untouched |' "$C/matrix.md" | head -1)" '^\| anon-private \| untouched \| `Peee eeee` \| `Peee eeee` \| `Peee eeee` \| `eeee eeee` \|' \
	"report --md: measured outcomes as codes (P pinned, e EFAULT), no mismatch mark"
tap_like "$(cat "$C/matrix.svg")" 'policy none: measured, no policy to compare' "report --svg: the panel says so"

# xcheck --policy none checks nothing and does not fail
if [ -e /dev/gup_test ]; then
	tap_skip "xcheck --policy none" "/dev/gup_test is here"
else
	printf '#!/bin/sh\nexit 0\n' >"$TMP/gup_test" && chmod +x "$TMP/gup_test"
	expect "xcheck --policy none: nothing cross-checked, exit 0" 0 out "0 cells cross-checked, 0 disagree" \
		"policy none: no expectation" -- xcheck --policy none --gup-test "$TMP/gup_test" \
		--json "$TMP/x.json"
fi

tap_done
