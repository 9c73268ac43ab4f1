#!/bin/bash
# A job's guard (jobs/lib.sh's job_guard): waits for the job's process to
# end, however it ends (SIGKILL too, which no trap of its own sees), then
# kills every process still carrying the job's token in its environment
# and removes the job's temporary directories: a job that dies leaves no
# QEMU running (qemu/run.sh's timeout puts QEMU in a process group of its
# own, out of reach of the terminal's ^C) and no staged image behind it
# (docs/reliability.md).  Started by job_guard in a session of its own,
# without the token in its own environment (it must not find itself).
#
#   jobs/guard.sh PID TOKEN
set -u
[ $# -eq 2 ] || { echo "usage: $0 PID TOKEN" >&2; exit 2; }
pid=$1 token=$2
[[ $token =~ ^[0-9]+-[0-9]+$ ]] || { echo "$0: bad token '$token'" >&2; exit 2; }

while kill -0 "$pid" 2>/dev/null; do
	sleep 1
done
# job_pids: the job's processes.  GUP_LAB_JOBS names every job they
# belong to (a job started by a job appends its own token).
job_pids() {
	grep -lzsE "^GUP_LAB_JOBS=(.* )?$token( .*)?\$" /proc/[0-9]*/environ |
		sed -n 's|^/proc/\([0-9]*\)/environ$|\1|p'
}
# SIGTERM first: make removes the target it was writing (a half-written
# object would look up to date to the next build), QEMU exits; SIGKILL
# for what is left after 5 s.  A few rounds: a subshell killed in one
# may have forked before it.
mapfile -t pids < <(job_pids)
if [ ${#pids[@]} -gt 0 ]; then
	kill -TERM "${pids[@]}" 2>/dev/null
	for _ in $(seq 10); do
		mapfile -t pids < <(job_pids)
		[ ${#pids[@]} -gt 0 ] || break
		sleep 0.5
	done
fi
for _ in 1 2 3 4 5; do
	mapfile -t pids < <(job_pids)
	[ ${#pids[@]} -gt 0 ] || break
	kill -KILL "${pids[@]}" 2>/dev/null
	sleep 0.5
done
rm -rf "${TMPDIR:-/tmp}/gup-lab.$token".*
exit 0
