#!/bin/bash
# userspace/'s layering (docs/lab.md, "Layout"), checked on every #include
# "..." of every file, like checkpatch on the module:
#   lib/      includes only lib/
#   model/    lib/ and model/
#   console/  lib/, model/ and console/
#   explorer/ lib/ and explorer/ (the results explorer's page shell)
#   a feature (matrix/ repro/ consumers/ longterm/ bench/ fuzz/ pin/)
#             lib/, model/, console/, explorer/ and its own folder, never
#             another feature's files
#   gupctl.c  the dispatcher: anything
# and no include cycle among userspace's units (a unit is X.c with its
# X.h: "a.c includes b.h" is an edge from a to b).  A planted upward
# include and a planted cycle, in a copy, must each be caught: the check
# can fail.
# shellcheck source=../suite.sh
. "$(dirname "$0")/../suite.sh"

# layering_edges DIR: "FROM TO" per local include, both relative to DIR
# (an include resolves against DIR, the build's -I.).
layering_edges() {
	local f inc files
	mapfile -t files < <(cd "$1" && find . -name '*.[ch]' | sed 's|^\./||' | sort)
	(cd "$1" && awk '/^#include "/ { inc = $2; gsub(/"/, "", inc); print FILENAME, inc }' \
		"${files[@]}") |
		while read -r f inc; do
			# the uapi header comes from ../module/uapi, not from here
			[ ! -f "$1/$inc" ] || echo "$f $inc"
		done
}

# layering_violations DIR: one line per include a rule forbids.
layering_violations() {
	layering_edges "$1" | awk '
		function folder(p) { return p ~ /\// ? substr(p, 1, index(p, "/") - 1) : "." }
		{
			from = folder($1); to = folder($2)
			if (from == ".")
				next
			if (from == "lib")
				ok = to == "lib"
			else if (from == "model")
				ok = to == "lib" || to == "model"
			else if (from == "console")
				ok = to == "lib" || to == "model" || to == "console"
			else if (from == "explorer")
				ok = to == "lib" || to == "explorer"
			else
				ok = to == "lib" || to == "model" || to == "console" ||
				     to == "explorer" || to == from
			if (!ok)
				printf "%s includes %s: %s/ may not include %s/\n", $1, $2, from, to
		}'
}

# layering_cycles DIR: each include cycle among units, as "a -> b -> a".
layering_cycles() {
	layering_edges "$1" | awk '
		function unit(p) { sub(/\.[ch]$/, "", p); return p }
		{ a = unit($1); b = unit($2); if (a != b && !((a, b) in e)) { e[a, b] = 1; succ[a] = succ[a] " " b } ; n[a] = n[b] = 1 }
		function dfs(u, path,   list, i, k, v) {
			state[u] = 1
			k = split(succ[u], list, " ")
			for (i = 1; i <= k; i++) {
				v = list[i]
				if (state[v] == 1) {
					if (!(v in reported)) { print path " -> " v; reported[v] = 1 }
				} else if (!state[v])
					dfs(v, path " -> " v)
			}
			state[u] = 2
		}
		END { for (u in n) if (!state[u]) dfs(u, u) }'
}

src=userspace
bad=$(layering_violations "$src")
if [ -z "$bad" ]; then
	tap_ok "layering: lib/, model/, console/ and each feature include only what they may ($(layering_edges "$src" | wc -l) includes)"
else
	tap_not_ok "layering: includes across the layers"
	printf '%s\n' "$bad" | sed 's/^/#   /'
fi
cycles=$(layering_cycles "$src")
if [ -z "$cycles" ]; then
	tap_ok "layering: no include cycle among userspace's units"
else
	tap_not_ok "layering: include cycles"
	printf '%s\n' "$cycles" | sed 's/^/#   /'
fi

# The check can fail: a copy with an upward include (lib/ -> model/), a
# cross-feature include (bench/ -> matrix/) and a cycle (lib/util.h <->
# lib/kmsg.h).
copy=$work/userspace
mkdir -p "$copy"
(cd "$src" && find . -name '*.[ch]' -exec cp --parents -t "$copy" {} +)
sed -i '0,/^#include "/s//#include "model\/cell.h"\n#include "/' "$copy/lib/util.c"
sed -i '0,/^#include "/s//#include "matrix\/json.h"\n#include "/' "$copy/bench/ops.c"
sed -i 's|^#include <stddef.h>$|#include <stddef.h>\n#include "lib/kmsg.h"|' "$copy/lib/util.h"
sed -i 's|^#include <stdbool.h>$|#include <stdbool.h>\n#include "lib/util.h"|' "$copy/lib/kmsg.h"
planted=$(layering_violations "$copy")
tap_like "$planted" '^lib/util.c includes model/cell.h: lib/ may not include model/$' \
	"layering: a planted upward include (lib/util.c -> model/cell.h) is caught"
tap_like "$planted" '^bench/ops.c includes matrix/json.h: bench/ may not include matrix/$' \
	"layering: a planted cross-feature include (bench/ops.c -> matrix/json.h) is caught"
tap_like "$(layering_cycles "$copy")" 'lib/(util|kmsg) -> .*lib/(kmsg|util)' \
	"layering: a planted cycle (lib/util.h <-> lib/kmsg.h) is caught"

tap_done
