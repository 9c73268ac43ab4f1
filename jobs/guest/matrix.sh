#!/bin/bash
# The guest half of `make matrix` (jobs/matrix.sh), run in the guest as
# `bash /lab/guest/matrix.sh`.  Steps:
#   0. mount the scratch xfs and btrfs at /mnt/xfs and /mnt/btrfs
#      (jobs/guest/disks.sh; the boot's qemu/run.sh --fs xfs --fs btrfs);
#      one that cannot be (no disk, or the kernel lacks it) leaves its
#      matrix cells not run, each a failure that says why, and its
#      gup_longterm run not run, the reason in /lab/out/gup_longterm.FS.notrun;
#   1. load gup_pin_test.ko;
#   2. gupctl matrix: a marker per cell on /dev/kmsg ("gup-lab: matrix
#      cell N", gupctl's kmsg_mark()), the KTAP to /lab/out/matrix.ktap
#      (the console keeps the markers), the cells to /lab/out/matrix.json
#      with the kernel's own GUP policy as gupctl reads it from the kernel
#      (the host fails a flavour whose GUP_LAB_POLICY is not that one);
#   3. gupctl xcheck: the kernel's own gup_test against the policy's
#      expectations; not given the matrix's JSON (reading it took 3.3-3.9
#      s of each boot under TCG): the host's collect compares it with our
#      driver's cells (gupctl report --collect);
#   4. rmmod;
#   5. the mm selftests' gup_longterm (6.12's), once from each disk file
#      system, whose "local tmpfile" it makes in the cwd: /mnt/ext4 (cell
#      1, /lab/out/gup_longterm.ktap and .status), /mnt/xfs (cell 2,
#      gup_longterm.xfs.*), /mnt/btrfs (cell 3, gup_longterm.btrfs.*), each
#      after its marker "gup-lab: longterm cell N"; on a 7.3 kernel its
#      own tree's suite too, the same way (cells 4-6,
#      gup_longterm-own.{ext4,xfs,btrfs}.*, its version in
#      gup_longterm-own.suite); then "gup-lab: longterm end" (every job's
#      marker format, lib/kmsg.h);
#   6. unmount xfs and btrfs.
# Inputs (environment): GUP_LAB_FLAVOUR and GUP_LAB_POLICY (qemu/run.sh
# exports them), MATRIX_QUICK (true: gupctl matrix --quick, make check's
# subset; false: every cell).  Staged beside it by rootfs/stage-guest.sh:
# /lab/gup_pin_test.ko, /lab/bin/gup_test, /lab/bin/gup_longterm (and
# /lab/bin/gup_longterm-own with /lab/gup_longterm-own.suite) and the
# tree's FOLL_* values (/lab/foll_*, /lab/tool_foll_touch).
# Exit status: 0 when gupctl matrix and gupctl xcheck both exited 0; 1
# otherwise (the module did not load: neither ran).  gup_longterm's status
# is data (/lab/out/gup_longterm.status), not this script's.
set -u
# shellcheck source=module.sh
. "${0%/*}/module.sh"	# no dirname: a command costs 50-100 ms under TCG
# shellcheck source=disks.sh
. "${0%/*}/disks.sh"

# The scratch xfs and btrfs; why not, for the ones that cannot be mounted.
for fs in xfs btrfs; do
	scratch_mount "$fs" 2>"/lab/out/mount.$fs.err" ||
		echo "# $fs: not mounted: $(cat "/lab/out/mount.$fs.err")"
done

quick=()
[ "${MATRIX_QUICK:?MATRIX_QUICK: true or false}" = false ] || quick=(--quick)

status=90 xstatus=90
if module_load; then
	# shmem THP only comes with shmem_enabled=advise (anonymous THP: the
	# config's madvise mode); without the huge zero page a read fault of
	# an anon-thp cell maps a real THP (with it, the zero page stands in,
	# and its COW splits the PMD).
	echo advise >/sys/kernel/mm/transparent_hugepage/shmem_enabled ||
		echo "# cannot set shmem_enabled to advise: shmem-thp cells will fail their setup"
	echo 0 >/sys/kernel/mm/transparent_hugepage/use_zero_page ||
		echo "# cannot turn the huge zero page off: read-faulted anon-thp cells will fail their setup"
	gupctl matrix --flavour "$GUP_LAB_FLAVOUR" --policy "$GUP_LAB_POLICY" "${quick[@]}" \
		--json /lab/out/matrix.json >/lab/out/matrix.ktap
	status=$?
	gupctl xcheck --policy "$GUP_LAB_POLICY" --gup-test /lab/bin/gup_test "${quick[@]}" \
		--foll-longterm "$(cat /lab/foll_longterm)" --foll-force "$(cat /lab/foll_force)" \
		--foll-touch "$(cat /lab/foll_touch)" --tool-foll-touch "$(cat /lab/tool_foll_touch)" \
		--json /lab/out/xcheck.json >/lab/out/xcheck.tap
	xstatus=$?
	rmmod gup_pin_test
