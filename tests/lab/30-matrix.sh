#!/bin/bash
# The GUP matrix's quick subset on every flavour (jobs/matrix.sh --quick,
# the job of `make matrix` on six backings of nineteen, btrfs-shared among
# them (the boot's scratch btrfs must be mounted), into a results
# directory of its own): every cell must meet the
# expectation its flavour's policy derives, every kernel report on the
# console must be a WARNING a cell's policy expects (each such cell must
# get its own), the kernel's own gup_test must agree, transparent huge
# page backings must have pinned a huge page, every gup_longterm verdict
# must be the one the flavour's policy predicts in each of its runs (from
# the scratch ext4, xfs and btrfs), and the job must write
# its results directory (docs/results.md) and nothing tracked.  Every figure
# is read from the results by field name (jq); the shape of the matrix
# from the document itself, never from a second copy of it here.
# shellcheck source=../suite.sh
. "$(dirname "$0")/../suite.sh"
. jobs/lib.sh
res=$work/results
links() {
	readlink "$LAB_RESULTS/latest" "$LAB_RESULTS/matrix/latest" 2>/dev/null || true
}

# Before the run, from the code: the cells --quick leaves out, per policy
# (userspace/model/cell.c, matrix_quick_backing()).
make -s -C userspace
declare -A left_out btrfs_run
for f in $(all_flavours); do
	p=$(flavour_field "$f" 3)
	[ -z "${left_out[$p]:-}" ] || continue
	userspace/gupctl matrix --flavour "$f" --policy "$p" --expect --quick >"$work/expect.$p"
	left_out[$p]=$(grep -c 'not in the quick subset' "$work/expect.$p")
	# the btrfs-shared cells the quick run runs (not not-run)
	btrfs_run[$p]=$(awk -F'\t' '{ split($2, c, " ") } c[3] == "btrfs-shared" && $3 !~ /^not-run/' \
		"$work/expect.$p" | wc -l)
done

tree_before=$(git status --porcelain)
links_before=$(links)
# A mislabelled flavour fails: a table that says gup-v7 is v9 (its kernel,
# the same cached one, is v7: model/detect.c reads vma_needs_dirty_tracking
# without folio_fast_pin_allowed).  The job must fail it and say why.  Its
# one guest boots beside the run's, which leaves a core free for a while.
awk '$1 == "gup-v7" { $3 = "v9" } 1' "$LAB_FLAVOURS" >"$work/flavours"
GUP_LAB_FLAVOURS=$work/flavours jobs/matrix.sh --quick --results "$work/mislabelled" gup-v7 \
	>"$work/mislabelled.out" 2>"$work/mislabelled.err" &
mislabelled_pid=$!
set +e
jobs/matrix.sh --quick --results "$res" >"$work/matrix.out" 2>"$work/matrix.err"
status=$?
set -e
tap_is "$status" 0 "jobs/matrix.sh --quick exits 0"
[ "$status" -eq 0 ] || tail -30 "$work/matrix.out" | sed 's/^/#   /'
tap_is "$(tail -1 "$work/matrix.out")" "results: $res" "the job's last line names its results directory"
tap_is "$(grep -vc '^# ' "$work/matrix.out")" 1 "the job prints only comment lines and the results line"
tap_is "$(git status --porcelain)" "$tree_before" "the job leaves git status of the tree unchanged"
tap_is "$(links)" "$links_before" "--results DIR moves no latest link"

run=$res/run.json
tap_is "$(jq -r .job "$run" 2>&1)" matrix "run.json: job matrix"
tap_is "$(jq -r '[.flavours[].name] | join(" ")' "$run" 2>&1)" \
	"$(all_flavours | paste -sd' ')" "run.json: every flavour, in order"
tap_like "$(jq -r '.commit, .date, (.source_packages | map(.version) | join(","))' "$run" 2>&1 | paste -sd' ')" \
	'^[0-9a-f]{7,}(-dirty)? [0-9]{4}-[0-9]{2}-[0-9]{2}T.*Z [0-9]' \
	"run.json: commit, date and the kernel source version"

