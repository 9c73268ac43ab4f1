#!/bin/bash
# make export's quick subset (jobs/export.sh --quick: the first finding of
# each file system that `gupctl export --findings` lists on any flavour)
# on every flavour, one boot each: every exported reproducer, built static
# from its one C file, runs alone in the guest (no module, no gupctl) and
# must give the exit status the model gives its cell on that kernel
# (gupctl export --expect, written to F.expect.tsv before the boot).
# Read here from the results: the expectations came first and each status
# the guest wrote is the one expected; the reproducer printed its steps.
# shellcheck source=../suite.sh
. "$(dirname "$0")/../suite.sh"
res=$work/results

set +e
jobs/export.sh --quick --results "$res" >"$work/export.out" 2>&1
status=$?
set -e
sed 's/^/# /' "$work/export.out"
if [ ! -s "$res/run.json" ]; then
	tap_not_ok "jobs/export.sh --quick wrote run.json (exit status $status)"
	tap_done
	exit 1
fi
tap_is "$status" 0 "jobs/export.sh --quick exits 0"
tap_is "$(tail -1 "$work/export.out")" "results: $res" "the job's last line names its results directory"
cells=$(ls "$res/export/"*.c 2>/dev/null | sed 's|.*/||; s|\.c$||' | cut -d- -f1 | sort | paste -sd' ')
tap_is "$cells" "btrfs ext4 xfs" "one reproducer per file system that has a finding: $(ls "$res/export" | paste -sd' ')"
for f in $(all_flavours); do
	n=0 same=0
	while IFS=$'\t' read -r c want _; do
		[ "$want" != not-run ] || continue
		n=$((n + 1))
		got=$(cat "$res/$f/$c.out" 2>/dev/null | grep -c '^RESULT: ' || true)
		st=$(grep -E "^(not )?ok [0-9]+ $c " "$res/$f.ktap" | sed 's/.* # exit \([0-9]*\).*/\1/')
		[ "$got" = 1 ] && [ "$st" = "$want" ] && same=$((same + 1))
	done <"$res/$f.expect.tsv"
	tap_is "$same of $n" "$n of $n" \
		"$f: each reproducer printed its RESULT and exited as its cell's model expects ($f.expect.tsv)"
done
tap_done
