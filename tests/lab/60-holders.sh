#!/bin/bash
# make holders' quick subset on mainline (jobs/holders.sh --quick --flavour
# mainline: one O_DIRECT cell per file system, holders_cell_quick() in
# userspace/model/holders.c: ext4's MOVE_EXT donor, xfs' and btrfs'
# fsync), in one boot with a scratch ext4, xfs and btrfs and a dm-delay
# disk.  The job must exit 0 with every cell as expected in its KTAP; the
# expectations must have been written (mainline.cells.json, what gupctl
# holders cells derives from mainline's columns); every cell's pin must
# have been seen held; and every cell's measured disk class must be the
# one of the file the host read from the powered-off guest's image
# (qemu/read-image.sh, classified here with model/holders.c's pattern),
# not one of the guest's own reads.  Every field is read from the results'
# JSON by name.  One boot, about a minute.
# shellcheck source=../suite.sh
. "$(dirname "$0")/../suite.sh"
res=$work/results
f=mainline

set +e
jobs/holders.sh --quick --flavour "$f" --results "$res" >"$work/holders.out" 2>&1
status=$?
set -e
sed 's/^/# /' "$work/holders.out"
if [ ! -s "$res/run.json" ]; then
	tap_not_ok "jobs/holders.sh --quick --flavour $f wrote run.json (exit status $status)"
	tap_done
	exit 1
fi
tap_is "$status" 0 "jobs/holders.sh --quick --flavour $f exits 0"
# A flavour whose kernel the model does not know yet (7.3: gupctl holders
# cells answers 4), named on the command line: a usage error that says
# why, before anything boots.
set +e
jobs/holders.sh --quick --flavour latest --results "$work/latest" >"$work/latest.out" 2>&1
lstatus=$?
set -e
tap_is "$lstatus $([ -e "$work/latest/run.json" ] && echo run.json || echo nothing)" "2 nothing" \
	"jobs/holders.sh --flavour latest: status 2, no run"
tap_like "$(cat "$work/latest.out")" '^jobs/holders.sh: latest: no model of 7.3 yet: the cells are derived from' \
	"jobs/holders.sh --flavour latest: says why (gupctl holders cells' reason)"
tap_is "$(tail -1 "$work/holders.out")" "results: $res" "the job's last line names its results directory"
tap_is "$(jq -r '.flavours | map("\(.name) \(.boots) \(.quick)") | join(",")' "$res/run.json")" \
	"$f 1 true" "run.json: $f, one boot, quick"

# The expectations, written before the boot: gupctl holders cells --quick
# for mainline's columns, here on the host.
userspace/gupctl holders cells --quick --policy "$(flavour_field "$f" 3)" \
	--ext4 "$(flavour_field "$f" 4)" --source "$(flavour_field "$f" 5)" >"$work/cells.json"
tap_is "$(jq -S . "$res/$f.cells.json" 2>&1)" "$(jq -S . "$work/cells.json")" \
	"$f.cells.json: the expectations gupctl holders cells --quick derives for $f"
mapfile -t names < <(jq -r '.[].name' "$work/cells.json")
tap_is "${#names[@]} $(jq -r '[.[].fs] | join(" ")' "$work/cells.json")" "3 ext4 xfs btrfs" \
	"the quick subset: one cell per file system"

tap_is "$(grep -c '^ok ' "$res/$f.ktap" || true) $(grep -c '^not ok ' "$res/$f.ktap" || true)" "3 0" \
	"$f.ktap: 3 cells ok, none not ok"
[ "$(grep -c '^ok ' "$res/$f.ktap" || true)" = 3 ] || sed 's/^/#   /' "$res/$f.ktap"
tap_is "$(jq -c .counts "$res/$f.json")" '{"as_expected":3,"mismatched":0,"not_run":0}' \
	"$f.json: 3 as expected"

# page KIND N: page N of KIND as holders_fill() writes it (model/holders.c):
# "gup-lab %-5s page %u\n" over 4096 bytes, the last line cut.
page() {
	local line i
	line=$(printf 'gup-lab %-5s page %u' "$1" "$2")
	for ((i = 0; i < 196; i++)); do echo "$line"; done | head -c 4096
}
# host_class FILE: what page 1 (HOLDERS_PAGE) of FILE holds, named as
# holders_classify() names it; past the file's end reads as zeros.
host_class() {
	local k
	dd if="$1" bs=4096 skip=1 count=1 status=none >"$work/page"
	[ -s "$work/page" ] || { echo ZEROS; return; }
	for k in NEW OLD TMP; do
		if page "$k" 1 | cmp -s - "$work/page"; then echo "$k"; return; fi
	done
	if head -c 4096 /dev/zero | cmp -s - "$work/page"; then echo ZEROS
	elif page OLD 2 | cmp -s - "$work/page"; then echo NEXT
	else echo OTHER; fi
}
# cell NAME FILTER: a field of cell NAME in the flavour's document.
cell() {
	jq -r --arg n "$1" ".cells[] | select(.name == \$n) | $2" "$res/$f.json"
}

for name in "${names[@]}"; do
	tap_is "$(cell "$name" .verdict)" "as expected" "$name: as expected ($(cell "$name" \
		'"disk \(.expect.disk), console \(.expect.report), fsync \(if .expect.fsync_fails then "fails" else "succeeds" end)"'))"
	tap_is "$(cell "$name" '"\(.measured.held) \(.measured.refused)"')" "true false" \
		"$name: the holder's pin was seen held, and let through"
	read_file=$res/$f/$name.f.host-read
	if [ ! -f "$read_file" ]; then
		tap_not_ok "$name: the host read the file from the $(cell "$name" .fs) image ($f/$name.f.host-read)"
		sed 's/^/#   /' "$res/$f/$name.f.host-read.err" 2>/dev/null || true
		continue
	fi
	tap_is "$(stat -c %s "$read_file")" $((4 * 4096)) \
		"$name: the host read the file from the $(cell "$name" .fs) image, its 4 pages"
	# The class judged is the host's read, whatever the guest saw: where
	# the guest's page cache keeps the holder's bytes the disk does not
	# have (the guide's "lie"), the two differ.
	tap_is "$(cell "$name" .measured.disk)" "$(host_class "$read_file")" \
		"$name: the disk class judged is the host's read of the image ($(host_class "$read_file"))"
	echo "# $name: the guest read $(cell "$name" '.guest | "\(.guest_cached) cached, \(.guest_direct) with O_DIRECT, \(.guest_after_drop) after drop_caches"'), the host $(host_class "$read_file")"
done

tap_done
