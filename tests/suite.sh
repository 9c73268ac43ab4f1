# shellcheck shell=bash
# How every shell suite of tests/host and tests/lab starts: strict mode,
# the repository root as working directory, the lab's shell library and
# the TAP helpers, and $work, a scratch directory removed on exit.
# Sourced first thing:  . "$(dirname "$0")/../suite.sh"
set -euo pipefail
# shellcheck source=../patches/flavours.sh
. "$(dirname "${BASH_SOURCE[0]}")/../patches/flavours.sh"
cd "$(dirname "${BASH_SOURCE[0]}")/.."
# shellcheck source=tap.sh
. tests/tap.sh
# shellcheck disable=SC2034 # used by the suites that source this
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# tree_fingerprint DIR: every file's content and mode and every symbolic
# link's target, .git included: what "byte-identical" compares (the
# your-kernel suites: the lab never writes into a user's tree).
tree_fingerprint() {
	(cd "$1" && { find . -type f -printf '%m %p\n' -exec sha256sum {} + &&
		find . -type l -printf '%p -> %l\n'; } | sort | sha256sum)
}
