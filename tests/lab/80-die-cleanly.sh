#!/bin/bash
# Jobs that die cleanly (docs/reliability.md).  jobs/matrix.sh --quick on
# stock, into a results tree of its own, is killed at four points, each
# reached by construction: the job holds at a named pause point
# (GUP_LAB_PAUSE, patches/flavours.sh's pause_point) and says so, and only
# then is it killed; how long a step takes (a cold or a cached kernel)
# changes nothing:
#   1. SIGKILL of the job while it stages its guest (pause point staging);
#   2. SIGKILL of the job while its guest runs (guest: booted, holding);
#   3. SIGKILL of its QEMU while the guest runs (qemu/run.sh: interrupted);
#   4. its results file system full when the guest's results are read back
#      (collect: QEMU has gone; a small tmpfs filled, then the job goes on).
# After each: the job is over with the status that says so, none of its
# processes is left (jobs/guard.sh: QEMU, builds, subshells) and none of
# its temporary directories; its results directory has no run.json (what
# jobs/docs.sh and the latest links require), no latest link exists and
# jobs/docs.sh refuses the directory.  Then two jobs at once on a cache
# where neither the driver nor the guest's staging is built yet (kernels,
# root image and sources shared): both finish with a run.json each, the
# driver built once (module/build.sh's lock) - the next run works.
# Every point is reached by construction, so it runs beside the other lab
# suites (it waits more than it computes):
# tests/run.sh: a chain of its own
# shellcheck source=../suite.sh
. "$(dirname "$0")/../suite.sh"
export GUP_LAB_RESULTS=$work/results
# shellcheck source=../../jobs/lib.sh
. jobs/lib.sh
f=stock

# job_pids PID: the processes started by the job whose process is PID
# (its token in GUP_LAB_JOBS: jobs/lib.sh's job_guard), the job included.
job_pids() {
	grep -lzsE "^GUP_LAB_JOBS=(.* )?$1-[0-9]+( .*)?\$" /proc/[0-9]*/environ |
		sed -n 's|^/proc/\([0-9]*\)/environ$|\1|p' | grep -vx "$BASHPID" || true
}
# job_has PID NAME: the job has a process whose command line has NAME.
job_has() {
	local p
	for p in $(job_pids "$1"); do
		if tr '\0' ' ' <"/proc/$p/cmdline" 2>/dev/null | grep -qF -- "$2"; then
			echo "$p"
			return 0
		fi
	done
	return 1
}
# wait_for SECONDS CMD...: CMD until it succeeds (0) or SECONDS pass (1).
wait_for() {
	local end=$((SECONDS + $1))
	shift
	until "$@" >/dev/null 2>&1; do
		[ "$SECONDS" -lt "$end" ] || return 1
		sleep 0.3
	done
}
no_procs() { [ -z "$(job_pids "$1")" ]; }
no_tmpdirs() { ! compgen -G "${TMPDIR:-/tmp}/gup-lab.$1-*" >/dev/null; }
qemu_up() { job_has "$1" qemu-system-x86_64; }

