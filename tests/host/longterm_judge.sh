#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Host tests of gupctl longterm (the mm selftests' gup_longterm, judged
# against a policy), no guest: synthetic kernel directories (a 6.1 tree
# without and with the PIN_LONGTERM_TEST_* ioctls, a 6.12 tree) and
# synthetic KTAP in gup_longterm's own words.  The judge must agree with
# a KTAP as the policy predicts it, and fail on a verdict that disagrees,
# a missing test, a policy it does not know, an unexpected test.
# Output: TAP version 13.  Exit status: 0 if every test passed.
#
# usage: tests/host/longterm_judge.sh [PATH/TO/gupctl]
#   Without an argument (as tests/run.sh calls it) userspace/gupctl is built
#   with make and tested.
set -euo pipefail

# shellcheck source=../gupctl_harness.sh
. "$(dirname "$0")/../gupctl_harness.sh"

# kdir DIR PATCHLEVEL IOCTLS: a kernel directory as build-flavour.sh
# leaves it, as far as the judge reads it.
kdir() {
	mkdir -p "$1/src/mm" "$1/build"
	printf 'VERSION = 6\nPATCHLEVEL = %s\nSUBLEVEL = 0\n' "$2" >"$1/src/Makefile"
	if [ "$3" = yes ]; then
		printf '\tcase PIN_LONGTERM_TEST_START:\n' >"$1/src/mm/gup_test.c"
	else
		printf '\tdefault:\n\t\treturn -EINVAL;\n' >"$1/src/mm/gup_test.c"
	fi
	printf 'CONFIG_GUP_TEST=y\nCONFIG_IO_URING=y\n' >"$1/build/.config"
}
kdir "$TMP/k61" 1 no
kdir "$TMP/k61i" 1 yes
kdir "$TMP/k612" 12 yes
echo "2048 16 16" >"$TMP/huge"
echo "2048 1 1" >"$TMP/huge1"

# The suite's test names (gup_longterm.c's test_cases[] and run_with_*()),
# written out here, not taken from the judge.
cases=("R/W longterm GUP pin in MAP_SHARED file mapping"
	"R/W longterm GUP-fast pin in MAP_SHARED file mapping"
	"R/O longterm GUP pin in MAP_SHARED file mapping"
	"R/O longterm GUP-fast pin in MAP_SHARED file mapping"
	"R/W longterm GUP pin in MAP_PRIVATE file mapping"
	"R/W longterm GUP-fast pin in MAP_PRIVATE file mapping"
	"R/O longterm GUP pin in MAP_PRIVATE file mapping"
	"R/O longterm GUP-fast pin in MAP_PRIVATE file mapping"
	"io_uring fixed buffer with MAP_SHARED file mapping"
	"io_uring fixed buffer with MAP_PRIVATE file mapping")
backings=("memfd" "tmpfile" "local tmpfile" "memfd hugetlb (2048 kB)")

# ktap FILE V1 V2 ... V40: gup_longterm's KTAP with these verdicts (ok,
# notok, skip; "-" leaves the test out).
ktap() {
	local f=$1 n=0 c b v
	shift
	{
		echo "TAP version 13"
		echo "1..40"
		for c in "${cases[@]}"; do
			for b in "${backings[@]}"; do
				v=$1
				shift
				n=$((n + 1))
				[ "$v" != - ] || continue
				echo "# [RUN] $c ... with $b"
				case $v in
				ok) echo "ok $n Should have worked" ;;
				notok) echo "not ok $n Should have failed" ;;
				skip) echo "ok $n # SKIP PIN_LONGTERM_TEST_START failed" ;;
				esac
			done
		done
	} >"$f"
}

# rep N WORD: WORD N times.
rep() {
	local i
	for ((i = 0; i < $1; i++)); do
		printf '%s ' "$2"
	done
}

# What stock 6.1 without the ioctls gave (a guest run): the 32 gup_test
# tests skip; io_uring registers memfd, tmpfile and hugetlb, and refuses
# the ext4 file, whose errno the suite does not see (a skip).
# shellcheck disable=SC2046 # one word per verdict
ktap "$TMP/stock.ktap" $(rep 32 skip) ok ok skip ok ok ok skip ok
judge() {
	run longterm judge --flavour test --policy "$1" --kernel-dir "$2" --hugetlb "$3" \
		--ktap "$4" --json "$TMP/j.json"
}

