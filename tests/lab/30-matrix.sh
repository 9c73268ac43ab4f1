#!/bin/bash
# The GUP matrix on every flavour (jobs/matrix.sh, the same job as `make
# matrix`, but writing its report to a temporary directory): every cell
# must meet the expectation its flavour's policy derives, the kernel's own
# gup_test must agree, and the report must come out.
set -euo pipefail
cd "$(dirname "$0")/../.."
. qemu/lib.sh
. tests/tap.sh

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

set +e
jobs/matrix.sh --docs "$work/docs" --results "$work/results" >"$work/matrix.out" 2>&1
status=$?
set -e
for f in $(all_flavours); do
	ktap=$work/results/$f/matrix.ktap
	cells=$(grep -cE '^(not )?ok ' "$ktap" 2>/dev/null || true)
	mism=$(grep -c '^not ok ' "$ktap" 2>/dev/null || true)
	tap_is "${cells:-0}" 384 "$f: all 384 matrix cells ran or were declared not applicable"
	tap_is "${mism:-0}" 0 "$f: every cell met its derived expectation"
	grep '^not ok ' "$ktap" 2>/dev/null | head -20 | sed 's/^/#   /' || true
	xtap=$work/results/$f/xcheck.tap
	xn=$(grep -cE '^(not )?ok ' "$xtap" 2>/dev/null || true)
	xbad=$(grep -c '^not ok ' "$xtap" 2>/dev/null || true)
	if [ "${xn:-0}" -gt 0 ] && [ "${xbad:-1}" -eq 0 ]; then
		tap_ok "$f: the kernel's gup_test agrees on all $xn cells it can express"
	else
		tap_not_ok "$f: gup_test cross-check ($xn cells, ${xbad:-?} disagree)"
		grep '^not ok ' "$xtap" 2>/dev/null | head -10 | sed 's/^/#   /' || true
	fi
done
tap_is "$status" 0 "jobs/matrix.sh exits 0"
[ "$status" -eq 0 ] || tail -30 "$work/matrix.out" | sed 's/^/#   /'
tap_like "$(cat "$work/docs/matrix.md" 2>/dev/null)" 'Where flavours disagree' "docs/matrix.md generated"
if python3 -c 'import sys, xml.dom.minidom; xml.dom.minidom.parse(sys.argv[1])' \
	"$work/docs/matrix.svg" 2>/dev/null; then
	tap_ok "docs/matrix.svg generated and well-formed"
else
	tap_not_ok "docs/matrix.svg generated and well-formed"
fi

tap_done
