#!/bin/bash
# The kernel's own GUP users, quick (jobs/consumers.sh --quick) on every
# flavour as make check builds it (no overlays): every cell's measured
# outcome, kernel reports and read-back are the ones userspace/consumers/cells.c
# derives from the flavour's policy, and the facts seed 005's own notes
# predict show up by name: on gup-v1 PTRACE_POKEDATA into a read-only
# MAP_PRIVATE file mapping (a debugger's breakpoint) fails with EIO and
# seed 005's WARNING, and an O_DIRECT read into an untouched MAP_SHARED
# ext4, xfs or btrfs page fails with EFAULT where stock moves the bytes
# onto the disk the host reads from that file system's image.  Every xfs
# and btrfs cell measures what its ext4 twin measures.
# Every field is read from the results' JSON by name.  Every kernel has
# every interface's options (AF_XDP, RDMA, uprobes: patches/config.fragment),
# so no cell is skipped.  About 20 s a flavour.
# shellcheck source=../suite.sh
. "$(dirname "$0")/../suite.sh"
res=$work/results

before=$(git status --porcelain 2>/dev/null || true)
set +e
mapfile -t flavours < <(all_flavours)
jobs/consumers.sh --quick --results "$res" "${flavours[@]}" >"$work/consumers.out" 2>&1
status=$?
set -e
sed 's/^/# /' "$work/consumers.out"
if [ ! -s "$res/run.json" ]; then
	tap_not_ok "jobs/consumers.sh --quick wrote run.json (exit status $status)"
	tap_done
	exit 1
fi
tap_is "$status" 0 "jobs/consumers.sh --quick ${flavours[*]} exits 0"
tap_is "$(tail -1 "$work/consumers.out")" "results: $res" "the job's last line names its results directory"
tap_is "$(git status --porcelain 2>/dev/null || true)" "$before" "the job modified no tracked file"

# cell F IFACE BACKING STATE FILTER: a field of that cell of F.json.
cell() {
	jq -r --arg i "$2" --arg b "$3" --arg s "$4" \
		".cells[] | select(.interface == \$i and .backing == \$b and .state == \$s) | $5" \
		"$res/$1.json"
}

for f in "${flavours[@]}"; do
	# one jq for the cells' fields (a jq per field per cell took seconds a
	# flavour); no field is empty: read would merge two tabs
	while IFS=$'\t' read -r skip got match want iface backing state; do
		# an interface this kernel lacks: SKIP, not a pass (and the
		# count below fails)
		if [ "$skip" != - ] && [ "$got $match" = "not-run true" ]; then
			tap_skip "$f $iface $backing $state" "$skip"
			continue
		fi
		tap_is "$got $match" "$want true" "$f $iface $backing $state: $want"
	done < <(jq -r '.cells[] | [(if (.skip // "") == "" then "-" else .skip end),
		.measured.outcome, .match, .expected.outcome, .interface, .backing, .state] |
		map(tostring) | @tsv' "$res/$f.json")
	# the quick cells as gupctl derives them on the host, every one run
	nq=$(userspace/gupctl consumers expect --quick --policy "$(flavour_field "$f" 3)" |
		grep -c '^ *[0-9]')
	nskip=$(jq '[.cells[] | select(.skip)] | length' "$res/$f.json")
	tap_is "$(jq -r '[.cells[] | select(.skip) | .interface] | unique | join(" ")' "$res/$f.json")" \
		"" "$f: no cell skipped: the kernel has AF_XDP, RDMA and uprobes ($nskip skipped)"
	tap_is "$(jq -r '[.cells[] | .interface] | unique | map(select(test("^(af-xdp|rdma|uprobe)"))) | join(" ")' "$res/$f.json")" \
		"af-xdp-umem rdma-rxe rdma-siw uprobe uprobe-refctr" \
		"$f: the quick cells include AF_XDP's, RDMA's and the uprobes'"
	tap_is "$(jq -r '.summary | "\(.cells) \(.ran) \(.mismatches) \(.data_lost) \(.unexpected_kernel_reports)"' "$res/$f.json")" \
		"$nq $((nq - nskip)) 0 0 0" \
		"$f: $nq cells, $((nq - nskip)) ran, none differs, no DATA LOST, no unexpected kernel report"
