#!/bin/bash
# Put what a guest run needs into DIR (it becomes /lab in the guest):
# gup_pin_test.ko built for FLAVOUR, bin/gupctl and the guest-side test
# programs, the kernel's gup_test, and the mm selftests' gup_longterm
# (static: the guest is a bare Debian minbase); and the guest halves of
# the jobs (jobs/guest/*.sh, as guest/).  Reads the flavour's tree
# whatever its layout: 6.1 (selftests/vm, FOLL_* #defines in mm.h) or 6.12
# (selftests/mm, FOLL_* an enum in mm_types.h).
set -euo pipefail
# shellcheck source=../patches/flavours.sh
. "$(dirname "$0")/../patches/flavours.sh"

[ $# -eq 2 ] || die "usage: $0 FLAVOUR DIR"
flavour=$1
dir=$2
pause_point staging
mkdir -p "$dir/bin"
dir=$(cd "$dir" && pwd)
# (the kernel first: a kernel that does not build stops here, said above)
ko=$("$LAB_ROOT/module/build.sh" "$flavour") || die "$flavour: no kernel, no module: nothing staged"
cp "$ko" "$dir/gup_pin_test.ko"
# Jobs and suites stage two flavours at once: one make of gupctl at a time.
flock "$LAB_ROOT/userspace/.make.lock" make -s -C "$LAB_ROOT/userspace" >&2
cp "$LAB_ROOT/userspace/gupctl-guest" "$dir/bin/gupctl"
# This flavour's kernel tree: the selftest harness, the gup_test tool.
src=$(flavour_build "$flavour")/src
lt_pkg=linux-source-6.12

# The programs compiled here take 5 s a flavour, and every suite and job
# stages each flavour: they are cached under $LAB_CACHE/stage, keyed by
# every input (this script, the flavour's kernel key, the guest tests and
# the user space they link, the uapi, the 6.12 tree's version, gcc's and
# liburing's).  A new entry is made aside and renamed into place, so that
# two jobs staging the same flavour at once never see half of one.
key=$flavour-$({
	flavour_key "$flavour"
	echo "$lt_pkg $(source_pkg_version "$lt_pkg")"
	gcc --version | head -1
	dpkg-query -W liburing-dev 2>/dev/null || true
	hash_inputs "$0" "$LAB_ROOT"/tests/guest/*.c "$LAB_ROOT"/userspace/lib/*.h \
		"$LAB_ROOT"/patches/gup-longterm-suite/*/*.patch \
		"$LAB_ROOT/userspace/lib/gupdev.c" "$LAB_ROOT/userspace/lib/target.c" \
		"$LAB_ROOT"/module/uapi/*.h
} | sha256sum | cut -c1-16)
cached=$LAB_CACHE/stage/$key
if [ ! -f "$cached/.complete" ]; then
	mkdir -p "$LAB_CACHE/stage"
	out=$(mktemp -d "$cached.new.XXXX")
	trap 'rm -rf "$out" "${lt_cfg:-}"' EXIT
	mkdir -p "$out/bin"
	# Guest tests: on the kernel's kselftest_harness.h, through gupctl's own
	# device and memory wrappers (userspace/lib/gupdev.c, lib/target.c).
	# -Wno-clobbered: 6.12's harness keeps a local across its own setjmp()
	# (__TEST_F_IMPL's "child", kselftest_harness.h:419), which -Wextra flags.
	for test_c in "$LAB_ROOT"/tests/guest/*.c; do
		[ -f "$test_c" ] || continue
		gcc -O2 -Wall -Wextra -Werror -Wno-clobbered -static -pthread \
			-I"$LAB_ROOT/module/uapi" -I"$src/tools/testing/selftests" \
			-I"$LAB_ROOT/userspace" -o "$out/bin/$(basename "$test_c" .c)" \
			"$test_c" "$LAB_ROOT/userspace/lib/gupdev.c" "$LAB_ROOT/userspace/lib/target.c"
	done
	# The kernel's own gup_test user tool, from this flavour's tree, for the
	# matrix's cross-check (never committed: built at run time).  Between 6.1
	# and 6.12, selftests/vm became selftests/mm.
	sel=$src/tools/testing/selftests/mm
	[ -d "$sel" ] || sel=$src/tools/testing/selftests/vm
	[ -f "$sel/gup_test.c" ] || die "no gup_test.c in $src/tools/testing/selftests/{mm,vm}"
	# 6.12's links vm_util.c and thp_settings.c (7.3's hugepage_settings.c),
	# as its Makefile does, which want the tree's own exported uapi headers
	# (PAGEMAP_SCAN).
	gt_extra=()
	if grep -q '"vm_util.h"' "$sel/gup_test.c"; then
		gt_extra=(-isystem "$(uapi_headers "$(flavour_source_pkg "$flavour")")"
			-isystem "$src/tools/include/uapi" "$sel/vm_util.c")
		for c in thp_settings.c hugepage_settings.c; do
			[ ! -f "$sel/$c" ] || gt_extra+=("$sel/$c")
		done
	fi
	# (7.3's include "kselftest.h" from selftests/, 6.12's "../kselftest.h")
	gcc -O2 -static -pthread -I"$src" -I"$sel" -I"$src/tools/testing/selftests" \
		-o "$out/bin/gup_test" \
		"$sel/gup_test.c" "${gt_extra[@]}"

	# foll_value NAME [FILE...]: the value of FOLL_NAME in the tree (or in
	# FILE...): 6.1's "#define FOLL_LONGTERM 0x10000" (include/linux/mm.h), or
	# 6.12's enum member "FOLL_LONGTERM = 1 << 8," (include/linux/mm_types.h;
	# the internal flags in mm/internal.h), evaluated.
	foll_value() {
		local name=$1 expr
		shift
		[ $# -gt 0 ] || set -- "$src/include/linux/mm.h" \
			"$src/include/linux/mm_types.h" "$src/mm/internal.h"
		expr=$(awk -v name="$name" '
			$1 == "#define" && $2 == name { print $3; exit }
			$1 == name && $2 == "=" { sub(/^[^=]*=[ \t]*/, ""); sub(/,.*/, ""); print; exit }' \
			"$@")
		# Only literals, shifts and ors: anything else is not evaluated.
		[[ $expr =~ ^[0-9a-fA-FxX\ \<\|\(\)]+$ ]] ||
			die "$name in $src: '$expr' is not a constant expression this script evaluates"
		printf '%#x\n' "$((expr))"
	}
	# gup_test -F takes raw FOLL_* bits, which are not uapi: read this tree's.
	for bit in longterm force touch; do
		foll_value "FOLL_${bit^^}" >"$out/foll_$bit"
	done
	# gup_test -z passes FOLL_TOUCH from its own copy of the flag: the
	# cross-check compares it with the kernel's (6.12 moved FOLL_TOUCH);
	# 7.3's tool has neither the flag nor -z: 0, and the cross-check
	# leaves the untouched cells alone (userspace/matrix/xcheck.c).
	if grep -q '^#define FOLL_TOUCH' "$sel/gup_test.c"; then
		foll_value FOLL_TOUCH "$sel/gup_test.c" >"$out/tool_foll_touch"
	else
		echo 0 >"$out/tool_foll_touch"
	fi

	# The mm selftests' gup_longterm (David Hildenbrand's FOLL_LONGTERM test),
	# from the 6.12 tree, one binary for every flavour.  Built as its
	# Makefile would (check_config.sh's local_config.h, liburing for the
	# io_uring half, vm_util.c and thp_settings.c), against the 6.12 tree's
	# exported uapi headers (vm_util.c needs PAGEMAP_SCAN, which bookworm's
	# headers lack).  One patch, patches/gup-longterm-suite/VERSION/: its
	# fallocate() retried on EINTR, which an earlier case's io_uring ring
	# teardown can cause with no signal sent (the patch says how; without
	# it a hugetlb case skipped at random, "need more free huge pages").
	# The patched file is compiled from a directory of its own with a
	# relative file name: the suite makes its "local tmpfile" next to
	# __FILE__, i.e. in the cwd the guest gives it (the scratch ext4); its
	# quoted includes resolve in the tree's directory (-I "$mm").
	# build_longterm TREE UAPI BINARY VERSION: TREE's suite; 7.3's calls
	# its config header local_config.h_gen, includes "kselftest.h" from
	# selftests/ and links hugepage_settings.c where 6.12's has
	# thp_settings.c.
	build_longterm() {
		local tree=$1 uapi=$2 bin=$3 ver=$4 mm=$1/tools/testing/selftests/mm c srcs=()
		local rel=tools/testing/selftests/mm/gup_longterm.c p
		lt_cfg=$(mktemp -d)
		# (6.12's takes the compiler as its argument, 7.3's from CC)
		(cd "$lt_cfg" && CC=gcc sh "$mm/check_config.sh" gcc)
		grep -qx '#define LOCAL_CONFIG_HAVE_LIBURING 1' "$lt_cfg"/local_config.h* ||
			die "gup_longterm: liburing not found (its io_uring half): run 'make deps' (liburing-dev)"
		for c in vm_util.c thp_settings.c hugepage_settings.c; do
			[ ! -f "$mm/$c" ] || srcs+=("$mm/$c")
		done
		mkdir -p "$lt_cfg/src/${rel%/*}"
		cp "$tree/$rel" "$lt_cfg/src/$rel"
		for p in "$LAB_ROOT/patches/gup-longterm-suite/$ver"/*.patch; do
			[ -f "$p" ] || continue
			patch -d "$lt_cfg/src" -p1 -F0 -s --no-backup-if-mismatch <"$p" ||
				die "gup_longterm: $p does not apply to $tree"
		done
		(cd "$lt_cfg/src/${rel%/*}" &&
			gcc -Wall -O2 -I "$mm" -I "$tree" -isystem "$uapi" \
				-isystem "$tree/tools/include/uapi" -I "$lt_cfg" \
				-I "$tree/tools/testing/selftests" -U_FORTIFY_SOURCE \
				-no-pie -static -o "$bin" \
				gup_longterm.c "${srcs[@]}" -lrt -lpthread -lm -luring) ||
			die "gup_longterm does not build from $tree"
		rm -rf "$lt_cfg"
	}
	build_longterm "$("$LAB_ROOT/patches/unpack-source.sh" "$lt_pkg")" \
		"$(uapi_headers "$lt_pkg")" "$out/bin/gup_longterm" 6.12
	echo "$lt_pkg $(source_pkg_version "$lt_pkg")" >"$out/gup_longterm.source"
	# A 7.3 flavour runs its own tree's suite too (gup_longterm-own): the
	# other suite the host's judge models (gupctl longterm judge --suite).
	own=$(awk '$1 == "VERSION" { v = $3 } $1 == "PATCHLEVEL" { p = $3 }
		END { print v "." p }' "$src/Makefile")
	if [ "$own" = 7.3 ] && [ -f "$sel/gup_longterm.c" ]; then
		build_longterm "$src" "$(uapi_headers "$(flavour_source_pkg "$flavour")")" \
			"$out/bin/gup_longterm-own" "$own"
		echo "$own" >"$out/gup_longterm-own.suite"
	fi
	touch "$out/.complete"
	# Another job may have put the same entry in place meanwhile.
	mv -T "$out" "$cached" 2>/dev/null || [ -f "$cached/.complete" ] || cached=$out
	# Bounded: the flavour's three newest entries stay (3 MB each), the
	# others are renamed away first, so a job copying one sees all of it
	# or none.
	find "$LAB_CACHE/stage" -mindepth 1 -maxdepth 1 -type d \
		-regex ".*/$(printf '%s' "$flavour" | sed 's/[+.]/\\&/g')-[0-9a-f]*" -printf '%T@ %p\n' |
		sort -rn | tail -n +4 | cut -d' ' -f2- | while read -r old; do
			trash=$(mktemp -d "$LAB_CACHE/stage/.trash.XXXX")
			mv -T "$old" "$trash/entry" 2>/dev/null || true
			rm -rf "$trash"
		done
else
	touch "$cached"		# the newest use keeps it from pruning
fi
cp -a "$cached/." "$dir/"
[ -f "$dir/.complete" ] || die "the stage cache entry $cached went away while it was copied: run again"
rm -f "$dir/.complete"
# The guest's lab scripts (setup for shells, test bodies) travel along,
# and so do the jobs' guest halves and their module loader (jobs/guest/,
# as /lab/guest/).  Copied on every staging, outside the cache: they are
# not compiled, and not part of its key.
cp "$LAB_ROOT"/rootfs/guest-*.sh "$dir/bin/" 2>/dev/null || true
mkdir -p "$dir/guest"
cp "$LAB_ROOT"/jobs/guest/*.sh "$dir/guest/"
