#!/bin/bash
# Boot a gup-lab flavour under QEMU and run one command in the guest.
#
#   qemu/run.sh --flavour F [--exec 'CMD'] [--files DIR]... [options]
#
# Exit status: the guest command's status when the kernel stayed clean;
# 125 when the console shows a kernel problem (oops, BUG, WARNING, panic,
# hung task; see qemu/scan-console.sh) unless --allow-kernel-reports;
# 124 when the guest neither finished nor crashed before --timeout;
# 128+N when QEMU was killed by signal N from outside (not by --timeout)
# before the guest reported: the run was interrupted, said on stderr, in
# the report ("interrupted") and, when GUP_LAB_INTERRUPTED names a file
# (jobs/lib.sh's results_begin), appended there;
# 2 for usage errors, and when KVM is forced (--kvm, GUP_LAB_ACCEL=kvm) but
# not usable here (qemu/accel.sh).
set -euo pipefail
# shellcheck source=../patches/flavours.sh
. "$(dirname "$0")/../patches/flavours.sh"
# shellcheck source=accel.sh
. "$LAB_ROOT/qemu/accel.sh"

usage() {
	cat <<USAGE
usage: qemu/run.sh --flavour F [options]
  --flavour F            kernel flavour (patches/flavours): $(all_flavours | paste -sd' ')
  --exec 'CMD'           run CMD in the guest with bash (default: a shell)
  --env NAME=VALUE       export NAME=VALUE to the guest command (repeatable;
                         the value is quoted for it, never run as code)
  --interactive          a root shell on the serial console (Ctrl-A X quits)
  --files DIR            copy DIR's contents to the guest's /lab (repeatable)
  --results DIR          copy the guest's /lab/out back to DIR after the run
  --scratch-mb N         size of the fresh scratch ext4 at /mnt/ext4 (256)
  --fs TYPE              also a fresh scratch TYPE (xfs: 300 MB, mkfs.xfs's
                         least; btrfs: 256 MB; ext4j: a 256 MB ext4 the guest
                         mounts data=journal), made on the host, a virtio
                         disk with serial gl-TYPE, left unmounted: the guest
                         command mounts it (jobs/guest/disks.sh); kept
                         as TYPE.img in the run's directory (repeatable)
  --raw-disk NAME:MB     also a blank MB-MiB disk with serial gl-NAME (the
                         holders' slow device; repeatable)
  --timeout S            end a run that has not finished after S s (600)
  --memory MB            guest memory (1024)
  --append 'ARGS'        more kernel command-line parameters (e.g. tsc=reliable)
  --kvm                  KVM or fail (status 2): /dev/kvm usable and a probe
                         boot under KVM came back, else no run
  --tcg                  TCG, even where KVM is usable
                         (default: GUP_LAB_ACCEL=auto|kvm|tcg, else auto:
                         KVM when usable, TCG otherwise; the options win
                         over it; the report's accel and accel_why say
                         which ran and why; qemu/accel.sh)
  --out DIR              keep the run's files here (default under the cache)
  --report FILE          write the run's report (JSON) to FILE
  --allow-kernel-reports exit with the command's status even if the
                         kernel reported a problem (the report still says so)
  --quiet                do not stream the console
  --raw-trace            print the first kernel report's trace as the
                         console has it (default: symbolised, which costs
                         0.2-0.3 s a frame; for jobs that symbolise the
                         console themselves)
The guest command runs with GUP_LAB_FLAVOUR and GUP_LAB_POLICY exported
(the flavour and its gup column of patches/flavours, or of the table
GUP_LAB_FLAVOURS names).
USAGE
}

flavour='' cmd='' interactive=0 results='' scratch_mb=256 timeout_s=600
memory=1024 accel_opt='' out='' report='' allow_reports=0 quiet=0 files=() append=''
envs=() fstypes=() raw_disks=()
raw_trace=0
while [ $# -gt 0 ]; do
	case $1 in
	--flavour) flavour=${2:?}; shift ;;
	--exec) cmd=${2?}; shift ;;
	--interactive) interactive=1 ;;
	--files) files+=("${2:?}"); shift ;;
	--env)
		[[ ${2:-} =~ ^[A-Za-z_][A-Za-z0-9_]*= ]] ||
			{ echo "qemu/run.sh: --env takes NAME=VALUE, not '${2:-}'" >&2; exit 2; }
		envs+=("$2"); shift ;;
	--results) results=${2:?}; shift ;;
	--scratch-mb) scratch_mb=${2:?}; shift ;;
	--fs)
		[[ ${2:-} =~ ^(xfs|btrfs|ext4j)$ ]] ||
			{ echo "qemu/run.sh: --fs takes xfs, btrfs or ext4j, not '${2:-}'" >&2; exit 2; }
		fstypes+=("$2"); shift ;;
	--raw-disk)
		[[ ${2:-} =~ ^[a-z0-9]+:[0-9]+$ ]] ||
			{ echo "qemu/run.sh: --raw-disk takes NAME:MB, not '${2:-}'" >&2; exit 2; }
		raw_disks+=("$2"); shift ;;
	--timeout) timeout_s=${2:?}; shift ;;
	--memory) memory=${2:?}; shift ;;
	--append) append=${2:?}; shift ;;
	--kvm) accel_opt=kvm ;;
	--tcg) accel_opt=tcg ;;
	--out) out=${2:?}; shift ;;
	--report) report=${2:?}; shift ;;
	--allow-kernel-reports) allow_reports=1 ;;
	--quiet) quiet=1 ;;
	--raw-trace) raw_trace=1 ;;
	-h | --help) usage; exit 0 ;;
	*) usage >&2; echo "qemu/run.sh: unknown option '$1'" >&2; exit 2 ;;
	esac
	shift