done

tap_is "$(cell gup-v1 ptrace-pokedata ext4-private-ro untouched '.verdict')" "WARN EIO" \
	"gup-v1: a breakpoint (PTRACE_POKEDATA) into a read-only MAP_PRIVATE file mapping: WARN EIO"
tap_like "$(jq -r --argjson n "$(cell gup-v1 ptrace-pokedata ext4-private-ro untouched .index)" \
	'.kernel_reports[] | select(.cell == $n) | "\(.title) \(.expected)"' "$res/gup-v1.json")" \
	'^WARNING: .* at [^ ]*mm/gup\.c:[0-9]+ check_vma_flags.* true$' \
	"... the WARNING is check_vma_flags()'s, and expected"
tap_is "$(cell stock ptrace-pokedata ext4-private-ro untouched '"\(.verdict) \(.measured.mapping) \(.measured.disk)"')" \
	"ok new old" "stock: the breakpoint lands in the tracee's COW copy, the disk keeps OLD"
tap_is "$(cell gup-v1 o-direct-read ext4-shared untouched .verdict)" "WARN EFAULT" \
	"gup-v1: an O_DIRECT read into an untouched MAP_SHARED ext4 page: WARN EFAULT"
tap_is "$(cell gup-v1 o-direct-read ext4-shared write-faulted .verdict)" "ok" \
	"gup-v1: ... but ok once the page is write-faulted (GUP-fast takes the writable PTE)"
tap_is "$(cell stock o-direct-read ext4-shared untouched '"\(.verdict) \(.measured.disk)"')" "ok new" \
	"stock: the O_DIRECT read's bytes are on the disk the host reads"
for fs in xfs btrfs; do
	tap_is "$(cell stock o-direct-read "$fs-shared" untouched '"\(.verdict) \(.measured.disk)"')" "ok new" \
		"stock: ... and on the $fs disk, read from its image (qemu/read-image.sh $fs)"
	tap_is "$(cell gup-v1 o-direct-read "$fs-shared" untouched .verdict)" "WARN EFAULT" \
		"gup-v1: an O_DIRECT read into an untouched MAP_SHARED $fs page: WARN EFAULT, as on ext4"
done

# Every xfs and btrfs cell that ran against its ext4 twin (the same
# interface, mapping and state): the same verdict and read-backs.
for f in "${flavours[@]}"; do
	differ=$(jq -r '[.cells[] | select(.measured.outcome != "not-run")] as $ran |
		[.cells[] | {k: "\(.interface) \(.backing | sub("^[a-z0-9]+-"; "")) \(.state)",
			fs: (.backing | split("-")[0]),
			v: "\(.verdict) \(.measured.mapping) \(.measured.file) \(.measured.disk) \(.measured.read)"}]
		| map(select(.fs == "ext4")) as $ext4 |
		[$ran[] | select(.backing | test("^(xfs|btrfs)-")) |
			{k: "\(.interface) \(.backing | sub("^[a-z0-9]+-"; "")) \(.state)",
			 n: "\(.interface) \(.backing) \(.state)",
			 v: "\(.verdict) \(.measured.mapping) \(.measured.file) \(.measured.disk) \(.measured.read)"} |
			. as $c | select(([$ext4[] | select(.k == $c.k) | .v] | first) != $c.v) | .n] |
		join(", ")' "$res/$f.json")
	ntw=$(jq '[.cells[] | select(.measured.outcome != "not-run" and (.backing | test("^(xfs|btrfs)-")))] | length' \
		"$res/$f.json")
	tap_is "$differ" "" "$f: each of the $ntw xfs and btrfs cells that ran measured what its ext4 twin measured"
done
tap_done