judge stock "$TMP/k61" "$TMP/huge" "$TMP/stock.ktap"
if [ "$rc" = 0 ] && [ "$(jq -c '.summary | [.tests, .ok, .skip, .agree, .agree_by_skip, .disagree, .all_agree]' "$TMP/j.json")" = '[40,6,34,40,2,0,true]' ]; then
	tap_ok "stock, 6.1 without the ioctls: all 40 verdicts as predicted, 2 by the suite's errno skip"
else
	not_ok "stock, 6.1 without the ioctls: all 40 verdicts as predicted" "rc $rc"
fi
tap_is "$(jq -r '.tests[0].predicted.verdict, .tests[0].cell.method, .tests[34].call, .tests[34].cell.backing' "$TMP/j.json" | paste -sd' ')" \
	"skip pin_user_pages EOPNOTSUPP ext4-shared" \
	"stock: the gup_test tests skip (EINVAL); io_uring's own check refuses ext4 (EOPNOTSUPP)"
tap_is "$(grep -c '^# finding (suite)' "$TMP/out")" 2 "stock: the two errno skips are printed as findings about the suite"

# The same with test 35 (io_uring, MAP_SHARED ext4) measured not ok.
# shellcheck disable=SC2046
ktap "$TMP/bad.ktap" $(rep 32 skip) ok ok notok ok ok ok skip ok
judge stock "$TMP/k61" "$TMP/huge" "$TMP/bad.ktap"
if [ "$rc" = 1 ] && grep -q "^# finding (disagree): test 35 " "$TMP/out" &&
	[ "$(jq -c '.summary | [.disagree, .all_agree]' "$TMP/j.json")" = '[1,false]' ] &&
	[ "$(jq '.tests[34].agree' "$TMP/j.json")" = false ]; then
	tap_ok "a verdict that disagrees: exit 1, a finding naming the test, agree false"
else
	not_ok "a verdict that disagrees: exit 1, a finding naming the test" "rc $rc"
fi

# A test missing from the KTAP.
# shellcheck disable=SC2046
ktap "$TMP/miss.ktap" $(rep 32 skip) ok ok skip ok ok ok skip -
judge stock "$TMP/k61" "$TMP/huge" "$TMP/miss.ktap"
tap_is "$rc $(jq -c '.summary | [.missing, .disagree]' "$TMP/j.json")" "1 [1,1]" \
	"a test missing from the KTAP: exit 1, counted missing and disagreeing"

# A test the judge does not enumerate (a second huge page size it was not told of).
cp "$TMP/stock.ktap" "$TMP/extra.ktap"
printf '# [RUN] io_uring fixed buffer with MAP_PRIVATE file mapping ... with memfd hugetlb (1048576 kB)\nok 41 # SKIP need more free huge pages\n' >>"$TMP/extra.ktap"
judge stock "$TMP/k61" "$TMP/huge" "$TMP/extra.ktap"
tap_is "$rc $(grep -c '^# finding (unexpected-test)' "$TMP/out")" "1 1" "a test the judge does not enumerate is a finding, exit 1"

# v7 on a 6.1 kernel with the ioctls (the backport): its slow and fast
# paths refuse a long-term write pin of shared ext4 (ok); its slow path
# refuses private ext4 too (v7's vma_needs_dirty_tracking() ignores
# VM_SHARED) where the suite expects a private mapping to work (not ok),
# while its GUP-fast takes the anonymous copy (ok).  v9 asks for a shared
# VMA: ok throughout.
run longterm expect --policy v7 --kernel-dir "$TMP/k61i" --hugetlb "$TMP/huge"
tap_like "$(sed 's/^ *//' "$TMP/out" | grep -E '^(3|19|23) ' | awk '{print $1, $2, $3}' | paste -sd' ')" \
	'^3 ok R/W 19 not ok 23 ok R/W$' "v7 with the ioctls: shared ext4 refused (ok); private ext4 refused by GUP (not ok), taken by GUP-fast (ok)"
run longterm expect --policy v9 --kernel-dir "$TMP/k61i" --hugetlb "$TMP/huge"
tap_like "$(sed 's/^ *//' "$TMP/out" | grep -E '^(3|7|19|23) ' | awk '{print $1, $2}' | paste -sd' ')" \
	'^3 ok 7 ok 19 ok 23 ok$' "v9 with the ioctls: shared ext4 refused (ok), private ext4 pinned (ok)"
