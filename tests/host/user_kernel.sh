#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Host tests of your kernel as a flavour (patches/user-kernel.sh, the
# flavour functions of patches/flavours.sh that read what it registers),
# no build, no guest: synthetic kernel trees (a top Makefile, Kconfig,
# mm/, include/linux/mm.h with the GUP calls the driver makes) in a
# throw-away cache.  Names follow the tree's state (git commit, uncommitted
# changes, plain content), bad trees fail before any build with why, and
# the tree is byte-identical afterwards (.git included).
# Output: TAP version 13.  Exit status: 0 if every test passed.
# shellcheck source=../suite.sh
. "$(dirname "$0")/../suite.sh"

TMP=$work
# a throw-away cache, for this shell and the scripts it runs
export GUP_LAB_CACHE=$TMP/cache
# shellcheck disable=SC2034 # read by patches/flavours.sh's functions
LAB_CACHE=$GUP_LAB_CACHE
uk=patches/user-kernel.sh
# tap_isnt GOT UNWANTED DESCRIPTION
tap_isnt() {
	if [ "$1" != "$2" ]; then tap_ok "$3"; else tap_not_ok "$3"; echo "#   both: '$1'"; fi
}
git_lab() {
	git -C "$1" -c user.name=lab -c user.email=lab@example.org "${@:2}"
}

# tree DIR PATCHLEVEL: a kernel tree as far as registration reads it.
tree() {
	mkdir -p "$1/mm" "$1/include/linux" "$1/fs/ext4"
	printf 'VERSION = 6\nPATCHLEVEL = %s\nSUBLEVEL = 0\n' "$2" >"$1/Makefile"
	echo 'source "mm/Kconfig"' >"$1/Kconfig"
	echo 'int gup(void);' >"$1/mm/gup.c"
	printf 'long %s(void);\n' pin_user_pages pin_user_pages_fast pin_user_pages_remote \
		pin_user_pages_unlocked get_user_pages get_user_pages_fast get_user_pages_remote \
		get_user_pages_unlocked unpin_user_pages_dirty_lock folio_maybe_dma_pinned \
		>"$1/include/linux/mm.h"
	echo '"page %lu does not have buffers attached"' >"$1/fs/ext4/inode.c"
	ln -s mm "$1/mm-link"
}


# register ARGS...: the name printed, or "FAIL(status): last stderr line".
register() {
	local out status=0
	out=$("$uk" register "$@" 2>"$TMP/err") || status=$?
	if [ "$status" -eq 0 ]; then echo "$out"; else echo "FAIL($status): $(tail -1 "$TMP/err")"; fi
}