done
[ -n "$flavour" ] || { usage >&2; exit 2; }
# an invalid GUP_LAB_ACCEL is a usage error before anything is built
accel_asked "$accel_opt" || exit 2
# Where a run's wall time goes (the report's *_seconds, make bench-pipeline).
t_begin=$(date +%s.%N)
[ -n "$cmd" ] || [ "$interactive" = 1 ] || interactive=1
for d in "${files[@]}"; do
	[ -d "$d" ] || { echo "qemu/run.sh: --files $d: not a directory" >&2; exit 2; }
done

kdir=$(flavour_build "$flavour")
rootfs=$("$LAB_ROOT/rootfs/build-rootfs.sh")
if [ -z "$out" ]; then
	"$LAB_ROOT/qemu/prune-runs.sh" || log "could not prune $LAB_CACHE/runs"
	mkdir -p "$LAB_CACHE/runs"
	out=$(mktemp -d "$LAB_CACHE/runs/$(date +%Y%m%d-%H%M%S)-$flavour.XXXX")
fi
mkdir -p "$out"
# How the run went, for qemu/prune-runs.sh: in progress, then its exit status.
echo $$ >"$out/.running"
trap 'echo $? >"$out/exit-status"; rm -f "$out/.running"' EXIT
rm -f "$out/console.log" "$out/exit.log"

# Control disk (/lab in the guest): the command, the caller's files, and
# /lab/out for results the host reads back after the VM has gone.
ctl=$out/control
rm -rf "$ctl"
mkdir -p "$ctl/out"
for d in "${files[@]}"; do
	cp -a "$d/." "$ctl/"