run longterm expect --policy stock --kernel-dir "$TMP/k61i" --hugetlb "$TMP/huge"
tap_like "$(sed 's/^ *//' "$TMP/out" | grep -E '^(3|7) ' | awk '{print $1, $2, $3}' | paste -sd' ')" \
	'^3 not ok 7 not ok$' "stock with the ioctls: a long-term write pin of shared ext4 is taken: the suite says not ok"

# 6.12's io_uring: pin_user_pages_fast and no VMA check of its own, so a
# private ext4 mapping (an anonymous copy) registers under v9.
judge v9 "$TMP/k612" "$TMP/huge" "$TMP/stock.ktap"
tap_is "$(jq -r '.tests[38] | [.cell.method, .call, .predicted.verdict] | join(" ")' "$TMP/j.json")" \
	"pin_user_pages_fast pinned ok" "6.12's io_uring: GUP-fast, no check of its own: private ext4 registers"
judge v9 "$TMP/k61" "$TMP/huge" "$TMP/stock.ktap"
tap_is "$(jq -r '.tests[38] | [.cell.method, .call, .predicted.verdict, .predicted.or_skip] | join(" ")' "$TMP/j.json")" \
	"pin_user_pages EOPNOTSUPP not ok true" "6.1's io_uring refuses private ext4 itself: the suite would say not ok (or skip on its stale errno)"

# One free huge page: MAP_PRIVATE hugetlb cannot reserve the copy's.
judge stock "$TMP/k61" "$TMP/huge1" "$TMP/stock.ktap"
tap_is "$(jq -r '.tests[35].predicted.verdict, .tests[39].predicted.verdict' "$TMP/j.json" | paste -sd' ')" \
	"ok skip" "one free huge page: shared hugetlb registers, private hugetlb skips"

# A policy model/policy.c does not have: not predicted, and said so.
judge nosuchpolicy "$TMP/k61" "$TMP/huge" "$TMP/stock.ktap"
tap_is "$rc $(jq -c '.summary | [.not_predicted, .all_agree]' "$TMP/j.json") $(grep -c '^# finding (unknown)' "$TMP/out")" \
	"1 [8,false] 1" "an unknown policy: the 8 tests it decides are not predicted, exit 1, a finding"

# The runs from /mnt/xfs and /mnt/btrfs (jobs/guest/matrix.sh): the same
# 40 tests each, their local tmpfile on xfs or btrfs, which the suite
# knows and, like ext4, expects to refuse a long-term write pin of
# (fs_is_unknown(), fs_supports_writable_longterm_pinning()); 6.1's
# io_uring refuses any file VMA but shmem and hugetlbfs, so stock's
# verdicts are ext4's, test for test.
run longterm judge --flavour test --policy stock --kernel-dir "$TMP/k61" --hugetlb "$TMP/huge" \
	--ktap "$TMP/stock.ktap" --xfs-ktap "$TMP/stock.ktap" --btrfs-ktap "$TMP/stock.ktap" \
	--json "$TMP/j.json"
tap_is "$rc $(jq -c '[.summary.tests, .summary.agree, .summary.disagree, .tests[42].local_fs, .tests[42].cell.backing, .tests[82].cell.backing, .tests[74].call, ([.runs[].local_fs] | join(","))]' "$TMP/j.json")" \
	'0 [120,120,0,"xfs","xfs-shared","btrfs-shared","EOPNOTSUPP","ext4,xfs,btrfs"]' \
	"stock, runs from ext4, xfs and btrfs: 120 verdicts as predicted, each local tmpfile its run's file system's backing"
run longterm judge --flavour test --policy stock --kernel-dir "$TMP/k61" --hugetlb "$TMP/huge" \
	--ktap "$TMP/stock.ktap" --xfs-ktap "$TMP/stock.ktap" --btrfs-not-run "this kernel has no btrfs" \
	--json "$TMP/j.json"
tap_is "$rc $(jq -c '[.summary.tests, .summary.missing, .summary.disagree, .summary.all_agree, .runs[2].not_run]' "$TMP/j.json") $(grep -c '^# finding (not-run): no run from /mnt/btrfs: this kernel has no btrfs' "$TMP/out")" \
	'1 [120,40,40,false,"this kernel has no btrfs"] 1' \
	"a run that did not happen: its 40 tests missing, each a disagreement, one finding with the reason, exit 1"
