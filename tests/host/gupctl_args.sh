#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Host tests of gupctl: argument parsing, help and error messages.  Needs no
# /dev/gup_test (tests that need it absent are skipped if it is there).
# Output: TAP version 13.  Exit status: 0 if every test passed.
#
# usage: tests/host/gupctl_args.sh [PATH/TO/gupctl]
#   Without an argument (as tests/run.sh calls it) userspace/gupctl is built
#   with make and tested.
set -euo pipefail

HEADER=$(cd "$(dirname "$0")/../.." && pwd)/module/uapi/gup_pin_test.h
# shellcheck source=../gupctl_harness.sh
. "$(dirname "$0")/../gupctl_harness.sh"

ok() {
	tap_ok "$1"
}

skip() {
	tap_ok "$1 # SKIP $2"
}

# Top level.
expect "no arguments: usage, exit 2" 2 err "usage: gupctl COMMAND" --
expect "unknown command" 2 err "gupctl: unknown command 'frobnicate'" \
	"Try 'gupctl --help'." -- frobnicate
expect "unknown top-level option" 2 err "gupctl: unknown option '--frob'" \
	"Try 'gupctl --help'." -- --frob
expect "help of an unknown command" 2 err "unknown command 'frob'" -- help frob
abi=$(awk '$2 == "GUP_PIN_TEST_ABI_VERSION" { print $3 }' "$HEADER")
expect "--version prints the header's ABI version ($abi)" 0 out \
	"gup_pin_test ABI version $abi" -- --version

# pin: unknown options and missing arguments.
expect "pin: unknown long option" 2 err "gupctl pin: unknown option '--frob'" \
	"Try 'gupctl pin --help'." -- pin --frob --anon
expect "pin: unknown short option" 2 err "gupctl pin: unknown option '-x'" \
	-- pin -x --anon
expect "pin: option without its argument" 2 err \
	"option '--length' needs an argument" -- pin --anon --length

# pin: conflicts.
expect "pin: --hold with --then" 2 err \
	"--hold and --then exclude each other" -- pin --hold 1 --then true --anon
expect "pin: --fast with --get" 2 err \
	"conflicting methods: --fast and --get" -- pin --fast --get --anon
expect "pin: --get-fast with --fast" 2 err \
	"conflicting methods: --get-fast and --fast" -- pin --get-fast --fast --anon
expect "pin: --read-only with --prefault write" 2 err \
	"--prefault write needs a writable mapping" \
	-- pin --read-only --prefault write --anon

# pin: targets.
expect "pin: two targets (--anon, --shmem)" 2 err \
	"two targets: '--anon' and '--shmem'" -- pin --anon --shmem
expect "pin: two targets (two files)" 2 err \
	"two targets: '$TMP/a' and '$TMP/b'" -- pin "$TMP/a" "$TMP/b"
expect "pin: two targets (file and --hugetlb)" 2 err \
	"two targets: '--hugetlb' and '$TMP/a'" -- pin "$TMP/a" --hugetlb
expect "pin: no target" 2 err \
	"no target: give a FILE, --anon, --shmem or --hugetlb" -- pin --write

# pin: sizes.
expect "pin: bad size suffix" 2 err "bad size '4X' for --length" \
	"optional K or M suffix" -- pin --length 4X --anon
expect "pin: unsupported G suffix" 2 err "bad size '1G' for --offset" \
	-- pin --offset 1G --anon
expect "pin: not a number" 2 err "bad size 'abc' for --offset" \
	-- pin --offset abc --anon
expect "pin: misaligned offset" 2 err \
	"--offset 100 (0x64) is not page aligned" -- pin --offset 100 --anon
expect "pin: misaligned length" 2 err "--length 6144 (0x1800) is not page aligned" \
	-- pin --length 6K --anon
expect "pin: zero length" 2 err "--length must not be 0" -- pin --length 0 --anon
expect "pin: bad --prefault mode" 2 err "bad --prefault 'rw'" \
	-- pin --prefault rw --anon
expect "pin: bad --hold" 2 err "bad --hold '-1'" -- pin --hold -1 --anon

# pin: file targets (set up before the device is opened).
nofile=$TMP/no/such/file
expect "pin: missing file names the path" 2 err \
	"cannot open $nofile: ENOENT" -- pin "$nofile"
truncate -s 100 "$TMP/small"
expect "pin: file too small for the range" 2 err \
	"$TMP/small is 100 bytes, too small" "truncate -s 4096 $TMP/small" \
	-- pin "$TMP/small"