done
# Every command knows its flavour and its policy (flavour_policy: the
# table's, or a registered kernel's as given or detected; the jobs give it
# to gupctl as --policy; gupctl reads the kernel's own from the kernel:
# userspace/model/detect.c).
env="export GUP_LAB_FLAVOUR=$(printf %q "$flavour") GUP_LAB_POLICY=$(printf %q "$(flavour_policy "$flavour")")"
# and whatever the caller gave with --env, each value quoted for bash
for e in "${envs[@]}"; do
	env+=" ${e%%=*}=$(printf %q "${e#*=}")"
done
if [ "$interactive" = 1 ]; then
	echo interactive >"$ctl/mode"
	printf '%s\n' "$env" "${cmd:-true}" 'echo "gup-lab shell: exit or Ctrl-D powers off"' \
		'exec bash -i' >"$ctl/run.sh"
elif pause_wanted guest; then
	# The pause point "guest" (patches/flavours.sh): the guest is up and
	# holds before its command until it is killed; it cannot be let go.
	printf '%s\n' "$env" 'echo "gup-lab: paused at guest"' \
		'while :; do sleep 1; done' "$cmd" >"$ctl/run.sh"
else
	printf '%s\n' "$env" "$cmd" >"$ctl/run.sh"
fi
mkfs.ext4 -q -F -L control -d "$ctl" "$out/control.img" \
	"$(($(du -sm "$ctl" | cut -f1) + 64))M" >/dev/null
# A fresh scratch file system each run: the file system under test.
rm -f "$out/scratch.img"
mkfs.ext4 -q -F -L scratch "$out/scratch.img" "${scratch_mb}M" >/dev/null

# i8042.noaux: q35's PS/2 controller is there whatever -nodefaults says,
# and probing its mouse took 0.4-0.6 s of every boot under TCG (the
# guests' consoles: "input: ImExPS/2 Generic Explorer Mouse" 0.6 s after
# the keyboard); the guests have a serial console and no use for a mouse.
qemu=(qemu-system-x86_64 -machine q35 -m "$memory" -smp 2 -nodefaults
	-no-reboot -display none
	-kernel "$kdir/build/arch/x86/boot/bzImage"
	-append "console=ttyS0 root=/dev/vda rw init=/sbin/gup-lab-init panic=-1 oops=panic hung_task_panic=1 i8042.noaux quiet loglevel=7${append:+ $append}")
# Every disk a virtio-blk-pci device of its own, in this order: the guest
# names them vda, vdb... by it (QEMU creates if=virtio drives after every
# -device, so the two kinds cannot mix).  The root image, the scratch ext4
# and the control disk are vda, vdb, vdc (the root image's fstab); those
# after them are found in the guest by their serial gl-NAME
# (/sys/block/vd*/serial, jobs/guest/disks.sh), not by their order.
disk() {	# disk NAME FILE [DRIVE-OPTIONS]
	qemu+=(-drive "file=$2,if=none,id=gl-$1,format=raw${3:+,$3}"
		-device "virtio-blk-pci,drive=gl-$1,serial=gl-$1")
}
disk root "$rootfs" snapshot=on
disk scratch "$out/scratch.img"
disk control "$out/control.img"
for t in "${fstypes[@]}"; do
	rm -f "$out/$t.img"
	case $t in
	xfs) truncate -s 300M "$out/xfs.img" && mkfs.xfs -q -L scratch "$out/xfs.img" ;;
	btrfs) truncate -s 256M "$out/btrfs.img" && mkfs.btrfs -q -L scratch "$out/btrfs.img" >/dev/null 2>&1 ;;
	ext4j) mkfs.ext4 -q -F -L scratch "$out/ext4j.img" 256M >/dev/null ;;
	esac || { echo "qemu/run.sh: mkfs.$t failed (qemu/install-host-deps.sh installs it)" >&2; exit 2; }
	disk "$t" "$out/$t.img"
done
for d in "${raw_disks[@]}"; do
	rm -f "$out/${d%%:*}.img"
	truncate -s "${d#*:}M" "$out/${d%%:*}.img"
	disk "${d%%:*}" "$out/${d%%:*}.img"
done

