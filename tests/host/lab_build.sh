#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Host tests of the main job's building blocks, no guest and no kernel
# build: patches/seed-build.sh (the inner loop's seed) on fake trees in a
# throw-away cache, and jobs/lab-progress.sh (the main job's progress line)
# on synthetic steps.
# Output: TAP version 13.  Exit status: 0 if every test passed.
# shellcheck source=../suite.sh
. "$(dirname "$0")/../suite.sh"

export GUP_LAB_CACHE=$work/cache GUP_LAB_RESULTS=$work/results
k=$GUP_LAB_CACHE/kernels
pristine=$work/pristine
mkdir -p "$k" "$pristine/mm" "$pristine/include" "$GUP_LAB_RESULTS"
echo 'int gup;' >"$pristine/mm/gup.c"
echo 'int mmap;' >"$pristine/mm/mmap.c"
echo '#define MM 1' >"$pristine/include/mm.h"
echo 'config X' >"$pristine/mm/Kconfig"
touch -d '2020-01-01' "$pristine"/*/*

# fresh KEY FILE=CONTENT...: a new directory of flavour f as
# build-flavour.sh leaves it before seeding: src/ linked from the pristine
# tree, each FILE patched now (a file of its own), build/ empty.
fresh() {
	local d=$k/f-$1 kv
	shift
	mkdir -p "$d/build"
	cp -al "$pristine" "$d/src"
	for kv in "$@"; do
		rm -f "$d/src/${kv%%=*}"
		echo "${kv#*=}" >"$d/src/${kv%%=*}"
	done
}

# tree KEY FILE=CONTENT...: a "built" one: fresh's, patched in 2021, with
# an object per source file from 2022, a .cmd naming the directory, a
# source link, and the markers build-flavour.sh writes.
tree() {
	local d=$k/f-$1 kv f
	fresh "$@"
	for kv in "${@:2}"; do
		touch -d '2021-01-01' "$d/src/${kv%%=*}"
	done
	mkdir -p "$d/build/mm"
	for f in gup mmap; do
		echo "obj $f" >"$d/build/mm/$f.o"
		echo "cmd_mm/$f.o := gcc -I$d/src/include -c $d/src/mm/$f.c" >"$d/build/mm/.$f.o.cmd"
		touch -d '2022-01-01' "$d/build/mm/$f.o" "$d/build/mm/.$f.o.cmd"
	done
	ln -s "$d/src" "$d/build/source"
	echo "$pristine" >"$d/.gup-lab-pristine"
	echo fraghash >"$d/.gup-lab-fragments"
	touch "$d/.gup-lab-built"
}

mtime() { stat -c %Y "$1"; }
# tap_newer A B DESCRIPTION: A's time stamp is later than B's.
tap_newer() {
	if [ "$(mtime "$1")" -gt "$(mtime "$2")" ]; then tap_ok "$3"; else
		tap_not_ok "$3"
		echo "#   $1: $(mtime "$1"), $2: $(mtime "$2")"
	fi
}
seed() {
	set +e
	out=$(patches/seed-build.sh f "$k/f-$1" "$pristine" "${2:-fraghash}" 2>&1)
	rc=$?
	set -e
}

old=aaaaaaaaaaaaaaaa new=bbbbbbbbbbbbbbbb
tree $old 'mm/gup.c=int gup_v1;' 'include/mm.h=#define MM 2'
fresh $new 'mm/gup.c=int gup_v2;' 'include/mm.h=#define MM 2'
seed $new
tap_is "$rc $out" "0 seeded from f-$old: 1 source file(s) differ" \
	"a one-file change to a series seeds from the last build: one file differs"
n=$k/f-$new
tap_is "$(cat "$n/build/mm/gup.o")" "obj gup" "the seed's objects are copied"
tap_is "$(stat -c %h "$n/build/mm/gup.o")" 1 \
	"... not hard linked (the compiler rewrites them in place)"
tap_is "$(cat "$n/build/mm/.gup.o.cmd")" "cmd_mm/gup.o := gcc -I$n/src/include -c $n/src/mm/gup.c" \
	"the .cmd files name the new directory"
tap_is "$(mtime "$n/build/mm/.gup.o.cmd")" "$(mtime "$k/f-$old/build/mm/.gup.o.cmd")" \
	"... and keep their time stamps"
tap_is "$(readlink "$n/build/source")" "$n/src" "build/source points at the new tree"
tap_is "$(mtime "$n/src/include/mm.h")" "$(mtime "$k/f-$old/src/include/mm.h")" \
	"a patched file whose content is the same gets the seed's time stamp (make rebuilds nothing for it)"
tap_newer "$n/src/mm/gup.c" "$n/build/mm/gup.o" \
	"the changed file is newer than its object (make rebuilds it)"
tap_is "$(mtime "$n/src/mm/mmap.c")" "$(mtime "$pristine/mm/mmap.c")" \
	"a file no series touched keeps the pristine tree's"

# A series that drops a file's patch: the file is the pristine one again,
# older than the seed's object; it must become newer, and the pristine
# tree's own file must not change.
new2=cccccccccccccccc
fresh $new2 'include/mm.h=#define MM 2'
before=$(mtime "$pristine/mm/gup.c")
seed $new2
tap_is "$rc $out" "0 seeded from f-$old: 1 source file(s) differ" \
	"a patch dropped from the series: that file differs"
tap_newer "$k/f-$new2/src/mm/gup.c" "$k/f-$new2/build/mm/gup.o" \
	"... it is newer than the seed's object (made from the patched one)"
tap_is "$(cat "$k/f-$new2/src/mm/gup.c")" "int gup;" "... with the pristine content"
tap_is "$(mtime "$pristine/mm/gup.c") $(stat -c %h "$k/f-$new2/src/mm/gup.c")" "$before 1" \
	"... in a file of its own: the pristine tree's time stamp is untouched"

# Kconfig changed: seeded, exit 2 (the config step runs again).
new3=dddddddddddddddd
fresh $new3 'mm/gup.c=int gup_v1;' 'include/mm.h=#define MM 2' 'mm/Kconfig=config Y'
seed $new3
tap_is "$rc" 2 "a Kconfig that differs: seeded, exit 2 (configure again)"

# No seed: other fragments, another pristine tree, an overlay's directory,
# or nothing built.
new4=eeeeeeeeeeeeeeee
fresh $new4 'mm/gup.c=int gup_v3;'
seed $new4 otherhash
tap_is "$rc $(find "$k/f-$new4/build" -mindepth 1 | wc -l)" "1 0" \
	"other config fragments: no seed (exit 1), nothing copied"
# Another flavour's build (same pristine tree, fragments and overlays)
# seeds when this one has none: the main job's gup-v7 from stock.  This
# flavour's own, even older, comes first (the inner loop).
mkdir -p "$k/g-1111111111111111"
cp -a "$k/f-$old/." "$k/g-1111111111111111/"
sed -i "s|$k/f-$old|$k/g-1111111111111111|g" "$k/g-1111111111111111/build/mm/".*.cmd
touch -d '2030-01-01' "$k/g-1111111111111111/.gup-lab-built"
seed $new4
tap_is "$rc $out" "0 seeded from f-$old: 2 source file(s) differ" \
	"this flavour's last build comes before a newer one of another flavour (gup.c and mm.h differ)"
rm "$k"/f-*/.gup-lab-built
new5=abababababababab
fresh $new5 'mm/gup.c=int gup_v1;' 'include/mm.h=#define MM 2'
seed $new5
tap_is "$rc $out" "0 seeded from g-1111111111111111: 0 source file(s) differ" \
	"no build of this flavour: another flavour's seeds it"
