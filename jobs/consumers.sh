#!/bin/bash
# `make consumers`: the kernel's own GUP users (process_vm_writev/readv,
# /proc/PID/mem, PTRACE_POKEDATA, O_DIRECT, vmsplice, io_uring fixed
# buffers; AF_XDP, RDMA on rxe and siw, uprobes where the kernel has them:
# the net, rdma and uprobes overlays) on every backing and page state, the
# file backings on ext4, xfs and btrfs, per flavour, one boot each.
# A flat list of steps; every expectation and judgement is gupctl's
# (userspace/consumers/: cells.c's expectations, judge.c):
#   1. stage the guest's gupctl (no driver: the interfaces are the kernel's),
#      and gupctl-rdma, the build with libibverbs for the RDMA cells;
#   2. boot the flavour once with a fresh scratch xfs and btrfs beside the
#      ext4 (qemu/run.sh --fs xfs --fs btrfs; jobs/guest/consumers.sh
#      mounts them): `gupctl consumers run`, a marker per cell on
#      /dev/kmsg, measurements as JSON;
#   3. read every cell's file back on the host from the image of the file
#      system it is on (qemu/read-image.sh ext4|xfs|btrfs: debugfs,
#      xfs_db, btrfs restore, never a mount: the guest's page cache cannot
#      fool it) into FLAVOUR.disk/consumers/N.dat, list the console's
#      kernel reports (qemu/scan-console.sh --reports);
#   4. `gupctl consumers judge`: FLAVOUR.json and FLAVOUR.ktap in the
#      results directory (docs/results.md), each cell against the
#      expectation its flavour's policy gives; an interface whose kernel
#      option (or whose file system's option) the flavour's .config lacks
#      is expected not to run (KTAP SKIP).  A flavour of policy none (a
#      registered kernel that matches no known policy: flavour_policy)
#      has its cells measured, none compared ("measured, no policy to
#      compare"), a kernel report during a cell that cell's finding.
# Exit status: 0 when every flavour ran and every cell is as expected with
# no kernel report but the expected ones (policy none: every cell ran, no
# report outside the cells); 1 otherwise; 2 usage error.  The
# last line is "results: PATH".
#
#   jobs/consumers.sh [--quick] [--shard I/N] [--results DIR] [--flavour F]... [FLAVOUR...]
# --quick        the quick subset (gupctl consumers expect --quick), for make check
# --shard I/N    run only shard I of N of the flavours (places I, I+N, ...;
#                jobs/merge.sh puts the parts together: docs/results.md)
# --results DIR  write the run there, move no latest link (default: a new
#                directory under results/consumers/, then .../latest)
# --flavour F    run F (repeatable; the same as naming it after the options)
# FLAVOUR...     the flavours to run (default: every one in patches/flavours;
#                every kernel has every interface's options, and a kernel
#                that lacks one, a registered tree's, SKIPs its cells)
set -euo pipefail
# shellcheck source=../patches/flavours.sh
. "$(dirname "$0")/../patches/flavours.sh"
# shellcheck source=lib.sh
. "$LAB_ROOT/jobs/lib.sh"
job_guard "$@"

usage() {
	sed -n '2,/^set /{/^#/p}' "$0" | sed 's/^# \{0,1\}//'
}

quick=() results='' shard='' flavours=()
while [ $# -gt 0 ]; do
	case $1 in
	--quick) quick=(--quick) ;;
	--results) results=${2:?--results needs a DIR}; shift ;;
	--flavour) flavours+=("${2:?--flavour needs a FLAVOUR}"); shift ;;
	--shard) shard=${2:?--shard needs I/N}; shift ;;
	-h | --help) usage; exit 0 ;;
	-*) echo "jobs/consumers.sh: unknown option '$1' (see --help)" >&2; exit 2 ;;
	*) flavours+=("$1") ;;
	esac
	shift
