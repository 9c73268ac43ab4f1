#!/bin/bash
# make holders' quick subset on mainline and latest (jobs/holders.sh --quick
# --flavour mainline --flavour latest: one O_DIRECT cell per file system,
# holders_cell_quick() in userspace/model/holders.c: ext4's MOVE_EXT donor,
# xfs', btrfs' and ext4j's fsync, btrfs' the cell where 6.12 and 7.3 part),
# one boot each with a scratch ext4, xfs, btrfs and ext4j (data=journal)
# and a dm-delay disk.  The
# job must exit 0 with every cell as expected in its KTAP; the
# expectations must have been written (F.cells.json, what gupctl holders
# cells derives from F's columns); every cell's pin must have been seen
# held; and every cell's measured disk class must be the one of the file
# the host read from the powered-off guest's image (qemu/read-image.sh,
# classified here with model/holders.c's pattern), not one of the guest's
# own reads.  Every field is read from the results' JSON by name.  Two
# boots, about two minutes.
# shellcheck source=../suite.sh
. "$(dirname "$0")/../suite.sh"
res=$work/results
flavours=(mainline latest)

set +e
jobs/holders.sh --quick --flavour mainline --flavour latest --results "$res" >"$work/holders.out" 2>&1
status=$?
set -e
sed 's/^/# /' "$work/holders.out"
if [ ! -s "$res/run.json" ]; then
	tap_not_ok "jobs/holders.sh --quick --flavour mainline --flavour latest wrote run.json (exit status $status)"
	tap_done
	exit 1
fi
tap_is "$status" 0 "jobs/holders.sh --quick --flavour mainline --flavour latest exits 0"
tap_is "$(tail -1 "$work/holders.out")" "results: $res" "the job's last line names its results directory"
tap_is "$(jq -r '.flavours | map("\(.name) \(.boots) \(.quick)") | join(",")' "$res/run.json")" \
	"mainline 1 true,latest 1 true" "run.json: mainline and latest, one boot each, quick"

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
# cell NAME FILTER: a field of cell NAME in flavour $f's document.
cell() {
	jq -r --arg n "$1" ".cells[] | select(.name == \$n) | $2" "$res/$f.json"
}

# check_flavour F: F's expectations, verdicts and host reads.
check_flavour() {
	local f=$1 name read_file names

	# The expectations, written before the boot: gupctl holders cells
	# --quick for F's columns, here on the host.
	userspace/gupctl holders cells --quick --policy "$(flavour_field "$f" 3)" \
		--ext4 "$(flavour_field "$f" 4)" --source "$(flavour_field "$f" 5)" >"$work/$f.cells.json"
	tap_is "$(jq -S . "$res/$f.cells.json" 2>&1)" "$(jq -S . "$work/$f.cells.json")" \
		"$f.cells.json: the expectations gupctl holders cells --quick derives for $f"
	mapfile -t names < <(jq -r '.[].name' "$work/$f.cells.json")
	tap_is "${#names[@]} $(jq -r '[.[].fs] | join(" ")' "$work/$f.cells.json")" "4 ext4 xfs btrfs ext4j" \
		"$f: the quick subset, one cell per file system (ext4j: ext4 mounted data=journal)"
	tap_is "$(grep -c '^ok ' "$res/$f.ktap" || true) $(grep -c '^not ok ' "$res/$f.ktap" || true)" "4 0" \
		"$f.ktap: 4 cells ok, none not ok"
	[ "$(grep -c '^ok ' "$res/$f.ktap" || true)" = 4 ] || sed 's/^/#   /' "$res/$f.ktap"
	tap_is "$(jq -c .counts "$res/$f.json")" '{"as_expected":4,"mismatched":0,"not_run":0}' \
		"$f.json: 4 as expected"
	for name in "${names[@]}"; do
		check_cell "$f" "$name"
	done
}

# check_cell F NAME: one cell's verdict, pin and host read.
check_cell() {
	local f=$1 name=$2 read_file
	tap_is "$(cell "$name" .verdict)" "as expected" "$f $name: as expected ($(cell "$name" \
		'"disk \(.expect.disk), console \(.expect.report), fsync \(if .expect.fsync_fails then "fails" else "succeeds" end)"'))"
	tap_is "$(cell "$name" '"\(.measured.held) \(.measured.refused)"')" "true false" \
		"$f $name: the holder's pin was seen held, and let through"
	read_file=$res/$f/$name.f.host-read
	if [ ! -f "$read_file" ]; then
		tap_not_ok "$f $name: the host read the file from the $(cell "$name" .fs) image ($f/$name.f.host-read)"
		sed 's/^/#   /' "$res/$f/$name.f.host-read.err" 2>/dev/null || true
		return
	fi
	tap_is "$(stat -c %s "$read_file")" $((4 * 4096)) \
		"$f $name: the host read the file from the $(cell "$name" .fs) image, its 4 pages"
	# The class judged is the host's read, whatever the guest saw: where
	# the guest's page cache keeps the holder's bytes the disk does not
	# have (the guide's "lie"), the two differ.
	tap_is "$(cell "$name" .measured.disk)" "$(host_class "$read_file")" \
		"$f $name: the disk class judged is the host's read of the image ($(host_class "$read_file"))"
	echo "# $f $name: the guest read $(cell "$name" '.guest | "\(.guest_cached) cached, \(.guest_direct) with O_DIRECT, \(.guest_after_drop) after drop_caches"'), the host $(host_class "$read_file")"
}

for f in "${flavours[@]}"; do
	check_flavour "$f"
done
# The btrfs fsync cell is where 6.12.118 and 7.3.4 part (model/holders.c):
# the same measurement, two answers, each the model's.
tap_is "$(jq -r '.cells[] | select(.name == "btrfs-odirect-fsync") | .measured.disk' "$res/mainline.json") $(jq -r '.cells[] | select(.name == "btrfs-odirect-fsync") | .measured.disk' "$res/latest.json")" \
	"OLD NEW" "btrfs-odirect-fsync: the host reads OLD on 6.12.118, NEW on 7.3.4"

tap_done
