#!/bin/bash
# Build one kernel flavour: a pristine Debian linux-source tree + the
# flavour's series (patches/flavours) + its config fragments (the lab's, the
# source version's, the overlays': patches/flavours.sh's flavour_fragments), in the cache
# directory named by the hash of all those inputs.  Prints that directory:
# src/ (patched tree), build/ (O= tree, usable for `make -C build M=...`,
# holds vmlinux).  Progress goes to stderr (patches/build-progress.sh).
set -euo pipefail
# shellcheck source=../patches/flavours.sh
. "$(dirname "$0")/../patches/flavours.sh"

[ $# -eq 1 ] || die "usage: $0 FLAVOUR"
flavour=$1
dir=$(flavour_dir "$flavour")
# A built tree is final (.gup-lab-built is written last): every boot looks
# it up, so that answer comes without the lock or the source tree.
if [ -f "$dir/.gup-lab-built" ]; then
	log "$flavour: cached in $dir"
	echo "$dir"
	exit 0
fi
series=$(flavour_series "$flavour")
pkg=$(flavour_source_pkg "$flavour")
fragments=$(flavour_fragments "$flavour")
pristine=$("$LAB_ROOT/patches/unpack-source.sh" "$pkg")
# shellcheck disable=SC2086 # one path per line, no spaces
frag_hash=$(cat $fragments | sha256sum | cut -c1-16)

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
	# The inner loop: from this flavour's last build, make redoes only
	# what the change touched (patches/seed-build.sh, not in the key).
	rc=0
	"$LAB_ROOT/patches/seed-build.sh" "$flavour" "$dir" "$pristine" "$frag_hash" \
		>"$dir/seed.log" || rc=$?
	case $rc in
	0) log "$flavour: $(cat "$dir/seed.log")"; touch "$dir/.gup-lab-seeded" ;;
	1) ;;
	2) log "$flavour: $(cat "$dir/seed.log"), a Kconfig among them: configuring again" ;;
	*) die "$flavour: seeding the build failed" ;;
	esac
	touch "$dir/.gup-lab-patched"
fi

# ccache shares objects between flavours: paths are rewritten relative to
# each build/ directory, so a file no series touches compiles once.
export CCACHE_DIR=$LAB_CACHE/ccache
export CCACHE_BASEDIR=$LAB_CACHE/kernels
export CCACHE_NOHASHDIR=1
# Depend mode: a miss compiles once, where the default preprocesses the
# file a second time to look for a hit by its preprocessed text (3-31 %
# per object, 15 % on average, measured on mm/gup.o, xfs_bmap.o and tcp.o:
# docs/performance.md).  Objects still hit between flavours (their
# headers are the same files); a config change, whose autoconf.h every
# object includes, now misses them all.
export CCACHE_DEPEND=true
export KBUILD_BUILD_TIMESTAMP="gup-lab $flavour"
export KBUILD_BUILD_USER=gup-lab KBUILD_BUILD_HOST=gup-lab
kmake=(make -C "$dir/src" O="$dir/build" ARCH=x86_64 CC="ccache gcc"
	-j"$(nproc)")

# A seeded build has its seed's config, made from the same fragments.
if [ ! -f "$dir/.gup-lab-seeded" ]; then
	"${kmake[@]}" -s tinyconfig >/dev/null
	# shellcheck disable=SC2086 # one path per line, no spaces
	"$dir/src/scripts/kconfig/merge_config.sh" -m -O "$dir/build" \
		"$dir/build/.config" $fragments >/dev/null
	"${kmake[@]}" -s olddefconfig >/dev/null
fi
# shellcheck disable=SC2086
missing=$(cat $fragments | grep '^CONFIG_' | grep -vxFf "$dir/build/.config" || true)
[ -z "$missing" ] || die "$flavour: config lost after olddefconfig: $missing"

# Not -s: Kbuild's one line per object ("  CC      mm/gup.o") is what
# build-progress.sh counts.
log "$flavour: building (make -j$(nproc)); log in $dir/build.log"
"${kmake[@]}" all >"$dir/build.log" 2>&1 &
make_pid=$!
"$LAB_ROOT/patches/build-progress.sh" "$flavour" "$dir/build.log" "$make_pid" \
	"$LAB_CACHE/kernels/objects-$pkg" || true
if ! wait "$make_pid"; then
	tail -30 "$dir/build.log" >&2
	die "$flavour: kernel build failed, see $dir/build.log"
fi
echo "$(($(date +%s) - start))" >"$dir/build-seconds"
# what a later build of this flavour may seed from (patches/seed-build.sh)
echo "$pristine" >"$dir/.gup-lab-pristine"
echo "$frag_hash" >"$dir/.gup-lab-fragments"
touch "$dir/.gup-lab-built"
log "$flavour: built in $(cat "$dir/build-seconds") s: $dir"
echo "$dir"
