# shellcheck shell=bash
# What every job shares: its results directory (docs/results.md) and the
# run's metadata.  Sourced after patches/flavours.sh, never executed.

LAB_RESULTS=${GUP_LAB_RESULTS:-$LAB_ROOT/results}

# job_guard "$@": a job's first call, with its arguments.  The job runs
# again (exec: the same PID) with a token of its own added to GUP_LAB_JOBS,
# which everything it starts inherits, and jobs/guard.sh waits for it in a
# session of its own: however the job ends, SIGKILL included, its QEMUs,
# builds and subshells die with it and its temporary directories
# (job_tmpdir) go.  The exec is what puts the token in the environment
# /proc/PID/environ shows for a forked subshell too (its job's, as it was
# executed).
job_guard() {
	local token
	if [ "${GUP_LAB_JOB_PID:-}" != "$$" ]; then
		token="$$-$(date +%s%N)"
		GUP_LAB_JOBS="${GUP_LAB_JOBS:+$GUP_LAB_JOBS }$token" \
			GUP_LAB_JOB_PID=$$ GUP_LAB_JOB_TOKEN=$token exec bash "$0" "$@"
	fi
	# in a subshell: not a child the job's own `wait` would wait for
	(setsid env -u GUP_LAB_JOBS "$LAB_ROOT/jobs/guard.sh" "$$" "$GUP_LAB_JOB_TOKEN" \
		</dev/null >/dev/null 2>&1 &)
}

# JQ_MEDIAN: a jq definition, "median" of an array of numbers: the middle
# element, or the mean of the two middle ones; null for none (the
# benchmarks' filters start with it).
JQ_MEDIAN='def median: sort | if length == 0 then null
	elif length % 2 == 1 then .[length / 2 | floor]
	else (.[length / 2 - 1] + .[length / 2]) / 2 end;'
export JQ_MEDIAN

# job_tmpdir: a temporary directory of the job's, which jobs/guard.sh
# removes once the job is over (a trap of the job's own may do it first).
job_tmpdir() {
	mktemp -d "${TMPDIR:-/tmp}/gup-lab.${GUP_LAB_JOB_TOKEN:-nojob}.XXXXXX"
}

