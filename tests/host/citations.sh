#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Every kernel file:line the lab publishes, checked against the tree of the
# flavour it speaks of (issue 25): the reasons gupctl gives before a run
# (matrix --expect, consumers expect, repro ext4-2018 --expect, longterm
# expect, holders cells, for each flavour's policy and ext4 column), so that a wrong
# citation shows before a page is remade, and the generated pages of docs/
# (those whose header says "generated", and docs/matrix-learned.md, which
# docs/matrix.md appends).
#
# Which tree: a flavour's patched tree, $(flavour_dir F)/src as
# patches/build-flavour.sh leaves it (mainline: Debian's 6.12 as packaged).
# A reason of policy P and ext4 column E is checked in the tree of each
# flavour with that policy and column (stock's reasons in stock's tree,
# ext4-2018's in ext4-2018's).  On a page: a section whose heading names a
# flavour (`F`), a table row whose first cell is one (F or F+overlays), a
# bullet "- F...: " or "- **...**, F: " speak of F; a bullet "- 6.12.N: "
# of mainline, "- 7.3.N: " of latest; a footnote "N. " or a note "- **TN**: " of every flavour
# whose rows cite [N] or TN; a citation followed by " (F: " or preceded by
# "F's " of F; a citation right after a version, "6.1 ", "6.12 ", "7.3 ", "v1 ",
# "v7 " or "v9 ", of stock, mainline, latest, gup-v1, gup-v7 or gup-v9 (gupctl
# holders cells' reasons name both versions); anything else of stock
# (6.1.192 as the lab builds it).
#
# The rule: the names next to a citation are the code words of the text
# before it, back to the previous citation or a ";", ". " or tab (and, to
# match only, forward to the next one): a word followed by "(", one with
# an underscore, an errno name, a word beside = < > ?, a 'quoted text',
# and "warning"/"WARNING"/"BUG" for a kernel report's site.  Each line or
# range cited (a range neither starts nor ends on a blank line) must
#   (1) hold one of those names in its code (comments stripped; a quoted
#       text anywhere on the line), or
#   (2) for a report's WARN or BUG, call a macro or inline function of
#       include/ whose body holds it (BUG (fs/ext4/inode.c:2658), where
#       page_buffers() BUG_ONs), or
#   (3) be code inside a function the text names before it, when that
#       function holds none of the text's other names: nothing more
#       precise to point at ("is_valid_gup_flags() (mm/gup.c:2184)").
# A citation with no name next to it fails: nothing to check it by.  A
# decoded backtrace's callers (after its first arrow) are measured from the
# flavour's own vmlinux, not written, and not checked.  The rule catches a
# line that moved away (a comment, a blank line, another function), not a
# line moved within a function to another line holding the same names.
#
# A flavour without a patched tree yet is a SKIP, with the reason.  The
# first test plants a wrong line in a synthetic tree: the rule must fail it.
# Output: TAP version 13.
#
# usage: tests/host/citations.sh [PATH/TO/gupctl]
#   GUP_LAB_CITE_TREES=DIR: DIR/FLAVOUR is FLAVOUR's patched tree instead
#   (the build/.config longterm expect reads is the built flavour's if there
#   is one, else its config fragments').
set -euo pipefail
# shellcheck source=../gupctl_harness.sh
. "$(dirname "$0")/../gupctl_harness.sh"
# shellcheck source=../../patches/flavours.sh
. "$ROOT/patches/flavours.sh"
cd "$ROOT"
checker=tests/host/citations.py

