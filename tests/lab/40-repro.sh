#!/bin/bash
# The ext4 reproduction (jobs/repro.sh --quick): every cell's measured
# outcome equals the one model/repro.c derives from its flavour's gup, ext4
# and source columns, plus explicit checks of the evidence: where ext4 BUGs,
# a kernel BUG at a file:line in fs/ext4 with that frame on top of the
# trace; where ext4 warns, the WARNING, ext4's "does not have buffers
# attached" and the OLD bytes read from the disk image by the host although
# the guest wrote NEW through the pin; on the EXT4_IOC_MOVE_EXT route, the
# pinned page losing its buffers.  On a 6.12 or 7.3 flavour the quick set
# adds an xfs and a btrfs cell (the twins of the move-ext cell):
# XFS_IOC_SWAPEXT taking the held page out of the file; on 6.12 btrfs'
# refusal on the console and fsync's error, on 7.3 the writepage fixup's
# NEW on disk; each file read back from its own image.  Every field is
# read from the results' JSON by name.
# shellcheck source=../suite.sh
. "$(dirname "$0")/../suite.sh"
res=$work/results

before=$(git status --porcelain 2>/dev/null || true)
set +e
jobs/repro.sh --quick --results "$res" >"$work/repro.out" 2>&1
status=$?
set -e
sed 's/^/# /' "$work/repro.out"

if [ ! -s "$res/run.json" ]; then
	tap_not_ok "jobs/repro.sh --quick wrote run.json (exit status $status)"
	tap_done
	exit 1
fi
tap_is "$(tail -1 "$work/repro.out")" "results: $res" "the job's last line names its results directory"
tap_is "$status" 0 "jobs/repro.sh --quick exits 0"
tap_is "$(git status --porcelain 2>/dev/null || true)" "$before" "the job modified no tracked file"

# cell F CELL FILTER: a field of cell CELL in F.json (jq filter on the cell).
cell() {
	jq -r --arg c "$2" ".cells[] | select(.cell == \$c) | $3" "$res/$1.json"
}

# reports F CELL KIND FILTER: a field of CELL's kernel reports of KIND.
reports() {
	jq -r --arg c "$2" --arg k "$3" \
		".kernel_reports[] | select(.cell == \$c and .kind == \$k) | $4" "$res/$1.json"
}

