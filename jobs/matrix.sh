#!/bin/bash
# `make matrix`: the GUP matrix on every flavour, one boot each.  Each guest
# runs `gupctl matrix` (KTAP on the console, TSV + JSON to /lab/out) and the
# cross-check with the kernel's own gup_test; the host then regenerates the
# report.  Exit status: 0 when every cell of every flavour met its
# expectation and every flavour ran.
#
#   jobs/matrix.sh [--docs DIR] [--results DIR] [FLAVOUR...]
# --docs DIR    write matrix.md and matrix.svg there (default: docs/)
# --results DIR keep the per-flavour TSV/JSON/KTAP there (default: a temp dir)
set -euo pipefail
# shellcheck source=../qemu/lib.sh
. "$(dirname "$0")/../qemu/lib.sh"

docs=$LAB_ROOT/docs
results=''
flavours=()
while [ $# -gt 0 ]; do
	case $1 in
	--docs) docs=${2:?}; shift ;;
	--results) results=${2:?}; shift ;;
	-h | --help) sed -n '2,11p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
	-*) die "unknown option '$1' (see --help)" ;;
	*) flavours+=("$1") ;;
	esac
	shift
done
[ ${#flavours[@]} -gt 0 ] || mapfile -t flavours < <(all_flavours)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
results=${results:-$tmp/results}
mkdir -p "$results" "$docs"

make -s -C "$LAB_ROOT/userspace" >&2
gupctl=$LAB_ROOT/userspace/gupctl
bad=0
not_run=()
meta=()
for f in "${flavours[@]}"; do
	policy=$(flavour_field "$f" 3)
	stage=$tmp/$f.stage
	"$LAB_ROOT/rootfs/stage-guest.sh" "$f" "$stage"
	out=$results/$f
	rm -rf "$out"
	echo "# matrix: flavour $f (policy $policy)"
	set +e
	"$LAB_ROOT/qemu/run.sh" --flavour "$f" --quiet --timeout 1500 \
		--files "$stage" --results "$out" --report "$tmp/$f.report" --exec "
		insmod /lab/gup_pin_test.ko || exit 90
		gupctl matrix --flavour $f --policy $policy \
			--tsv /lab/out/matrix.tsv --json /lab/out/matrix.json |
			tee /lab/out/matrix.ktap
		status=\${PIPESTATUS[0]}
		gupctl xcheck --policy $policy --gup-test /lab/bin/gup_test \
			--foll-longterm \$(cat /lab/foll_longterm) \
			--tsv /lab/out/matrix.tsv | tee /lab/out/xcheck.tap
		xstatus=\${PIPESTATUS[0]}
		uname -r >/lab/out/release
		rmmod gup_pin_test
		[ \$status -eq 0 ] && [ \$xstatus -eq 0 ]" >"$tmp/$f.console" 2>&1
	status=$?
	set -e
	verdict=$(sed -n 's/^kernel_verdict=//p' "$tmp/$f.report" 2>/dev/null)
	cat "$out/matrix.ktap" 2>/dev/null || true
	cat "$out/xcheck.tap" 2>/dev/null || true
	if [ ! -s "$out/matrix.tsv" ]; then
		echo "# $f: NOT RUN: no matrix came back (runner status $status, kernel verdict ${verdict:-?})"
		tail -20 "$tmp/$f.console" | sed 's/^/#   /'
		not_run+=(--not-run "$f")
		bad=1
		continue
	fi
	if [ "$status" -ne 0 ] || [ "$verdict" != clean ]; then
		echo "# $f: MISMATCH or kernel problem (runner status $status, kernel verdict $verdict)"
		bad=1
	fi
	meta+=(--meta "$f=$(cat "$out/release" 2>/dev/null) matrix $(sed -n 's/.*wall_seconds=\([0-9.]*\).*/\1/p' "$out/matrix.tsv") s in the guest, boot-to-exit $(sed -n 's/^wall_seconds=//p' "$tmp/$f.report") s")
done

tsvs=()
for f in "${flavours[@]}"; do
	[ -s "$results/$f/matrix.tsv" ] && tsvs+=("$results/$f/matrix.tsv")
done
commit=$(git -C "$LAB_ROOT" describe --always --dirty 2>/dev/null || echo unknown)
set +e
"$gupctl" report --md "$docs/matrix.md" --svg "$docs/matrix.svg" \
	--learned "$LAB_ROOT/docs/matrix-learned.md" \
	--meta "date=$(date -u +%Y-%m-%d)" --meta "commit=$commit" \
	--meta "kernel=$LAB_SOURCE_PKG $(source_pkg_version)" \
	"${meta[@]}" "${not_run[@]}" "${tsvs[@]}"
rstatus=$?
set -e
[ "$rstatus" -le 1 ] || die "gupctl report failed ($rstatus)"
[ "$rstatus" -eq 0 ] || bad=1
echo "# wrote $docs/matrix.md and $docs/matrix.svg"
exit "$bad"
