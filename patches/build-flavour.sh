#!/bin/bash
# Build one kernel flavour: pristine linux-source-6.1 + the flavour's series
# (patches/flavours) + patches/config.fragment, in the cache directory named
# by the hash of all those inputs.  Prints that directory: src/ (patched
# tree), build/ (O= tree, usable for `make -C build M=...`, holds vmlinux).
set -euo pipefail
# shellcheck source=../qemu/lib.sh
. "$(dirname "$0")/../qemu/lib.sh"

[ $# -eq 1 ] || die "usage: $0 FLAVOUR"
flavour=$1
series=$(flavour_series "$flavour")
pristine=$("$LAB_ROOT/patches/unpack-source.sh")
dir=$(flavour_dir "$flavour")

mkdir -p "$LAB_CACHE/kernels"
exec 9>"$dir.lock"
flock 9

if [ -f "$dir/.gup-lab-built" ]; then
	log "$flavour: cached in $dir"
	echo "$dir"
	exit 0
fi

start=$(date +%s)
# The tree is built in place (its Makefiles record absolute paths), so an
# interrupted build resumes here; only an unfinished patch step restarts.
if [ ! -f "$dir/.gup-lab-patched" ]; then
	rm -rf "$dir"
	mkdir -p "$dir/build"
	log "$flavour: linking a copy of $pristine"
	cp -al "$pristine" "$dir/src"
	for s in $series; do
		for p in "$LAB_ROOT/patches/$s"/*.patch; do
			log "$flavour: applying $s/$(basename "$p")"
			# -F0: a patch that needs fuzz is a patch that needs a
			# fresh backport.  GNU patch replaces files rather than
			# writing through the hard links to the pristine tree.
			patch -d "$dir/src" -p1 -F0 --no-backup-if-mismatch \
				-s <"$p" || die "$flavour: $s/$(basename "$p") does not apply"
		done
	done
	touch "$dir/.gup-lab-patched"
fi

# ccache shares objects between flavours: paths are rewritten relative to
# each build/ directory, so a file no series touches compiles once.
export CCACHE_DIR=$LAB_CACHE/ccache
export CCACHE_BASEDIR=$LAB_CACHE/kernels
export CCACHE_NOHASHDIR=1
export KBUILD_BUILD_TIMESTAMP="gup-lab $flavour"
export KBUILD_BUILD_USER=gup-lab KBUILD_BUILD_HOST=gup-lab
kmake=(make -C "$dir/src" O="$dir/build" ARCH=x86_64 CC="ccache gcc"
	-j"$(nproc)" -s)

"${kmake[@]}" tinyconfig >/dev/null
"$dir/src/scripts/kconfig/merge_config.sh" -m -O "$dir/build" \
	"$dir/build/.config" "$LAB_ROOT/patches/config.fragment" >/dev/null
"${kmake[@]}" olddefconfig >/dev/null
missing=$(grep '^CONFIG_' "$LAB_ROOT/patches/config.fragment" |
	grep -vxFf "$dir/build/.config" || true)
[ -z "$missing" ] || die "$flavour: config lost after olddefconfig: $missing"

log "$flavour: building (make -j$(nproc)); log in $dir/build.log"
if ! "${kmake[@]}" all >"$dir/build.log" 2>&1; then
	tail -30 "$dir/build.log" >&2
	die "$flavour: kernel build failed, see $dir/build.log"
fi
echo "$(($(date +%s) - start))" >"$dir/build-seconds"
touch "$dir/.gup-lab-built"
log "$flavour: built in $(cat "$dir/build-seconds") s: $dir"
echo "$dir"
