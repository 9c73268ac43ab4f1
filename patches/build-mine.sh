#!/bin/bash
# Build a registered kernel (patches/user-kernel.sh, docs/your-kernel.md)
# as build-flavour.sh builds a flavour, and print its directory: src/,
# build/ (O= tree, holds vmlinux).  Two kinds:
# - a series on a flavour: a hard-linked copy of the pristine tree, the
#   flavour's series and then yours applied with -F0, in
#   kernels/NAME@ID-KEY: laid out as a flavour's, so ccache serves every
#   object your patches do not change;
# - a tree: built from where it is (src/ is a link to it), out of tree,
#   never written to, into kernels/tree-ID[+OVERLAYS], one directory per
#   tree and config that follows the tree's changes: Kbuild rebuilds what
#   changed.  The marker .gup-lab-built holds the key of the state built.
# Progress goes to stderr (patches/build-progress.sh); a failure names its
# step.  The config and make steps are build-flavour.sh's (which a
# flavour's cache key hashes, so they are not shared yet: issue 28 changes
# that script anyway).
set -euo pipefail
# shellcheck source=flavours.sh
. "$(dirname "$0")/flavours.sh"

[ $# -eq 1 ] || die "usage: $0 NAME@ID[+OVERLAY...]"
flavour=$1
kind=$(user_field "$flavour" kind)
[ -n "$kind" ] || die "$flavour is not a registered kernel (patches/user-kernel.sh)"
dir=$(flavour_dir "$flavour")
key=$(flavour_key "$flavour")
# A tree is checked even when its kernel is cached: the module and the
# guest's programs are compiled from it next, and must be of this state.
if [ "$kind" = tree ]; then
	tree=$(user_field "$flavour" tree)
	now=$("$LAB_ROOT/patches/user-kernel.sh" state "$tree") ||
		die "$flavour: cannot read the state of $tree"
	[ "$now" = "$(user_field "$flavour" state)" ] ||
		die "$flavour: $tree has changed since it was registered ($now): run again with KERNEL=$tree"
fi
built() {
	[ -f "$dir/.gup-lab-built" ] && [ "$(cat "$dir/.gup-lab-built")" = "$key" ]
}
if built; then
	log "$flavour: cached in $dir"
	echo "$dir"
	exit 0
fi
pkg=$(flavour_source_pkg "$flavour")
fragments=$(flavour_fragments "$flavour")
mkdir -p "$LAB_CACHE/kernels"
exec 9>"$dir.lock"
flock 9
if built; then
	log "$flavour: cached in $dir"
	echo "$dir"
	exit 0
fi

start=$(date +%s)
if [ "$kind" = tree ]; then
	if [ -e "$tree/.config" ] || [ -d "$tree/include/config" ]; then
		die "$flavour: $tree holds an in-tree build: run 'make mrproper' there (the lab never writes into it)"
	fi
	mkdir -p "$dir/build"
	ln -sfn "$tree" "$dir/src"
	rm -f "$dir/.gup-lab-built"
	counts=$dir/objects-$pkg
elif [ ! -f "$dir/.gup-lab-patched" ]; then
	pristine=$("$LAB_ROOT/patches/unpack-source.sh" "$pkg")
	rm -rf "$dir"
	mkdir -p "$dir/build"
	log "$flavour: linking a copy of $pristine"
	cp -al "$pristine" "$dir/src"
	mapfile -t patches < <(flavour_patches "$flavour" |
		while read -r p; do echo "$(basename "$(dirname "$p")")/$(basename "$p")=$p"; done)
	if ! "$LAB_ROOT/patches/apply-series.sh" "$dir/src" "${patches[@]}"; then
		# a half-patched copy helps nobody and would be made again
		rm -rf "$dir"
		base=$(user_field "$flavour" base)
		die "$flavour: step 'patch': the series does not apply with -F0 on $base (above: the file and hunk). What you can do:
  - another BASE it applies to: the flavours of patches/flavours (6.1: stock and its series; mainline: 6.12; latest: 7.3);
  - the lab's own backport, where it has one: patches/ (gup-v7: Stoakes' v7 on 6.1, gup-v1 his v1, gup-v9 on gup-v7), FLAVOUR=gup-v7 and the like;
  - KERNEL=DIR: a tree where you applied it yourself (docs/your-kernel.md)."
	fi
	touch "$dir/.gup-lab-patched"
fi
counts=${counts:-$LAB_CACHE/kernels/objects-$pkg}

export CCACHE_DIR=$LAB_CACHE/ccache
export CCACHE_BASEDIR=$LAB_CACHE/kernels
export CCACHE_NOHASHDIR=1
# (the same for every name of a state: one build serves them all)
stamp="gup-lab $(flavour_base "$flavour" | sed 's/^[^@]*@//')"
export KBUILD_BUILD_TIMESTAMP=$stamp
export KBUILD_BUILD_USER=gup-lab KBUILD_BUILD_HOST=gup-lab
kmake=(make -C "$dir/src" O="$dir/build" ARCH=x86_64 CC="ccache gcc" -j"$(nproc)")

# merge_config.sh writes its temporary files into the current directory:
# never yours.
cd "$dir/build"
# A tree's build directory keeps its .config while the fragments stay the
# same (.gup-lab-config, written once they all hold): Kbuild's syncconfig
# follows the tree's Kconfig, and a rewritten .config would cost the
# incremental build its point.
# shellcheck disable=SC2086 # one path per line, no spaces
config_key=$(hash_inputs $fragments)
if [ "$kind" != tree ] || [ "$(cat "$dir/build/.gup-lab-config" 2>/dev/null)" != "$config_key" ]; then
	rm -f "$dir/build/.gup-lab-config"
	"${kmake[@]}" -s tinyconfig >"$dir/config.log" 2>&1 ||
		die "$flavour: step 'make tinyconfig' failed: see $dir/config.log"
	# shellcheck disable=SC2086 # one path per line, no spaces
	"$dir/src/scripts/kconfig/merge_config.sh" -m -O "$dir/build" \
		"$dir/build/.config" $fragments >>"$dir/config.log" 2>&1 ||
		die "$flavour: step 'merge_config.sh' failed: see $dir/config.log"
	"${kmake[@]}" -s olddefconfig >>"$dir/config.log" 2>&1 ||
		die "$flavour: step 'make olddefconfig' failed: see $dir/config.log"
	# shellcheck disable=SC2086
	missing=$(cat $fragments | grep '^CONFIG_' | grep -vxFf "$dir/build/.config" || true)
	[ -z "$missing" ] || die "$flavour: step 'config': lost after olddefconfig: $missing"
	echo "$config_key" >"$dir/build/.gup-lab-config"
fi

log "$flavour: building (make -j$(nproc)); log in $dir/build.log"
"${kmake[@]}" all >"$dir/build.log" 2>&1 &
make_pid=$!
"$LAB_ROOT/patches/build-progress.sh" "$flavour" "$dir/build.log" "$make_pid" "$counts" || true
if ! wait "$make_pid"; then
	tail -30 "$dir/build.log" >&2
	die "$flavour: step 'make all' failed, see $dir/build.log"
fi
echo "$(($(date +%s) - start))" >"$dir/build-seconds"
echo "$key" >"$dir/.gup-lab-built"
log "$flavour: built in $(cat "$dir/build-seconds") s: $dir"
echo "$dir"
