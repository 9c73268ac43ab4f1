#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Host tests of gupctl: argument parsing, the generated help, error
# messages, and the guest build (gupctl-guest, next to gupctl).  Needs no
# /dev/gup_test (tests that need it absent are skipped if it is there).
# Output: TAP version 13.  Exit status: 0 if every test passed.
#
# usage: tests/host/gupctl_args.sh [PATH/TO/gupctl]
#   Without an argument (as tests/run.sh calls it) userspace/gupctl and
#   userspace/gupctl-guest are built with make and tested.
set -euo pipefail

HEADER=$(cd "$(dirname "$0")/../.." && pwd)/module/uapi/gup_pin_test.h
# shellcheck source=../gupctl_harness.sh
. "$(dirname "$0")/../gupctl_harness.sh"
GUEST=$(dirname "$GUPCTL")/gupctl-guest

ok() {
	tap_ok "$1"
}

skip() {
	tap_ok "$1 # SKIP $2"
}

# check DESC CONDITION...: ok if the command CONDITION succeeds.
check() {
	local desc=$1
	shift
	if "$@"; then
		ok "$desc"
	else
		not_ok "$desc" "exit $rc"
	fi
}

# The last run exited 3 and said why the device is missing.
nodev_explained() {
	[ "$rc" -eq 3 ] &&
		grep -qE "debugfs is not mounted|module is not loaded|run as root" "$TMP/err"
}

is_static() {
	! grep -q INTERP <<<"$(readelf -l "$1")"
}

# Top level.
expect "no arguments: usage on stderr, exit 2" 2 err "usage: gupctl" \
	"Commands" -- 
expect "unknown command" 2 err "gupctl: unknown command 'frobnicate'" \
	"Try 'gupctl --help'." -- frobnicate
expect "unknown top-level option" 2 err "gupctl: unknown option '--frob'" \
	"Try 'gupctl --help'." -- --frob
expect "help of an unknown command" 2 err "unknown command 'frob'" -- help frob
expect "help of two commands" 2 err "gupctl help: give one COMMAND, not 'status' too" \
	-- help pin status
abi=$(awk '$2 == "GUP_PIN_TEST_ABI_VERSION" { print $3 }' "$HEADER")
expect "--version prints the header's ABI version ($abi)" 0 out \
	"gup_pin_test ABI version $abi" -- --version
expect "--version with a command" 2 err "--version takes no COMMAND" -- --version pin
# Options end at the command: --write is pin's, not gupctl's.
expect "gupctl's options end at the command" 2 err "gupctl pin: no target" \
	-- pin --write
# ... and the command then takes options after its operands (getopt's
# ordering is the default again, also for a command calling getopt itself).
expect "a command takes options after its operands" 2 err \
	"gupctl repro: unknown option '--no-such-option'" -- repro ext4-2018 --no-such-option

# The commands, as gupctl --help lists them.
run --help
mapfile -t commands < <(sed -n '/^Commands$/,/^$/s/^  \([a-z][a-z]*\) .*/\1/p' "$TMP/out")
for c in pin status matrix xcheck report consumers fuzz bench help; do
	if grep -qx -- "$c" <<<"$(printf '%s\n' "${commands[@]}")"; then
		ok "--help lists the command $c"
	else
		not_ok "--help lists the command $c" "listed: ${commands[*]}"
	fi
done

# Every command: help C is C --help; an unknown option is a usage error.
for c in "${commands[@]}"; do
	run "$c" --help
	cp "$TMP/out" "$TMP/help-opt"
	rc_opt=$rc
	run help "$c"
	if [ "$rc" -eq 0 ] && [ "$rc_opt" -eq 0 ] && [ -s "$TMP/out" ] &&
		[ ! -s "$TMP/err" ] && cmp -s "$TMP/out" "$TMP/help-opt"; then
		ok "$c: 'gupctl help $c' prints what 'gupctl $c --help' prints"
	else
		not_ok "$c: 'gupctl help $c' prints what 'gupctl $c --help' prints" \
			"exit $rc (--help: exit $rc_opt)" \
			"$(diff "$TMP/help-opt" "$TMP/out" | head -5 | tr '\n' '|')"
	fi
	expect "$c: an unknown option is a usage error" 2 err \
		"Try 'gupctl $c --help'." -- "$c" --no-such-option
done

