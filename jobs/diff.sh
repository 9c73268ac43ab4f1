#!/bin/bash
# `make diff A=... B=...`: what two kernels measured differently, cell by
# cell (`gupctl diff`, docs/gupctl.md; docs/your-kernel.md, "Reading a
# diff" and "Bisecting").  Each side is one of:
#   DIR, DIR:FLAVOUR, several comma-separated
#                a results directory (results/matrix/20261205-164042) or one
#                flavour of it: diffed as it is
#   FLAVOUR      a flavour (stock, mine@3f2a1b9c0d1e): the jobs run it now
#   KERNEL-DIR   a kernel source tree (a top-level Makefile and Kconfig):
#                registered as a flavour (patches/user-kernel.sh register
#                --kernel DIR, which prints its name), then as FLAVOUR
# The flavours to run go through jobs/matrix.sh and jobs/repro.sh --flavour
# (one run of each for both sides: new results directories under
# results/matrix/ and results/repro/; a registered kernel's move no latest
# link), then
# `gupctl diff` compares the sides; its text on stdout, the jobs' output on
# stderr.
#
#   jobs/diff.sh [--jobs matrix|matrix,repro] [--json FILE] [--markdown FILE]
#                [--html FILE] [--bisect] A B
# --jobs LIST      the jobs a flavour runs (default matrix,repro)
# --json FILE, --markdown FILE, --html FILE   gupctl diff's (--html: the
#                  explorer's diff view, docs/results.md)
# --bisect         for `git bisect run`: exit 125 (skip this commit) instead
#                  of 2 when a side could not be registered, run or compared
#
# Exit status: gupctl diff's: 0 nothing measured differs, 1 a cell differs,
# 2 usage error, a side that could not be registered, run or compared
# (125 with --bisect, but for a usage error).
set -euo pipefail
LAB_ROOT=$(cd "$(dirname "$0")/.." && pwd)

usage() {
	sed -n '2,/^set /{/^#/p}' "$0" | sed 's/^# \{0,1\}//'
}

bad_usage() {
	echo "jobs/diff.sh: $*" >&2
	echo "jobs/diff.sh: see jobs/diff.sh --help" >&2
	exit 2
}

jobs=matrix,repro bisect=false
diff_args=()
sides=()
while [ $# -gt 0 ]; do
	case $1 in
	--jobs) jobs=${2:?--jobs needs matrix or matrix,repro}; shift ;;
	--json | --markdown | --html) diff_args+=("$1" "${2:?$1 needs a FILE}"); shift ;;
	--bisect) bisect=true ;;
	-h | --help) usage; exit 0 ;;
	-*) bad_usage "unknown option '$1'" ;;
	*) sides+=("$1") ;;
	esac
	shift
done
[ "${#sides[@]}" -eq 2 ] || bad_usage "give two sides, A and B (${#sides[@]} given)"
if [ -z "${sides[0]}" ] || [ -z "${sides[1]}" ]; then
	bad_usage "a side is empty: give both (make diff A=... B=...)"
fi
case $jobs in
matrix | matrix,repro | repro,matrix) ;;
*) bad_usage "--jobs takes matrix or matrix,repro, not '$jobs'" ;;
esac

# fail MESSAGE: a side could not be had: exit 2, or 125 for git bisect.
fail() {
	echo "jobs/diff.sh: $*" >&2
	if $bisect; then
		exit 125
	fi
	exit 2
}

# is_kernel_tree DIR: a kernel source tree, not a results directory.
is_kernel_tree() {
	[ -d "$1" ] && [ -f "$1/Makefile" ] && [ -f "$1/Kconfig" ]
}

# What each side is: given (diffed as it is) or a flavour to run.
names=()
kind=()
for i in 0 1; do
	s=${sides[$i]}
	if is_kernel_tree "$s"; then
		echo "# diff: registering the kernel tree $s" >&2
		name=$("$LAB_ROOT/patches/user-kernel.sh" register --kernel "$s") ||
			fail "side $((i == 0 ? 1 : 2)): $s could not be registered as a flavour"
		kind[i]=run names[i]=$name
	elif [ -d "$s" ] || [[ $s == *:* ]] || [[ $s == *,* ]]; then
		kind[i]=given names[i]=
	elif [[ $s =~ ^[A-Za-z0-9._+@-]+$ ]]; then
		kind[i]=run names[i]=$s
	else
		bad_usage "'$s' is neither a results directory, DIR:FLAVOUR, a kernel tree nor a flavour name"
	fi
done

# run_job JOB ARGS...: the job on the flavours to run; its output on
# stderr; prints its results directory (its last line, "results: PATH").
run_job() {
	local job=$1 log status=0 dir
	shift
	log=$(mktemp)
	echo "# diff: jobs/$job.sh $*" >&2
	"$LAB_ROOT/jobs/$job.sh" "$@" > >(tee "$log" >&2) 2>&1 || status=$?
	wait
	dir=$(sed -n 's/^results: //p' "$log" | tail -1)
	rm -f "$log"
	# a flavour that mismatched its expectations (exit 1) is still measured
	if [ "$status" -gt 1 ] || [ -z "$dir" ] || [ ! -f "$dir/run.json" ]; then
		fail "jobs/$job.sh $* failed (exit $status) with no results"
	fi
	echo "$dir"
}

run=()
for i in 0 1; do
	[ "${kind[i]}" = run ] || continue
	[ "$i" -eq 0 ] || [ "${names[1]}" != "${names[0]}" ] || [ "${kind[0]}" != run ] ||
		continue
	run+=("${names[i]}")
done
if [ "${#run[@]}" -gt 0 ]; then
	make -s -C "$LAB_ROOT" rootfs >&2 || fail "the root image did not build"
	mdir=$(run_job matrix "${run[@]}")
	rdir=
	if [[ $jobs == *repro* ]]; then
		rargs=()
		for f in "${run[@]}"; do
			rargs+=(--flavour "$f")
		done
		rdir=$(run_job repro "${rargs[@]}")
	fi
	for i in 0 1; do
		[ "${kind[i]}" = run ] || continue
		sides[i]=$mdir:${names[i]}${rdir:+,$rdir:${names[i]}}
	done
fi
# (the jobs build it too; one make at a time: tests/run.sh runs suites side by side)
flock "$LAB_ROOT/userspace/.make.lock" make -s -C "$LAB_ROOT/userspace" >&2 ||
	fail "gupctl did not build"

echo "# diff: A = ${sides[0]}" >&2
echo "# diff: B = ${sides[1]}" >&2
status=0
"$LAB_ROOT/userspace/gupctl" diff "${diff_args[@]}" "${sides[0]}" "${sides[1]}" || status=$?
if [ "$status" -ge 2 ]; then
	fail "gupctl diff could not compare the sides (exit $status)"
fi
exit "$status"