# A git work tree: clean, then a tracked change, then an untracked file.
tree "$TMP/g" 1
git_lab "$TMP/g" init -q
git_lab "$TMP/g" add -A
git_lab "$TMP/g" commit -q -m base
commit=$(git -C "$TMP/g" rev-parse HEAD)
before=$(tree_fingerprint "$TMP/g")
n1=$(register --kernel "$TMP/g")
tap_is "$n1" "mine@${commit:0:12}" "a clean git tree is mine@ its commit's 12 hex"
tap_is "$(tree_fingerprint "$TMP/g")" "$before" "registering leaves the tree, .git included, byte-identical"
tap_is "$(register --kernel "$TMP/g")" "$n1" "registering again: the same name"
{
	tap_is "$(flavour_field "$n1" 2) $(flavour_field "$n1" 3) $(flavour_field "$n1" 4) $(flavour_field "$n1" 5)" \
		"- detect warn 6.1" "its flavour line: no series, policy detected, ext4 warn, source 6.1"
	tap_is "$(flavour_policy "$n1")" detect "no POLICY=, not yet detected: flavour_policy says detect"
	mkdir -p "$GUP_LAB_CACHE/detect"
	echo '{"policy": null, "evidence": "test"}' >"$(flavour_detected "$n1")"
	tap_is "$(flavour_policy "$n1")" none "detected, no known policy matched: none"
	echo '{"policy": "v7", "evidence": "test"}' >"$(flavour_detected "$n1+debug")"
	tap_is "$(flavour_policy "$n1+debug")" v7 "an overlay of it shares its base's detection"
	tap_like "$(flavour_dir "$n1")" "/kernels/tree-[0-9a-f]{16}$" "its build directory: one per tree (kernels/tree-ID)"
	tap_is "$(flavour_dir "$n1+debug")" "$(flavour_dir "$n1")+debug" "an overlay builds beside it (tree-ID+debug)"
	k1=$(flavour_key "$n1")
	tap_like "$k1" '^[0-9a-f]{16}$' "its key: 16 hex"
	tap_isnt "$(flavour_key "$n1+debug")" "$k1" "an overlay changes the key"
	tap_is "$(flavour_key "$("$uk" register --kernel "$TMP/g" --name other 2>/dev/null)")" "$k1" \
		"another NAME for the same state: the same kernel (key)"
}
echo '/* one line */' >>"$TMP/g/mm/gup.c"
before=$(tree_fingerprint "$TMP/g")
n2=$(register --kernel "$TMP/g")
tap_like "$n2" "^mine@${commit:0:8}-[0-9a-f]{6}$" "a tracked change: mine@ commit 8 hex - changes 6 hex"
tap_is "$(tree_fingerprint "$TMP/g")" "$before" "a dirty tree stays byte-identical too (no index refresh)"
echo new >"$TMP/g/mm/new.c"
n3=$(register --kernel "$TMP/g")
tap_isnt "$n3" "$n2" "an untracked file changes the name ($n2 -> $n3)"
tap_like "$n3" "^mine@${commit:0:8}-" "... and keeps the commit's part"
tap_is "$("$uk" state "$TMP/g")" "$(jq -r .state "$GUP_LAB_CACHE/user/$n3.json")" \
	"state: what build-mine.sh checks, the registered state"

# A plain tree: its content decides; a symbolic link's target too.
tree "$TMP/p" 12
p1=$(register --kernel "$TMP/p" --name plain --policy mainline)
tap_like "$p1" '^plain@[0-9a-f]{12}$' "a plain tree: NAME@ its content's 12 hex"
tap_is "$(cut -d' ' -f3,5 "$GUP_LAB_CACHE/user/$p1.flavour")" "mainline 6.12" "POLICY= and the version recorded"
touch -d @0 "$TMP/p/mm/gup.c"
tap_is "$(register --kernel "$TMP/p" --name plain --policy mainline)" "$p1" "a plain tree's mtime does not change its name"
ln -sfn include "$TMP/p/mm-link"
tap_isnt "$(register --kernel "$TMP/p" --name plain)" "$p1" "a changed symbolic link changes the name"
# A 7.3 tree: the version the latest flavour is, detected and recorded.
tree "$TMP/l" 3
sed -i 's/^VERSION = 6/VERSION = 7/' "$TMP/l/Makefile"
l1=$(register --kernel "$TMP/l" --name seven --policy latest)
tap_like "$l1" '^seven@[0-9a-f]{12}$' "a 7.3 tree registers"
tap_is "$(cut -d' ' -f3,5 "$GUP_LAB_CACHE/user/$l1.flavour")" "latest 7.3" \
	"a 7.3 tree: POLICY=latest and the version 7.3 recorded (a model for every job)"
sed -i 's/does not have buffers attached/BUG/' "$TMP/p/fs/ext4/inode.c"
p2=$(register --kernel "$TMP/p" --name plain)
tap_is "$(cut -d' ' -f4 "$GUP_LAB_CACHE/user/$p2.flavour")" bug "no cc5095747edf warning in fs/ext4/inode.c: ext4 bug"

# What fails before any build, and why.
tree "$TMP/old" 15
sed -i 's/^VERSION = 6/VERSION = 5/' "$TMP/old/Makefile"
tap_like "$(register --kernel "$TMP/old")" "FAIL\(1\): .*linux 5\.15: the lab builds and models 6\.1, 6\.12 and 7\.3.*module/gup_compat\.h" \
	"linux 5.15: refused, naming the versions and where support grows"