expect "--xfs-ktap and --xfs-not-run together are a usage error" 2 err "not both" -- \
	longterm judge --policy stock --kernel-dir "$TMP/k61" --ktap "$TMP/stock.ktap" \
	--xfs-ktap "$TMP/stock.ktap" --xfs-not-run why
# The prediction of each local tmpfile on xfs and btrfs is ext4's twin's:
# v7 refuses private xfs in GUP (not ok) and GUP-fast takes it (ok).
run longterm expect --policy v7 --kernel-dir "$TMP/k61i" --hugetlb "$TMP/huge"
tap_like "$(sed 's/^ *//' "$TMP/out" | grep -E '^(43|59|63|99|103) ' | awk '{print $1, $2, $3}' | paste -sd' ')" \
	'^43 ok R/W 59 not ok 63 ok R/W 99 not ok 103 ok R/W$' \
	"v7 with the ioctls, runs from xfs and btrfs: the ext4 run's verdicts for their local tmpfiles"

expect "judge without --ktap is a usage error" 2 err "--ktap" -- \
	longterm judge --policy stock --kernel-dir "$TMP/k61"
expect "an unknown subcommand is a usage error" 2 err "unknown subcommand" -- longterm nosuch

# report: the table test x flavour from a results directory.
mkdir -p "$TMP/res"
judge stock "$TMP/k61" "$TMP/huge" "$TMP/stock.ktap"
cp "$TMP/j.json" "$TMP/res/stock.longterm.json"
judge stock "$TMP/k61" "$TMP/huge" "$TMP/bad.ktap"
cp "$TMP/j.json" "$TMP/res/bad.longterm.json"
echo '{"job":"matrix","flavours":[{"name":"stock"},{"name":"bad"},{"name":"none"}]}' >"$TMP/res/run.json"
run longterm report --md "$TMP/lt.md" "$TMP/res"
if [ "$rc" = 0 ] && grep -qF '| io_uring fixed buffer with MAP_SHARED file mapping ... with local tmpfile | skip = | not ok **≠** | — |' "$TMP/lt.md" &&
	grep -qF "| \`bad\` | stock | 6 | 1 | 33 | 0 | 39 | 1 | 0 |" "$TMP/lt.md"; then
	tap_ok "report --md: a row per test, a column per flavour, disagreements marked, a flavour without results dashed"
else
	not_ok "report --md: the table" "rc $rc"
	sed 's/^/#   /' "$TMP/lt.md" 2>/dev/null | head -20
fi

# report with the runs from xfs and btrfs: their local tmpfile's rows
# beside the ext4 run's, none of their other tests (the ext4 run's files).
run longterm judge --flavour test --policy stock --kernel-dir "$TMP/k61" --hugetlb "$TMP/huge" \
	--ktap "$TMP/stock.ktap" --xfs-ktap "$TMP/stock.ktap" --btrfs-ktap "$TMP/bad.ktap" \
	--json "$TMP/res/stock.longterm.json"
run longterm report --md "$TMP/lt.md" "$TMP/res"
tap_is "$rc $(grep -c '^| .*, from /mnt/xfs |' "$TMP/lt.md") $(grep -c '^| .*, from /mnt/btrfs |' "$TMP/lt.md") $(grep -c '^| .* with memfd |' "$TMP/lt.md")" \
	"0 10 10 10" "report --md: the runs from xfs and btrfs add their 10 local tmpfile rows each, no other"
tap_like "$(grep -F '| io_uring fixed buffer with MAP_SHARED file mapping ... with local tmpfile, from /mnt/btrfs |' "$TMP/lt.md")" \
	'\| not ok \*\*≠\*\* \| — \| — \|$' "report --md: a disagreement of the btrfs run is marked in its row; a flavour without that run dashed"


# ---- 7.3's own suite (--suite 7.3) ----
# A 7.3 tree as the judge reads it; 7.3's suite names each result by its
# test (log_test_result(), 7.3's vm_util.h) and runs a huge page size only
# when hugetlb_setup(2, ...) gave it two free pages.
mkdir -p "$TMP/k73/src/mm" "$TMP/k73/build"
printf 'VERSION = 7\nPATCHLEVEL = 3\nSUBLEVEL = 4\n' >"$TMP/k73/src/Makefile"
printf '\tcase PIN_LONGTERM_TEST_START:\n' >"$TMP/k73/src/mm/gup_test.c"
printf 'CONFIG_GUP_TEST=y\nCONFIG_IO_URING=y\n' >"$TMP/k73/build/.config"
echo "2048 2 2" >"$TMP/huge2"