tap_is "$(cat "$k/f-$new5/build/mm/.gup.o.cmd")" \
	"cmd_mm/gup.o := gcc -I$k/f-$new5/src/include -c $k/f-$new5/src/mm/gup.c" \
	"... its .cmd files name the new directory, of another length"
rm -rf "$k/f-$new5"
mv "$k/g-1111111111111111" "$k/g+debug-1111111111111111"
fresh $new5 'mm/gup.c=int gup_v1;'
seed $new5
tap_is "$rc" 1 "no build of the same overlays (a +debug one does not count): exit 1"

# The inner loop's make: one flavour asked for builds only what its job
# stages (its kernel and module), not every flavour first.
tap_is "$(make -n matrix FLAVOUR=stock 2>&1 | grep -c 'build-flavour.sh' || true)" 0 \
	"make matrix FLAVOUR=F builds no other flavour's kernel first"
# shellcheck disable=SC2016 # a literal $f in make's output
tap_like "$(make -n matrix 2>&1)" 'patches/build-flavour.sh \$f' \
	"make matrix (every flavour) builds every kernel first"

# A seeded build's object count is no total: build-progress.sh neither
# records it nor reports it as one.
b=$work/progress
mkdir -p "$b"
printf '  CC      mm/gup.o\nKernel: arch/x86/boot/bzImage is ready  (#1)\n' >"$b/build.log"
echo 1894 >"$b/objects-pkg-base"
echo "seeded from stock-0123456789abcdef: 3 source file(s) differ" >"$b/seed.log"
GUP_LAB_BUILD_STATUS=$b/status.json patches/build-progress.sh f "$b/build.log" 999999999 "$b/objects-pkg"
tap_is "$(cat "$b/objects-pkg-base") $(jq -c '[.objects, .total, .finished]' "$b/status.json")" \
	"1894 [1,0,true]" "a seeded build leaves the recorded count alone and reports no total"
