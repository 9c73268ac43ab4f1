# shellcheck shell=bash
# Minimal TAP helpers for gup-lab's test suites.  Sourced.
TAP_N=0
TAP_FAILED=0

tap_ok() {
	TAP_N=$((TAP_N + 1))
	echo "ok $TAP_N - $*"
}

tap_not_ok() {
	TAP_N=$((TAP_N + 1))
	TAP_FAILED=$((TAP_FAILED + 1))
	echo "not ok $TAP_N - $*"
}

# tap_skip DESCRIPTION WHY: a test that cannot run here (TAP's SKIP
# directive; tests/run.sh counts it apart, never as passed).
tap_skip() {
	TAP_N=$((TAP_N + 1))
	echo "ok $TAP_N - $1 # SKIP $2"
}

# tap_is GOT WANT DESCRIPTION
tap_is() {
	if [ "$1" = "$2" ]; then
		tap_ok "$3"
	else
		tap_not_ok "$3"
		echo "#   got:  '$1'"
		echo "#   want: '$2'"
	fi
}

# tap_like TEXT ERE DESCRIPTION
tap_like() {
	if grep -qE -- "$2" <<<"$1"; then
		tap_ok "$3"
	else
		tap_not_ok "$3"
		echo "#   '$2' not found in:"
		# sed reads everything: no early exit, no SIGPIPE under pipefail
		printf '%s\n' "$1" | sed -n '1,20s/^/#     /p'
	fi
}

tap_done() {
	echo "1..$TAP_N"
	[ "$TAP_FAILED" -eq 0 ]
}

# report_get FILE KEY: a field of a qemu/run.sh --report file (JSON);
# empty when the field is null or the file is missing.
report_get() {
	jq -r --arg k "$2" '.[$k] // empty' "$1" 2>/dev/null || true
}
