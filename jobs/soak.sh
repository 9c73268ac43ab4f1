#!/bin/bash
# `make soak`: every flavour on its debug overlay, FLAVOUR+debug (KASAN,
# KFENCE, lockdep, DEBUG_VM, DEBUG_PAGEALLOC, DEBUG_LIST, kmemleak:
# patches/overlays/README).  Not part of `make check`: a cold debug kernel
# takes many minutes per flavour.  Per flavour F, D = F+debug:
#   1. build D; its build seconds are the kernel directory's build-seconds;
#   2. boot D once with nothing to do: its boot time;
#   3. one boot (jobs/guest/soak.sh): kmemleak cleared, the module
#      loaded, the driver selftests, the long fuzz (gupctl fuzz,
#      docs/gupctl.md), every fd closed (the fuzzer exits), no pin left,
#      then the fuzz again under each kind of the kernel's fault injection
#      (failslab, fail_page_alloc, fail_usercopy, fail_make_request:
#      gupctl fuzz --inject), rmmod, a kmemleak scan; the module's line
#      coverage under the fuzz without and with the injections (gcov:
#      module/coverage.sh).  Every kernel report on this boot's
#      console fails, and so does every leak, but a
#      series' own documented finding (series_findings[] in
#      userspace/model/policy.c: gupctl report --findings), listed as such;
#   4. the matrix and the reproduction on D (jobs/matrix.sh, jobs/repro.sh,
#      into this run's directory), which attribute each kernel report to
#      its cell: a report fails there unless the cell's policy expects it
#      or it is the series' own documented finding.
# Results: one directory per run (docs/results.md, "The soak's files"),
# the last line "results: PATH".
#
#   jobs/soak.sh [options] [FLAVOUR...]
#   --ops N          the fuzz's operations (100000), on --threads T (4)
#   --seed S         the fuzz's seed (default: the run's date, YYYYMMDD)
#   --inject-ops N   each fault-injection fuzz's operations (10000); 0: none
#   --inject-percent P
#                    how often an injected kind fails, in percent (10; not
#                    fail_make_request, which fails every I/O of a device call)
#   --quick          the reproduction's 5 cells (jobs/repro.sh --quick)
#   --no-matrix, --no-repro
#                    leave those steps out (said so in the results)
#   --shard I/N      only shard I of N of the flavours (places I, I+N, ...;
#                    jobs/merge.sh puts the parts together: docs/results.md)
#   --results DIR    write there, move no latest link
#   FLAVOUR...       base flavours (default: every one in patches/flavours)
#
# Exit status: 0 every flavour passed every step it ran; 1 otherwise; 2
# usage error.
set -euo pipefail
# shellcheck source=../patches/flavours.sh
. "$(dirname "$0")/../patches/flavours.sh"
# shellcheck source=lib.sh
. "$LAB_ROOT/jobs/lib.sh"
job_guard "$@"

usage() {
	sed -n '2,/^set /{/^#/p}' "$0" | sed 's/^# \{0,1\}//'
}

ops=100000 threads=4 seed=$(date -u +%Y%m%d) quick=() matrix=1 repro=1 results='' shard=''
inject_ops=10000 inject_percent=10
# the kernel's fault injection, by debugfs name (jobs/guest/soak.sh)
inject_kinds="failslab fail_page_alloc fail_usercopy fail_make_request"
flavours=()
while [ $# -gt 0 ]; do
	case $1 in
	--ops) ops=${2:?--ops needs N}; shift ;;
	--threads) threads=${2:?--threads needs T}; shift ;;
	--seed) seed=${2:?--seed needs S}; shift ;;
	--inject-ops) inject_ops=${2:?--inject-ops needs N}; shift ;;
	--inject-percent) inject_percent=${2:?--inject-percent needs P}; shift ;;
	--quick) quick=(--quick) ;;
	--no-matrix) matrix=0 ;;
	--no-repro) repro=0 ;;
	--results) results=${2:?--results needs a DIR}; shift ;;
	--shard) shard=${2:?--shard needs I/N}; shift ;;
	-h | --help) usage; exit 0 ;;
	-*) echo "jobs/soak.sh: unknown option '$1' (see --help)" >&2; exit 2 ;;
	*) flavours+=("$(flavour_base "$1")") ;;
	esac
	shift