nflavours=0
for f in $(all_flavours); do
	# A kernel the reproduction has no model of yet (gupctl repro cells
	# answers 4): not run, and run.json says why, in gupctl's words.
	set +e
	probe=$(userspace/gupctl repro cells --quick --policy "$(flavour_field "$f" 3)" \
		--ext4 "$(flavour_field "$f" 4)" --source "$(flavour_field "$f" 5)" 2>&1 >/dev/null)
	rc=$?
	set -e
	if [ "$rc" = 4 ]; then
		tap_is "$(jq -r --arg f "$f" '.not_run[]? | select(.name == $f) | "not run: \(.why)"' \
			"$res/run.json")" "not run: ${probe#gupctl repro cells: }" \
			"$f: not run (no model of its kernel yet), and run.json says why"
		tap_is "$([ -e "$res/$f.json" ] && echo written || echo none)" none "$f: no $f.json"
		continue
	fi
	nflavours=$((nflavours + 1))
	if [ ! -s "$res/$f.json" ]; then
		tap_not_ok "$f: $f.json written"
		continue
	fi
	# One test per cell: measured == expected.
	for c in $(jq -r '.cells[].cell' "$res/$f.json"); do
		tap_is "$(cell "$f" "$c" .measured.outcome)" "$(cell "$f" "$c" .expected.outcome)" \
			"$f $c, $(cell "$f" "$c" .route_title): $(cell "$f" "$c" .expected.outcome)"
	done
	# The quick cells (gupctl repro cells: 5, and 2 more on a 6.12 or 7.3 flavour).
	cells=$(userspace/gupctl repro cells --quick --policy "$(flavour_field "$f" 3)" \
		--ext4 "$(flavour_field "$f" 4)" --source "$(flavour_field "$f" 5)")
	ncells=$(jq length <<<"$cells")
	tap_is "$(jq '.cells | length' "$res/$f.json")" "$ncells" "$f: the $ncells quick cells ran"
	# One boot for the cells that can share one, one for each that BUGs
	# (gupctl repro cells, from model/repro.c's expectation).
	boots=$(jq '([.[] | select(.boot == "own")] | length) +
		(if any(.[]; .boot == "shared") then 1 else 0 end)' <<<"$cells")
	tap_is "$(jq -r --arg f "$f" '.flavours[] | select(.name == $f) | "\(.boots) \(.mismatches)"' \
		"$res/run.json")" "$boots 0" "$f: run.json says $boots boots, 0 mismatches"
	tap_is "$(find "$res/$f" -maxdepth 1 -name 'boot-*.runner.log' | wc -l)" "$boots" \
		"$f: $boots runner logs: the boots that ran"
	# Each cell's slice of its boot's console holds its own marker, and
	# no other cell's: the reports judged for a cell are its own.  A
	# marker numbers its cell in its boot (jobs/guest/repro.sh): the
	# cells that share a boot in gupctl repro cells' order, from 1; a
	# cell that boots alone is its boot's cell 1.
	for c in $(jq -r '.cells[].cell' "$res/$f.json"); do
		markers=$(grep -ao 'gup-lab: repro cell .*' "$res/$(cell "$f" "$c" .console)" 2>/dev/null |
			tr -d '\r' | paste -sd' ' || true)
		n=$(jq --arg file "$(cell "$f" "$c" .console | sed 's#.*/##; s#\.console\.log$##')" \
			'[.[] | select(.boot == "shared") | .file] | (index($file) // 0) + 1' <<<"$cells")
		tap_is "$markers" "gup-lab: repro cell $n" \
			"$f $c: its console slice has its own marker (cell $n of its boot) and no other"
	done
	tap_is "$(grep -c '^ok ' "$res/$f.ktap" || true)" "$ncells" "$f.ktap: $ncells cells ok"
	tap_is "$(jq '[.kernel_reports[] | select(.expected | not)] | length' "$res/$f.json")" 0 \
		"$f: every kernel report is one its cell expects"

	# The evidence, on the read-fault route (pin, no FOLL_WRITE), for the
	# outcome model/repro.c expects of that cell (the shell decides nothing).
	console=$(tr -d '\r' <"$res/$(cell "$f" pin .console)" 2>/dev/null || true)
	expected=$(cell "$f" pin .expected.outcome)
	case $expected in
	BUG*)
		tap_like "$(cell "$f" pin .measured.outcome)" '^BUG \(fs/ext4/[a-z_]+\.c:[0-9]+\)$' \
			"$f: pin without FOLL_WRITE ends in a kernel BUG at a file:line in fs/ext4"
		tap_like "$console" 'kernel BUG at .*fs/ext4/inode\.c:[0-9]+!' \
			"$f: the console says 'kernel BUG at fs/ext4/inode.c:N!'"
		tap_like "$(reports "$f" pin bug '.frames[0] | "\(.function) (\(.location))"')" \
			'^mpage_prepare_extent_to_map \(fs/ext4/inode\.c:[0-9]+\)$' \
			"$f: the symbolised trace starts in mpage_prepare_extent_to_map at fs/ext4/inode.c:N"
		tap_like "$(reports "$f" pin bug '.frames[] | "\(.function) (\(.location))"')" \
			'^ext4_writepages \(fs/ext4/inode\.c:[0-9]+\)$' \
			"$f: ... reached from ext4_writepages (fsync's writeback)"
		tap_is "$(cell "$f" pin .measured.last_step.name)" fsync \
			"$f: the guest's facts end in the fsync step"
		;;
	WARNING*'data lost'*)
		# 6.x: "WARNING: CPU: N PID: N at FILE:LINE FUNC"; 7.3: "WARNING: FILE:LINE at FUNC"
		tap_like "$console" 'WARNING: (.* at [^ ]*fs/ext4/inode\.c:[0-9]+ ext4_dirty_folio|[^ ]*fs/ext4/inode\.c:[0-9]+ at ext4_dirty_folio)' \
			"$f: the dirty unpin WARNs in ext4_dirty_folio (a page without buffers)"
		tap_like "$(reports "$f" pin warning '.frames[0] | "\(.function) (\(.location))"')" \
			'^ext4_dirty_folio \(fs/ext4/inode\.c:[0-9]+\)$' \
			"$f: the WARNING's symbolised trace starts in ext4_dirty_folio at fs/ext4/inode.c:N"
		tap_like "$console" 'EXT4-fs warning .*page 0 does not have buffers attached' \
			"$f: ext4 writeback says 'page 0 does not have buffers attached'"
		tap_like "$(cat "$res/$(cell "$f" pin '.console | sub("\\.console\\.log$"; ".guest.out")')" 2>/dev/null || true)" \
			'^repro-step 7: GUP_PIN_IOC_WRITE' \
			"$f: the guest wrote the NEW pattern through the pin"
		tap_is "$(cell "$f" pin .measured.reads.guest)" new \
			"$f: the guest's page cache holds NEW after fsync returned"
		tap_is "$(cell "$f" pin .measured.reads.host)" old \
			"$f: the host reads OLD from the disk image: the NEW data is lost"
		;;
	*)
		tap_not_ok "$f: no evidence check for the expected outcome '$expected'"
		;;
	esac
	# The move-ext route needs the page taken: where the policy blocks
	# get_user_pages(FOLL_WRITE) (gup-v1), its evidence is the refusal.
	case $(cell "$f" move-ext:get+write .expected.outcome) in
	blocked*)
		tap_like "$(cell "$f" move-ext:get+write .measured.outcome)" '^blocked ' \
			"$f: get_user_pages(FOLL_WRITE) is blocked, as model/repro.c expects: no page for EXT4_IOC_MOVE_EXT"
		tap_is "$(cell "$f" move-ext:get+write .measured.move_ext.buffers_released)" null \
			"$f: ... and the guest never moved the extent"
		;;
	*)
		tap_like "$(cat "$res/$(cell "$f" move-ext:get+write '.console | sub("\\.console\\.log$"; ".guest.out")')" 2>/dev/null || true)" \
			"^  the pinned page lost its buffer heads: EXT4_IOC_MOVE_EXT's filemap_release_folio\\(\\)" \
			"$f: EXT4_IOC_MOVE_EXT frees the buffers of a page held by get_user_pages(FOLL_WRITE)"
		tap_is "$(cell "$f" move-ext:get+write .measured.move_ext.buffers_released)" true \
			"$f: ... and the guest's facts say so"
		;;
	esac
	# Its xfs and btrfs twins, where the quick set has them: the evidence
	# for the outcome model/repro.c expects of each.
	c=xfs:swapext:get+write
	case $(cell "$f" "$c" .expected.outcome) in
	'') ;;
	'write dropped'*)
		tap_like "$(cat "$res/$(cell "$f" "$c" '.console | sub("\\.console\\.log$"; ".guest.out")')" 2>/dev/null || true)" \
			'^  the held page left the file: xfs_swap_extent_flush' \
			"$f $c: XFS_IOC_SWAPEXT truncated the held page out of the file"
		tap_is "$(cell "$f" "$c" '"\(.measured.swapext.page_left_file) \(.measured.reads.guest) \(.measured.reads.host)"')" \
			"true old old" "$f $c: ... the guest's facts say so, and the guest and the host read OLD"
		;;
	*)
		tap_not_ok "$f $c: no evidence check for the expected outcome '$(cell "$f" "$c" .expected.outcome)'"
		;;
	esac
	c=btrfs:writeback:get+write
	console=$(tr -d '\r' <"$res/$(cell "$f" "$c" .console)" 2>/dev/null || true)
	case $(cell "$f" "$c" .expected.outcome) in
	'') ;;
	'BTRFS error'*)
		tap_like "$console" 'BTRFS error .*: root [0-9]+ ino [0-9]+ folio 0 is marked dirty without notifying the fs' \
			"$f $c: btrfs writeback says the page 'is marked dirty without notifying the fs'"
		tap_is "$(cell "$f" "$c" '"\(.measured.writeback.clean) \(.measured.fsync) \(.measured.reads.guest) \(.measured.reads.host)"')" \
			"true EUCLEAN new old" \
			"$f $c: written back while held, fsync fails EUCLEAN, the cache holds NEW, the host reads OLD"
		;;
	'no loss'*)
		tap_is "$(cell "$f" "$c" '"\(.measured.writeback.clean) \(.measured.reads.host)"')" "true new" \
			"$f $c: written back while held, and the host reads NEW"
		;;
	*)
		tap_not_ok "$f $c: no evidence check for the expected outcome '$(cell "$f" "$c" .expected.outcome)'"
		;;
	esac
done
tap_is "$(jq '.flavours | length' "$res/run.json")" "$nflavours" \
	"run.json lists the $nflavours flavours"

tap_done
