#!/bin/bash
# The guest half of `make matrix` (jobs/matrix.sh), run in the guest as
# `bash /lab/guest/matrix.sh`.  Steps:
#   1. load gup_pin_test.ko;
#   2. gupctl matrix: a marker per cell on /dev/kmsg ("gup-lab: matrix
#      cell N", gupctl's kmsg_mark()), the KTAP to /lab/out/matrix.ktap
#      (the console keeps the markers), the cells to /lab/out/matrix.json
#      with the kernel's own GUP policy as gupctl reads it from the kernel
#      (the host fails a flavour whose GUP_LAB_POLICY is not that one);
#   3. gupctl xcheck: the kernel's own gup_test against that JSON;
#   4. rmmod;
#   5. the mm selftests' gup_longterm (6.12's), between the markers
#      "gup-lab: longterm cell 1" and "gup-lab: longterm end" (every job's
#      marker format, lib/kmsg.h: the suite is the step's one cell).
# Inputs (environment): GUP_LAB_FLAVOUR and GUP_LAB_POLICY (qemu/run.sh
# exports them), MATRIX_QUICK (true: gupctl matrix --quick, make check's
# subset; false: every cell).  Staged beside it by rootfs/stage-guest.sh:
# /lab/gup_pin_test.ko, /lab/bin/gup_test, /lab/bin/gup_longterm and the
# tree's FOLL_* values (/lab/foll_*, /lab/tool_foll_touch).
# Exit status: 0 when gupctl matrix and gupctl xcheck both exited 0; 1
# otherwise (the module did not load: neither ran).  gup_longterm's status
# is data (/lab/out/gup_longterm.status), not this script's.
set -u
# shellcheck source=module.sh
. "${0%/*}/module.sh"	# no dirname: a command costs 50-100 ms under TCG

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
	gupctl xcheck --policy "$GUP_LAB_POLICY" --gup-test /lab/bin/gup_test \
		--foll-longterm "$(cat /lab/foll_longterm)" --foll-force "$(cat /lab/foll_force)" \
		--foll-touch "$(cat /lab/foll_touch)" --tool-foll-touch "$(cat /lab/tool_foll_touch)" \
		--matrix /lab/out/matrix.json --json /lab/out/xcheck.json >/lab/out/xcheck.tap
	xstatus=$?
	rmmod gup_pin_test
fi

# gup_longterm needs no module: it runs even if the module did not load.
# Two free huge pages of each size for its hugetlb cases (a MAP_PRIVATE
# one needs a second for memset()'s copy; a size the guest cannot supply
# stays short, and the host's judge predicts the suite's skip): each size,
# its pages and its free pages, to /lab/out/longterm.hugetlb.
for h in /sys/kernel/mm/hugepages/hugepages-*kB; do
	[ -d "$h" ] || continue
	free=$(cat "$h/free_hugepages")
	[ "$free" -ge 2 ] || echo $(($(cat "$h/nr_hugepages") + 2 - free)) >"$h/nr_hugepages"
	size=${h##*/hugepages-}
	echo "${size%kB} $(cat "$h/nr_hugepages") $(cat "$h/free_hugepages")"
done >/lab/out/longterm.hugetlb 2>/dev/null
# It runs from the scratch ext4, its "local file system" (it makes its
# file next to its relative __FILE__: the cwd).
echo "gup-lab: longterm cell 1" >/dev/kmsg
(cd /mnt/ext4 && /lab/bin/gup_longterm) >/lab/out/gup_longterm.ktap 2>&1
echo $? >/lab/out/gup_longterm.status
echo "gup-lab: longterm end" >/dev/kmsg

[ $status -eq 0 ] && [ $xstatus -eq 0 ]