# start NAME [POINT]: jobs/matrix.sh --quick stock in the background: $pid;
# with POINT, it holds there (pause_point) and $work/NAME.paused says so.
start() {
	GUP_LAB_PAUSE=${2:-} GUP_LAB_PAUSED=$work/$1.paused \
		jobs/matrix.sh --quick "$f" >"$work/$1.out" 2>"$work/$1.err" &
	pid=$!
}
# paused NAME POINT: the job NAME holds at POINT, or it is over (then 1,
# and the test says what it printed): no time limit is a guess at how slow
# a step is; the job cannot end without passing the point.
paused() {
	until grep -q "^paused at $2 " "$work/$1.paused" 2>/dev/null; do
		if ! kill -0 "$pid" 2>/dev/null; then
			echo "# $1: the job ended before the pause point $2:"
			tail -n 5 "$work/$1.out" "$work/$1.err" | sed 's/^/#   /'
			return 1
		fi
		sleep 0.2
	done
}
# go_on NAME POINT: the job NAME leaves its pause point POINT.
go_on() { echo "$2" >>"$work/$1.paused.go"; }
# run_dir PID: the results directory the job PID made (its .running).
run_dir() {
	grep -lx "$1" "$GUP_LAB_RESULTS"/matrix/*/.running 2>/dev/null | sed 's|/.running$||'
}
# kill_job TARGET: the job's results directory into $dir, SIGKILL to
# TARGET (the job $pid, or a process of its), the job's status into $status.
kill_job() {
	dir=$(run_dir "$pid")
	kill -KILL "$1"
	status=0
	wait "$pid" || status=$?
}
# after NAME PID STATUS WANT DIR: the checks every kill point shares.
after() {
	local name=$1 p=$2 status=$3 want=$4 dir=$5 left
	if [ "$want" = failed ]; then
		tap_like "$status" '^[1-9]' "$name: the job fails (status $status)"
	else
		tap_is "$status" "$want" "$name: the job ends with status $want"
	fi
	if wait_for 20 no_procs "$p"; then
		tap_ok "$name: none of its processes is left (jobs/guard.sh)"
	else
		tap_not_ok "$name: none of its processes is left (jobs/guard.sh)"
		for left in $(job_pids "$p"); do
			echo "#   left: $left $(tr '\0' ' ' <"/proc/$left/cmdline" 2>/dev/null)"
		done
	fi
	# the guard removes them once the processes are gone: wait for it too
	wait_for 20 no_tmpdirs "$p" || true
	# shellcheck disable=SC2012 # a count of names
	tap_is "$(ls -d "${TMPDIR:-/tmp}/gup-lab.$p-"* 2>/dev/null | wc -l)" 0 \
		"$name: none of its temporary directories is left"
	if [ -z "$dir" ]; then
		tap_not_ok "$name: it made a results directory"
		return
	fi
	tap_is "$([ -e "$dir/run.json" ] && echo present || echo absent)" absent \
		"$name: its results directory has no run.json"
	tap_is "$(ls -d "$GUP_LAB_RESULTS/latest" "$GUP_LAB_RESULTS/matrix/latest" 2>/dev/null)" "" \
		"$name: no latest link"
	set +e
	jobs/docs.sh "$dir" >"$work/$name.docs" 2>&1
	local dstatus=$?
	set -e
	tap_like "$dstatus $(cat "$work/$name.docs")" '^[12] .*no run.json: not a results directory' \
		"$name: jobs/docs.sh refuses the directory"
}

tree_before=$(git status --porcelain)

# 1. SIGKILL while staging.
start staging staging
if paused staging staging && p=$(job_has "$pid" stage-guest.sh); then
	kill_job "$pid"
	tap_ok "staging: killed while rootfs/stage-guest.sh ran (pid $p)"
	after staging "$pid" "$status" 137 "$dir"
else
	tap_not_ok "staging: the job held in rootfs/stage-guest.sh"
	kill -KILL "$pid" 2>/dev/null || true
fi

# 2. SIGKILL while the guest runs.
start guest guest
if paused guest guest && qemu_up "$pid" >/dev/null; then
	kill_job "$pid"
	after guest "$pid" "$status" 137 "$dir"
else
	tap_not_ok "guest: the job held with its guest booted"
	kill -KILL "$pid" 2>/dev/null || true
fi

# 3. QEMU killed from outside: the runner says interrupted, the job
# finishes what it can and makes no run.json (status 1).
start qemu guest
if paused qemu guest && q=$(qemu_up "$pid"); then
	kill_job "$q"
	after qemu "$pid" "$status" 1 "$dir"
	# the runner's own line is in the job's log of that boot; the job
	# repeats it on its output, where a user sees it
	tap_like "$(cat "$work/qemu.out")" "^# interrupted: $f: QEMU was killed by signal 9 after" \
		"qemu: the job says the guest was interrupted, not timed out"
	tap_like "$(cat "$dir/.interrupted" 2>&1)" "^$f: QEMU was killed by signal 9" \
		"qemu: the results directory says why it is not a finished run"
else
	tap_not_ok "qemu: the job held with its guest booted"
	kill -KILL "$pid" 2>/dev/null || true
fi

# 4. The results file system full while the guest runs.
full=$work/full
mkdir -p "$full"
if mount -t tmpfs -o size=8m gup-lab-full "$full" 2>"$work/mount.err"; then
	GUP_LAB_RESULTS=$full start full collect
	if paused full collect; then
		dd if=/dev/zero of="$full/fill" bs=64k 2>/dev/null || true
		dir=$(GUP_LAB_RESULTS=$full run_dir "$pid")
		go_on full collect
		status=0
		wait "$pid" || status=$?
		tap_is "$(df --output=avail "$full" | tail -1 | tr -d ' ')" 0 \
			"full: the results file system was full"
		GUP_LAB_RESULTS=$full after full "$pid" "$status" failed "$dir"
	else
		tap_not_ok "full: the job held before it read the guest's results back"
		kill -KILL "$pid" 2>/dev/null || true
	fi
	umount "$full"
else
	tap_skip "full: no tmpfs to fill ($(head -1 "$work/mount.err")): the full-disk case not run"
fi

# 5. Two jobs at once on a cache of their own whose driver and staging
# are not built: the kernels, root image, sources and ccache shared.
cache=$work/cache
mkdir -p "$cache"
for d in kernels src ccache rootfs uapi detect user; do
	[ ! -e "$LAB_CACHE/$d" ] || ln -s "$LAB_CACHE/$d" "$cache/$d"
done
GUP_LAB_CACHE=$cache start twin1
p1=$pid
GUP_LAB_CACHE=$cache start twin2
p2=$pid
s1=0 s2=0
wait "$p1" || s1=$?
wait "$p2" || s2=$?
tap_is "$s1 $s2" "0 0" "twins: two jobs at once on one cache both pass"
[ "$s1$s2" = 00 ] || tail -n 5 "$work/twin1.out" "$work/twin1.err" "$work/twin2.out" "$work/twin2.err" | sed 's/^/#   /'
r1=$(sed -n 's/^results: //p' "$work/twin1.out") r2=$(sed -n 's/^results: //p' "$work/twin2.out")
tap_is "$(jq -r .job "$r1/run.json" 2>&1) $(jq -r .job "$r2/run.json" 2>&1) $([ "$r1" != "$r2" ] && echo apart)" \
	"matrix matrix apart" "twins: each has a run.json of its own"
# shellcheck disable=SC2012 # a count of names
tap_is "$(ls -d "$cache"/modules/"$f"-*/.gup-lab-built 2>/dev/null | wc -l)" 1 \
	"twins: one driver in the cache, built whole (module/build.sh's lock)"
latest=$(readlink "$GUP_LAB_RESULTS/matrix/latest" || true)
tap_like "$latest $([ -f "$GUP_LAB_RESULTS/matrix/$latest/run.json" ] && echo finished)" \
	"^($(basename "$r1")|$(basename "$r2")) finished\$" "twins: the latest link names one of them, a finished run"
tap_is "$(git status --porcelain)" "$tree_before" "no job wrote into the tree"
tap_done
