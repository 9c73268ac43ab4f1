#!/bin/bash
# The module's line coverage, from a .gcda the guest copied out of
# /sys/kernel/debug/gcov (jobs/guest/soak.sh) and the .gcno of the module's
# build (module/build.sh; module/Kbuild's GCOV_PROFILE), read by the host's
# gcov (the compiler's own: the kernel writes gcc's format).  JSON on stdout:
#   {"lines": N, "reached": N, "percent": P,
#    "unreached": [{"file": "gup_pin_test.c", "line": N, "function": F,
#                   "text": "the source line"}, ...]}
# Lines are gcov's (a line with code); only the module's own files, not the
# kernel headers inlined into them.  A line counted in several places (a
# macro, an inlined helper) is reached when any of them is.
#
#   module/coverage.sh GCDA MODULE_KO
set -euo pipefail
[ $# -eq 2 ] || { echo "usage: $0 GCDA MODULE_KO" >&2; exit 2; }
gcda=$1 ko=$2
obj=${ko%.ko} src=$(dirname "$ko")
for f in "$gcda" "$obj.gcno"; do
	[ -s "$f" ] || { echo "module/coverage.sh: no $f" >&2; exit 1; }
done
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
name=$(basename "$obj")
cp "$obj.gcno" "$tmp/$name.gcno"
cp "$gcda" "$tmp/$name.gcda"
if ! (cd "$tmp" && gcov --json-format --stdout --object-directory "$tmp" \
	"$src/$name.c") >"$tmp/json" 2>"$tmp/err"; then
	cat "$tmp/err" >&2
	exit 1
fi
args=()
for f in "$src"/*.[ch]; do
	args+=(--rawfile "$(basename "$f")" "$f")
done
# The module's own source is named by its absolute path up to 6.12, by a
# path relative to the build (module/gup_pin_test.c) since kbuild writes
# relative paths for external modules (7.3); the kernel's headers are
# absolute in both.
jq -s --arg src "$src/" "${args[@]}" '
	[.[].files[]
	 | (.file | if startswith("/") then ltrimstr($src) else split("/") | last end) as $file
	 | select($file | test("^[^/]+\\.[ch]$"))
	 | .lines[] | {file: $file, line: .line_number, count, function: .function_name}]
	| group_by([.file, .line])
	| map(.[0] + {count: (map(.count) | add), function: (map(.function // empty) | first)})
	| {lines: length, reached: (map(select(.count > 0)) | length),
	   unreached: [.[] | select(.count == 0)
		| . as $l
		| {file, line, function,
		   text: ($ARGS.named[$l.file] | split("\n")[$l.line - 1] | gsub("^\\s+"; ""))}]}
	| .percent = (if .lines > 0 then (.reached * 1000 / .lines | round) / 10 else null end)
	| {lines, reached, percent, unreached}' "$tmp/json" >"$tmp/out"
# no line of the module's own files: the paths were not recognised, not a
# coverage of zero
if [ "$(jq .lines "$tmp/out")" = 0 ]; then
	echo "module/coverage.sh: no line of $name.c in gcov's output (files: $(jq -r '[.files[].file] | join(" ")' "$tmp/json" | cut -c1-300))" >&2
	exit 1
fi
cat "$tmp/out"
