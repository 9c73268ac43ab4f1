# shellcheck shell=bash
# Shared by the gupctl host suites (tests/host/*.sh): locate or build
# gupctl, a scratch directory, TAP helpers, and expect() for checking an
# invocation's exit status and messages.  Sourced; $1 of the suite may name
# the gupctl binary to test.

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# shellcheck source=tap.sh
. "$ROOT/tests/tap.sh"

if [ $# -ge 1 ]; then
	GUPCTL=$1
else
	# tests/run.sh runs two host suites at once: one make at a time
	flock "$ROOT/userspace/.make.lock" make -s -C "$ROOT/userspace" >&2
	GUPCTL=$ROOT/userspace/gupctl
fi
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
rc=0

echo "TAP version 13"

# run ARGS...: run gupctl; rc, $TMP/out, $TMP/err hold the outcome.
run() {
	rc=0
	"$GUPCTL" "$@" >"$TMP/out" 2>"$TMP/err" </dev/null || rc=$?
}

# not_ok DESC [DIAGNOSTIC...]: fail, with gupctl's last output as comments.
not_ok() {
	tap_not_ok "$1"
	shift
	local line
	for line in "$@"; do
		echo "#   $line"
	done
	sed 's/^/#   stdout: /' "$TMP/out"
	sed 's/^/#   stderr: /' "$TMP/err"
}

# expect DESC RC STREAM TEXT... -- ARGS...: gupctl ARGS exits RC and every
# TEXT (a fixed string) appears in STREAM (out or err).
expect() {
	local desc=$1 want=$2 stream=$3 texts=() t missing=()
	shift 3
	while [ "$1" != "--" ]; do
		texts+=("$1")
		shift
	done
	shift
	run "$@"
	for t in "${texts[@]}"; do
		grep -qF -- "$t" "$TMP/$stream" || missing+=("missing in std$stream: $t")
	done
	if [ "$rc" -eq "$want" ] && [ ${#missing[@]} -eq 0 ]; then
		tap_ok "$desc"
	else
		not_ok "$desc" "gupctl $* -> exit $rc, want $want" "${missing[@]}"
	fi
}

# none_bad DESC WHAT [ITEM...]: ok if no ITEM is given, else not ok
# listing them after WHAT (e.g. the options a loop found rejected).
none_bad() {
	local desc=$1 what=$2
	shift 2
	if [ $# -eq 0 ]; then
		tap_ok "$desc"
	else
		not_ok "$desc" "$what: $*"
	fi
}

# cells_or_none OUT ARG...: `gupctl ARG...` (a cells command) into OUT.
# Where the command's model has no answers for the kernel yet (exit 4,
# GUPCTL_EXIT_NO_MODEL: repro and holders on 7.3), OUT is an empty JSON
# array: the jobs run nothing there, so there is nothing to check.  Any
# other failure is the caller's (status returned, stderr shown).
cells_or_none() {
	local out=$1 rc=0
	shift
	"$GUPCTL" "$@" >"$out" 2>"$out.err" || rc=$?
	case $rc in
	0) ;;
	4) echo '[]' >"$out" ;;
	*) cat "$out.err" >&2; return "$rc" ;;
	esac
}