done
[ ${#flavours[@]} -gt 0 ] || mapfile -t flavours < <(all_flavours)
job_flavours soak "${flavours[@]/%/+debug}" >/dev/null || exit 2
# the shard cut from the names run.json will carry (FLAVOUR+debug)
flavours=("${flavours[@]/%/+debug}")
job_shard soak "$shard" || exit 2
flavours=("${flavours[@]%+debug}")
# The fuzz judges every answer against a named policy (gupctl fuzz): a
# registered kernel's may be detected as none.  Not yet, then.
for f in "${flavours[@]}"; do
	[ -z "$(user_field "$f" kind)" ] || {
		echo "jobs/soak.sh: $f is a registered kernel: the soak runs the lab's flavours only (its fuzz needs a named policy)" >&2
		exit 2
	}
done
if ! [[ $ops =~ ^[0-9]+$ && $threads =~ ^[0-9]+$ && $inject_ops =~ ^[0-9]+$ &&
	$inject_percent =~ ^[0-9]+$ ]] || [ "$inject_percent" -gt 100 ]; then
	echo "jobs/soak.sh: --ops, --threads, --inject-ops take numbers, --inject-percent 0-100" >&2
	exit 2
fi
[ "$inject_ops" -gt 0 ] || inject_kinds=''

job_userspace
results_begin soak "$results"
out=$RESULTS_DIR
work=$(job_tmpdir)
trap 'rm -rf "$work"' EXIT

bad=0
for f in "${flavours[@]}"; do
	d=$f+debug t0=$SECONDS why=null
	policy=$(flavour_policy "$d")
	echo "# soak: $d (policy $policy)"

	# 1. the kernel, and how long it took to build
	kdir=''
	if kdir=$(flavour_build "$d" 2>"$out/$d.build.log"); then
		build_s=$(cat "$kdir/build-seconds" 2>/dev/null || echo null)
	else
		why=$(jq -n --arg w "$d does not build: see $d.build.log" '$w')
		echo "# $d: NOT RUN: $(jq -r . <<<"$why")"
		bad=1
		results_flavour "$d" ran=false "why_not_run=$why" boots=0 \
			"wall_seconds=$((SECONDS - t0))" build_seconds=null boot_seconds=null \
			passed=false accel=null
		continue
	fi

	# 2. boot time: a boot that runs nothing
	"$LAB_ROOT/qemu/run.sh" --flavour "$d" --quiet --timeout 900 --exec true \
		--report "$work/$d.boot.report" >"$out/$d.boot.log" 2>&1 || true
	boot_s=$(jq '.wall_seconds // null' "$work/$d.boot.report" 2>/dev/null || echo null)
	echo "# $d: built in ${build_s} s, boots in ${boot_s} s"

	# 3. the soak boot: selftests, the long fuzz, rmmod, kmemleak
	stage=$work/$d.stage guest_out=$work/$d.out
	"$LAB_ROOT/rootfs/stage-guest.sh" "$d" "$stage" >"$out/$d.stage.log" 2>&1 ||
		why=$(jq -n --arg w "staging failed: see $d.stage.log" '$w')
	if [ "$why" = null ]; then
		"$LAB_ROOT/qemu/run.sh" --flavour "$d" --quiet --timeout 10800 \
			--allow-kernel-reports --files "$stage" --results "$guest_out" \
			--report "$out/$d.report" --out "$work/$d.run" \
			--env "FUZZ_SEED=$seed" --env "FUZZ_OPS=$ops" --env "FUZZ_THREADS=$threads" \
			--env "FUZZ_INJECT=$inject_kinds" --env "FUZZ_INJECT_OPS=$inject_ops" \
			--env "FUZZ_INJECT_PERCENT=$inject_percent" \
			--exec 'bash /lab/guest/soak.sh' \
			>"$out/$d.runner.log" 2>&1 || true
		cp "$work/$d.run/console.log" "$out/$d.console.log" 2>/dev/null || true
		for x in selftest.tap fuzz.ktap fuzz.json kmemleak; do
			cp "$guest_out/$x" "$out/$d.$x" 2>/dev/null || true
		done
		for x in inject gcov; do
			[ ! -d "$guest_out/$x" ] || cp -r "$guest_out/$x" "$out/$d.$x"
		done
	fi
	# the module's line coverage: the .gcda the guest saved, the .gcno of
	# the module it loaded (module/build.sh prints it, cached)
	ko=$("$LAB_ROOT/module/build.sh" "$d" 2>/dev/null) || ko=''
	for x in selftest fuzz faults; do
		if [ -z "$ko" ] || ! [ -s "$out/$d.gcov/$x.gcda" ]; then
			continue
		fi
		"$LAB_ROOT/module/coverage.sh" "$out/$d.gcov/$x.gcda" "$ko" \
			>"$out/$d.gcov/$x.json" 2>>"$out/$d.gcov.log" ||
			rm -f "$out/$d.gcov/$x.json"
	done
	# each report is the lab's (a failure) or a series' own documented
	# finding (userspace/model/policy.c, series_findings[]): listed, not failed
	if [ -s "$out/$d.console.log" ]; then
		"$LAB_ROOT/qemu/scan-console.sh" --reports "$out/$d.console.log" \
			>"$work/$d.reports"
	else
		echo '[]' >"$work/$d.reports"
	fi
	"$LAB_ROOT/userspace/gupctl" report --findings "$out/$d.reports.json" \
		--policy "$policy" --reports "$work/$d.reports" --src "$kdir/src" \
		>/dev/null || true
	grep -E '^(not ok|# (fuzz|FAIL|CRASH|replay))' "$out/$d.fuzz.ktap" 2>/dev/null || true

	# 4. the matrix and the reproduction, each in its own directory
	mstatus=null rstatus=null
	if [ "$matrix" = 1 ]; then
		mstatus=0
		"$LAB_ROOT/jobs/matrix.sh" --results "$out/$d.matrix" "$d" \
			>"$out/$d.matrix.log" 2>&1 || mstatus=$?
		echo "# $d: matrix exit $mstatus ($d.matrix.log, $d.matrix/)"
	fi
	if [ "$repro" = 1 ]; then
		rstatus=0
		"$LAB_ROOT/jobs/repro.sh" "${quick[@]}" --flavour "$d" \
			--results "$out/$d.repro" >"$out/$d.repro.log" 2>&1 || rstatus=$?
		echo "# $d: reproduction exit $rstatus ($d.repro.log, $d.repro/)"
	fi

	# each injected kind's fuzz, and the coverage figures
	r=$guest_out
	for k in $inject_kinds; do
		i=$r/inject/$k
		jq -n --arg kind "$k" --arg status "$(cat "$i.status" 2>/dev/null)" \
			--arg injected "$(cat "$i.injected" 2>/dev/null)" \
			--arg counters "$(cat "$i.counters" 2>/dev/null)" \
			--arg missing "$(cat "$i.missing" 2>/dev/null)" \
			--slurpfile fuzz <(cat "$i.json" 2>/dev/null || echo null) '
			def num: if . == "" then null else tonumber end;
			def counter($k): ($counters | capture(" " + $k + "=(?<v>[0-9]+)").v | tonumber)? // null;
			{kind: $kind, not_in_kernel: (if $missing == "" then null else $missing end),
			 status: ($status | num), injected: ($injected | num),
			 answers_injected: ($fuzz[0] // {} | [.kinds[]?.injected] | add),
			 pins_left: {pins_live: counter("pins_live"), pages_pinned: counter("pages_pinned")},
			 summary: $fuzz[0]}'
	done | jq -s . >"$work/$d.inject.json"
	for x in selftest fuzz faults; do
		jq -c '{lines, reached, percent, unreached: (.unreached | length)}' \
			"$out/$d.gcov/$x.json" 2>/dev/null || echo null
	done | jq -s '{selftest: .[0], fuzz: .[1], faults: .[2]}' >"$work/$d.coverage.json"

	# the flavour's document (docs/results.md, "The soak's files")
	jq -n --arg flavour "$d" --arg base "$f" --arg policy "$policy" \
		--arg release "$(cat "$r/release" 2>/dev/null)" \
		--argjson boot_report "$(cat "$work/$d.boot.report" 2>/dev/null || echo null)" \
		--arg input_hash "$(flavour_key "$d")" --argjson why "$why" \
		--argjson build "$build_s" --argjson boot "$boot_s" \
		--slurpfile report <(cat "$out/$d.report" 2>/dev/null || echo null) \
		--slurpfile reports "$out/$d.reports.json" \
		--slurpfile fuzz <(cat "$out/$d.fuzz.json" 2>/dev/null || echo null) \
		--arg selftest_status "$(cat "$r/selftest.status" 2>/dev/null)" \
		--arg selftest_ok "$(grep -c '^ok ' "$out/$d.selftest.tap" 2>/dev/null)" \
		--arg selftest_not_ok "$(grep -c '^not ok ' "$out/$d.selftest.tap" 2>/dev/null)" \
		--arg fuzz_status "$(cat "$r/fuzz.status" 2>/dev/null)" \
		--arg counters "$(cat "$r/counters" 2>/dev/null)" \
		--arg rmmod "$(cat "$r/rmmod.status" 2>/dev/null)" \
		--arg leaks "$([ -f "$r/kmemleak" ] && grep -c '^unreferenced object' "$r/kmemleak")" \
		--argjson matrix "$mstatus" --argjson repro "$rstatus" \
		--slurpfile inject "$work/$d.inject.json" --slurpfile coverage "$work/$d.coverage.json" \
		--argjson inject_ops "$inject_ops" --argjson inject_percent "$inject_percent" \
		--arg seed "$seed" --argjson ops "$ops" --argjson threads "$threads" '
		def num: if . == "" then null else tonumber end;
		def counter($k): ($counters | capture(" " + $k + "=(?<v>[0-9]+)").v | tonumber)? // null;
		{job: "soak", flavour: $flavour, base_flavour: $base, policy: $policy,
		 input_hash: $input_hash, why_not_run: $why,
		 kernel_release: (if $release == "" then null else $release end),
		 build_seconds: $build, boot_seconds: $boot,
		 boot_verdict: ($boot_report // {} | .kernel_verdict),
		 soak_boot: ($report[0] // {} | {kernel_verdict, guest_status, timed_out,
			wall_seconds}),
		 selftest: {status: ($selftest_status | num), ok: ($selftest_ok | num),
			not_ok: ($selftest_not_ok | num)},
		 fuzz: {seed: $seed, ops: $ops, threads: $threads, status: ($fuzz_status | num),
			summary: $fuzz[0]},
		 pins_left: {pins_live: counter("pins_live"), pages_pinned: counter("pages_pinned")},
		 inject: {ops: $inject_ops, percent: $inject_percent, kinds: $inject[0]},
		 coverage: $coverage[0],
		 rmmod_status: ($rmmod | num),
		 kmemleak_leaks: ($leaks | num),
		 kernel_reports: $reports[0],
		 matrix: (if $matrix == null then null else
			{status: $matrix, results: ($flavour + ".matrix")} end),
		 repro: (if $repro == null then null else
			{status: $repro, results: ($flavour + ".repro")} end)}
		| .failed = [
			(if .why_not_run then "not run" else empty end),
			(if .selftest.status != 0 then "driver selftests" else empty end),
			(if .fuzz.status != 0 then "fuzz" else empty end),
			(if .pins_left.pins_live != 0 or .pins_left.pages_pinned != 0
			 then "pins left" else empty end),
			(.inject.kinds[] | select(.not_in_kernel == null) |
			 (if .status != 0 then "fuzz with " + .kind else empty end),
			 (if .pins_left.pins_live != 0 or .pins_left.pages_pinned != 0
			  then "pins left after " + .kind else empty end)),
			(.inject.kinds[] | select(.not_in_kernel) | .kind + " not in the kernel"),
			(if .rmmod_status != 0 then "rmmod" else empty end),
			(if .kmemleak_leaks == null then "kmemleak not scanned"
			 elif .kmemleak_leaks != 0 then "kmemleak leaks" else empty end),
			(if .boot_verdict != "clean" then "boot-time boot not clean" else empty end),
			(if any(.kernel_reports[]; .series_finding == null)
			 then "kernel reports" else empty end),
			(if .matrix and .matrix.status != 0 then "matrix" else empty end),
			(if .repro and .repro.status != 0 then "repro" else empty end)]
		| .passed = (.failed == [])' >"$out/$d.json"

	passed=$(jq .passed "$out/$d.json")
	[ "$passed" = true ] || bad=1
	jq -r '.inject.kinds[] | "# \(.kind): \(.injected // "?") failures injected, \(.answers_injected // "?") answers ENOMEM/EFAULT, fuzz status \(.status // "not run")"' "$out/$d.json"
	jq -r '.coverage | to_entries[] | select(.value) |
		"# coverage, \(.key): \(.value.reached) of \(.value.lines) lines (\(.value.percent)%)"' "$out/$d.json"
	echo "# $d: $(jq -r 'if .passed then "passed" else "FAILED: " + (.failed | join(", ")) end' "$out/$d.json")"
	jq -r '.kernel_reports[] | "#   \(if .series_finding then "the series\u0027 own finding (" +
		.series_finding.doc + ")" else "kernel report" end), console line \(.console_line): \(.title)"' \
		"$out/$d.json" | head -10
	results_flavour "$d" "kernel_release=$(jq .kernel_release "$out/$d.json")" \
		"ran=$([ "$why" = null ] && echo true || echo false)" \
		"why_not_run=$why" boots=2 "wall_seconds=$((SECONDS - t0))" \
		"build_seconds=$build_s" "boot_seconds=$boot_s" \
		"fuzz_ops_per_second=$(jq '.fuzz.summary.ops_per_second // null' "$out/$d.json")" \
		"kernel_reports=$(jq '[.kernel_reports[] | select(.series_finding == null)] | length' "$out/$d.json")" \
		"series_findings=$(jq '[.kernel_reports[] | select(.series_finding)] | length' "$out/$d.json")" \
		"kmemleak_leaks=$(jq '.kmemleak_leaks' "$out/$d.json")" "passed=$passed" \
		"coverage_fuzz_percent=$(jq '.coverage.fuzz.percent // null' "$out/$d.json")" \
		"coverage_faults_percent=$(jq '.coverage.faults.percent // null' "$out/$d.json")" \
		"failures_injected=$(jq '[.inject.kinds[].injected // 0] | add // 0' "$out/$d.json")" \
		"accel=$(job_accel "$work/$d.boot.report" "$out/$d.report")"
done
results_end
exit "$bad"