tree "$TMP/noapi" 1
sed -i '/pin_user_pages_unlocked/d; /folio_maybe_dma_pinned/d' "$TMP/noapi/include/linux/mm.h"
tap_like "$(register --kernel "$TMP/noapi")" "FAIL\(1\): .*lacks what gup_pin_test\.ko calls.*: pin_user_pages_unlocked folio_maybe_dma_pinned" \
	"a tree without two GUP calls: refused, naming both"
tree "$TMP/built" 1
touch "$TMP/built/.config"
tap_like "$(register --kernel "$TMP/built")" "FAIL\(1\): .*in-tree build.*make mrproper" \
	"an in-tree build: refused (O= needs a clean tree; the lab never cleans yours)"
tap_like "$(register --kernel "$TMP/nowhere")" "FAIL\(1\): .*KERNEL=.*: no such directory" "a missing directory"
tree "$TMP/with space" 1
tap_like "$(register --kernel "$TMP/with space")" "FAIL\(1\): .*has a space or a colon" \
	"a path with a space: refused before the build Kbuild would refuse"
mkdir -p "$TMP/notkernel"
tap_like "$(register --kernel "$TMP/notkernel")" "FAIL\(1\): .*is not a kernel source tree" "a directory that is no kernel tree"
tap_like "$(register --kernel "$TMP/g" --policy v8)" "FAIL\(2\): .*--policy 'v8'" "an unknown policy: usage error"
tap_like "$(register --kernel "$TMP/g" --name 'My Kernel')" "FAIL\(2\): .*--name" "a name with spaces: usage error"
tap_like "$(register --kernel "$TMP/g" --series "$TMP/x.mbx" --base stock)" "FAIL\(2\): .*give --kernel or --series, not both" \
	"KERNEL and SERIES together: usage error"

# A series: a directory, or an mbox whose cover letter (no diff) is skipped.
mkdir -p "$TMP/s"
printf 'From 0 Mon Sep 17 00:00:00 2001\nFrom: a <a@b>\nSubject: [PATCH 0/2] cover\n\nno diff here\n\n' >"$TMP/s.mbx"
for i in 1 2; do
	printf 'From %s Mon Sep 17 00:00:00 2001\nFrom: a <a@b>\nSubject: [PATCH %s/2] p\n\n---\ndiff --git a/mm/f%s.c b/mm/f%s.c\n--- a/mm/f%s.c\n+++ b/mm/f%s.c\n@@ -1 +1 @@\n-a\n+b\n' \
		"$i" "$i" "$i" "$i" "$i" "$i" | tee "$TMP/s/000$i-p.patch" >>"$TMP/s.mbx"
done
s1=$(register --series "$TMP/s.mbx" --base gup-v7)
tap_like "$s1" '^mine@[0-9a-f]{12}$' "an mbox on gup-v7: mine@ID"
tap_is "$(find "$GUP_LAB_CACHE/user/$s1.patches" -name '*.patch' | wc -l)" 2 "its two patches kept, the cover letter left out"
tap_is "$(cut -d' ' -f2-5 "$GUP_LAB_CACHE/user/$s1.flavour")" "gup-test-longterm,gup-v7 detect warn 6.1" \
	"on top of gup-v7's series, gup-v7's ext4 and source"
{
	tap_is "$(flavour_patches "$s1" | tail -2 | xargs -n1 basename | paste -sd' ')" "0001.patch 0002.patch" \
		"flavour_patches: gup-v7's, then the series' own, in order"
	tap_like "$(flavour_dir "$s1")" "/kernels/$s1-[0-9a-f]{16}$" "built like a flavour: kernels/NAME-KEY"
}
tap_is "$(register --series "$TMP/s.mbx" --base gup-v7)" "$s1" "the same mbox again: the same name"
s2=$(register --series "$TMP/s" --base gup-v7)
tap_is "$(find "$GUP_LAB_CACHE/user/$s2.patches" -name '*.patch' | wc -l)" 2 "a directory of patches: the same two"
tap_isnt "$(register --series "$TMP/s.mbx" --base gup-v9)" "$s1" "another base: another name"
tap_like "$(register --series "$TMP/s.mbx")" "FAIL\(2\): .*--series needs --base" "SERIES without BASE: usage error"
tap_like "$(register --series "$TMP/s.mbx" --base gup-v8)" "FAIL\(1\): .*BASE=gup-v8: not a flavour" "an unknown BASE"
printf 'From 0 Mon Sep 17 00:00:00 2001\nSubject: nothing\n\nno patch\n' >"$TMP/empty.mbx"
tap_like "$(register --series "$TMP/empty.mbx" --base stock)" "FAIL\(1\): .*no patches in" "an mbox without a patch"