# kvm_probe: whether a KVM guest of this kernel comes back.  A KVM guest
# on some machines hangs silently: probe first, with a boot that only says
# it is alive (rootfs/init, gup_lab.probe).  A subshell, so that bash
# reports a QEMU abort into /dev/null.  qemu/accel.sh runs it once per
# host boot and kernel, and caches the answer.
# shellcheck disable=SC2317 # called by accel_choose
kvm_probe() {
	(timeout 30 qemu-system-x86_64 -machine q35,accel=kvm -cpu host -m 256 \
		-nodefaults -no-reboot -display none -serial none \
		-serial "file:$out/kvm-probe" -kernel "$kdir/build/arch/x86/boot/bzImage" \
		-append "console=ttyS0 panic=-1 root=/dev/vda init=/sbin/gup-lab-init gup_lab.probe" \
		-drive "file=$rootfs,if=virtio,format=raw,snapshot=on" \
		>/dev/null 2>&1 || exit 1) 2>/dev/null || return 1
	grep -q '^GUP-LAB-EXIT' "$out/kvm-probe"
}
# KVM when usable, TCG otherwise, or as forced (qemu/accel.sh).  The key:
# the image's path (its directory names the kernel's cache key) and, for a
# registered tree rebuilt in place, its time and size.
accel_choose "$accel_opt" kvm_probe \
	"$kdir/build/arch/x86/boot/bzImage $(stat -c '%Y %s' "$kdir/build/arch/x86/boot/bzImage" 2>/dev/null)" ||
	exit 2
if [ "$ACCEL" = kvm ]; then
	qemu+=(-accel kvm -cpu host)
else
	# a machine with a KVM device that does not work: say so once a boot
	[ "$ACCEL_ASKED" = tcg ] || [ ! -e "${GUP_LAB_KVM_DEV:-/dev/kvm}" ] || log "$ACCEL_WHY"
	qemu+=(-accel tcg -cpu max)
fi

start=$(date +%s.%N)
set +e
if [ "$interactive" = 1 ]; then
	"${qemu[@]}" -chardev "stdio,id=con,mux=on,signal=off,logfile=$out/console.log" \
		-serial chardev:con -mon chardev=con -serial "file:$out/exit.log"
	qemu_status=$?
else
	timeout -k 10 "$timeout_s" "${qemu[@]}" \
		-chardev "file,id=con,path=$out/console.log" -serial chardev:con \
		-serial "file:$out/exit.log" </dev/null &
	qpid=$!
	if [ "$quiet" = 0 ]; then
		tail -F --pid="$qpid" "$out/console.log" 2>/dev/null &
	fi
	# (grep's own status: in a pipeline, pipefail would give tail's
	# SIGPIPE once grep has stopped reading)
	if pause_wanted guest; then
		{ grep -q -m1 '^gup-lab: paused at guest' \
			< <(tail -F --pid="$qpid" "$out/console.log" 2>/dev/null) &&
			pause_announce guest "$qpid"; } &
	fi
	wait "$qpid"
	qemu_status=$?
	wait
fi
set -e
wall=$(echo "$(date +%s.%N) - $start" | bc)

guest_status=$(sed -n 's/^GUP-LAB-EXIT \([0-9]*\).*/\1/p' "$out/exit.log" 2>/dev/null | head -1)
scan=$("$LAB_ROOT/qemu/scan-console.sh" "$out/console.log" "$([ "$raw_trace" = 1 ] || echo "$kdir")")
verdict=$(echo "$scan" | sed -n 's/^verdict=//p')
timed_out=0 interrupted=''
if [ "$qemu_status" = 124 ]; then
	timed_out=1
elif [ "$interactive" = 0 ] && [ "$qemu_status" -gt 128 ]; then
	# 137 is also timeout's own SIGKILL, -k 10 s after a TERM QEMU ignored
	if [ "$(echo "$wall >= $timeout_s" | bc)" = 1 ]; then
		timed_out=1
	else
		interrupted="QEMU was killed by signal $((qemu_status - 128)) after $(printf '%.1f' "$wall") s, not by the runner's --timeout"
	fi
fi