# Commands that parse with lib/options.h (--list-opts works): the message of
# an unknown option, the option table (--list-opts) and the --help agree
# both ways, and an option that takes an argument, given last without it,
# is a usage error.
for c in "${commands[@]}"; do
	run "$c" --list-opts
	if [ "$rc" -ne 0 ]; then
		skip "$c: lib/options.h messages, table and help" \
			"$c does not parse with lib/options.h yet"
		continue
	fi
	expect "$c: an unknown option is named" 2 err \
		"gupctl $c: unknown option '--no-such-option'" -- "$c" --no-such-option
	run "$c" --list-opts
	mapfile -t table < <(sed 's/=$//' "$TMP/out")
	run "$c" --help
	# option lines: "  -x, --name ARG   help" or "      --name ARG   help"
	mapfile -t helped < <(grep -oE '^  (-[a-zA-Z], |    )--[a-z][a-z0-9-]*' "$TMP/out" |
		sed 's/.*--/--/')
	not_helped=$(comm -23 <(printf '%s\n' "${table[@]}" | sort -u) \
		<(printf '%s\n' "${helped[@]}" | sort -u))
	not_tabled=$(comm -13 <(printf '%s\n' "${table[@]}" | sort -u) \
		<(printf '%s\n' "${helped[@]}" | sort -u))
	if [ ${#table[@]} -gt 0 ] && [ -z "$not_helped" ] && [ -z "$not_tabled" ]; then
		ok "$c: every option of the table is in --help, and only those (${#table[@]})"
	else
		not_ok "$c: every option of the table is in --help, and only those" \
			"not in --help: $(echo "$not_helped" | tr '\n' ' ')" \
			"not in the table: $(echo "$not_tabled" | tr '\n' ' ')"
	fi
	mapfile -t with_arg < <(run "$c" --list-opts; sed -n 's/=$//p' "$TMP/out")
	bad=()
	for opt in "${with_arg[@]}"; do
		run "$c" "$opt"
		[ "$rc" -eq 2 ] && grep -qF "gupctl $c: option '$opt' needs an argument" \
			"$TMP/err" || bad+=("$opt")
	done
	none_bad "$c: an option without its argument is a usage error" \
		"not refused so" "${bad[@]}"
done

# options_are COMMAND "OPTION...": its option table (--list-opts) is
# exactly these.
options_are() {
	local listed want
	run "$1" --list-opts
	listed=$(sed 's/=$//' "$TMP/out" | sort | tr '\n' ' ')
	want=$(tr ' ' '\n' <<<"$2" | grep . | sort | tr '\n' ' ')
	if [ "$rc" -eq 0 ] && [ "$listed" = "$want" ]; then
		ok "$1: the option table has the documented options"
	else
		not_ok "$1: the option table has the documented options" \
			"listed: $listed" "want: $want"
	fi
}

# pin: its options (a removed or renamed option must fail here).
pin_opts="--allow-broken --anon --dirty-on-unpin --fast --force --get
--get-fast --get-remote --get-unlocked --help --hold --hugetlb --length
--longterm --offset --pin-remote --pin-unlocked --policy --prefault --private
--read-only --shmem --then --thp --write"
options_are pin "$pin_opts"

# Every pin option parses: with two targets after it, parsing must get as
# far as the "two targets" error.
bad=()
for opt in $pin_opts; do
	case $opt in
	--help) continue ;;
	--offset | --length) args=("$opt" 4K) ;;
	--prefault) args=("$opt" read) ;;
	--hold) args=("$opt" 1) ;;
	--then) args=("$opt" true) ;;
	--policy) args=("$opt" stock) ;;
	*) args=("$opt") ;;
	esac
	run pin "${args[@]}" --anon --shmem
	[ "$rc" -eq 2 ] && grep -qF "two targets" "$TMP/err" || bad+=("$opt")
done
none_bad "pin: every option of the table is accepted" rejected "${bad[@]}"

# fuzz: its options (a removed or renamed option must fail here), and
# the usage errors it finds before it opens the device.
fuzz_opts="--ext4-dir --help --inject --json --ops --policy --seed --show --threads --verbose"
options_are fuzz "$fuzz_opts"
expect "fuzz: bad --seed" 2 err "gupctl fuzz: bad --seed 'x1': give a number" \
	-- fuzz --seed x1
expect "fuzz: a negative --seed" 2 err "gupctl fuzz: bad --seed '-1'" -- fuzz --seed -1
expect "fuzz: --ops 0" 2 err "gupctl fuzz: --ops must be at least 1" -- fuzz --ops 0
expect "fuzz: --threads 0" 2 err "gupctl fuzz: --threads must be 1-64, not 0" \
	-- fuzz --threads 0
expect "fuzz: --threads 65" 2 err "gupctl fuzz: --threads must be 1-64, not 65" \
	-- fuzz --threads 65
expect "fuzz: an operand" 2 err "gupctl fuzz: unexpected argument 'x'" -- fuzz x
expect "fuzz: unknown --policy names every policy" 2 err \
	"gupctl fuzz: unknown policy 'v42': give stock, v1, v7, v9, mainline" \
	-- fuzz --policy v42