mapfile -t flavours < <(all_flavours)
export CITE_FLAVOURS="${flavours[*]}" CITE_TREES=""
declare -A kdir treeof
for f in "${flavours[@]}"; do
	d=$(flavour_dir "$f")
	if [ -n "${GUP_LAB_CITE_TREES:-}" ]; then
		tree=$GUP_LAB_CITE_TREES/$f
		[ -d "$tree" ] || continue
		mkdir -p "$TMP/kd/$f/build"
		ln -s "$(cd "$tree" && pwd)" "$TMP/kd/$f/src"
		if [ -f "$d/.gup-lab-built" ]; then
			cp "$d/build/.config" "$TMP/kd/$f/build/.config"
		else
			# shellcheck disable=SC2046 # one path per line, no spaces
			cat $(flavour_fragments "$f") >"$TMP/kd/$f/build/.config"
		fi
		kdir[$f]=$TMP/kd/$f
	elif [ -f "$d/.gup-lab-patched" ]; then
		tree=$d/src
		[ ! -f "$d/.gup-lab-built" ] || kdir[$f]=$d
	else
		continue
	fi
	treeof[$f]=$tree
	CITE_TREES+=" $f=$tree"
done

# report NAME [--text ...|--page ...]: one test per label the checker saw.
report() {
	local name=$1 label checked failed missing
	shift
	python3 "$checker" "$@" >"$TMP/check.out" 2>"$TMP/check.err" || {
		tap_not_ok "$name: the checker failed"
		sed 's/^/#   /' "$TMP/check.err"
		return
	}
	cp "$TMP/check.out" "$TMP/check.fails"
	while IFS=$'\t' read -r label checked failed missing; do
		[ "$label" != "#" ] || continue
		if [ -n "$missing" ]; then
			tap_skip "$label: its citations" "no patched tree of $missing yet (patches/build-flavour.sh)"
		elif [ "$checked" -eq 0 ]; then
			tap_ok "$label: no file:line citation"
		elif [ "$failed" -eq 0 ]; then
			tap_ok "$label: $checked citations hold in their flavours' trees"
		else
			tap_not_ok "$label: $failed of $checked citations do not hold"
			awk -F'\t' -v l="$label" '$1 == "#" && index($2, l ":") == 1 {
				print "#   " $2 }' "$TMP/check.fails" | head -40
		fi
	done <"$TMP/check.out"
}

# ---- The rule fails a planted wrong line ----
mkdir -p "$TMP/fake/mm"
cat >"$TMP/fake/mm/gup.c" <<'EOF'
/* a comment */
static bool is_valid_gup_flags(unsigned int gup_flags)
{
	if (WARN_ON_ONCE(gup_flags & FOLL_LONGTERM))
		return false;
	return true;
}
EOF
printf '%s\n' "is_valid_gup_flags() (mm/gup.c:4): FOLL_LONGTERM requires FOLL_PIN: WARN_ON_ONCE" \
	"is_valid_gup_flags() (mm/gup.c:1): FOLL_LONGTERM requires FOLL_PIN: WARN_ON_ONCE" \
	>"$TMP/fake.txt"
out=$(CITE_TREES="fake=$TMP/fake" CITE_FLAVOURS=fake python3 "$checker" \
	--text fake planted "$TMP/fake.txt" 2>&1 || true)
if [ "$(head -1 <<<"$out")" = $'planted\t2\t1\t' ] &&
	grep -q "planted:2: fake's mm/gup.c:1: holds none of" <<<"$out"; then
	tap_ok "the rule: a citation of the right line holds, a planted wrong line (a comment) fails"
else
	tap_not_ok "the rule: a planted wrong line must fail"
	printf '%s\n' "$out" | sed 's/^/#   /'
fi

# A gupctl diff --page: "- B's reason: " speaks of side B's flavour, not
# of the flavour the page's title names first.
mkdir -p "$TMP/fakeb/mm"
printf '/* nothing */\nint other(void);\n/* x */\n' >"$TMP/fakeb/mm/gup.c"
cat >"$TMP/diffpage.md" <<'EOF'
# What changed from `fake` to `fakeb`

- A: `fake`: matrix
- B: `fakeb`: matrix

