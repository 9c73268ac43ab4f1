#!/bin/bash
# Seed a flavour's new build directory from its last one, so that make
# rebuilds only what changed (the inner loop: a one-line change to a
# series, docs/performance.md).  Called by patches/build-flavour.sh after
# the new tree is patched, before its config step:
#
#   patches/seed-build.sh FLAVOUR DIR PRISTINE FRAGMENTS_HASH
#
# DIR is the new cache directory (src/ patched, build/ empty).  The seed is
# a built directory of the same pristine source, the same config fragments
# and the same overlays: the newest of the same flavour (the inner loop),
# else the newest of another (the main job: gup-v7 from stock, whose
# objects ccache would serve one by one, 395-475 s a kernel, when make can
# skip them; docs/performance.md).  Its build/ is copied (not linked:
# the compiler rewrites objects in place), its absolute paths rewritten to
# DIR's (the .cmd files compare whole command lines), and every source
# file either tree's series touched is
# given the seed's time stamp when its content is the same, a fresh one
# otherwise.  make's own dependencies then decide what to rebuild.
#
# Not part of any kernel key: it changes how much make redoes, never what
# make builds.  Exit status: 0 seeded (stdout: the seed and how many files
# differ; the config step may be skipped), 1 no seed (nothing was done),
# 2 a Kconfig file differs (seeded, but the config step must run again).
set -euo pipefail
# shellcheck source=../patches/flavours.sh
. "$(dirname "$0")/../patches/flavours.sh"

[ $# -eq 4 ] || die "usage: $0 FLAVOUR DIR PRISTINE FRAGMENTS_HASH"
flavour=$1 dir=$2 pristine=$3 frag_hash=$4

# The newest built directory with the same pristine tree, fragments and
# overlays (FLAVOUR+OVERLAYS-KEY): of this flavour if there is one.
overlays=''
[[ $flavour != *+* ]] || overlays=+${flavour#*+}
seed='' newest=0 same=0
for d in "$LAB_CACHE/kernels"/*-*; do
	if [ "$d" = "$dir" ] || [ ! -f "$d/.gup-lab-built" ]; then
		continue
	fi
	[[ ${d##*/} =~ ^[^+/]+${overlays//+/\\+}-[0-9a-f]{16}$ ]] || continue
	[ "$(cat "$d/.gup-lab-pristine" 2>/dev/null)" = "$pristine" ] || continue
	[ "$(cat "$d/.gup-lab-fragments" 2>/dev/null)" = "$frag_hash" ] || continue
	s=0
	[[ ${d##*/} != "$flavour"-???????????????? ]] || s=1
	t=$(stat -c %Y "$d/.gup-lab-built")
	if [ "$s" -gt "$same" ] || { [ "$s" -eq "$same" ] && [ "$t" -gt "$newest" ]; }; then
		seed=$d newest=$t same=$s
	fi
done
[ -n "$seed" ] || exit 1

cp -a "$seed/build/." "$dir/build/"
ln -sfn "$dir/src" "$dir/build/source"
# The build number (uname -v's "#N", init/build-version) restarts: the
# kernel is its cold build's, not the seed's next.
rm -f "$dir/build/.version"
# One process for every text file naming the seed: each keeps its time
# stamp, so that make sees the command lines, not new files.
grep -rlIFZ "$seed" "$dir/build" |
	SEED=$seed DIR=$dir perl -0 -ne '
		chomp; my $f = $_; my @st = stat($f) or die "$f: $!";
		open(my $in, "<", $f) or die "$f: $!"; local $/; my $s = <$in>; close $in;
		$s =~ s/\Q$ENV{SEED}\E/$ENV{DIR}/g;
		open(my $out, ">", $f) or die "$f: $!"; print $out $s; close $out or die "$f: $!";
		utime($st[8], $st[9], $f) or die "$f: $!";'

# The files a series touched are the ones not hard linked to the pristine
# tree (patch writes a new file; build-flavour.sh links the rest).
differ=0 kconfig=0
while IFS= read -r -d '' f; do
	new=$dir/src/$f old=$seed/src/$f
	[ -e "$new" ] || continue
	if [ -f "$old" ] && cmp -s "$old" "$new"; then
		# the same content: the seed's time, unless the new one is the
		# pristine file itself (its time stamp is every tree's)
		[ "$(stat -c %h "$new")" -ne 1 ] || touch -r "$old" "$new"
		continue
	fi
	differ=$((differ + 1))
	[[ ${f##*/} != Kconfig* ]] || kconfig=1
	if [ "$(stat -c %h "$new")" -ne 1 ]; then
		# the pristine file, older than the seed's objects: a copy of
		# its own, with a time stamp of now
		cp --remove-destination "$new" "$new.gup-lab-seed"
		mv "$new.gup-lab-seed" "$new"
	else
		touch "$new"
	fi
done < <({ (cd "$seed/src" && find . -type f -links 1 -print0)
	(cd "$dir/src" && find . -type f -links 1 -print0); } | sort -zu)

echo "seeded from ${seed##*/}: $differ source file(s) differ"
[ "$kconfig" -eq 0 ] || exit 2
