#!/bin/bash
# Host-side checks that need no guest: shell scripts shellcheck clean, each
# job's guest half a script of jobs/guest/, the module checkpatch clean and
# warning-free against Debian's headers, the patches applying to a pristine
# tree with no fuzz.
# shellcheck source=../suite.sh
. "$(dirname "$0")/../suite.sh"

# Shellcheck runs in the background, beside checkpatch (a core each); its
# verdict is printed after checkpatch's.
mapfile -t scripts < <(git ls-files '*.sh' .ci/run rootfs/init)
shellcheck -x "${scripts[@]}" >"$work/shellcheck.out" 2>&1 &
shellcheck_pid=$!

# checkpatch of each source version a flavour builds on (6.1, 6.12): one
# "total:" line per file, every one clean.
while read -r pkg; do
	tree=$(patches/unpack-source.sh "$pkg")
	out=$(perl "$tree/scripts/checkpatch.pl" --no-tree --strict -f \
		module/*.c module/*.h module/uapi/*.h 2>&1 || true)
	if [ "$(grep -c '^total: 0 errors, 0 warnings, 0 checks' <<<"$out")" -eq \
		"$(grep -c '^total:' <<<"$out")" ] && grep -q '^total:' <<<"$out"; then
		tap_ok "checkpatch --strict ($pkg): every file of module/ clean"
	else
		tap_not_ok "checkpatch --strict ($pkg): module/"
		printf '%s\n' "$out" | grep -E '^(WARNING|ERROR|CHECK|total|#)' | sed 's/^/#   /'
	fi
done < <(awk '!/^#/ && NF { print "linux-source-" $5 }' patches/flavours | sort -u)

if wait "$shellcheck_pid"; then
	tap_ok "shellcheck: ${#scripts[@]} scripts clean"
else
	tap_not_ok "shellcheck"
	head -40 "$work/shellcheck.out" | sed 's/^/# /'
fi

# Each job's guest half is a script of its own in jobs/guest/ (shellchecked
# above, never a string built on the host): no job's --exec is a double-
# quoted or variable string, and every /lab/guest/ script a job runs is
# there.
problems=$({
	grep -n -- '--exec ["$]' jobs/*.sh || true
	grep -oh '/lab/guest/[A-Za-z0-9_.-]*' jobs/*.sh | sort -u | while read -r g; do
		[ -f "jobs/guest/${g#/lab/guest/}" ] || echo "$g: no such file in jobs/guest/"
	done
})
if [ -z "$problems" ]; then
	tap_ok "jobs: every guest half is a script of jobs/guest/"
else
	tap_not_ok "jobs: every guest half is a script of jobs/guest/"
	printf '%s\n' "$problems" | sed 's/^/# /'
fi

if out=$(module/build.sh headers 2>&1); then
	tap_ok "gup_pin_test.ko builds with W=1, no warnings, against Debian's linux-headers"
else
	tap_not_ok "gup_pin_test.ko against Debian's linux-headers"
	printf '%s\n' "$out" | tail -20 | sed 's/^/# /'
fi

# Each flavour's series in order, on one pristine copy: a series may build
# on the one before it (gup-v9 on gup-v7).
for f in $(all_flavours); do
	t=$(mktemp -d "$work/apply.XXXX")
	# Only the files the series name (a patch reads nothing else, and
	# refuses to create a file that is there): a link copy of the whole
	# tree and its removal took 3-5 s a flavour.
	tree=$(patches/unpack-source.sh "$(flavour_source_pkg "$f")")
	for s in $(flavour_series "$f"); do
		sed -n 's#^\(---\|+++\) [ab]/\([^\t]*\).*#\2#p' patches/"$s"/*.patch
	done | sort -u | while read -r file; do
		[ ! -f "$tree/$file" ] || (cd "$tree" && cp --parents "$file" "$t/")
	done
	base="pristine $(source_pkg_version "$(flavour_source_pkg "$f")")"
	for s in $(flavour_series "$f"); do
		ok=1
		for p in patches/"$s"/*.patch; do
			out=$(patch -d "$t" -p1 -F0 --dry-run <"$p" 2>&1) || ok=0
			# An offset is tolerated by -F0 but means the context moved.
			! grep -qE 'fuzz|offset' <<<"$out" || ok=0
			patch -d "$t" -p1 -F0 -s --no-backup-if-mismatch <"$p" >/dev/null 2>&1 || ok=0
		done
		if [ "$ok" = 1 ]; then
			tap_ok "$f: series $s applies to $base with no fuzz or offset"
		else
			tap_not_ok "$f: series $s does not apply cleanly to $base"
		fi
		base="$base + $s"
	done
	rm -rf "$t"
done

# The suite's own patches (patches/gup-longterm-suite/VERSION/, what
# rootfs/stage-guest.sh applies to gup_longterm.c before it builds it):
# each applies to its version's pristine file with no fuzz or offset, and
# is checkpatch --strict clean, as a patch for upstream must be.
for d in patches/gup-longterm-suite/*/; do
	v=$(basename "$d")
	tree=$(patches/unpack-source.sh "linux-source-$v")
	t=$(mktemp -d "$work/suite.XXXX")
	(cd "$tree" && cp --parents tools/testing/selftests/mm/gup_longterm.c "$t/")
	for p in "$d"*.patch; do
		out=$(patch -d "$t" -p1 -F0 <"$p" 2>&1 && echo "(applied)")
		grep -qE 'fuzz|offset' <<<"$out" && out="$out (moved)"
		tap_like "$out" '^\(applied\)$' \
			"$p applies to linux-source-$v's gup_longterm.c with no fuzz or offset"
		# on stdin: given the path, from the top of this repository,
		# checkpatch checked the .patch file itself as a source file
		tap_like "$(perl "$tree/scripts/checkpatch.pl" --strict --no-tree - <"$p" 2>&1)" \
			'^total: 0 errors, 0 warnings, 0 checks' "$p: checkpatch --strict clean"
	done
	rm -rf "$t"
done

tap_done
