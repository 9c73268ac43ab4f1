#!/bin/bash
# Boot every flavour (or each FLAVOUR given) once, building what is
# missing, and print one line per flavour: kernel release, kernel verdict,
# wall time, accelerator (qemu/accel.sh: kvm or tcg).
#
#   jobs/boot.sh [--shard I/N] [FLAVOUR...]
# --shard I/N   only shard I of N of the flavours (places I, I+N, ...)
set -euo pipefail
# shellcheck source=../patches/flavours.sh
. "$(dirname "$0")/../patches/flavours.sh"
# shellcheck source=lib.sh
. "$LAB_ROOT/jobs/lib.sh"

shard=''
if [ "${1:-}" = --shard ]; then
	shard=${2:?--shard needs I/N}
	shift 2
fi
flavours=("$@")
[ $# -gt 0 ] || mapfile -t flavours < <(all_flavours)
job_shard boot "$shard" || exit 2
set -- "${flavours[@]}"
bad=0
printf '%-10s %-22s %-9s %-8s %s\n' flavour release verdict wall accel
for f in "$@"; do
	report=$(mktemp)
	set +e
	"$LAB_ROOT/qemu/run.sh" --flavour "$f" --quiet --timeout 300 \
		--report "$report" --exec 'uname -r >/lab/out/release' \
		--results "$report.out" >/dev/null 2>"$report.err"
	status=$?
	set -e
	if [ ! -s "$report" ]; then
		# no boot (a usage error, KVM forced and not usable): the runner's why
		printf '%-10s no boot: %s\n' "$f" "$(tail -1 "$report.err")"
	else
		printf '%-10s %-22s %-9s %-8s %s\n' "$f" \
			"$(cat "$report.out/release" 2>/dev/null || echo '(no answer)')" \
			"$(jq -r .kernel_verdict "$report")" \
			"$(jq -r .wall_seconds "$report")s" \
			"$(jq -r '.accel // "?"' "$report")"
	fi
	[ "$status" -eq 0 ] || bad=1
	rm -rf "$report" "$report.out" "$report.err"
done
exit "$bad"
