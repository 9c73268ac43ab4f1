#!/bin/bash
# The 2018 ext4 crash and its 6.1 data loss, per flavour (`make repro`).
#
# For every flavour in patches/flavours and every cell (GUP method x
# FOLL_LONGTERM x FOLL_WRITE on the read-fault route, plus the FOLL_WRITE
# cells of the EXT4_IOC_MOVE_EXT route), state the expected outcome, derived from the
# flavour's gup and ext4 columns (see expect()), then boot one guest that
# runs `gupctl repro ext4-2018` for that cell (one cell per boot: ext4's
# WARN_ON_ONCE and the BUG are once per boot), and classify what happened
# from the guest's output, the run report's kernel verdict, the console and
# the file as the host reads it from the guest's scratch ext4 (debugfs, no
# mount): the page cache of the guest cannot fool that read.
#
#   jobs/repro.sh [--quick] [--flavour F]... [--md FILE] [--tsv FILE]
#                  [--out DIR] [--keep-images]
#
# Exit status: 0 every cell ran and matched its expectation; 1 a cell
# mismatched or was not run; 2 usage error.
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=../qemu/lib.sh
. qemu/lib.sh
# report_get, shared with the test suites
# shellcheck source=../tests/tap.sh
. tests/tap.sh

usage() {
	cat <<USAGE
usage: jobs/repro.sh [options]
  --quick          per flavour only: pin, pin-fast+longterm,
                   pin+longterm+write, get+write, move-ext:get+write
                   (default: the 12 read-route cells and the 6 FOLL_WRITE
                   cells of the move-ext route)
  --flavour F      only flavour F (repeatable; default: every flavour in
                   patches/flavours: $(all_flavours | paste -sd' '))
  --md FILE        write the table as markdown, with trimmed traces
  --tsv FILE       write the table as tab separated values (for scripts)
  --out DIR        keep the runs here (default: a new directory under
                   $LAB_CACHE/runs)
  --keep-images    keep each run's scratch and control disk images and
                   the control directory (default: deleted once read,
                   ~20 MB per cell; consoles and reports are kept)
USAGE
}

quick=0 md='' tsv='' out='' keep_images=0 flavours=()
while [ $# -gt 0 ]; do
	case $1 in
	--quick) quick=1 ;;
	--flavour) flavours+=("${2:?--flavour needs a value}"); shift ;;
	--md) md=${2:?--md needs a FILE}; shift ;;
	--tsv) tsv=${2:?--tsv needs a FILE}; shift ;;
	--out) out=${2:?--out needs a DIR}; shift ;;
	--keep-images) keep_images=1 ;;
	-h | --help) usage; exit 0 ;;
	*) usage >&2; echo "jobs/repro.sh: unknown option '$1'" >&2; exit 2 ;;
	esac
	shift
done
if [ ${#flavours[@]} -eq 0 ]; then
	mapfile -t flavours < <(all_flavours)
fi
for f in "${flavours[@]}"; do
	all_flavours | grep -qxF -- "$f" ||
		{ echo "jobs/repro.sh: unknown flavour '$f' (see patches/flavours)" >&2; exit 2; }
done

# Cells: "ROUTE METHOD LONGTERM WRITE".  FOLL_LONGTERM needs FOLL_PIN
# (the driver refuses it with get/get-fast, as 6.1's GUP would WARN).  The
# move-ext route is about FOLL_WRITE pins (whose write fault attaches
# buffers); without FOLL_WRITE the read route has already lost them.
cells=()
if [ "$quick" = 1 ]; then
	cells=("read pin no no" "read pin-fast yes no" "read pin yes yes"
		"read get no yes" "move-ext get no yes")
else
	for r in read move-ext; do
		for m in pin pin-fast get get-fast; do
			for l in no yes; do
				case $m:$l in get*:yes) continue ;; esac
				for w in no yes; do
					[ "$r:$w" != move-ext:no ] || continue
					cells+=("$r $m $l $w")
				done
			done
		done
	done
fi

if [ -z "$out" ]; then
	mkdir -p "$LAB_CACHE/runs"
	out=$(mktemp -d "$LAB_CACHE/runs/repro-$(date +%Y%m%d-%H%M%S).XXXX")
fi
mkdir -p "$out"

# cell_label R M L W: "pin-fast+longterm+write", "move-ext:get+write"
cell_label() {
	local s=$2
	[ "$1" = read ] || s="$1:$s"
	[ "$3" = no ] || s+=+longterm
	[ "$4" = no ] || s+=+write
	echo "$s"
}

cell_args() {
	local a="--route $1 --method $2"
	[ "$3" = no ] || a+=" --longterm"
	[ "$4" = no ] || a+=" --write"
	echo "$a"
}

# route_name R W: how the page ends up without buffers (or not).
route_name() {
	case $1:$2 in
	move-ext:*) echo "MOVE_EXT frees buffers" ;;
	*:yes) echo "write fault (mkwrite)" ;;
	*) echo "read fault (no buffers)" ;;
	esac
}

