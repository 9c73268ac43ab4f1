#!/bin/bash
# Build gup_pin_test.ko against a flavour's kernel tree (or, with
# "headers", against Debian's installed linux-headers as a compile check).
# Each build happens in a cache directory keyed by the flavour and the
# module's sources, so the clone stays clean; prints the .ko's path.
set -euo pipefail
# shellcheck source=../patches/flavours.sh
. "$(dirname "$0")/../patches/flavours.sh"

[ $# -eq 1 ] || die "usage: $0 FLAVOUR|headers"
target=$1
if [ "$target" = headers ]; then
	ktree=$(printf '%s\n' /usr/src/linux-headers-*-amd64 | sort -V | tail -1)
	[ -d "$ktree" ] || die "no linux-headers-*-amd64: run 'make deps'"
	key=headers-$(basename "$ktree")
else
	kdir=$(flavour_build "$target")
	ktree=$kdir/build
	# (not the directory's name: a registered tree's holds every state)
	key=$target-$(flavour_key "$target")
fi
key=$key-$(hash_inputs "$LAB_ROOT/Kbuild" "$LAB_ROOT"/module/Kbuild \
	"$LAB_ROOT"/module/*.[ch] "$LAB_ROOT"/module/uapi/*.h "$0")
dir=$LAB_CACHE/modules/$key
# Two jobs at once (make lab runs the matrix and the consumers together)
# may want the same module: one builds it, the other waits and finds it.
# .gup-lab-built, written last, says the module is whole and built without
# a warning (a build killed half way may leave a .ko of some sort).
if [ ! -f "$dir/.gup-lab-built" ]; then
	mkdir -p "$LAB_CACHE/modules"
	exec 9>"$dir.lock"
	flock 9
fi
if [ ! -f "$dir/.gup-lab-built" ]; then
	rm -rf "$dir"
	mkdir -p "$dir"
	cp -a "$LAB_ROOT/Kbuild" "$LAB_ROOT/module" "$dir/"
	rm -f "$dir/module/build.sh"
	make -s -C "$ktree" M="$dir" W=1 modules >"$dir/build.log" 2>&1 || {
		cat "$dir/build.log" >&2
		die "gup_pin_test.ko does not build against $ktree"
	}
	if grep -q 'warning:' "$dir/build.log"; then
		cat "$dir/build.log" >&2
		rm -f "$dir/module/gup_pin_test.ko"
		die "gup_pin_test.ko builds with warnings against $ktree"
	fi
	touch "$dir/.gup-lab-built"
fi
echo "$dir/module/gup_pin_test.ko"