fi

# gup_longterm needs no module: it runs even if the module did not load.
# Four free huge pages of each size for its hugetlb cases: two for a
# MAP_PRIVATE case (memset()'s copy needs a second), and two more for the
# io_uring cases just before it, whose rings a worker lets go only after
# they exit (io_uring's deferred teardown).  (The skips "need more free
# huge pages" that make check saw in those cases were not this: that
# worker's task work interrupted the next case's fallocate(), EINTR with
# no signal, which the suite took for a shortage; the suite is built with
# a patch that retries it, patches/gup-longterm-suite/.)  A size the
# guest cannot supply stays short, and the host's judge predicts the
# suite's skip: each size, its pages and its free pages, to
# /lab/out/longterm.hugetlb.
for h in /sys/kernel/mm/hugepages/hugepages-*kB; do
	[ -d "$h" ] || continue
	free=$(cat "$h/free_hugepages")
	[ "$free" -ge 4 ] || echo $(($(cat "$h/nr_hugepages") + 4 - free)) >"$h/nr_hugepages"
	size=${h##*/hugepages-}
	echo "${size%kB} $(cat "$h/nr_hugepages") $(cat "$h/free_hugepages")"
done >/lab/out/longterm.hugetlb 2>/dev/null
declare -A want_free
for h in /sys/kernel/mm/hugepages/hugepages-*kB; do
	[ ! -d "$h" ] || want_free[$h]=$(cat "$h/free_hugepages")
done
# hugepages_back: each size has its free pages of before the first run
# again.  A run's io_uring buffers are let go by a worker after it exits
# (6.1 and 6.12), as late as the worker gets to run, so a size still
# short gets as many more pages as its pool lacks, by construction, not
# by waiting for the worker; a wait is left only where the pool cannot
# grow (memory).
hugepages_back() {
	local h free
	for h in "${!want_free[@]}"; do
		free=$(cat "$h/free_hugepages")
		[ "$free" -ge "${want_free[$h]}" ] && continue
		echo $(($(cat "$h/nr_hugepages") + want_free[$h] - free)) >"$h/nr_hugepages" 2>/dev/null
		[ "$(cat "$h/free_hugepages")" -ge "${want_free[$h]}" ] || return 1
	done
}
# Within one run too, a hugetlb case can follow an io_uring case whose
# registered huge pages its ring's exit lets go only later, from a worker
# (io_uring's deferred teardown).  So each size may also take surplus
# pages from the page allocator when its pool is empty
# (nr_overcommit_hugepages, mm/hugetlb.c's gather_surplus_pages()): a
# case then finds its page by construction, whatever the worker's timing;
# only memory can still say no.  The pool's own pages, what the judge
# reads, stay as above.
for h in /sys/kernel/mm/hugepages/hugepages-*kB; do
	[ ! -w "$h/nr_overcommit_hugepages" ] || echo 64 >"$h/nr_overcommit_hugepages" 2>/dev/null || true
done
# It runs from each scratch file system, its "local file system" (it
# makes that file next to its relative __FILE__: the cwd); the ext4 run's
# files keep their names.
suites=(gup_longterm)
if [ -x /lab/bin/gup_longterm-own ]; then
	suites+=(gup_longterm-own)
	cp /lab/gup_longterm-own.suite /lab/out/
fi
n=0
for suite in "${suites[@]}"; do
	for fs in ext4 xfs btrfs; do
		n=$((n + 1))
		out=/lab/out/$suite.$fs
		[ "$suite.$fs" != gup_longterm.ext4 ] || out=/lab/out/gup_longterm
		if ! mountpoint -q "/mnt/$fs"; then
			{ cat "/lab/out/mount.$fs.err" 2>/dev/null || true; } >"$out.notrun"
			[ -s "$out.notrun" ] || echo "/mnt/$fs is not mounted" >"$out.notrun"
			continue
		fi
		# up to 20 s for the previous run's huge pages
		for _ in $(seq 40); do
			hugepages_back && break
			sleep 0.5
		done
		echo "gup-lab: longterm cell $n" >/dev/kmsg
		(cd "/mnt/$fs" && "/lab/bin/$suite") >"$out.ktap" 2>&1
		echo $? >"$out.status"
	done
done
echo "gup-lab: longterm end" >/dev/kmsg
scratch_umount

[ $status -eq 0 ] && [ $xstatus -eq 0 ]