run fuzz --help
long=$(awk 'length > 80' "$TMP/out")
check "fuzz --help: every line fits 80 columns" test -z "$long"
expect "fuzz --help: the replay, the exit statuses, the guide" 0 out \
	"the command that replays the run" "2 usage error, 3 no usable device" \
	"The guide: docs/gupctl.md, section \"gupctl fuzz\"." -- fuzz --help
if [ -e /dev/gup_test ]; then
	skip "fuzz without the module" "/dev/gup_test exists here"
else
	expect "fuzz --policy mainline without the module: exit 3" 3 err \
		"/dev/gup_test not found" -- fuzz --policy mainline --json "$TMP/fuzz.json"
	check "fuzz without the module writes no --json file" test ! -e "$TMP/fuzz.json"
fi

# pin: unknown options, bad arguments and choices.
expect "pin: unknown short option" 2 err "gupctl pin: unknown option '-x'" \
	-- pin -x --anon
expect "pin: ambiguous abbreviation" 2 err \
	"gupctl pin: ambiguous option '--ge': --get, --get-fast" -- pin --ge --anon
expect "pin: an argument to an option that takes none" 2 err \
	"gupctl pin: option '--write' takes no argument" -- pin --write=yes --anon
expect "pin: bad --prefault choice" 2 err \
	"gupctl pin: bad --prefault 'rw': give none, read, write" \
	-- pin --prefault rw --anon
expect "pin: bad --policy" 2 err "gupctl pin: bad --policy 'v42': give stock, v1, v7, v9" \
	-- pin --policy v42 --anon
expect "pin: bad --hold" 2 err "bad --hold '-1': give whole seconds" \
	-- pin --hold -1 --anon

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

# pin without the module: the request and the policy's expectation (from
# model/policy.c) are printed before the device is opened.
if [ -e /dev/gup_test ]; then
	skip "pin without the module" "/dev/gup_test exists here"
else
	expect "pin --anon without the module: exit 3 with the insmod hint" 3 err \
		"/dev/gup_test not found" "load it: insmod gup_pin_test.ko" \
		-- pin --anon
	truncate -s 8K "$TMP/big"
	expect "pin FILE --write without the module: request shown, exit 3" 3 out \
		"request: pin_user_pages, flags WRITE" "target:  $TMP/big (file on" \
		"offset 0x1000 length 0x1000 (1 page)" -- pin --write --offset 4K "$TMP/big"
	expect "pin: --policy names the policy and the kernel's" 3 out \
		"policy:  v7 (--policy; the kernel's: " \
		-- pin --policy v7 --anon
	expect "pin: anon maps to the matrix cell anon-private" 3 out \
		"expect:  pinned (matrix cell anon-private, untouched)" \
		-- pin --policy v7 --write --longterm --anon
	expect "pin: get with FOLL_LONGTERM is expected refused EINVAL" 3 out \
		"expect:  refused EINVAL (matrix cell shmem-memfd, read-faulted)" \
		-- pin --policy stock --get --longterm --prefault read --shmem
	expect "pin: FOLL_FORCE on a writable mapping is the cell without it" 3 out \
		"expect:  pinned (matrix cell anon-private, write-faulted)" \
		-- pin --policy v7 --force --write --prefault write --anon
	if [ "$(stat -f -c %T "$TMP")" = ext2/ext3 ]; then
		expect "pin: FOLL_FORCE|FOLL_WRITE on a MAP_SHARED O_RDONLY file: EFAULT" 3 out \
			"expect:  refused EFAULT (matrix cell ext4-shared-ro, untouched)" \
			-- pin --policy stock --force --write --read-only "$TMP/big"
		expect "pin: an ext4 file, MAP_SHARED, under v7: refused EFAULT" 3 out \
			"expect:  refused EFAULT (matrix cell ext4-shared, untouched)" \
			-- pin --policy v7 --write --longterm "$TMP/big"
		expect "pin: an ext4 file, MAP_SHARED, under stock: pinned" 3 out \
			"expect:  pinned (matrix cell ext4-shared, untouched)" \
			-- pin --policy stock --write --longterm "$TMP/big"
	else
		skip "pin: an ext4 file maps to ext4-shared" "$TMP is not on ext4"
	fi
	run pin --anon
	if [ "$rc" -eq 3 ] && grep -qE '^policy:  (stock|v7|unknown) \(.+\)$' "$TMP/out" &&
		grep -qE '^expect:  ' "$TMP/out"; then
		ok "pin: says which policy it detected, and what it expects"
	else
		not_ok "pin: says which policy it detected, and what it expects"
	fi
fi

# status.
expect "status: unknown option" 2 err "gupctl status: unknown option '--frob'" \
	-- status --frob
