#!/bin/bash
# Boot every flavour (or each FLAVOUR given) once, building what is
# missing, and print one line per flavour: kernel release, kernel verdict,
# wall time.
#
#   jobs/boot.sh [FLAVOUR...]
set -euo pipefail
# shellcheck source=../patches/flavours.sh
. "$(dirname "$0")/../patches/flavours.sh"

# shellcheck disable=SC2046 # one name per line, no spaces
[ $# -gt 0 ] || set -- $(all_flavours)
bad=0
printf '%-10s %-22s %-9s %s\n' flavour release verdict wall
for f in "$@"; do
	report=$(mktemp)
	set +e
	"$LAB_ROOT/qemu/run.sh" --flavour "$f" --quiet --timeout 300 \
		--report "$report" --exec 'uname -r >/lab/out/release' \
		--results "$report.out" >/dev/null 2>&1
	status=$?
	set -e
	printf '%-10s %-22s %-9s %ss\n' "$f" \
		"$(cat "$report.out/release" 2>/dev/null || echo '(no answer)')" \
		"$(jq -r .kernel_verdict "$report")" \
		"$(jq -r .wall_seconds "$report")"
	[ "$status" -eq 0 ] || bad=1
	rm -rf "$report" "$report.out"
done
exit "$bad"