done
if [ ${#flavours[@]} -eq 0 ]; then
	mapfile -t flavours < <(all_flavours)
fi
list=$(job_flavours consumers "${flavours[@]}") || exit 2
mapfile -t flavours <<<"$list"
job_shard consumers "$shard" || exit 2

job_userspace
gupctl=$LAB_ROOT/userspace/gupctl
tmp=$(job_tmpdir)
trap 'rm -rf "$tmp"' EXIT
# A registered kernel given no POLICY=: its policy, read from its kernel
# first (one boot, cached).
job_detect "${flavours[@]}" || exit 1
results_begin consumers "$results" "${flavours[@]}"
out=$RESULTS_DIR

# The guest needs gupctl and its script only (jobs/guest/, where
# rootfs/stage-guest.sh puts it): no module, nothing from the kernel tree.
stage=$tmp/stage
mkdir -p "$stage/bin" "$stage/guest"
cp "$LAB_ROOT/userspace/gupctl-guest" "$stage/bin/gupctl"
cp "$LAB_ROOT/jobs/guest/consumers.sh" "$LAB_ROOT/jobs/guest/disks.sh" "$stage/guest/"
# Built where libibverbs-dev is (userspace/Makefile); without it the RDMA
# cells say so and do not run.
[ ! -x "$LAB_ROOT/userspace/gupctl-rdma" ] ||
	cp "$LAB_ROOT/userspace/gupctl-rdma" "$stage/bin/gupctl-rdma"

# One flavour, start to end (two at a time: jobs/lib.sh's job_parallel).
# Returns 1 if it failed.
# shellcheck disable=SC2317 # called by job_parallel
consumers_flavour() {
	local f=$1 bad=0
	policy=$(flavour_policy "$f")
	run=$tmp/$f.run
	guest_out=$tmp/$f.out
	# The kernel first (built, or waited for under make lab's builder): the
	# flavour's wall time is its run's, not its kernel's build.
	flavour_build "$f" >/dev/null || true
	t0=$SECONDS
	echo "# consumers: $f (policy $policy)"
	set +e
	job_boot "$tmp/$f.runner" --flavour "$f" --allow-kernel-reports --timeout 900 --raw-trace \
		--fs xfs --fs btrfs --files "$stage" --out "$run" --results "$guest_out" \
		--report "$tmp/$f.report" \
		--env "CONSUMERS_QUICK=$([ ${#quick[@]} -gt 0 ] && echo true || echo false)" \
		--exec 'bash /lab/guest/consumers.sh'
	status=$?
	set -e
	verdict=$(jq -r '.kernel_verdict // empty' "$tmp/$f.report" 2>/dev/null || true)
	cp "$run/console.log" "$out/$f.console.log" 2>/dev/null || true
	cp "$guest_out/consumers.json" "$out/$f.guest.json" 2>/dev/null || true
	# The cells' files as the disks hold them, each from the image of its
	# file system (the guest's /mnt/TYPE/consumers/N.dat is the image's
	# /consumers/N.dat), three reads at a time (a read is 0.1-0.4 s of
	# debugfs, xfs_db or btrfs restore); one the tool cannot read is left
	# out (the judge says "missing").
	mkdir -p "$out/$f.disk/consumers"
	# shellcheck disable=SC2016 # sh -c's own arguments
	[ ! -s "$out/$f.guest.json" ] ||
	jq -r '.cells[].file // empty' "$out/$f.guest.json" |
		sed -nE 's#^/mnt/(ext4|xfs|btrfs)(/consumers/[0-9]+\.dat)$#\1 \2#p' |
		while read -r fs path; do
			img=$(jq -r --arg fs "$fs" '.images[$fs] // empty' "$tmp/$f.report" 2>/dev/null || true)
			[ -z "$img" ] || printf '%s\n' "$fs" "$img" "$path" "$out/$f.disk$path"
		done |
		xargs -r -d '\n' -n 4 -P 3 sh -c '"$0" "$1" "$2" "$3" >"$4" || rm -f "$4"' \
			"$LAB_ROOT/qemu/read-image.sh" 2>>"$tmp/$f.read-image" || true
	[ ! -s "$tmp/$f.read-image" ] ||
		echo "# $f: some cells' files could not be read from their images; the first: $(head -1 "$tmp/$f.read-image")"
	judge=(--flavour "$f" --policy "$policy" "${quick[@]}" --src "$(flavour_dir "$f")/src"
		--config "$(flavour_dir "$f")/build/.config"
		--input-hash "$(flavour_key "$f")" --kernel-verdict "${verdict:-none}"
		--disk "$out/$f.disk/consumers" --json "$out/$f.json" --ktap "$out/$f.ktap")
	# policy none (a registered kernel of no known policy): every cell
	# measured, none compared; its source column names the kernel
	[ "$policy" != none ] || judge+=(--source "$(flavour_field "$f" 5)")
	why=null
	if [ -s "$out/$f.guest.json" ]; then
		judge+=(--guest "$out/$f.guest.json")
	else
		why="no measurements came back (runner status $status, kernel verdict ${verdict:-none})"
		echo "# $f: NOT RUN: $why"
		tail -20 "$tmp/$f.runner" | sed 's/^/#   /'
		job_first_report "$out/$f.console.log" "$f"
		judge+=(--not-run "$why")
		why=$(jq -n --arg why "$why" '$why')
	fi
	if [ -s "$out/$f.console.log" ]; then
		"$LAB_ROOT/qemu/scan-console.sh" --reports "$out/$f.console.log" >"$tmp/$f.reports.json"
		judge+=(--console "$out/$f.console.log" --reports "$tmp/$f.reports.json")
	fi
	set +e
	"$gupctl" consumers judge "${judge[@]}"
	jstatus=$?
	set -e
	job_verbose "$out/$f.ktap"
	[ "$jstatus" -le 1 ] || die "$f: gupctl consumers judge failed"
	[ "$jstatus" -eq 0 ] || bad=1
	results_flavour "$f" "kernel_release=$(jq .kernel_release "$out/$f.json")" \
		"ran=$([ "$why" = null ] && echo true || echo false)" "why_not_run=$why" \
		boots=1 "wall_seconds=$((SECONDS - t0))" \
		"cells=$(jq .summary.cells "$out/$f.json")" \
		"mismatches=$(jq .summary.mismatches "$out/$f.json")" \
		"data_lost=$(jq .summary.data_lost "$out/$f.json")" \
		"accel=$(job_accel "$tmp/$f.report")"
	return "$bad"
}

bad=0
job_parallel consumers_flavour "${flavours[@]}" || bad=1
results_end
exit "$bad"
