#!/bin/bash
# Put what a guest run needs into DIR (it becomes /lab in the guest):
# gup_pin_test.ko built for FLAVOUR, bin/gupctl and the guest-side test
# programs and the kernel's gup_test (static: the guest is a bare Debian
# minbase).
set -euo pipefail
# shellcheck source=../qemu/lib.sh
. "$(dirname "$0")/../qemu/lib.sh"

[ $# -eq 2 ] || die "usage: $0 FLAVOUR DIR"
flavour=$1
dir=$2
mkdir -p "$dir/bin"
cp "$("$LAB_ROOT/module/build.sh" "$flavour")" "$dir/gup_pin_test.ko"
make -s -C "$LAB_ROOT/userspace" >&2
cp "$LAB_ROOT/userspace/gupctl-guest" "$dir/bin/gupctl"
# This flavour's kernel tree: the selftest harness, the gup_test tool.
src=$("$LAB_ROOT/patches/build-flavour.sh" "$flavour")/src
# Guest tests: on the kernel's kselftest_harness.h, through gupctl's own
# device and memory wrappers (userspace/gupdev.c, userspace/target.c).
for test_c in "$LAB_ROOT"/tests/guest/*.c; do
	[ -f "$test_c" ] || continue
	gcc -O2 -Wall -Wextra -Werror -static -pthread \
		-I"$LAB_ROOT/module/uapi" -I"$src/tools/testing/selftests" \
		-I"$LAB_ROOT/userspace" -o "$dir/bin/$(basename "$test_c" .c)" \
		"$test_c" "$LAB_ROOT/userspace/gupdev.c" "$LAB_ROOT/userspace/target.c"
done
# The kernel's own gup_test user tool, from this flavour's tree, for the
# matrix's cross-check (never committed: built at run time).
gcc -O2 -static -pthread -I"$src" -I"$src/tools/testing/selftests/vm" \
	-o "$dir/bin/gup_test" "$src/tools/testing/selftests/vm/gup_test.c"
# gup_test -F takes raw FOLL_* bits, which are not uapi: read this tree's.
for bit in longterm force; do
	awk -v name="FOLL_${bit^^}" '$1 == "#define" && $2 == name { print $3 }' \
		"$src/include/linux/mm.h" >"$dir/foll_$bit"
	[ -s "$dir/foll_$bit" ] || die "FOLL_${bit^^} not found in $src/include/linux/mm.h"
done
# The guest's lab scripts (setup for shells, test bodies) travel along.
cp "$LAB_ROOT"/rootfs/guest-*.sh "$dir/bin/" 2>/dev/null || true
