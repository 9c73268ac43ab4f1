# shellcheck shell=bash
# How every shell suite of tests/host and tests/lab starts: strict mode,
# the repository root as working directory, the lab's shell library and
# the TAP helpers, and $work, a scratch directory removed on exit, unless
# a test failed: then it is kept under results/check/ (its consoles, its
# jobs' results directories, what the failed test compared), and the
# suite's last line says where.
# Sourced first thing:  . "$(dirname "$0")/../suite.sh"
set -euo pipefail
# shellcheck source=../patches/flavours.sh
. "$(dirname "${BASH_SOURCE[0]}")/../patches/flavours.sh"
cd "$(dirname "${BASH_SOURCE[0]}")/.."
# shellcheck source=tap.sh
. tests/tap.sh
# shellcheck disable=SC2034 # used by the suites that source this
work=$(mktemp -d)
# where a failed suite's $work goes: the results tree as the suite started
# (a suite may point GUP_LAB_RESULTS into $work afterwards)
keep_root=${GUP_LAB_RESULTS:-$LAB_ROOT/results}/check
suite_exit() {
	local kept
	if [ "${TAP_FAILED:-0}" -gt 0 ] && [ -d "$work" ]; then
		kept=$keep_root/$(basename "$0" .sh)-$(date -u +%Y%m%d-%H%M%S)
		mkdir -p "$keep_root"
		if mv "$work" "$kept" 2>/dev/null || cp -a "$work" "$kept" 2>/dev/null; then
			echo "# kept for the failed tests: $kept ($(du -sh "$kept" | cut -f1))"
		fi
	fi
	rm -rf "$work"
}
trap suite_exit EXIT

# tree_fingerprint DIR: every file's content and mode and every symbolic
# link's target, .git included: what "byte-identical" compares (the
# your-kernel suites: the lab never writes into a user's tree).
tree_fingerprint() {
	(cd "$1" && { find . -type f -printf '%m %p\n' -exec sha256sum {} + &&
		find . -type l -printf '%p -> %l\n'; } | sort | sha256sum)
}