rm "$b/seed.log"
GUP_LAB_BUILD_STATUS=$b/status.json patches/build-progress.sh f "$b/build.log" 999999999 "$b/objects-pkg"
tap_is "$(cat "$b/objects-pkg-base") $(jq -c '[.objects, .total]' "$b/status.json")" \
	"1 [1,1894]" "an unseeded one reports its total and records its count"

# The progress line.
s=$work/steps.jsonl st=$work/status.json
: >"$s"
# no records and no runs (not the repository's or this machine's): the
# defaults and the run's own rate
export GUP_LAB_PROGRESS_RECORDED='{}' GUP_LAB_PROGRESS_RUNS='{}'
line() { jobs/lab-progress.sh "$s" "$st" 19 stock gup-v7 gup-v1 mainline gup-v9 ext4-2018; }
tap_like "$(line)" '^lab: step 1 of 19 · kernel stock · matrix 0/6 · consumers 0/6 · about [0-9]+ min left$' \
	"before anything: step 1, the first kernel, an estimate"
echo '{"flavour":"stock","objects":450,"total":1800,"seconds":300,"finished":false}' >"$st"
printf '%s\n' '{"step":"rootfs","seconds":100,"at":100}' >>"$s"
tap_like "$(line)" '^lab: step 2 of 19 · kernel stock 450/1800 objects · ' \
	"the root image done, the kernel building with its count"
printf '%s\n' '{"step":"kernel","flavour":"stock","built":true,"cached":false,"seconds":900,"objects":1800,"at":1000}' \
	'{"step":"matrix","flavour":"stock","ran":true,"at":1100}' >>"$s"
echo '{"flavour":"gup-v7","objects":900,"total":1800,"seconds":450,"finished":false}' >"$st"
# 5 kernels left at this run's 2 objects/s: 4.5 x 900 s, + 220 s of runs
tap_like "$(line)" '^lab: step 4 of 19 · kernel gup-v7 900/1800 objects · matrix 1/6 · consumers 0/6 · about 72 min left$' \
	"a kernel built at 2 objects/s: the rest estimated at that rate (4.5 x 900 s + the last runs)"
