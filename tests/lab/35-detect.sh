#!/bin/bash
# gupctl detect on real kernels (issue 27, "your kernel"): one boot per
# flavour of jobs/guest/detect.sh, whose verdict must be the flavour
# table's policy, its candidate (from the kernel's facts) confirmed by
# every probe cell; each probe ran (KTAP ok), after its marker "gup-lab:
# detect cell N" on the console; and the console holds no kernel report
# but the WARNINGs the verdict's policy expects of its probes.  The probes
# are read from the guest's detect.json, never listed here.
#
#   tests/lab/35-detect.sh [FLAVOUR...]    (default: stock and gup-v7)
# shellcheck source=../suite.sh
. "$(dirname "$0")/../suite.sh"
# shellcheck source=../../jobs/lib.sh
. jobs/lib.sh

if [ $# -gt 0 ]; then
	flavours=("$@")
else
	flavours=(stock gup-v7)
fi

# detect_boot F: F's guest, its results in $work/F.*.
# shellcheck disable=SC2317 # called by job_parallel
detect_boot() {
	local f=$1 stage=$work/$1.stage
	rootfs/stage-guest.sh "$f" "$stage" >"$work/$f.stage.log" 2>&1 || {
		sed 's/^/# /' "$work/$f.stage.log"
		return 1
	}
	qemu/run.sh --flavour "$f" --quiet --raw-trace --timeout 600 --files "$stage" \
		--report "$work/$f.report" --out "$work/$f.run" --allow-kernel-reports \
		--exec 'bash /lab/guest/detect.sh; echo $? >/lab/out/detect.status' \
		--results "$work/$f.out" >"$work/$f.console" 2>&1 || true
}
job_parallel detect_boot "${flavours[@]}" >&2 || true

for f in "${flavours[@]}"; do
	d=$work/$f.out/detect.json
	policy=$(flavour_field "$f" 3)
	tap_is "$(cat "$work/$f.out/detect.status" 2>/dev/null)" 0 "$f: jobs/guest/detect.sh exits 0 (every probe ran)"
	tap_is "$(jq -r '"\(.policy) \(.candidate) \(.candidate_confirmed)"' "$d" 2>&1)" \
		"$policy $policy true" "$f: detected $policy, the candidate its facts name, confirmed by the probes"
	n=$(jq '.probes | length' "$d" 2>/dev/null || echo 0)
	tap_is "$(grep -c '^ok ' "$work/$f.out/detect.ktap" 2>/dev/null)" "$n" "$f: each of its $n probes ran (KTAP ok)"
	# "EFAULT" measured is "EFAULT + WARNING" expected (the console has the WARNING)
	tap_is "$(jq -r --arg p "$policy" '[.probes[] | .measured as $m | .expected[$p] as $e |
		select($m != $e and ($e | startswith($m + " ") | not))] | length' "$d" 2>&1)" 0 \
		"$f: every probe measured as $policy predicts"
	console=$(report_get "$work/$f.report" console)
	tap_is "$(jq -r '.probes[].index' "$d" 2>/dev/null | while read -r i; do
			grep -qa "gup-lab: detect cell $i" "$console" || echo "$i"
		done | paste -sd,)" "" "$f: the console has each probe's marker"
	# a WARNING only where the verdict's policy expects one (v1's refusals)
	want=$(jq -r --arg p "$policy" '[.probes[] | select(.expected[$p] | test("WARNING"))] |
		if length > 0 then "warning" else "" end' "$d" 2>/dev/null)
	got=$(qemu/scan-console.sh --reports "$console" 2>/dev/null | jq -r '[.[].kind] | unique | join(",")')
	tap_is "$got" "$want" "$f: console: ${want:-no} kernel reports${want:+ (the WARNINGs $policy expects)}"
done

tap_done