- A's reason: is_valid_gup_flags() (mm/gup.c:4): WARN_ON_ONCE
- B's reason: other() (mm/gup.c:2)
EOF
out=$(CITE_TREES="fake=$TMP/fake fakeb=$TMP/fakeb" CITE_FLAVOURS="fake fakeb" python3 "$checker" \
	--page "$TMP/diffpage.md" 2>&1 || true)
tap_is "$(head -1 <<<"$out" | cut -f2,3)" "$(printf '2\t0')" \
	"the rule on a diff page: each side's reason checked in its own side's tree"

# ---- What gupctl says before a run, for each flavour ----
args=()
for f in "${flavours[@]}"; do
	policy=$(flavour_field "$f" 3)
	ext4=$(flavour_field "$f" 4)
	"$GUPCTL" matrix --flavour "$f" --policy "$policy" --expect >"$TMP/$f.matrix"
	"$GUPCTL" consumers expect --policy "$policy" >"$TMP/$f.consumers"
	# the BUG's line as jobs/repro.sh reads it from the tree
	line=$(awk '/^static int mpage_prepare_extent_to_map\(/ { f = 1 }
		f && /page_buffers\(page\)/ { print NR; exit }' \
		"${treeof[$f]:-/nonexistent}/fs/ext4/inode.c" 2>/dev/null || true)
	cells_or_none "$TMP/$f.repro-cells" repro cells --policy "$policy" --ext4 "$ext4"
	jq -r '.[].args | @tsv' "$TMP/$f.repro-cells" |
		while IFS=$'\t' read -r -a cargs; do
			"$GUPCTL" repro ext4-2018 --expect "${cargs[@]}" --policy "$policy" \
				--ext4 "$ext4" --bug-site "fs/ext4/inode.c:${line:-?}"
		done >"$TMP/$f.repro"
	cells_or_none "$TMP/$f.holders-cells" holders cells --policy "$policy" --ext4 "$ext4" \
		--source "$(flavour_field "$f" 5)"
	jq -r '.[].expect.reason' "$TMP/$f.holders-cells" >"$TMP/$f.holders"
	args+=(--text "$f" "$f: gupctl matrix --expect --policy $policy" "$TMP/$f.matrix"
		--text "$f" "$f: gupctl holders cells --policy $policy, every cell" "$TMP/$f.holders"
		--text "$f" "$f: gupctl consumers expect --policy $policy" "$TMP/$f.consumers"
		--text "$f" "$f: gupctl repro ext4-2018 --expect --policy $policy --ext4 $ext4, every cell" "$TMP/$f.repro")
	if [ -n "${kdir[$f]:-}" ]; then
		"$GUPCTL" longterm expect --policy "$policy" --kernel-dir "${kdir[$f]}" >"$TMP/$f.longterm"
		args+=(--text "$f" "$f: gupctl longterm expect --policy $policy" "$TMP/$f.longterm")
		# a 7.3 tree's own suite, cited by its path in that tree
		if [ "$(flavour_field "$f" 5)" = 7.3 ]; then
			"$GUPCTL" longterm expect --suite 7.3 --policy "$policy" --kernel-dir "${kdir[$f]}" \
				>"$TMP/$f.longterm-own"
			args+=(--text "$f" "$f: gupctl longterm expect --suite 7.3 --policy $policy" "$TMP/$f.longterm-own")
		fi
	else
		tap_skip "$f: gupctl longterm expect: its citations" "no built kernel of $f yet (longterm expect reads its tree and build/.config)"
	fi
done
report "gupctl's reasons" "${args[@]}"

# ---- The generated pages ----
pages=()
for p in docs/*.md; do
	! grep -qi '<!-- generated by' <<<"$(head -5 "$p")" || pages+=(--page "$p")
done
pages+=(--page docs/matrix-learned.md)
# the findings' pages: hand-written, each citation with its version
for p in docs/findings/*.md; do
	pages+=(--page "$p")
done
report "the generated pages" "${pages[@]}"

tap_done
