#!/bin/bash
# The README's test command (`make check`): every suite, TAP on stdout,
# then one closing line "N passed, N failed".  Exits non-zero on any
# failure.
set -euo pipefail
cd "$(dirname "$0")/.."

suites=(tests/host/*.sh tests/lab/*.sh)
passed=0 failed=0
outdir=$(mktemp -d)
trap 'rm -rf "$outdir"' EXIT
for suite in "${suites[@]}"; do
	[ -f "$suite" ] || continue
	name=$(basename "$suite" .sh)
	echo "# suite $suite"
	set +e
	bash "$suite" 2>&1 | tee "$outdir/$name.tap"
	status=${PIPESTATUS[0]}
	set -e
	p=$(grep -c '^ok ' "$outdir/$name.tap" || true)
	f=$(grep -c '^not ok ' "$outdir/$name.tap" || true)
	if [ "$status" -ne 0 ] && [ "$f" -eq 0 ]; then
		# A suite that died without saying which test failed still fails.
		echo "not ok - suite $suite exited with status $status"
		f=1
	fi
	passed=$((passed + p))
	failed=$((failed + f))
done
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