pause_point collect
if [ -n "$results" ]; then
	mkdir -p "$results"
	# e2fsprogs reads the image from outside: no mount, no loop device.
	debugfs -R "rdump /out $results" "$out/control.img" >/dev/null 2>&1 ||
		log "could not read /lab/out back from $out/control.img"
	if [ -d "$results/out" ]; then
		cp -a "$results/out/." "$results/" && rm -rf "$results/out"
	fi
fi

# The guest's own clock (printk times): when it ran init, and its last
# console line (the reboot).
guest_init=$(sed -nE 's/^\[ *([0-9]+\.[0-9]+)\] Run .* as init process.*/\1/p' \
	"$out/console.log" 2>/dev/null | head -1)
guest_last=$(sed -nE 's/^\[ *([0-9]+\.[0-9]+)\].*/\1/p' "$out/console.log" 2>/dev/null | tail -1)
t_end=$(date +%s.%N)

# The run's report, JSON with named fields (docs/lab.md lists them).
jq -n --arg flavour "$flavour" --arg kernel_dir "$kdir" --arg run_dir "$out" \
	--arg console "$out/console.log" --arg scratch_image "$out/scratch.img" \
	--argjson images "$(for t in ext4 "${fstypes[@]}"; do
		printf '%s\n' "$t" "$([ "$t" = ext4 ] && echo "$out/scratch.img" || echo "$out/$t.img")"
	done | jq -Rn '[inputs] | [range(0; length; 2) as $i | {(.[$i]): .[$i + 1]}] | add')" \
	--argjson guest_status "${guest_status:-null}" --arg kernel_verdict "$verdict" \
	--argjson timed_out "$([ "$timed_out" = 1 ] && echo true || echo false)" \
	--arg interrupted "$interrupted" \
	--argjson wall_seconds "$(printf '%.1f' "$wall")" \
	--argjson prepare_seconds "$(printf '%.2f' "$(echo "$start - $t_begin" | bc)")" \
	--argjson qemu_seconds "$(printf '%.2f' "$wall")" \
	--argjson collect_seconds "$(printf '%.2f' "$(echo "$t_end - $start - $wall" | bc)")" \
	--argjson guest_init_seconds "${guest_init:-null}" \
	--argjson guest_last_seconds "${guest_last:-null}" \
	--arg first_report "$(echo "$scan" | sed -n 's/^first_report=//p')" \
	--arg accel "$ACCEL" --arg accel_why "$ACCEL_WHY" \
	'$ARGS.named | .first_report |= (if . == "" then null else . end)
	 | .interrupted |= (if . == "" then null else . end)' \
	>"$out/report"
[ -z "$report" ] || cp "$out/report" "$report"
# Every boot of a job, one report a line (make bench-pipeline counts them).
[ -z "${GUP_LAB_BOOT_LOG:-}" ] || jq -c . "$out/report" >>"$GUP_LAB_BOOT_LOG"

if [ "$verdict" != clean ]; then
	echo "$scan" | sed 1d >&2
	log "$flavour: KERNEL $verdict reported on the console (log: $out/console.log)"
fi
if [ -z "$guest_status" ] && [ -n "$interrupted" ]; then
	log "$flavour: INTERRUPTED: $interrupted (log: $out/console.log)"
	[ -z "${GUP_LAB_INTERRUPTED:-}" ] || echo "$flavour: $interrupted" >>"$GUP_LAB_INTERRUPTED"
	exit "$qemu_status"
fi
if [ -z "$guest_status" ]; then
	if [ "$timed_out" = 1 ]; then
		log "$flavour: TIMEOUT: the guest did not finish within $timeout_s s (log: $out/console.log)"
		[ "$verdict" != clean ] && [ "$allow_reports" = 0 ] && exit 125
		exit 124
	fi
	log "$flavour: the guest ended without reporting a status (verdict: $verdict)"
	[ "$verdict" != clean ] && [ "$allow_reports" = 0 ] && exit 125
	exit 124
fi
[ "$verdict" = clean ] || [ "$allow_reports" = 1 ] || exit 125
exit "$guest_status"