# facts DOC: what the checks below read of a FLAVOUR.json, in one jq (the
# document holds every cell, 3 MB: a jq per check took 2-3 s a flavour).
facts() {
	jq -c --arg r 'not in the quick subset' '{
		n: (.cells | length),
		head: ([.job, .flavour, .policy, .ext4, .quick] | map(tostring) | join(" ")),
		left_out: ([.cells[] | select(.measured.outcome == "not-run" and
			(.expected.reason | startswith($r)))] | length),
		summary: (.summary | [.cells, .mismatches, .unexpected_kernel_reports,
			.xcheck_disagree, .passed]),
		kernel_policy: "\(.kernel_policy.name // "none") (\(.kernel_policy.evidence // "not read"))",
		verdict: .kernel_verdict,
		want_verdict: (if .summary.expected_kernel_reports > 0 then "warning" else "clean" end),
		warn_cells: ([.cells[] | select(.expected.kernel_report != null and
			.measured.outcome != "not-run")] | length),
		expected_reports: .summary.expected_kernel_reports,
		misattributed: ([.cells[.kernel_reports[] | select(.expected) | .cell - 1] |
			select(.expected.kernel_report == null)] | length),
		said_by: ([.cells[] | select((.expected.by == "driver" or .expected.by == "kernel") and
			has("expected") and (.expected | has("kernel_report")))] | length),
		na: ([.cells[] | select(.expected.outcome == "not-run")] | length),
		btrfs_ran: ([.cells[] | select(.backing == "btrfs-shared" and
			.measured.outcome != "not-run")] | length),
		ran: ([.cells[] | select(.expected.outcome != "not-run")] | length),
		na_said: ([.cells[] | select(.expected.outcome == "not-run" and
			.measured.outcome == "not-run" and (.expected.reason | length) > 0)] | length),
		thp: ([.cells[] | select((.backing | endswith("-thp")) and .measured.outcome == "pinned")] | length),
		thp_huge: ([.cells[] | select(.measured.thp_kb > 0)] | length),
		xn: .xcheck.checked,
		x_agree: ([.xcheck.cells[] | select(.agree)] | length),
		x_total: (([.xcheck.not_checked[].cells] | add) + .xcheck.checked),
		diag: ([.cells[] | select(.match | not) |
			"#   cell \(.index) \(.method) \(.flags) \(.backing) \(.state): measured \(.measured.outcome) \(.measured.errno), expected \(.expected.outcome) \(.expected.errno) \(.note // "")"][:20]
			+ [.kernel_reports[] | select(.expected | not) | "#   \(.title): \(.note)"][:10])
	}' "$1" 2>/dev/null || echo '{"error": true}'
}