# With records: stock took 900 s of its recorded 1000 (speed 0.9): half of
# gup-v7's 400, then 400 + 1000 + 200 + 200, all x 0.9 = 1800 s, + 220 s of
# the last flavour's runs: 2020 s, 34 min.
tap_like "$(GUP_LAB_PROGRESS_RECORDED='{"stock":1000,"gup-v7":400,"gup-v1":400,"mainline":1000,"gup-v9":200,"ext4-2018":200}' line)" \
	' · about 34 min left$' "with recorded seconds: each flavour's record, scaled by this run's speed"
# A kernel past its record's count (latest's first record said 1541, a
# cold build compiled more): said, and the estimate a lower bound.
echo '{"flavour":"gup-v7","objects":2000,"total":1800,"seconds":900,"finished":false}' >"$st"
tap_like "$(line)" '^lab: step 4 of 19 · kernel gup-v7 2000 objects \(more than the 1800 recorded\) · matrix 1/6 · consumers 0/6 · at least [0-9]+ min left$' \
	"a kernel past its recorded count: said, and 'at least'"
for f in gup-v7 gup-v1 mainline gup-v9 ext4-2018; do
	echo "{\"step\":\"kernel\",\"flavour\":\"$f\",\"built\":true,\"cached\":true,\"seconds\":1,\"objects\":null,\"at\":2000}" >>"$s"
done
tap_like "$(line)" '^lab: step 9 of 19 · kernels built · matrix 1/6 · consumers 0/6 · about [0-9]+ min left$' \
	"every kernel built: the runs left"
# patches/config-cost.sh on two fake build trees: the objects one compiled
# and the other did not, each with the option that gated it (an unknown
# one is "other", never hidden); --no-time compiles nothing.
mk_obj() {
	mkdir -p "$1/$(dirname "$2")"
	echo "savedcmd_$2 := ccache gcc -Wp,-MMD,x.d -c -o $2 $2.c" >"$1/$(dirname "$2")/.$(basename "$2").cmd"
}
for t in old new; do
	mkdir -p "$work/cc-$t"
	echo 'CONFIG_X=y' >"$work/cc-$t/.config"
	mk_obj "$work/cc-$t" mm/gup.o
done
mk_obj "$work/cc-old" fs/xfs/scrub/agheader.o
mk_obj "$work/cc-old" drivers/misc/mei/init.o
mk_obj "$work/cc-old" drivers/foo/bar.o
mk_obj "$work/cc-new" net/9p/client.o
cost=$(patches/config-cost.sh --no-time "$work/cc-old" "$work/cc-new")
tap_is "$(jq -rc 'select(.object) | [.object, .option] | join(" ")' <<<"$cost" | paste -sd,)" \
	"drivers/foo/bar.o other,drivers/misc/mei/init.o INTEL_MEI,fs/xfs/scrub/agheader.o XFS_ONLINE_SCRUB" \
	"config-cost.sh: each object only the old tree compiled, with its option (other when the table has none)"
tap_is "$(jq -c 'select(.removed)' <<<"$cost")" '{"removed":3,"added":1,"seconds":0}' \
	"config-cost.sh: the totals: 3 removed, 1 added, nothing timed with --no-time"
tap_is "$(patches/config-cost.sh "$work/cc-old" 2>&1; echo "status $?")" \
	"patches/config-cost.sh: want OLD_BUILD NEW_BUILD, two kernel build trees (see --help)
status 2" "config-cost.sh: one tree is a usage error"

# jobs/bench-boot.sh's usage errors, before anything is built or booted
tap_is "$(jobs/bench-boot.sh --rounds 0 2>&1; echo "status $?")" \
	"jobs/bench-boot.sh: --rounds takes a number from 1
status 2" "bench-boot: --rounds 0 is a usage error"
tap_is "$(jobs/bench-boot.sh --nope 2>&1; echo "status $?")" \
	"jobs/bench-boot.sh: unknown option '--nope' (see --help)
status 2" "bench-boot: an unknown option is a usage error"
tap_like "$(jobs/bench-boot.sh --help)" "vng --run BZIMAGE --exec true" "bench-boot --help says what it boots"
tap_done