expect "status: extra argument" 2 err "unexpected argument 'x'" -- status x
if [ -d /sys/kernel/debug/gup_pin_test ]; then
	skip "status without the module: exit 3" "the module is loaded here"
else
	run status
	check "status without the module: exit 3 and says why" nodev_explained
fi

# The help texts: usage lines and the pointer to the guide.
expect "pin --help: usage, and the guide's section" 0 out \
	"usage: gupctl pin [OPTIONS] FILE" \
	"The guide: docs/gupctl.md, section \"gupctl pin\"." -- pin --help
expect "status --help: usage, and the guide's section" 0 out \
	"usage: gupctl status" \
	"The guide: docs/gupctl.md, section \"gupctl status\"." -- status --help
expect "--help: usage, --version, the guide" 0 out "usage: gupctl [--version] COMMAND" \
	"--version" "The guide: docs/gupctl.md." -- --help
run help
cp "$TMP/out" "$TMP/help-cmd"
run --help
check "'gupctl help' prints what 'gupctl --help' prints" cmp -s "$TMP/out" "$TMP/help-cmd"
run pin --help
long=$(awk 'length > 80' "$TMP/out")
check "pin --help: every line fits 80 columns" test -z "$long"

# bench: its options, the usage errors it finds before it opens the
# device, and the report's pairing of rounds by number: a flavour whose
# round 1 failed (jobs/bench.sh leaves it out) is compared round 2 with
# stock's round 2, round 3 with round 3.
options_are bench "--flavour --gup-test --help --json --op --pages-per-call --reps --size"
expect "bench: --size not whole MiB" 2 err "gupctl bench: bad --size '3x': whole MiB" \
	-- bench --size 3x
expect "bench: --reps 0" 2 err "gupctl bench: --reps must be at least 1" -- bench -r 0
expect "bench: an unknown --op lists the operations" 2 err \
	"gupctl bench: unknown --op 'nope'; the operations are:" "pin-fast:write:shmem" \
	-- bench --op nope
expect "bench report: needs --md and --svg" 2 err \
	"gupctl bench report: needs --md FILE and --svg FILE" -- bench report
# bench_doc FLAVOUR ROUND PIN_NS: a one-operation gupctl bench --json document.
bench_doc() {
	jq -n --arg f "$1" --argjson p "$3" '{job: "bench", flavour: $f,
		kernel_release: "6.1.192", clocksource: "tsc", size_bytes: 33554432,
		page_size: 4096, pages_per_call: 1, repetitions: 1,
		ops: [{name: "pin-fast:write:shmem", method: "pin_user_pages_fast",
		       flags: "WRITE", backing: "shmem", gup_test_option: null,
		       ours: {pin_ns_per_page: {median: $p, min: $p, max: $p, samples: [$p]},
			      unpin_ns_per_page: {median: 10, min: 10, max: 10, samples: [10]}},
		       gup_test: null}]}' >"$TMP/$1.$2.json"
}
bench_doc stock 1 100
bench_doc stock 2 200
bench_doc stock 3 300
bench_doc gup-v7 2 220
bench_doc gup-v7 3 330
expect "bench report: ratios pair rounds by number (220/200, 330/300: x1.100)" 0 out \
	"wrote $TMP/b.md and $TMP/b.svg" -- bench report --md "$TMP/b.md" --svg "$TMP/b.svg" \
	"$TMP/stock.1.json" "$TMP/stock.2.json" "$TMP/stock.3.json" \
	"$TMP/gup-v7.2.json" "$TMP/gup-v7.3.json"
# shellcheck disable=SC2016 # the page's markdown backquotes
check "... and the page says x1.100 (1.100..1.100) for gup-v7" \
	grep -qF '| `pin-fast:write:shmem` | 200.0 | 275.0 ×1.100 (1.100..1.100) |' "$TMP/b.md"

# The guest build: static, without the host-only commands, and says so.
if [ ! -x "$GUEST" ]; then
	skip "gupctl-guest" "$GUEST not built (make -C userspace gupctl-guest)"
else
	check "gupctl-guest is static (no program interpreter)" is_static "$GUEST"
	GUPCTL_HOST=$GUPCTL
	GUPCTL=$GUEST
	expect "gupctl-guest report: host-only, exit 2" 2 err \
		"gupctl: 'report' is a host-only command, not in this build (gupctl-guest)" \
		-- report --md x
	expect "gupctl-guest help report: host-only, exit 2" 2 err \
		"'report' is a host-only command" -- help report
	expect "gupctl-guest --help marks report host-only" 0 out \
		"report    (host build only: not in this gupctl)" -- --help
	GUPCTL=$GUPCTL_HOST
	expect "gupctl (host) has report" 0 out "usage: gupctl report" -- help report
fi

tap_done
