#!/bin/bash
# Build one kernel flavour: a pristine Debian linux-source tree + the
# flavour's series (patches/flavours) + its config fragments (the lab's, the
# source version's, the overlays': patches/flavours.sh's flavour_fragments),
# in the cache directory named by the hash of all those inputs.  A
# registered series (patches/user-kernel.sh) is one more series; a
# registered tree is built from where it is, out of tree, into one
# directory per tree that follows its changes (docs/your-kernel.md).
# Prints that directory: src/ (patched tree, or a link to yours), build/
# (O= tree, usable for `make -C build M=...`, holds vmlinux).  Progress
# goes to stderr (patches/build-progress.sh); a failure names its step.
set -euo pipefail
# shellcheck source=../patches/flavours.sh
. "$(dirname "$0")/../patches/flavours.sh"

[ $# -eq 1 ] || die "usage: $0 FLAVOUR"
flavour=$1
dir=$(flavour_dir "$flavour")
# A built tree is final (.gup-lab-built is written last): every boot looks
# it up, so that answer comes without the lock or the source tree.  A
# registered tree's directory is rebuilt as the tree changes: its marker
# holds the key of the state built (elsewhere the directory's name does).
key=$(flavour_key "$flavour")
kind=$(user_field "$flavour" kind)
built() {
	[ -f "$dir/.gup-lab-built" ] &&
		{ [ "$kind" != tree ] || [ "$(cat "$dir/.gup-lab-built")" = "$key" ]; }
}
if built; then
	log "$flavour: cached in $dir"
	echo "$dir"
	exit 0
fi
pkg=$(flavour_source_pkg "$flavour")
fragments=$(flavour_fragments "$flavour")
if [ "$kind" = tree ]; then
	tree=$(user_field "$flavour" tree)
else
	pristine=$("$LAB_ROOT/patches/unpack-source.sh" "$pkg")
fi

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
	# Only the state registered: a tree that moved on is another kernel.
	now=$("$LAB_ROOT/patches/user-kernel.sh" state "$tree")
	[ "$now" = "$(user_field "$flavour" state)" ] ||
		die "$flavour: $tree has changed since it was registered ($now): run again with KERNEL=$tree"
	if [ -e "$tree/.config" ] || [ -d "$tree/include/config" ]; then
		die "$flavour: $tree holds an in-tree build: run 'make mrproper' there (the lab never writes into it)"
	fi
	mkdir -p "$dir/build"
	ln -sfn "$tree" "$dir/src"
	rm -f "$dir/.gup-lab-built"
# The tree is built in place (its Makefiles record absolute paths), so an
# interrupted build resumes here; only an unfinished patch step restarts.
elif [ ! -f "$dir/.gup-lab-patched" ]; then
	rm -rf "$dir"
	mkdir -p "$dir/build"
	log "$flavour: linking a copy of $pristine"
	cp -al "$pristine" "$dir/src"
	while read -r p; do
		label=$(basename "$(dirname "$p")")/$(basename "$p")
		log "$flavour: applying $label"
		# -F0: a patch that needs fuzz is a patch that needs a fresh
		# backport.  GNU patch replaces files rather than writing
		# through the hard links to the pristine tree.
		patch -d "$dir/src" -p1 -F0 --no-backup-if-mismatch \
			-s <"$p" || die "$flavour: step 'patch': $label does not apply"
	done < <(flavour_patches "$flavour")
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
	-j"$(nproc)")

# A registered tree's build directory keeps its .config: Kbuild's own
# syncconfig follows the tree's Kconfig changes, and a rewritten .config
# would cost the incremental build its point.
if [ "$kind" != tree ] || [ ! -f "$dir/build/.config" ]; then
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
fi

# Not -s: Kbuild's one line per object ("  CC      mm/gup.o") is what
# build-progress.sh counts.
log "$flavour: building (make -j$(nproc)); log in $dir/build.log"
"${kmake[@]}" all >"$dir/build.log" 2>&1 &
make_pid=$!
# (A registered tree counts its own: its builds after the first are
# incremental.)
counts=$LAB_CACHE/kernels/objects-$pkg
[ "$kind" != tree ] || counts=$dir/objects-$pkg
"$LAB_ROOT/patches/build-progress.sh" "$flavour" "$dir/build.log" "$make_pid" \
	"$counts" || true
if ! wait "$make_pid"; then
	tail -30 "$dir/build.log" >&2
	die "$flavour: step 'make all' failed, see $dir/build.log"
fi
echo "$(($(date +%s) - start))" >"$dir/build-seconds"
echo "$key" >"$dir/.gup-lab-built"
log "$flavour: built in $(cat "$dir/build-seconds") s: $dir"
echo "$dir"