expect "pin: a directory is not a target" 2 err "cannot open $TMP: EISDIR" \
	-- pin "$TMP"

# pin without the module.
if [ -e /dev/gup_test ]; then
	skip "pin --anon without the module: exit 3" "/dev/gup_test exists here"
else
	expect "pin --anon without the module: exit 3 with the insmod hint" 3 err \
		"/dev/gup_test not found" "load it: insmod gup_pin_test.ko" \
		-- pin --anon
	truncate -s 8K "$TMP/big"
	expect "pin FILE --write without the module: request shown, exit 3" 3 out \
		"request: pin_user_pages, flags WRITE" "target:  $TMP/big (file on" \
		"offset 0x1000 length 0x1000 (1 page)" -- pin --write --offset 4K "$TMP/big"
fi

# status.
expect "status: unknown option" 2 err "gupctl status: unknown option '--frob'" \
	-- status --frob
expect "status: extra argument" 2 err "unexpected argument 'x'" -- status x
if [ -d /sys/kernel/debug/gup_pin_test ]; then
	skip "status without the module: exit 3" "the module is loaded here"
else
	run status
	if [ "$rc" -eq 3 ] && grep -qE \
		"debugfs is not mounted|module is not loaded|run as root" "$TMP/err"; then
		ok "status without the module: exit 3 and says why"
	else
		not_ok "status without the module: exit 3 and says why" "exit $rc"
	fi
fi

# Help: each command's --help lists exactly the options that exist, and
# every option it lists is accepted.
pin_opts="--anon --dirty-on-unpin --fast --force --get --get-fast --help
--hold --hugetlb --length --longterm --offset --prefault --private
--read-only --shmem --then --write"

# check_help DESC USAGE EXPECTED_OPTIONS ARGS...: exit 0, the USAGE line
# on stdout, and the --options named are exactly EXPECTED_OPTIONS.
check_help() {
	local desc=$1 usage=$2 want listed
	want=$(tr ' ' '\n' <<<"$3" | { grep . || true; } | sort -u)
	shift 3
	run "$@"
	listed=$({ grep -oE -- '--[a-z][a-z-]*' "$TMP/out" || true; } | sort -u)
	if [ "$rc" -eq 0 ] && [ "$listed" = "$want" ] && [ ! -s "$TMP/err" ] &&
		grep -qF -- "$usage" "$TMP/out"; then
		ok "$desc"
	else
		not_ok "$desc" "exit $rc" "listed: $(echo "$listed" | tr '\n' ' ')" \
			"want: $(echo "$want" | tr '\n' ' ')"
	fi
}

check_help "pin --help lists every pin option and only those" \
	"usage: gupctl pin [OPTIONS] TARGET" "$(tr '\n' ' ' <<<"$pin_opts")" pin --help
cp "$TMP/out" "$TMP/pin-help"
run help pin
if [ "$rc" -eq 0 ] && [ -s "$TMP/out" ] && cmp -s "$TMP/out" "$TMP/pin-help"; then
	ok "help pin prints the same as pin --help"
else
	not_ok "help pin prints the same as pin --help" "exit $rc"
fi
check_help "status --help lists --help only" "usage: gupctl status" \
	"--help" status --help
check_help "--help lists --help and --version" "usage: gupctl COMMAND" \
	"--help --version" --help
run --help
if grep -qE '^  pin ' "$TMP/out" && grep -qE '^  status ' "$TMP/out" &&
	grep -qE '^  help ' "$TMP/out"; then
	ok "--help lists the commands pin, status, help"
else
	not_ok "--help lists the commands pin, status, help"
fi

# Every listed pin option parses: with two targets after it, parsing must
# get as far as the "two targets" error.
bad=()
for opt in $pin_opts; do
	case $opt in
	--help) continue ;;
	--offset | --length) args=("$opt" 4K) ;;
	--prefault) args=("$opt" read) ;;
	--hold) args=("$opt" 1) ;;
	--then) args=("$opt" true) ;;
	*) args=("$opt") ;;
	esac
	run pin "${args[@]}" --anon --shmem
	[ "$rc" -eq 2 ] && grep -qF "two targets" "$TMP/err" || bad+=("$opt")
done
if [ ${#bad[@]} -eq 0 ]; then
	ok "every option pin --help lists is accepted"
else
	not_ok "every option pin --help lists is accepted" "rejected: ${bad[*]}"
fi

tap_done