# bug_site FLAVOUR: file:line of page_buffers() in the flavour's
# mpage_prepare_extent_to_map(), where its BUG_ON fires once the
# cc5095747edf check in front of it is gone.
bug_site() {
	local src n
	src=$(flavour_dir "$1")/src/fs/ext4/inode.c
	n=$(awk '/^static int mpage_prepare_extent_to_map\(/ { f = 1 }
		f && /page_buffers\(page\)/ { print NR; exit }' "$src" 2>/dev/null || true)
	echo "fs/ext4/inode.c:${n:-?}"
}

# expect FLAVOUR ROUTE METHOD LONGTERM WRITE: sets exp (the outcome) and
# exp_reason (one line), from the flavour's gup and ext4 columns and the
# route alone.
expect() {
	local gup ext4 pin=no why lost
	gup=$(flavour_field "$1" 3)
	ext4=$(flavour_field "$1" 4)
	case $3 in pin | pin-fast) pin=yes ;; esac
	case $gup in stock | v7) ;; *) die "no expectation for gup policy '$gup'" ;; esac
	case $ext4 in warn | bug) ;; *) die "no expectation for ext4 behaviour '$ext4'" ;; esac

	if [ "$5" = yes ] && [ "$gup" = v7 ] && [ "$pin" = yes ]; then
		exp='blocked (EFAULT)'
		exp_reason="v7 refuses FOLL_PIN|FOLL_WRITE on a dirty-tracked VMA: the page is not mapped yet, so GUP-fast falls back and the slow path's writeable_file_mapping_allowed() says no"
		return
	fi
	if [ "$2" = read ] && [ "$5" = yes ]; then
		exp='no loss (host reads NEW)'
		exp_reason="FOLL_WRITE: the pin's write fault runs ext4_page_mkwrite(), which attaches buffers; the dirty page is written back normally"
		[ "$gup" != v7 ] || exp_reason="v7 leaves FOLL_GET writes alone; $exp_reason"
		return
	fi
	if [ "$2" = read ]; then
		why="no FOLL_WRITE, no page_mkwrite: the page ext4_mpage_readpages() read has no buffers"
		lost=OLD
		[ "$gup" != v7 ] || why="v7 checks FOLL_WRITE only; $why"
	else
		why="ext4_page_mkwrite() attached buffers, fsync cleaned them, EXT4_IOC_MOVE_EXT's move_extent_per_page() freed them on the pinned donor page (filemap_release_folio() ignores references)"
		lost=ZEROS
		[ "$gup" != v7 ] || why="v7 leaves FOLL_GET writes alone; $why"
	fi
	if [ "$ext4" = warn ]; then
		exp="WARNING + data lost (host reads $lost)"
		exp_reason="$why; the dirty unpin WARNs in ext4_dirty_folio(), writeback warns 'does not have buffers attached' and clears dirty (cc5095747edf)"
		[ "$lost" = OLD ] || exp_reason+="; the donor's swapped-in extent is unwritten: zeros"
	else
		exp="BUG ($(bug_site "$1"))"
		exp_reason="$why; with cc5095747edf reverted writeback reaches page_buffers() in mpage_prepare_extent_to_map() and its BUG_ON"
	fi
}

