#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# What a reader follows resolves (tests/docs-check.sh): every relative link
# and anchor of the Markdown pages, no link into results/, every `gupctl
# --help` pointer to a section of its guide and every option of that help
# in the section, every .PHONY target with a rule, every GUP_LAB_*
# variable in docs/environment.md.  First on the
# repository (nothing may be found), then on a copy with one problem of
# each kind planted, each of which must be found.
# Output: TAP version 13.  Exit status: 0 if every test passed.
# shellcheck source=../suite.sh
. "$(dirname "$0")/../suite.sh"

make -s -C userspace gupctl 2>/dev/null || true
found=$(tests/docs-check.sh 2>&1) && st=0 || st=$?
tap_is "$st" 0 "the repository: every link, anchor, --help section and .PHONY target resolves"
[ -z "$found" ] || while read -r l; do echo "#   $l"; done <<<"$found"

# The copy: the tracked files (what the pages link to) and gupctl, each
# problem planted once
copy=$work/copy
mkdir -p "$copy"
git ls-files -z | xargs -0 cp --parents -t "$copy" 2>/dev/null || true
cp userspace/gupctl "$copy/userspace/gupctl"
printf '\nSee [the guide](no-such-page.md) and [a section](lab.md#no-such-section).\n' \
	>>"$copy/docs/performance.md"
printf '\nThe last run: [results](../results/lab/latest).\n' >>"$copy/docs/results.md"
# the section gupctl longterm --help points to, gone
sed -i 's/^## gupctl longterm$/## gupctl long-term/' "$copy/docs/gupctl.md"
sed -i 's/^\.PHONY: /.PHONY: no-such-target /' "$copy/Makefile"
# an option of gupctl pin's help the page no longer mentions
sed -i 's/--thp/--t-h-p/g' "$copy/docs/gupctl.md"
# a command dropped from gupctl.md's index
sed -i '/^| \[.gupctl slice.\]/d' "$copy/docs/gupctl.md"
# a target's help line changed in the Makefile, not in README.md
sed -i 's/^#> this table /#> this very table /' "$copy/Makefile"
# a variable the code reads, gone from the environment page
sed -i "s/GUP_LAB_HOST_JOBS\\b/GUP_LAB_HOST_JOB/" "$copy/docs/environment.md"
n=$(wc -l <"$copy/docs/performance.md")
found=$(tests/docs-check.sh "$copy" 2>&1) && st=0 || st=$?
tap_is "$st" 1 "the planted copy: found (exit 1)"
tap_like "$found" "docs/performance.md:$n: no such file: no-such-page.md" "a dead link: found, with its line"
tap_like "$found" "docs/performance.md:$n: no heading #no-such-section in docs/lab.md" \
	"an anchor to a missing heading: found"
tap_like "$found" "docs/results.md:[0-9]+: links into results/, which is not in git: ../results/lab/latest" \
	"a link into results/: found"
tap_like "$found" 'gupctl longterm --help: docs/gupctl.md has no section "gupctl longterm"' \
	"a --help pointer to a missing section: found"
tap_like "$found" "Makefile: .PHONY names 'no-such-target', which has no rule" \
	"a .PHONY target without a rule: found"
tap_like "$found" "gupctl pin --help: --thp is not in docs/gupctl.md's section \"gupctl pin\"" \
	"an option of the help missing from its section: found"
tap_like "$found" "docs/environment.md: GUP_LAB_HOST_JOBS, which the code reads, is not in its tables" \
	"a GUP_LAB_ variable missing from docs/environment.md: found"
tap_like "$found" "README.md: the quick start's table is not what make help prints" \
	"README.md's table out of step with make help: found"
tap_like "$found" "docs/gupctl.md: its command index lacks gupctl slice as its --help says it: " \
	"a command missing from gupctl.md's index: found"
tap_like "$found" "docs/gupctl.md:[0-9]+: no heading #gupctl-longterm in docs/gupctl.md" \
	"... and the index's link to the renamed section: found"
tap_is "$(wc -l <<<"$found")" 10 "nothing else found in the copy"
tap_done