for f in $(all_flavours); do
	doc=$res/$f.json
	fx=$(facts "$doc")
	fact() { jq -r "$1" <<<"$fx"; }
	n=$(fact .n)
	tap_like "$n" '^[1-9][0-9]*$' "$f: FLAVOUR.json has the matrix's cells ($n)"
	tap_is "$(jq -r --arg f "$f" '.flavours[] | select(.name == $f) |
		[.ran, .why_not_run, .cells, .mismatches, .quick, .input_hash] | map(tostring) | join(" ")' "$run" 2>&1)" \
		"true null $n 0 true $(flavour_key "$f")" "$f: run.json: ran, every cell, 0 mismatches, quick, its input hash"
	tap_is "$(fact .head)" \
		"matrix $f $(flavour_field "$f" 3) $(flavour_field "$f" 4) true" \
		"$f: FLAVOUR.json: job, flavour, policy and ext4 of patches/flavours, a quick run"
	nq=${left_out[$(flavour_field "$f" 3)]}
	tap_is "$(fact .left_out)" "$nq" \
		"$f: the $nq cells gupctl matrix --expect --quick leaves out are not run, and say why"
	nb=${btrfs_run[$(flavour_field "$f" 3)]}
	tap_is "$(fact .btrfs_ran)" "$nb" \
		"$f: the scratch btrfs was mounted: the $nb btrfs-shared cells of the quick subset ran"
	kp=$(fact .kernel_policy)
	tap_is "${kp%% *}" "$(flavour_field "$f" 3)" \
		"$f: the kernel's own GUP policy, read in the guest, is patches/flavours' ($kp)"
	tap_is "$(fact '.summary | tojson')" "[$n,0,0,0,true]" \
		"$f: summary: every cell, 0 mismatches, 0 unexpected kernel reports, gup_test agrees, passed"
	fact '.diag[]?'
	tap_is "$(fact .verdict)" "$(fact .want_verdict)" \
		"$f: a clean boot, or one whose only reports are the expected WARNINGs"
	tap_is "$(fact .warn_cells)" "$(fact .expected_reports)" \
		"$f: one expected WARNING per cell that expects one"
	tap_is "$(fact .misattributed)" 0 "$f: each expected report is attributed to a cell that expects it"
	tap_is "$(fact .said_by)" "$n" \
		"$f: every cell says who refuses (by) and which kernel report it expects"
	na=$(fact .na)
	tap_is "$(fact .na_said)" "$na" \
		"$f: the $na cells not run (not applicable, or not in the quick subset) are not run, each with a reason"
	thp=$(fact .thp)
	if [ "$thp" = 0 ]; then
		tap_skip "$f: pinned THP cells pinned a PMD-mapped huge page" \
			"no THP backing in the quick subset (make matrix pins them)"
	else
		tap_is "$(fact .thp_huge)" "$thp" "$f: each of the $thp pinned THP cells pinned a PMD-mapped huge page"
	fi
	xn=$(fact .xn)
	if [ "$xn" -gt 0 ] 2>/dev/null && [ "$(fact .x_agree)" = "$xn" ] &&
		[ "$(fact .x_total)" = "$n" ]; then
		tap_ok "$f: the kernel's gup_test agrees on all $xn cells it can express; the others have reasons"
	else
		tap_not_ok "$f: gup_test cross-check ($xn cells checked)"
	fi
	ran=$(fact .ran)
	tap_is "$(grep -c 'gup-lab: matrix cell ' "$res/$f.console.log" 2>/dev/null || true)" "$ran" \
		"$f: the console shows a marker before each of the $ran cells run"
	tap_is "$(grep -cE '^(not )?ok [0-9]+ ' "$res/$f.ktap" 2>/dev/null || true)" "$n" \
		"$f: FLAVOUR.ktap holds the guest's KTAP, one line per cell"
	# gup_longterm: its KTAP from each file system, and a judgement with
	# one entry per test of each run's plan.
	lt=$res/$f.longterm.json
	plans=''
	for k in gup_longterm gup_longterm.xfs gup_longterm.btrfs; do
		plans+=" $(sed -n 's/^1\.\.\([0-9]*\)$/\1/p' "$res/$f.$k.ktap" 2>/dev/null | head -1)"
	done
	plan=$(awk '{ print $1 }' <<<"$plans")
	tap_like "${plans# }" '^([1-9][0-9]*) \1 \1$' \
		"$f: FLAVOUR.gup_longterm{,.xfs,.btrfs}.ktap hold gup_longterm's KTAP of each run, the same plan (${plans# })"
	tap_is "$(jq -r '[.flavour, .policy, (.tests | length), .summary.missing, ([.runs[].local_fs] | join(","))] | map(tostring) | join(" ")' "$lt" 2>&1)" \
		"$f $(flavour_field "$f" 3) $((3 * ${plan:-0})) 0 ext4,xfs,btrfs" \
		"$f: FLAVOUR.longterm.json judges every test of each run's plan, none missing"
	tap_is "$(jq -c '.summary | [.disagree, .all_agree]' "$lt" 2>&1)" "[0,true]" \
		"$f: every gup_longterm verdict is the one the policy predicts"
	jq -r '.findings[] | select(.kind != "suite") | "#   \(.kind): \(.text)"' "$lt" 2>/dev/null | sed -n 1,10p
	# A 7.3 tree's own suite (rootfs/stage-guest.sh builds it for a tree of
	# that version only): three runs, judged with --suite 7.3; none on
	# another flavour.
	lto=$res/$f.longterm-own.json
	if [ "$(flavour_field "$f" 5)" = 7.3 ]; then
		plans=''
		for k in gup_longterm-own gup_longterm-own.xfs gup_longterm-own.btrfs; do
			plans+=" $(sed -n 's/^1\.\.\([0-9]*\)$/\1/p' "$res/$f.$k.ktap" 2>/dev/null | head -1)"
		done
		tap_like "${plans# }" '^([1-9][0-9]*) \1 \1$' \
			"$f: FLAVOUR.gup_longterm-own{,.xfs,.btrfs}.ktap hold its own tree's suite's KTAP of each run (${plans# })"
		tap_is "$(jq -c '[.suite.source, .summary.missing, .summary.disagree, .summary.all_agree]' "$lto" 2>&1)" \
			'["7.3",0,0,true]' "$f: its own 7.3 gup_longterm: every verdict the one the policy predicts"
		jq -r '.findings[] | select(.kind != "suite") | "#   \(.kind): \(.text)"' "$lto" 2>/dev/null | sed -n 1,10p
	else
		tap_is "$([ -e "$lto" ] && echo present || echo absent)" absent \
			"$f: no suite of its own (its tree is $(flavour_field "$f" 5), not 7.3)"
	fi
done

# A mislabelled flavour fails (started beside the run above: judged here)
wait "$mislabelled_pid" && status=0 || status=$?
tap_is "$status" 1 "a mislabelled flavour (the table says gup-v7 is v9): jobs/matrix.sh exits 1"
tap_like "$(cat "$work/mislabelled.out")" \
	"mislabelled: the flavour table says its GUP policy is v9, but the kernel's is v7 \\(release 6\\.1\\.[0-9]+.*vma_needs_dirty_tracking" \
	"a mislabelled flavour: the job says the table's policy, the kernel's and its evidence"
[ "$status" -eq 1 ] || tail -20 "$work/mislabelled.out" | sed 's/^/#   /'

tap_done
