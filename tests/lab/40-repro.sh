#!/bin/bash
# The ext4 reproduction (jobs/repro.sh --quick): every cell's measured
# outcome equals the one derived from its flavour's gup and ext4 columns,
# plus explicit checks of the evidence: where ext4 BUGs, a kernel BUG at a
# file:line in fs/ext4 with that frame on top of the trace; where ext4
# warns, the WARNING, ext4's "does not have buffers attached" and the OLD
# bytes read from the disk image by the host although the guest wrote NEW
# through the pin; on the EXT4_IOC_MOVE_EXT route, the pinned page losing
# its buffers.
set -euo pipefail
cd "$(dirname "$0")/../.."
. qemu/lib.sh
. tests/tap.sh

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

set +e
jobs/repro.sh --quick --tsv "$work/repro.tsv" --md "$work/repro.md" \
	--out "$work/runs" >"$work/repro.out" 2>&1
status=$?
set -e
sed 's/^/# /' "$work/repro.out"

if [ ! -s "$work/repro.tsv" ]; then
	tap_not_ok "jobs/repro.sh --quick wrote its table (exit status $status)"
	tap_done
	exit 1
fi

# One test per cell: measured == expected.
rows=0
while IFS=$'\t' read -r f route cell exp meas _; do
	rows=$((rows + 1))
	tap_is "$meas" "$exp" "$f $cell, $route: $exp"
done < <(tail -n +2 "$work/repro.tsv")
nflavours=$(all_flavours | wc -l)
tap_is "$rows" "$((nflavours * 5))" "5 quick cells ran on each of the $nflavours flavours"
tap_is "$status" 0 "jobs/repro.sh --quick exits 0"

# field FLAVOUR CELL COLUMN: one column (1-based) of one row of the table.
field() {
	awk -F'\t' -v f="$1" -v c="$2" -v n="$3" 'NR > 1 && $1 == f && $3 == c { print $n; exit }' \
		"$work/repro.tsv"
}

# The evidence, on the read-fault route (pin, no FOLL_WRITE).
for f in $(all_flavours); do
	ext4=$(flavour_field "$f" 4)
	meas=$(field "$f" pin 5)
	kernel=$(field "$f" pin 9)
	detail=$(field "$f" pin 8)
	run=$(field "$f" pin 10)
	console=$(tr -d '\r' <"$run/console.log" 2>/dev/null || true)
	case $ext4 in
	bug)
		tap_like "$meas" '^BUG \(fs/ext4/[a-z_]+\.c:[0-9]+\)$' \
			"$f: pin without FOLL_WRITE ends in a kernel BUG at a file:line in fs/ext4"
		tap_like "$console" 'kernel BUG at .*fs/ext4/inode\.c:[0-9]+!' \
			"$f: the console says 'kernel BUG at fs/ext4/inode.c:N!'"
		tap_like "$kernel" '^mpage_prepare_extent_to_map \(fs/ext4/inode\.c:[0-9]+\)' \
			"$f: the symbolised trace starts in mpage_prepare_extent_to_map at fs/ext4/inode.c:N"
		tap_like "$kernel" 'ext4_writepages \(fs/ext4/inode\.c:[0-9]+\)' \
			"$f: ... reached from ext4_writepages (fsync's writeback)"
		;;
	warn)
		tap_like "$console" 'WARNING: .* at [^ ]*fs/ext4/inode\.c:[0-9]+ ext4_dirty_folio' \
			"$f: the dirty unpin WARNs in ext4_dirty_folio (a page without buffers)"
		tap_like "$console" 'EXT4-fs warning .*page 0 does not have buffers attached' \
			"$f: ext4 writeback says 'page 0 does not have buffers attached'"
		tap_like "$console" '^repro-step 7: GUP_PIN_IOC_WRITE' \
			"$f: the guest wrote the NEW pattern through the pin"
		tap_like "$detail" 'pread=new ' \
			"$f: the guest's page cache holds NEW after fsync returned"
		tap_like "$detail" 'host: old;' \
			"$f: the host reads OLD from the disk image: the NEW data is lost"
		;;
	*)
		tap_not_ok "$f: no evidence check for ext4 behaviour '$ext4'"
		;;
	esac
	run=$(field "$f" move-ext:get+write 10)
	tap_like "$(tr -d '\r' <"$run/console.log" 2>/dev/null || true)" \
		'^  the pinned page lost its buffer heads: move_extent_per_page' \
		"$f: EXT4_IOC_MOVE_EXT frees the buffers of a page held by get_user_pages(FOLL_WRITE)"
done

tap_done