# ktap73 FILE SIZES V...: 7.3's KTAP with these verdicts over the backings
# memfd, tmpfile, local tmpfile and SIZES hugetlb backings (0 or 1).
ktap73() {
	local f=$1 nb=$((3 + $2)) n=0 c b v name
	shift 2
	{
		echo "TAP version 13"
		echo "1..$((10 * nb))"
		for c in "${cases[@]}"; do
			for ((b = 0; b < nb; b++)); do
				v=$1
				shift
				n=$((n + 1))
				name="$c ... with ${backings[b]}"
				echo "# [RUN] $name"
				case $v in
				ok) echo "ok $n $name" ;;
				notok) echo "not ok $n $name" ;;
				skip) echo "ok $n # SKIP $name" ;;
				esac
			done
		done
	} >"$f"
}

# On 7.3 every test passes: the long-term write pins of the local ext4
# file are refused with EFAULT (7.3's check_vma_flags(), mm/gup.c:1222-1225),
# which is what the suite expects of ext4; the others pin.
# shellcheck disable=SC2046
ktap73 "$TMP/l73.ktap" 1 $(rep 40 ok)
run longterm judge --flavour latest --policy latest --kernel-dir "$TMP/k73" --hugetlb "$TMP/huge2" \
	--suite 7.3 --ktap "$TMP/l73.ktap" --json "$TMP/j73.json"
tap_is "$rc $(jq -c '[.suite.source, .summary.tests, .summary.agree, .summary.disagree, .hugetlb[0].tested]' "$TMP/j73.json" 2>/dev/null)" \
	'0 ["7.3",40,40,0,true]' "--suite 7.3: 7.3's KTAP (results named by their test) judged, 40 of 40 agree"
tap_like "$(jq -r '.tests[2].predicted.reason' "$TMP/j73.json")" \
	'tools/testing/selftests/mm/gup_longterm\.c:202-207' "--suite 7.3: its reasons cite 7.3's gup_longterm.c by its path"

# shellcheck disable=SC2046
ktap73 "$TMP/l73bad.ktap" 1 ok ok notok $(rep 37 ok)
run longterm judge --flavour latest --policy latest --kernel-dir "$TMP/k73" --hugetlb "$TMP/huge2" \
	--suite 7.3 --ktap "$TMP/l73bad.ktap" --json "$TMP/j73.json"
tap_is "$rc $(grep -c '^# finding (disagree): test 3 ' "$TMP/out")" "1 1" \
	"--suite 7.3: a test that disagrees (the ext4 write pin measured not ok): exit 1, its finding"

# One free huge page: 6.12's suite runs the size and skips its cases,
# 7.3's leaves the size out (hugetlb_setup() could not have two free).
run longterm expect --policy latest --kernel-dir "$TMP/k73" --hugetlb "$TMP/huge1"
n612=$(grep -cE '^ ?[0-9]+ ' "$TMP/out")
run longterm expect --policy latest --kernel-dir "$TMP/k73" --hugetlb "$TMP/huge1" --suite 7.3
tap_is "$n612 $(grep -cE '^ ?[0-9]+ ' "$TMP/out") $(grep -c 'with memfd hugetlb (' "$TMP/out")" "120 90 0" \
	"--suite 7.3: a huge page size with one free page is not among its tests (three runs: 6.12's 120 tests, 7.3's 90)"
# shellcheck disable=SC2046
ktap73 "$TMP/l73nohuge.ktap" 0 $(rep 30 ok)
run longterm judge --flavour latest --policy latest --kernel-dir "$TMP/k73" --hugetlb "$TMP/huge1" \
	--suite 7.3 --ktap "$TMP/l73nohuge.ktap" --json "$TMP/j73.json"
tap_is "$rc $(jq -c '[.summary.tests, .summary.agree, .hugetlb[0].tested]' "$TMP/j73.json")" \
	'0 [30,30,false]' "--suite 7.3: its plan of 30 without that size agrees, the size recorded untested"
expect "--suite of a gup_longterm.c not modelled is a usage error" 2 err "the suites modelled are 6.12 and 7.3" \
	-- longterm expect --policy latest --kernel-dir "$TMP/k73" --suite 7.2

tap_done