# job_flavours JOB [FLAVOUR...]: the flavours a job runs, one per line:
# those given, or every one in patches/flavours.  A name may carry config
# overlays (FLAVOUR+NAME..., patches/overlays/NAME.fragment: patches/flavours.sh's
# flavour_base and flavour_overlays).  An unknown flavour or overlay is a
# usage error (status 2), said in JOB's name.
job_flavours() {
	local job=$1 f o
	shift
	if [ $# -eq 0 ]; then
		all_flavours
		return
	fi
	for f in "$@"; do
		# a registered kernel (patches/user-kernel.sh) is a flavour too
		[ -f "$LAB_CACHE/user/$(flavour_base "$f").flavour" ] ||
			grep -qxF -- "$(flavour_base "$f")" <<<"$(all_flavours)" || {
			echo "jobs/$job.sh: unknown flavour '$(flavour_base "$f")' in '$f' (see patches/flavours; your kernel: docs/your-kernel.md)" >&2
			return 2
		}
		for o in $(flavour_overlays "$f"); do
			[ -f "$LAB_ROOT/patches/overlays/$o.fragment" ] || {
				echo "jobs/$job.sh: unknown overlay '$o' in '$f' (see patches/overlays/)" >&2
				return 2
			}
		done
	done
	printf '%s\n' "$@"
}

# job_shard JOB SPEC: with SPEC "I/N" (a job's --shard, make's SHARD=;
# docs/results.md, "Shards"), keep in the caller's array `flavours` only
# shard I's part of it: the flavours at places I, I+N, I+2N... of the list
# (round-robin: the shards differ by one flavour at most, and the first
# flavours, which make lab builds first, are spread over them).  RESULTS_SHARD (run.json's
# "shard": index, count, the whole list) lets jobs/merge.sh put the parts
# together again.  An empty SPEC keeps every flavour (RESULTS_SHARD null).
# A SPEC that is not I/N with 1 <= I <= N is a usage error (status 2, said
# in JOB's name); a shard with no flavour (N larger than the list) runs
# none and says so.
job_shard() {
	local job=$1 spec=$2 i n k keep=()
	RESULTS_SHARD=null
	[ -n "$spec" ] || return 0
	if ! [[ $spec =~ ^([1-9][0-9]*)/([1-9][0-9]*)$ ]] ||
		[ "${BASH_REMATCH[1]}" -gt "${BASH_REMATCH[2]}" ]; then
		echo "jobs/$job.sh: --shard '$spec': want I/N, shard I of N (1 <= I <= N)" >&2
		return 2
	fi
	i=${BASH_REMATCH[1]} n=${BASH_REMATCH[2]}
	for ((k = 0; k < ${#flavours[@]}; k++)); do
		[ $((k % n + 1)) -ne "$i" ] || keep+=("${flavours[k]}")
	done
	RESULTS_SHARD=$(jq -nc --argjson index "$i" --argjson count "$n" \
		'{index: $index, count: $count, flavours: $ARGS.positional}' --args "${flavours[@]}")
	echo "# shard $i/$n: ${keep[*]:-no flavour (${#flavours[@]} in all)}" >&2
	flavours=("${keep[@]}")
}

# job_modelled JOB PROBE EXPLICIT: keep in the caller's array `flavours`
# those whose kernel the job's model knows.  PROBE F runs the job's
# `gupctl ... cells` for F; its status 4 (GUPCTL_EXIT_NO_MODEL) says the
# model has no answers for F's kernel yet, and why (its stderr, "gupctl
# CMD: WHY").  Such a flavour is not run: said on stderr and kept for
# run.json's "not_run" ({name, why}: RESULTS_NOT_RUN, results_end), so
# that a page can say so; the job's status does not change.  With EXPLICIT
# 1 (the user named the flavours) it is a usage error instead (status 2).
job_modelled() {
	local job=$1 probe=$2 explicit=$3 f why rc keep=()
	RESULTS_NOT_RUN=null
	for f in "${flavours[@]}"; do
		rc=0
		why=$("$probe" "$f" 2>&1 >/dev/null) || rc=$?
		if [ "$rc" != 4 ]; then
			keep+=("$f")
			continue
		fi
		why=${why#gupctl *: }
		if [ "$explicit" = 1 ]; then
			echo "jobs/$job.sh: $f: $why" >&2
			return 2
		fi
		log "$f: not run: $why"
		RESULTS_NOT_RUN=$(jq -c --arg name "$f" --arg why "$why" \
			'(. // []) + [{name: $name, why: $why}]' <<<"$RESULTS_NOT_RUN")
	done
	flavours=("${keep[@]}")
}

# job_detect FLAVOUR...: the GUP policy of each registered kernel given no
# POLICY= and not yet detected, read from its kernel: one boot each
# (jobs/guest/detect.sh: `gupctl detect`, the kernel's facts, then a few
# probe cells), the answer kept in the cache (patches/flavours.sh's
# flavour_detected, with the boot's console beside it) and said on stderr
# with its evidence.  Returns 1 if a detection did not come back.
job_detect() {
	local f d
	for f in "$@"; do
		[ "$(flavour_policy "$f")" = detect ] || continue
		d=$(job_tmpdir)
		log "$f: detecting its GUP policy (one boot: the kernel's facts, then probe cells)"
		# its kernel first: one that does not build says why and stops
		# the job here, before any staging
		if ! flavour_build "$f" >/dev/null; then
			rm -rf "$d"
			return 1
		fi
		if ! "$LAB_ROOT/rootfs/stage-guest.sh" "$f" "$d/stage" >"$d/stage.log" 2>&1; then
			tail -8 "$d/stage.log" >&2
			log "$f: staging failed: no detection"
			rm -rf "$d"
			return 1
		fi
		# the runner's status is the console's: probe cells may WARN
		job_boot "$d/runner" --flavour "$f" --timeout 900 --raw-trace \
			--files "$d/stage" --out "$d/run" --results "$d/out" \
			--exec 'bash /lab/guest/detect.sh' || true
		if ! jq -e 'has("policy") and has("evidence")' "$d/out/detect.json" >/dev/null 2>&1; then
			tail -20 "$d/runner" >&2
			log "$f: no detection came back (console: $d/run/console.log)"
			return 1
		fi
		# (the failures above and below keep $d: its console is to be read)
		if ! job_detect_console "$d/run/console.log" >"$d/reports.json"; then
			log "$f: the detection boot reported worse than a WARNING: no detection (console: $d/run/console.log)"
			return 1
		fi
		mkdir -p "$LAB_CACHE/detect"
		cp "$d/run/console.log" "$(flavour_detected "$f" | sed 's/\.json$//').console.log"
		# the WARNINGs beside the answer, for whoever reads the evidence
		# (aside, then renamed: another job may be reading it)
		jq --slurpfile r "$d/reports.json" '. + {console_reports: $r[0]}' \
			"$d/out/detect.json" >"$(flavour_detected "$f").new"
		mv "$(flavour_detected "$f").new" "$(flavour_detected "$f")"
		log "$f: GUP policy $(flavour_policy "$f"): $(jq -r .evidence "$(flavour_detected "$f")")"
		rm -rf "$d"
	done
}

# job_detect_console CONSOLE: the kernel reports of a detection boot as
# JSON (qemu/scan-console.sh --reports) on stdout; status 1, each listed
# on stderr, if one is worse than a WARNING.  Probe cells may WARN where a
# policy says so (their markers: "gup-lab: detect cell N"); anything worse
# and the answers cannot be trusted.
job_detect_console() {
	local reports
	reports=$("$LAB_ROOT/qemu/scan-console.sh" --reports "$1")
	echo "$reports"
	! jq -e 'any(.[]; .kind != "warning")' <<<"$reports" >/dev/null || {
		jq -r '.[] | select(.kind != "warning") | "#   \(.kind): \(.title)"' <<<"$reports" >&2
		return 1
	}
}

# job_boot LOG RUN-ARGS...: one guest, qemu/run.sh RUN-ARGS..., whose
# output (the console, the runner's lines) is kept in LOG.  Quiet, unless
# V=1 (`make V=1 lab`): then it streams to the terminal as it comes, and
# LOG has it too.  Returns the runner's status (its exit contract).
job_boot() {
	local log=$1
	shift
	if [ "${V:-0}" = 1 ]; then
		"$LAB_ROOT/qemu/run.sh" "$@" 2>&1 | tee "$log"
		return "${PIPESTATUS[0]}"
	fi
	"$LAB_ROOT/qemu/run.sh" --quiet "$@" >"$log" 2>&1
}

# job_parallel FUNC FLAVOUR...: FUNC FLAVOUR for every flavour, each in a
# subshell of its own, GUP_LAB_GUESTS of them at a time (default 2: two
# TCG guests on two cores took 5.4 s where one took 4.7 s,
# docs/performance.md); one at a time with V=1, whose consoles would
# interleave.  A line on stderr says when each one starts; its output
# (stdout, then stderr, each to its own) is printed whole, in the
# flavours' order, as soon as it and those before it are done.  results_flavour numbers
# each flavour by its place in the list, as a serial run would.  Returns
# 1 if any FUNC returned non-zero.
job_parallel() {
	local func=$1 n=${GUP_LAB_GUESTS:-2} dir i next=0 status=0
	shift
	[ "${V:-0}" != 1 ] || n=1
	[[ $n =~ ^[1-9][0-9]*$ ]] || die "GUP_LAB_GUESTS must be a number from 1, not '$n'"
	dir=$(job_tmpdir)
	for ((i = 0; i < $#; i++)); do
		while [ "$(jobs -rp | wc -l)" -ge "$n" ]; do
			wait -n || true
			_job_flush
		done
		# progress now; the flavour's own lines once it is done
		echo "# ${func%_flavour}: ${*:i+1:1}: started ($n at a time)" >&2
		(
			# shellcheck disable=SC2030 # this subshell's own count
			RESULTS_NF=$i
			set +e
			(set -e; "$func" "${@:i+1:1}")
			echo $? >"$dir/$i.status"
		) >"$dir/$i.out" 2>"$dir/$i.err" &
	done
	while [ "$next" -lt $# ]; do
		if [ ! -f "$dir/$next.status" ] && [ "$(jobs -rp | wc -l)" -gt 0 ]; then
			wait -n || true
		else
			# done, or gone without a status (a failure)
			[ -f "$dir/$next.status" ] || echo 1 >"$dir/$next.status"
		fi
		_job_flush
	done
	wait
	rm -rf "$dir"
	return "$status"
}

# _job_flush: job_parallel's finished flavours, from the next one to print
# up to the first still running, printed and counted (its locals: dir,
# next, status).
_job_flush() {
	while [ -f "$dir/$next.status" ]; do
		cat "$dir/$next.err" >&2
		cat "$dir/$next.out"
		[ "$(cat "$dir/$next.status")" = 0 ] || status=1
		next=$((next + 1))
	done
}

# job_accel REPORT...: the accelerator the boots of a flavour ran under,
# from the runners' reports (qemu/run.sh --report's "accel"; a JSON lines
# file of them too), as a JSON value for results_flavour: "kvm", "tcg",
# "kvm+tcg" if they differed, null if no report says (no boot, or a
# report from before the field).  Missing files are skipped.
job_accel() {
	local f files=()
	for f in "$@"; do
		[ ! -s "$f" ] || files+=("$f")
	done
	[ ${#files[@]} -gt 0 ] || { echo null; return 0; }
	jq -sc '[.[].accel // empty] | unique | if . == [] then null else join("+") end' \
		"${files[@]}" 2>/dev/null || echo null
}

# job_first_report CONSOLE FLAVOUR: for a flavour that failed, the first
# kernel report on CONSOLE with its trace symbolised (qemu/scan-console.sh
# with the flavour's tree), indented as a diagnostic; nothing if the
# console is clean.  The jobs boot with --raw-trace, which leaves that
# work to the runs a human has to read.
job_first_report() {
	[ -s "$1" ] || return 0
	"$LAB_ROOT/qemu/scan-console.sh" "$1" "$(flavour_dir "$2")" 2>/dev/null |
		sed -n '2,$s/^/#   /p' || true
}

# job_verbose FILE...: with V=1, print what a job otherwise only writes to
# its results directory (a flavour's full KTAP), indented as a diagnostic.
job_verbose() {
	[ "${V:-0}" = 1 ] || return 0
	cat "$@" 2>/dev/null | sed 's/^/#   /' || true
}

# job_userspace: build gupctl and the rest of userspace/ (make -s, output on
# stderr), one make at a time: two jobs at once (make lab runs the matrix
# and the consumers together) would otherwise link the same files at once.
job_userspace() {
	flock "$LAB_ROOT/userspace/.make.lock" make -s -C "$LAB_ROOT/userspace" >&2
}

# results_begin JOB [DIR [FLAVOUR...]]: make the run's results directory
# (DIR, or a new one under $LAB_RESULTS/JOB) and print its path.  A shard
# (RESULTS_SHARD, job_shard) moves no latest link.
# RESULTS_JOB, RESULTS_LINK (whether results_end moves the latest links)
# and RESULTS_T0 are set for results_end.  A run of a registered kernel
# (one of FLAVOUR...) moves no latest link: the published pages (`make
# docs`) stay the flavours'.
results_begin() {
	local job=$1 dir=${2:-} f mine=0
	for f in "${@:3}"; do
		[ -z "$(user_field "$f" kind)" ] || mine=1
	done
	RESULTS_JOB=$job
	RESULTS_T0=$(date +%s.%N)
	RESULTS_DATE=$(date -u +%Y-%m-%dT%H:%M:%SZ)
	# the commit the run starts from (a commit made while it runs is not it)
	RESULTS_COMMIT=$(git -C "$LAB_ROOT" describe --always --dirty 2>/dev/null || echo unknown)
	if [ -n "$dir" ]; then
		RESULTS_LINK=0
	else
		# a shard is a part (job_shard): the latest links stay the
		# whole runs' (a merged run moves them: jobs/merge.sh)
		[ "${RESULTS_SHARD:-null}" = null ] || mine=1
		RESULTS_LINK=$((!mine))
		# the last runs of the job stay (docs/results.md, "Pruning")
		"$LAB_ROOT/qemu/prune-runs.sh" --results "$LAB_RESULTS/$job" ||
			log "could not prune $LAB_RESULTS/$job"
		dir=$LAB_RESULTS/$job/$(date -u +%Y%m%d-%H%M%S)
		mkdir -p "$LAB_RESULTS/$job"
		# made here, by one mkdir: two jobs started in the same second
		# each get a directory of their own (a test and make, before,
		# shared one: both saw it missing, both made it)
		mkdir "$dir" 2>/dev/null || dir=$(mktemp -d "$dir-XXXX")
	fi
	mkdir -p "$dir"
	RESULTS_DIR=$(cd "$dir" && pwd)
	# in progress until results_end (qemu/prune-runs.sh leaves it alone)
	echo $$ >"$RESULTS_DIR/.running"
	# a guest killed from outside says so here (qemu/run.sh): no run.json
	export GUP_LAB_INTERRUPTED=$RESULTS_DIR/.interrupted
}

# results_flavour NAME KEY=VALUE...: one entry of run.json's "flavours"
# (values are JSON: numbers, true/false, null, or "quoted strings"),
# kept in the run directory until results_end gathers them.
results_flavour() {
	local name=$1 kv args=()
	shift
	for kv in "$@"; do
		args+=(--argjson "${kv%%=*}" "${kv#*=}")
	done
	# shellcheck disable=SC2031 # job_parallel's subshells set their own
	RESULTS_NF=$((${RESULTS_NF:-0} + 1))
	# numbered: run.json lists the flavours in the order they ran
	local pkg
	pkg=$(flavour_source_pkg "$name")
	args+=(--argjson source_package "$(jq -n --arg name "$pkg" \
		--arg version "$(source_pkg_version "$pkg")" '{name: $name, version: $version}')")
	# where a registered kernel came from, and how its policy was chosen
	if [ -n "$(user_field "$name" kind)" ]; then
		args+=(--argjson kernel "$(jq -c . "$LAB_CACHE/user/$(flavour_base "$name").json")")
		args+=(--argjson policy "$(jq -n --arg given "$(flavour_field "$name" 3)" \
			--arg policy "$(flavour_policy "$name")" --slurpfile d \
			<(cat "$(flavour_detected "$name")" 2>/dev/null || echo null) \
			'{name: $policy, how: (if $given == "detect" then "detected" else "given" end),
			  evidence: ($d[0].evidence // null)}')")
	fi
	jq -n --arg name "$name" --arg input_hash "$(flavour_key "$name")" \
		"${args[@]}" '$ARGS.named' \
		>"$RESULTS_DIR/.flavour-$(printf %03d "$RESULTS_NF").json"
	# jobs/lab.sh's progress line: this flavour's run is over
	[ -z "${GUP_LAB_STEPS:-}" ] || jq -nc --arg step "$RESULTS_JOB" --arg flavour "$name" \
		--argjson at "$(($(date +%s) - ${GUP_LAB_T0:-0}))" \
		--argjson ran "$(jq '.ran // null' "$RESULTS_DIR/.flavour-$(printf %03d "$RESULTS_NF").json")" \
		'$ARGS.named' >>"$GUP_LAB_STEPS"
}

# results_end: write run.json, move the latest links (unless the caller
# chose the directory) and print "results: PATH", the job's last line.
# jobs/merge.sh sets RESULTS_COMMIT, RESULTS_DATE, RESULTS_WALL (the
# parts' own) and RESULTS_MERGED (run.json's "merged_from") first.
results_end() {
	local wall commit=$RESULTS_COMMIT
	# An interrupted guest (qemu/run.sh) makes no finished run: the
	# directory keeps what came back, without run.json, which jobs/docs.sh
	# and the latest links require.
	if [ -s "$RESULTS_DIR/.interrupted" ]; then
		sed 's/^/# interrupted: /' "$RESULTS_DIR/.interrupted"
		rm -f "$RESULTS_DIR/.running"
		log "$RESULTS_DIR: not a finished run (a guest was interrupted): no run.json"
		return 1
	fi
	wall=${RESULTS_WALL:-$(echo "$(date +%s.%N) - $RESULTS_T0" | bc)}
	shopt -s nullglob
	local parts=("$RESULTS_DIR"/.flavour-*.json)
	shopt -u nullglob
	if [ ${#parts[@]} -eq 0 ]; then echo '[]'; else jq -s . "${parts[@]}"; fi |
		jq --arg job "$RESULTS_JOB" --arg commit "$commit" \
		--arg date "$RESULTS_DATE" \
		--argjson wall "$(printf '%.1f' "$wall")" --argjson shard "${RESULTS_SHARD:-null}" \
		--argjson merged "${RESULTS_MERGED:-null}" --argjson not_run "${RESULTS_NOT_RUN:-null}" \
		'{job: $job, commit: $commit, date: $date,
		  source_packages: ([.[].source_package | select(.)] | unique),
		  wall_seconds: $wall, shard: $shard, flavours: .}
		| if $not_run then . + {not_run: $not_run} else . end
		| if $merged then . + {merged_from: $merged} else . end' >"$RESULTS_DIR/.run.json.tmp"
	# run.json is what makes the directory a finished run (jobs/docs.sh):
	# renamed into place whole, never half written (a kill, a full disk)
	mv "$RESULTS_DIR/.run.json.tmp" "$RESULTS_DIR/run.json"
	rm -f "${parts[@]}" "$RESULTS_DIR/.running"
	results_explorer "$RESULTS_DIR"
	if [ "$RESULTS_LINK" = 1 ]; then
		_results_link "$(basename "$RESULTS_DIR")" "$LAB_RESULTS/$RESULTS_JOB/latest"
		_results_link "$RESULTS_JOB/$(basename "$RESULTS_DIR")" "$LAB_RESULTS/latest"
	fi
	echo "results: $RESULTS_DIR"
}

# results_explorer DIR: DIR's explorer page, DIR/explorer.html, for a job
# that has one (the matrix, the consumers, the reproduction, the holders:
# their report steps' --html; docs/results.md, "The explorer"), its path printed as
# "# explorer: PATH"; results_end calls it once run.json is written,
# jobs/docs.sh again.
results_explorer() {
	local s=0 gupctl=$LAB_ROOT/userspace/gupctl
	case $(jq -r .job "$1/run.json") in
	matrix) "$gupctl" report --html "$1/explorer.html" "$1" >/dev/null || s=$? ;;
	consumers) "$gupctl" consumers report --html "$1/explorer.html" "$1" || s=$? ;;
	repro) "$gupctl" repro report --results "$1" --html "$1/explorer.html" || s=$? ;;
	holders) "$gupctl" holders report --results "$1" --html "$1/explorer.html" || s=$? ;;
	*) return 0 ;;
	esac
	# 1 (the matrix): a flavour failed or did not run; the page shows that too
	if [ "$s" -le 1 ]; then
		echo "# explorer: $1/explorer.html"
	else
		log "$1: the explorer page could not be written"
	fi
}

# _results_link TARGET LINK: LINK points at TARGET, replaced by a rename:
# at every moment it names either the old run or the new one (ln -sfn
# removes it first).
_results_link() {
	ln -sfn "$1" "$2.tmp.$$"
	mv -T "$2.tmp.$$" "$2"
}