# host_read IMAGE FILE: the file as e2fsprogs reads it from the image,
# judged by the same code as in the guest (gupctl repro --classify): new,
# old, mixed, zeros, other, or missing.
host_read() {
	local got=$out/host-read
	if [ -z "$2" ] || ! debugfs -R "cat /$2" "$1" >"$got" 2>/dev/null ||
		[ ! -s "$got" ]; then
		echo missing
		return
	fi
	userspace/gupctl repro ext4-2018 --classify "$got"
}

# frames: a decoded report on stdin (qemu/scan-console.sh), one
# "function (file:line)" per frame on stdout, the RIP first.  The kernels
# use the guess unwinder: every call-trace frame is a '?' guess, and
# interrupt and scheduler leftovers on the stack are dropped; the trace
# stops at the system call (__x64_sys_*) or the driver's ioctl handler.
frames() {
	awk '
	function frame(s,   fn, loc) {
		fn = s
		sub(/ .*/, "", fn)
		sub(/\+0x.*/, "", fn)
		loc = ""
		# the last "dir/file.c:line" of the decoded frame, from the
		# source root on (scan-console.sh already strips cache paths)
		while (match(s, /[A-Za-z0-9_.\/-]+\.[chS]:[0-9]+/)) {
			loc = substr(s, RSTART, RLENGTH)
			s = substr(s, RSTART + RLENGTH)
		}
		sub(/^.*src\//, "", loc)
		if (loc == "" && s ~ / gup_pin_test/)
			loc = "gup_pin_test.ko"
		print fn (loc != "" ? " (" loc ")" : "")
	}
	/RIP: [0-9a-f]+:/ && !rip { sub(/.*RIP: [0-9a-f]+:/, ""); frame($0); rip = 1; next }
	/Call Trace:/ { ct = 1; next }
	ct && /<\/TASK>|---\[ end trace/ { ct = 0; done = 1 }
	done { next }
	ct && /<TASK>/ { next }
	ct { sub(/^\[[^]]*\] *(\? )?/, ""); frame($0) }' |
		grep -vE '^(asm_|__wake_up|update_|set_next_entity|schedule|__schedule|pick_next|finish_task_switch)' |
		# read to the end, never exit early: under pipefail a writer
		# killed by SIGPIPE would fail the whole measurement
		awk '!done && n < 10 { print; n++ }
			/^__x64_sys_|^do_syscall_64|_ioctl \(gup_pin_test\.ko\)/ { done = 1 }'
}

join_frames() {
	paste -sd'<' | sed 's/</ < /g'
}

# measure FLAVOUR ROUTE M L W RUNDIR: sets meas, detail (guest and host
# reads) and trace (the kernel's report, trimmed).
measure() {
	local dir=$6 con rep verdict status result pinned host guest direct evicted
	local loc kdir n last_step file
	con=$dir/console.log
	rep=$dir/report
	meas='' detail='' trace='' reads=''
	if [ ! -s "$rep" ] || [ ! -f "$con" ]; then
		meas='not run (no run report)'
		detail="runner said: $(tail -3 "$dir.runner.log" 2>/dev/null | tr '\n|' ' /')"
		return
	fi
	verdict=$(report_get "$rep" kernel_verdict)
	status=$(report_get "$rep" guest_status)
	kdir=$(report_get "$rep" kernel_dir)
	result=$(tr -d '\r' <"$con" | grep -a '^repro-result:' | tail -1 || true)
	pinned=$(sed -n 's/.* pinned=\([^ ]*\).*/\1/p' <<<"$result")
	guest=$(sed -n 's/.* guest-read=\([^ ]*\).*/\1/p' <<<"$result")
	direct=$(sed -n 's/.* direct-read=\([^ ]*\).*/\1/p' <<<"$result")
	evicted=$(sed -n 's/.* evicted-read=\([^ ]*\).*/\1/p' <<<"$result")
	# the file's path as the guest printed it first, relative to /mnt/ext4
	file=$(tr -d '\r' <"$con" | sed -n 's|^repro-file: /mnt/ext4/||p')
	host=$(host_read "$dir/scratch.img" "${file%%$'\n'*}")
	last_step=$(tr -d '\r' <"$con" | grep -a '^repro-step' | tail -1 | sed 's/^repro-step \([0-9]*\): \([a-zA-Z_]*\).*/\1 \2/')
	if [ -n "$result" ]; then
		detail="guest: pinned=$pinned pread=$guest O_DIRECT=$direct after-evict=$evicted"
	else
		detail="guest: no result line (last step: ${last_step:-none})"
	fi
	detail+="; host: $host; verdict: $verdict"
	reads="${guest:--} / ${direct:--} / $host"

	if grep -qa 'kernel BUG at' "$con"; then
		loc=$(tr -d '\r' <"$con" | sed -n 's/.*kernel BUG at \(.*\)!.*/\1/p' | head -1 |
			sed 's|^.*src/||')
		meas="BUG ($loc)"
		[ "${last_step#* }" = fsync ] || meas+=" at step ${last_step:-?}"
		n=$(grep -na 'kernel BUG at' "$con" | head -1 | cut -d: -f1)
		tail -n +"$((n > 1 ? n - 1 : 1))" "$con" >"$dir/bug.log"
		trace=$(qemu/scan-console.sh "$dir/bug.log" "$kdir" | frames | join_frames)
		return
	fi
	if grep -qa 'WARNING: ' "$con"; then
		trace="WARNING at $(report_get "$rep" first_report | sed -n 's/.* at \([^ ]*\) .*/\1/p' | sed 's|^.*src/||'): "
		trace+=$(qemu/scan-console.sh "$con" "$kdir" | frames | join_frames)
		n=$(tr -d '\r' <"$con" | grep -a 'does not have buffers attached' | head -1 |
			sed 's/.*EXT4-fs warning[^:]*: \([^:]*:[0-9]*\):.*\(page [0-9]* does not have buffers attached\).*/\1: \2/' || true)
		[ -z "$n" ] || trace+="; then ext4_warning in $n"
	fi
	if [ -n "$pinned" ] && [ "$pinned" != yes ]; then
		meas="blocked ($pinned)"
		[ "$verdict" = clean ] || meas+=" + kernel $verdict"
	elif [ -z "$result" ]; then
		meas="not run (guest status $status, verdict $verdict, last step ${last_step:-none})"
	elif [ "$verdict" = warning ] && [ "$host" != new ] &&
		grep -qa 'does not have buffers attached' "$con"; then
		meas="WARNING + data lost (host reads ${host^^})"
	elif [ "$verdict" = clean ] && [ "$host" = new ]; then
		meas='no loss (host reads NEW)'
	else
		meas="$verdict + host reads ${host^^}"
		grep -qa 'does not have buffers attached' "$con" && meas+=" (ext4 warned: no buffers)"
	fi
	return 0
}

# Stage each flavour once: module, gupctl, guest programs.
declare -A staged
for f in "${flavours[@]}"; do
	if rootfs/stage-guest.sh "$f" "$out/stage-$f" >"$out/stage-$f.log" 2>&1; then
		staged[$f]=1
	else
		staged[$f]=0
		log "$f: staging failed (module or gupctl does not build): see $out/stage-$f.log"
		tail -5 "$out/stage-$f.log" >&2
	fi
done

# One row per cell, fields separated by US (0x1f): reasons contain '|'.
US=$'\x1f'
rows=()		# flavour route cell expected measured match reason detail trace dir reads
failed=0 start=$SECONDS
for f in "${flavours[@]}"; do
	for c in "${cells[@]}"; do
		read -r rt m l w <<<"$c"
		label=$(cell_label "$rt" "$m" "$l" "$w")
		expect "$f" "$rt" "$m" "$l" "$w"
		echo "== $f $label: expect $exp"
		echo "   because $exp_reason"
		dir=$out/$f-${label//:/-}
		if [ "${staged[$f]}" = 1 ]; then
			t0=$SECONDS
			qemu/run.sh --flavour "$f" --files "$out/stage-$f" --quiet \
				--allow-kernel-reports --timeout 180 --report "$dir.report" \
				--out "$dir" --exec "insmod /lab/gup_pin_test.ko && gupctl repro ext4-2018 $(cell_args "$rt" "$m" "$l" "$w")" \
				>"$dir.runner.log" 2>&1 || true
			measure "$f" "$rt" "$m" "$l" "$w" "$dir"
			[ "$keep_images" = 1 ] ||
				rm -rf "$dir/scratch.img" "$dir/control.img" "$dir/control"
			echo "   measured $meas ($((SECONDS - t0)) s)"
		else
			meas='not run (staging failed)' detail='' trace='' reads=''
			echo "   measured $meas"
		fi
		if [ "$meas" = "$exp" ]; then match=MATCH; else match=MISMATCH; failed=$((failed + 1)); fi
		echo "   $match; $detail"
		[ -z "$trace" ] || echo "   kernel: $trace"
		rows+=("$f$US$(route_name "$rt" "$w")$US$label$US$exp$US$meas$US$match$US$exp_reason$US$detail$US$trace$US$dir$US$reads")
	done
done

# The table.
echo
printf '%-10s %-24s %-33s %-38s %-38s %s\n' flavour route 'method+flags' expected measured result
for r in "${rows[@]}"; do
	IFS=$US read -r f route label exp meas match _ _ trace _ <<<"$r"
	printf '%-10s %-24s %-33s %-38s %-38s %s\n' "$f" "$route" "$label" "$exp" "$meas" "$match"
	case $meas in BUG*) echo "           trace: $trace" ;; esac
done
echo "${#rows[@]} cells, $failed mismatched or not run, $((SECONDS - start)) s; runs in $out"

if [ -n "$tsv" ]; then
	{
		printf 'flavour\troute\tcell\texpected\tmeasured\tresult\treason\tdetail\tkernel\trun\treads\n'
		for r in "${rows[@]}"; do
			tr '\t\037' ' \t' <<<"$r"
		done
	} >"$tsv"
fi

# md_cell TEXT: TEXT fit for a markdown table cell.
md_cell() {
	local s=${1//|/\\|}
	echo "${s:--}"
}

if [ -n "$md" ]; then
	declare -A reason_no trace_no
	reasons=() traces=()
	{
		echo "| flavour | route | method + flags | expected | measured | result | reads: guest cache / guest O_DIRECT / host | kernel report |"
		echo "|---|---|---|---|---|---|---|---|"
		for r in "${rows[@]}"; do
			IFS=$US read -r f route label exp meas match reason _ trace _ reads <<<"$r"
			if [ -z "${reason_no[$reason]:-}" ]; then
				reasons+=("$reason")
				reason_no[$reason]=${#reasons[@]}
			fi
			tref=-
			if [ -n "$trace" ]; then
				if [ -z "${trace_no[$trace]:-}" ]; then
					traces+=("$trace")
					trace_no[$trace]=${#traces[@]}
				fi
				tref="T${trace_no[$trace]}"
			fi
			# shellcheck disable=SC2016 # the backquotes are markdown
			printf '| %s | %s | `%s` | %s [%s] | %s | %s | %s | %s |\n' "$f" "$route" "$label" \
				"$(md_cell "$exp")" "${reason_no[$reason]}" "$(md_cell "$meas")" "$match" \
				"$(md_cell "$reads")" "$tref"
		done
		echo
		echo "Why each outcome was expected (jobs/repro.sh expect(), from the flavour's gup and ext4 columns):"
		echo
		for i in "${!reasons[@]}"; do
			echo "$((i + 1)). ${reasons[$i]}"
		done
		if [ ${#traces[@]} -gt 0 ]; then
			echo
			echo "Kernel reports, symbolised by the flavour's decode_stacktrace.sh and trimmed (guess unwinder: interrupt and scheduler leftovers dropped; callers after the arrow):"
			echo
			for i in "${!traces[@]}"; do
				echo "- **T$((i + 1))**: ${traces[$i]//</←}"
			done
		fi
	} >"$md"
fi

[ "$failed" -eq 0 ]
