#!/bin/bash
# make export's quick subset (jobs/export.sh --quick: the first finding of
# each file system that `gupctl export --findings` lists on the run's
# flavours) on stock, mainline and latest, one boot each (make export
# runs every finding on every flavour): every exported reproducer, built
# static from its one C file, runs alone in the guest (no module, no
# gupctl) and must give the exit status the model gives its cell on that
# kernel.  The three kernels part on each of the three: ext4's reclaim of
# an O_DIRECT page loses the write on 6.1 only, btrfs' writeback on 6.12
# only, xfs' FICLONE changes the clone on all three.
# Read here from the results (F.json, by field name): each status the
# guest wrote is the one gupctl export --expect gives the cell on F, and
# each reproducer printed its RESULT.
# shellcheck source=../suite.sh
. "$(dirname "$0")/../suite.sh"
res=$work/results

set +e
flavours=(stock mainline latest)
jobs/export.sh --quick --results "$res" "${flavours[@]}" >"$work/export.out" 2>&1
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
cells=$(find "$res/export" -name '*.c' -printf '%f\n' | cut -d- -f1 | sort | paste -sd' ')
tap_is "$cells" "btrfs ext4 xfs" "one reproducer per file system that has a finding"
for f in "${flavours[@]}"; do
	# each cell's status from the model (gupctl export --expect), asked
	# here, against what the guest measured (F.json, by field name)
	want=''
	for c in $(jq -r '.cells[].name' "$res/$f.json"); do
		want+=" $c=$(userspace/gupctl export --expect --policy "$(flavour_policy "$f")" \
			--source "$(flavour_field "$f" 5)" --ext4 "$(flavour_field "$f" 4)" "$c" | cut -f1)"
	done
	got=$(jq -r '[.cells[] | " \(.name)=\(if .run then (.status // "none") else "not-run" end)"] | join("")' \
		"$res/$f.json")
	tap_is "$got" "$want" "$f: each reproducer exited as the model expects its cell on $f"
	tap_is "$(jq -r '[.cells[] | select(.run and .result == null) | .name] | join(" ")' "$res/$f.json")" "" \
		"$f: each reproducer that ran printed its RESULT line"
done
tap_done