# A file git mailsplit rejects (patches as a mail client saves them: no
# "From " line): its line 1, and what an mbox starts with.
cp "$TMP/s/0001-p.patch" "$TMP/nombox.patch"
sed -i 1d "$TMP/nombox.patch"
tap_like "$(register --series "$TMP/nombox.patch" --base stock)" \
	"FAIL\(1\): .*git mailsplit rejects it\. Its line 1 is 'From: a <a@b>'; an mbox starts each message with a 'From ' line" \
	"a file that is not an mbox: its line 1, and what an mbox must start with"

# A series that does not apply (patches/apply-series.sh, build-mine.sh's
# step): the first applies, the second's hunk fails; the file and the hunk
# are named, from patch --dry-run on the tree as it stands.
mkdir -p "$TMP/ap/mm"
printf 'a\n' >"$TMP/ap/mm/f1.c"
printf 'x\n' >"$TMP/ap/mm/f2.c"
st=0
patches/apply-series.sh "$TMP/ap" "one=$TMP/s/0001-p.patch" "two=$TMP/s/0002-p.patch" 2>"$TMP/ap.err" || st=$?
tap_is "$st $(cat "$TMP/ap/mm/f1.c")" "1 b" "apply-series: exit 1 at the patch that fails, the one before applied"
tap_like "$(paste -sd'|' "$TMP/ap.err")" \
	"two does not apply with -F0; patch --dry-run says:\|gup-lab:   checking file mm/f2\.c\|gup-lab:   Hunk #1 FAILED at 1\." \
	"apply-series: names the patch, its file and the hunk that failed"

# The Makefile's way in: nothing given prints nothing; BASE alone is a mistake.
tap_is "$("$uk" from-make '' '' '' '' '')" "" "make without KERNEL or SERIES: no kernel of yours"
tap_is "$("$uk" from-make "$TMP/g" '' '' mine '' 2>/dev/null)" "$n3" "make KERNEL=DIR NAME=mine: the same name as register"
tap_like "$("$uk" from-make '' '' stock '' '' 2>&1 || true)" "BASE=stock goes with SERIES" "make BASE= alone: usage error"

# A detection boot's console (jobs/lib.sh's job_detect_console): the
# WARNINGs probe cells may cause pass, a BUG does not.
(
	# shellcheck source=../../jobs/lib.sh
	. jobs/lib.sh
	printf '%s\n' '[    1.0] gup-lab: detect cell 2306' \
		'[    1.1] WARNING: CPU: 0 PID: 46 at mm/gup.c:1113 check_vma_flags+0x69/0xac' >"$TMP/warn.log"
	cp "$TMP/warn.log" "$TMP/bug.log"
	echo '[    1.2] kernel BUG at fs/ext4/inode.c:2658!' >>"$TMP/bug.log"
	job_detect_console "$TMP/warn.log" >"$TMP/warn.json" && echo "warn 0" || echo "warn $?"
	job_detect_console "$TMP/bug.log" >"$TMP/bug.json" 2>"$TMP/bug.err" && echo "bug 0" || echo "bug $?"
	jq -r 'map(.kind) | join(",")' "$TMP/warn.json" "$TMP/bug.json"
) >"$TMP/console.out" 2>&1
tap_is "$(paste -sd' ' "$TMP/console.out")" "warn 0 bug 1 warning warning,bug" \
	"a detection boot's console: a WARNING passes (status 0), a BUG fails it (1); the reports kept"
tap_like "$(cat "$TMP/bug.err")" "bug: kernel BUG at fs/ext4/inode.c:2658" "... and the BUG is named"

tap_done
