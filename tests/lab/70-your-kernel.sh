#!/bin/bash
# Your kernel end to end (docs/your-kernel.md): the tree GUP_LAB_TEST_TREE
# (a 6.1 or 6.12 kernel source tree, clean of in-tree builds) run as
# `make matrix KERNEL=DIR` runs it: registered (patches/user-kernel.sh),
# its kernel built if it changed (patches/build-mine.sh), its policy
# detected (job_detect: one boot) unless GUP_LAB_TEST_TREE_POLICY names
# it, the quick matrix run (jobs/matrix.sh --quick).  Checks: the tree is
# byte-identical before and after (every file's content and mode, .git
# included, symbolic links' targets); the run names the kernel NAME@ID
# everywhere (run.json, the flavour's document), records where it came
# from and how its policy was chosen; the published latest links do not
# move; the run passes; `gupctl diff` of the run with itself exits 0.
#
# The kernel must already be built: a tree's first build is a cold kernel
# build (25-45 min on 2 cores, docs/your-kernel.md), too long for make
# check, so without GUP_LAB_TEST_TREE, or with a tree whose kernel is not
# in the cache (GUP_LAB_TEST_BUILD=1 builds it), each test is a SKIP that
# says so.
#
#   GUP_LAB_TEST_TREE=DIR [GUP_LAB_TEST_TREE_POLICY=P] tests/lab/70-your-kernel.sh
# shellcheck source=../suite.sh
. "$(dirname "$0")/../suite.sh"
# shellcheck source=../../jobs/lib.sh
. jobs/lib.sh

tests=("the tree is byte-identical after the run" "the run passes"
	"run.json: the kernel's name, its tree and state, how its policy was chosen"
	"its document carries the same name" "the latest links did not move"
	"gupctl diff of the run with itself: exit 0")
skip_all() {
	local t
	for t in "${tests[@]}"; do tap_skip "$t" "$1"; done
	tap_done
	exit 0
}

tree=${GUP_LAB_TEST_TREE:-}
[ -n "$tree" ] || skip_all "no GUP_LAB_TEST_TREE: give a kernel tree whose kernel is built"
name=$(patches/user-kernel.sh register --kernel "$tree" --name test \
	${GUP_LAB_TEST_TREE_POLICY:+--policy "$GUP_LAB_TEST_TREE_POLICY"} 2>"$work/register.err") || {
	sed 's/^/# /' "$work/register.err"
	skip_all "the tree cannot be registered"
}
d=$(flavour_dir "$name")
if [ "${GUP_LAB_TEST_BUILD:-0}" != 1 ] && { [ ! -f "$d/.gup-lab-built" ] ||
	[ "$(cat "$d/.gup-lab-built")" != "$(flavour_key "$name")" ]; }; then
	skip_all "$name is not built (GUP_LAB_TEST_BUILD=1 builds it: a cold kernel build)"
fi

before=$(tree_fingerprint "$tree")
latest=$(readlink "$LAB_RESULTS/matrix/latest" 2>/dev/null || echo none)
set +e
jobs/matrix.sh --quick "$name" >"$work/matrix.out" 2>"$work/matrix.err"
status=$?
set -e
tap_is "$(tree_fingerprint "$tree")" "$before" "${tests[0]}"
tap_is "$status" 0 "${tests[1]}"
[ "$status" -eq 0 ] || sed -n '1,40s/^/# /p' "$work/matrix.out" "$work/matrix.err"
run=$(sed -n 's/^results: //p' "$work/matrix.out")
policy=${GUP_LAB_TEST_TREE_POLICY:-$(flavour_policy "$name")}
tap_is "$(jq -r '.flavours[0] | "\(.name) \(.kernel.tree) \(.kernel.state) \(.policy.name) \(.policy.how)"' \
	"$run/run.json" 2>&1)" \
	"$name $(jq -r '"\(.tree) \(.state)"' "$LAB_CACHE/user/$name.json") $policy $([ -n "${GUP_LAB_TEST_TREE_POLICY:-}" ] &&
		echo given || echo detected)" "${tests[2]}"
tap_is "$(jq -r .flavour "$run/$name.json" 2>&1)" "$name" "${tests[3]}"
tap_is "$(readlink "$LAB_RESULTS/matrix/latest" 2>/dev/null || echo none)" "$latest" "${tests[4]}"
set +e
userspace/gupctl diff "$run:$name" "$run:$name" >"$work/diff.out" 2>&1
status=$?
set -e
tap_is "$status" 0 "${tests[5]}"
[ "$status" -eq 0 ] || sed -n '1,20s/^/# /p' "$work/diff.out"
tap_done
