#!/bin/bash
# tests/run.sh prints one KTAP document: run it over synthetic suites (one
# passing with a skip, one failing, one dying without a result) and read
# the output back with the kernel's own KTAP parser (tools/testing/kunit,
# kunit.py parse, from the pristine 6.1 tree), which flags any numbering,
# plan or nesting error as "[ERROR]".
# shellcheck source=../suite.sh
. "$(dirname "$0")/../suite.sh"
kunit=$(patches/unpack-source.sh)/tools/testing/kunit/kunit.py

printf '%s\n' 'echo "TAP version 13"' 'echo "ok 1 - one"' 'echo "# a note"' \
	'echo "ok 2 - two # SKIP not here"' 'echo "1..2"' >"$work/pass.sh"
printf '%s\n' 'echo "ok 1 - fine"' 'echo "not ok 2 - broken"' 'echo "1..2"' \
	'exit 1' >"$work/fail.sh"
printf '%s\n' 'echo "ok 1 - fine"' 'exit 3' >"$work/die.sh"

set +e
tests/run.sh "$work/pass.sh" >"$work/pass.ktap" 2>/dev/null
tap_is "$?" 0 "run.sh: exit 0 when every suite passes"
tests/run.sh "$work/pass.sh" "$work/fail.sh" "$work/die.sh" >"$work/all.ktap" 2>"$work/all.err"
tap_is "$?" 1 "run.sh: exit 1 when a suite fails or dies"
set -e
tap_is "$(tail -1 "$work/all.ktap")" "3 passed, 2 failed, 1 skipped" \
	"run.sh: the last line counts the suites' own tests, a SKIP apart from the passes"
tap_is "$(head -2 "$work/all.ktap" | paste -sd' ')" "KTAP version 1 1..3" \
	"run.sh: one version line and one plan for the whole document"
tap_is "$(grep -cE '^ *(K?TAP version|1\.\.)' "$work/all.ktap")" 8 \
	"run.sh: every suite gets its own version line and plan, no other"
tap_like "$(cat "$work/all.err")" 'fail: 1 passed, 1 failed in [0-9]+ s' \
	"run.sh: progress per suite on stderr"

parsed=$(python3 "$kunit" parse "$work/all.ktap" 2>&1 || true)
tap_like "$parsed" 'Ran 6 tests: passed: 3, failed: 2, skipped: 1' \
	"kunit.py parse reads the document: 6 tests, 3 passed, 2 failed, 1 skipped"
if grep -q 'ERROR' <<<"$parsed"; then
	tap_not_ok "kunit.py parse finds no KTAP error"
	grep 'ERROR' <<<"$parsed" | sed 's/^/#   /'
else
	tap_ok "kunit.py parse finds no KTAP error"
fi
tap_like "$(python3 "$kunit" parse "$work/pass.ktap" 2>&1 || true)" \
	'Ran 2 tests: passed: 1, skipped: 1' "kunit.py parse: a passing document"

tap_done
