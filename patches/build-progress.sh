#!/bin/bash
# Show a kernel build's progress while make (PID) writes LOG: objects done
# out of the number the last build of the same source and overlays took
# (remembered in COUNTS-OVERLAYS, e.g. objects-linux-source-6.1-debug), or
# on a machine that never built one, the count patches/build-objects
# records, marked "about"; on one updating line when stderr is a terminal,
# a plain line every 30 s otherwise.  Returns when PID exits; records the
# new count.
#
# usage: build-progress.sh FLAVOUR LOG PID COUNTS
set -uo pipefail

flavour=$1 log=$2 pid=$3 counts=$4
# The overlays decide most of the count (debug adds a few dozen objects);
# a series adds a few.  "gup-v7+debug" -> "debug".
overlays=base
[[ $flavour != *+* ]] || overlays=${flavour#*+}
counts=$counts-$overlays
pkg=${4##*/objects-}
about=""
total=$(cat "$counts" 2>/dev/null || echo 0)
if [ "$total" -eq 0 ]; then
	total=$(awk -v p="$pkg" -v o="$overlays" '$1 == p && $2 == o { print $3 }' \
		"$(dirname "$0")/build-objects" 2>/dev/null)
	total=${total:-0}
	about="about "
fi
# A build seeded from another (patches/seed-build.sh: build-flavour.sh
# logs its seed.log beside the build log) redoes only what changed: its
# count is no total, neither shown as one nor remembered.
seed=$(sed -n 's/^seeded from \([^:]*\):.*/\1/p' "${log%/*}/seed.log" 2>/dev/null)
[ -z "$seed" ] || total=0 counts=/dev/null
t0=$(date +%s)
last=0

objects() {
	local n
	# grep -c prints 0 itself when nothing matches (and exits 1).
	n=$(grep -cE '^  (CC|AS|AR|LD|CPP|HOSTCC|GEN|OBJCOPY) ' "$log" 2>/dev/null)
	echo "${n:-0}"
}

show() {
	local n=$1 now=$2 what
	if [ -n "$seed" ]; then
		what="$n objects (seeded from $seed: only what changed)"
	elif [ "$total" -gt 0 ]; then
		what="$n of $about$total objects ($((n * 100 / total < 100 ? n * 100 / total : 99))%)"
	else
		what="$n of ? objects"
	fi
	if [ -t 2 ]; then
		printf '\rgup-lab: %s: building, %s, %d s ' "$flavour" "$what" "$((now - t0))" >&2
	else
		printf 'gup-lab: %s: building, %s, %d s\n' "$flavour" "$what" "$((now - t0))" >&2
	fi
}

# status N DONE: the count where jobs/lab.sh's progress line reads it
# (GUP_LAB_BUILD_STATUS), written aside and renamed: never half a file.
status() {
	[ -n "${GUP_LAB_BUILD_STATUS:-}" ] || return 0
	jq -nc --arg flavour "$flavour" --argjson objects "$1" --argjson total "$total" \
		--argjson seconds "$(($(date +%s) - t0))" --argjson finished "$2" '$ARGS.named' \
		>"$GUP_LAB_BUILD_STATUS.tmp" && mv "$GUP_LAB_BUILD_STATUS.tmp" "$GUP_LAB_BUILD_STATUS"
}

while kill -0 "$pid" 2>/dev/null; do
	sleep 2
	now=$(date +%s)
	status "$(objects)" false
	if [ -t 2 ] || [ $((now - last)) -ge 30 ]; then
		show "$(objects)" "$now"
		last=$now
	fi
done
[ ! -t 2 ] || printf '\n' >&2
n=$(objects)
status "$n" true
# Only a finished build's count is a total worth remembering.
if [ -z "$seed" ] && [ "$n" -gt 0 ] && grep -q 'Kernel: arch/x86/boot/bzImage is ready' "$log"; then
	echo "$n" >"$counts"
fi
exit 0
