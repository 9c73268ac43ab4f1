#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# What a reader of the repository follows and must find: every relative
# link and anchor of the Markdown pages, no link into results/ (not in
# git), every `gupctl --help` pointer to a section of a guide and every
# long option of that help in its section, every .PHONY target of the
# Makefile with a rule, and every GUP_LAB_* variable the code reads in
# docs/environment.md.  One line per problem on
# stdout ("FILE:LINE: what"), nothing when all resolve.
#
#   tests/docs-check.sh [ROOT]     (default: the repository)
#
# ROOT is a tree laid out as the repository (tests/host/docs_links.sh
# plants problems in a copy).  The --help pointers are read from ROOT's
# userspace/gupctl when it is built, else left out (said on stderr).
# Exit status: 0 nothing found; 1 a problem; 2 usage error.
set -euo pipefail
root=${1:-$(cd "$(dirname "$0")/.." && pwd)}
[ -d "$root" ] || { echo "tests/docs-check.sh: $root: not a directory" >&2; exit 2; }
cd "$root"

# slugs FILE: the anchors of FILE's headings, as GitHub makes them
# (lower case; letters, digits, spaces, '-' and '_' kept; spaces to '-';
# a repeated heading gets -1, -2, ...), one per line
slugs() {
	awk '/^```/ { code = !code } !code && /^#+ / {
		h = $0; sub(/^#+ +/, "", h); h = tolower(h)
		gsub(/[^a-z0-9 _-]/, "", h); gsub(/ /, "-", h)
		if (seen[h]++) h = h "-" (seen[h] - 1)
		print h }' "$1"
}

# The pages: the repository's Markdown, generated pages included (they are
# what a reader opens).
mapfile -t pages < <(git ls-files '*.md' 2>/dev/null || find . -name '*.md' -not -path './results/*' | sed 's|^\./||')
problems=0
say() {
	echo "$1"
	problems=$((problems + 1))
}

for page in "${pages[@]}"; do
	[ -f "$page" ] || continue
	dir=$(dirname "$page")
	# "LINE<TAB>TARGET" for each [text](target) outside code blocks and
	# code spans
	while IFS=$'\t' read -r line target; do
		case $target in
		http://* | https://* | mailto:*) continue ;;
		esac
		file=${target%%#*}
		anchor=''
		[[ $target != *'#'* ]] || anchor=${target#*#}
		if [ -z "$file" ]; then
			path=$page
		else
			path=$(realpath -m --relative-to=. "$dir/$file")
		fi
		case $path in
		results | results/* | */results/*)
			say "$page:$line: links into results/, which is not in git: $target"
			continue ;;
		esac
		if [ ! -e "$path" ]; then
			say "$page:$line: no such file: $target"
			continue
		fi
		if [ -n "$anchor" ] && [[ $path == *.md ]] && ! slugs "$path" | grep -qxF "$anchor"; then
			say "$page:$line: no heading #$anchor in $path"
		fi
	done < <(awk '/^```/ { code = !code; next } !code {
		l = $0; gsub(/`[^`]*`/, "", l)
		while (match(l, /\]\([^) ]+\)/)) {
			print NR "\t" substr(l, RSTART + 2, RLENGTH - 3)
			l = substr(l, RSTART + RLENGTH)
		} }' "$page")
done

# gupctl's --help: "The guide: FILE, section "TITLE"." names a heading
if [ -x userspace/gupctl ]; then
	mapfile -t cmds < <(userspace/gupctl help 2>/dev/null |
		awk '/^  [a-z]/ { print $1 }')
	# the command index at the top of docs/gupctl.md: each command with
	# the line gupctl --help gives it
	userspace/gupctl help 2>/dev/null | awk '/^  [a-z]/' | while read -r c what; do
		grep -qxF "| [\`gupctl $c\`](#gupctl-$c) | $what |" docs/gupctl.md ||
			echo "docs/gupctl.md: its command index lacks gupctl $c as its --help says it: $what"
	done >"${TMPDIR:-/tmp}/docs-check.$$.index"
	while read -r l; do say "$l"; done <"${TMPDIR:-/tmp}/docs-check.$$.index"
	rm -f "${TMPDIR:-/tmp}/docs-check.$$.index"
	for c in "${cmds[@]}"; do
		userspace/gupctl "$c" --help 2>/dev/null |
			sed -n 's/^The guide: \([^,]*\), section "\(.*\)"\.$/\1\t\2/p' |
			while IFS=$'\t' read -r file title; do
				if [ ! -f "$file" ]; then
					echo "gupctl $c --help: no such guide: $file"
				elif ! awk '/^```/ { code = !code } !code && /^#+ /' "$file" |
					sed 's/^#* *//; s/`//g' | grep -qxF "$title"; then
					echo "gupctl $c --help: $file has no section \"$title\""
				fi
			done
		# each long option of the help, in the command's section (from
		# its heading to the next heading of its level or above)
		opts=$(userspace/gupctl "$c" --help 2>/dev/null |
			grep -oE '^ +(-[a-zA-Z], )?--[a-z0-9-]+' | grep -oE -- '--[a-z0-9-]+' |
			grep -vx -- --help | sort -u || true)
		section=$(awk -v t="gupctl $c" '/^```/ { code = !code }
			!code && /^#+ / { l = index($0, " ") - 1; h = substr($0, l + 2)
				gsub(/`/, "", h)
				if (h == t) { on = 1; level = l; next }
				if (on && l <= level) on = 0 }
			on' docs/gupctl.md)
		for o in $opts; do
			grep -qF -- "$o" <<<"$section" ||
				echo "gupctl $c --help: $o is not in docs/gupctl.md's section \"gupctl $c\""
		done
	done >"${TMPDIR:-/tmp}/docs-check.$$"
	while read -r l; do say "$l"; done <"${TMPDIR:-/tmp}/docs-check.$$"
	rm -f "${TMPDIR:-/tmp}/docs-check.$$"
else
	echo "tests/docs-check.sh: userspace/gupctl not built: its --help pointers not checked" >&2
fi

# The Makefile: every .PHONY target has a rule
if [ -f Makefile ]; then
	read -ra phony <<<"$(sed -n 's/^\.PHONY: *//p' Makefile)"
	for t in "${phony[@]}"; do
		grep -qE "^$t:" Makefile || say "Makefile: .PHONY names '$t', which has no rule"
	done
fi
# README.md's quick-start table is what `make help` prints
if [ -f Makefile ] && grep -q '^<!-- make help: begin -->$' README.md; then
	diff <(sed -n '/^<!-- make help: begin -->$/,/^<!-- make help: end -->$/p' README.md |
		sed '1,3d;$d') <(make -s help 2>&1) >/dev/null ||
		say "README.md: the quick start's table is not what make help prints"
fi

# Every GUP_LAB_* variable the code reads is in docs/environment.md's
# tables (GUP_LAB_KEY_<FLAVOUR> as GUP_LAB_KEY_).
if [ -f docs/environment.md ]; then
	while read -r v; do
		grep -qF "\`$v" docs/environment.md ||
			say "docs/environment.md: $v, which the code reads, is not in its tables"
	done < <({ git ls-files 2>/dev/null || find . -type f -not -path './results/*' -not -path './.git/*'; } |
		grep -v '\.md$' | tr '\n' '\0' | xargs -0 grep -IhoE 'GUP_LAB_[A-Z0-9_]+' 2>/dev/null | sort -u)
fi
[ "$problems" -eq 0 ]
