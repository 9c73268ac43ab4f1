#!/bin/bash
# What a config change saved: the C objects one kernel build compiled and
# another did not, each named for the option that gated it and timed by
# compiling it again with kbuild's own command (from the first build's
# .o.cmd file, ccache left out, the object and its dependency file into a
# scratch directory: the build itself is never touched).
#
#   patches/config-cost.sh [--no-time] OLD_BUILD NEW_BUILD
#
# OLD_BUILD, NEW_BUILD: two O= trees of the same source (a flavour's
# build/ directory in the cache, before and after a change to
# patches/config*.fragment).  Prints one JSON object per line: per object
# {object, option, seconds} (seconds null with --no-time), then per
# option {option, objects, seconds}, then {removed, added, seconds}.
# The option comes from the table below, read in the trees' Makefiles
# and Kconfig; an object it does not name is "other", never hidden.
# Both ways: OLD NEW times what a change removed, NEW OLD what it added.
#
# Exit status: 0 measured; 1 an object did not compile; 2 usage error.
set -euo pipefail
time_it=1
[ "${1:-}" != --no-time ] || { time_it=0; shift; }
case ${1:-} in -h | --help) sed -n '2,/^set /{/^#/p}' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;; esac
if [ $# -ne 2 ] || [ ! -f "$1/.config" ] || [ ! -f "$2/.config" ]; then
	echo "patches/config-cost.sh: want OLD_BUILD NEW_BUILD, two kernel build trees (see --help)" >&2
	exit 2
fi
old=$1 new=$2

# object path (an extended regular expression) -> the option that gated it
options() {
	cat <<-'EOF'
	^fs/xfs/(scrub/|xfs_drain\.o|xfs_hooks\.o|xfs_buf_mem\.o|libxfs/xfs_btree_mem\.o)	XFS_ONLINE_SCRUB
	^drivers/misc/mei/	INTEL_MEI
	^drivers/cpufreq/|^kernel/sched/cpufreq|^arch/x86/kernel/itmt\.o|^arch/x86/kernel/cpu/aperfmperf\.o	SCHED_MC_PRIO
	^arch/x86/events/intel/uncore	PERF_EVENTS_INTEL_UNCORE
	^arch/x86/events/rapl\.o	PERF_EVENTS_INTEL_RAPL
	^arch/x86/events/intel/cstate\.o	PERF_EVENTS_INTEL_CSTATE
	^arch/x86/kernel/cpu/(hygon|centaur|zhaoxin)\.o|^arch/x86/events/zhaoxin/	CPU_SUP_HYGON/CENTAUR/ZHAOXIN
	^drivers/tty/serial/8250/8250_(exar|lpss|mid|pericom|mxpcie|dwlib|pcilib)\.o	SERIAL_8250_EXAR/LPSS/MID/PERICOM/MOXA_PCIE
	^drivers/pci/pcie/aspm\.o	PCIEASPM
	^drivers/pci/vgaarb\.o|^drivers/video/screen_info	VGA_ARB
	^block/kyber-iosched\.o	MQ_IOSCHED_KYBER
	^block/blk-mq-debugfs\.o	BLK_DEBUG_FS
	^kernel/trace/blktrace\.o	BLK_DEV_IO_TRACE
	^lib/math/rational\.o	RATIONAL (selected by the 8250 drivers)
	^drivers/misc/eeprom/eeprom_93cx6\.o	EEPROM_93CX6 (default y with the 8250 drivers in 7.3)
	^kernel/jump_label\.o|^arch/x86/kernel/jump_label\.o	JUMP_LABEL (selected by xfs scrub's hooks in 7.3)
	^fs/9p/|^net/9p/	9P_FS, NET_9P, NET_9P_VIRTIO (virtme-ng)
	^fs/netfs/	NETFS_SUPPORT (selected by 9P_FS)
	^fs/overlayfs/|^fs/backing-file\.o|^fs/stack\.o	OVERLAY_FS (virtme-ng)
	^net/unix/	UNIX (virtme-ng)
	^drivers/char/virtio_console\.o|^drivers/tty/hvc/	VIRTIO_CONSOLE (virtme-ng)
	EOF
}

# objects: every object of TREE compiled from C by kbuild (its .o.cmd
# says "gcc ... -c -o OBJ"), one path per line, sorted
objects() {
	(cd "$1" && find . -name '.*.o.cmd' -print0 |
		xargs -0 grep -l -E '^(saved)?cmd_[^ ]* := .*gcc .* -c -o ' 2>/dev/null |
		sed 's|^\./||; s|/\.\([^/]*\)\.cmd$|/\1|; s|^\.\([^/]*\)\.cmd$|\1|' | sort)
}

scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
objects "$old" >"$scratch/old"
objects "$new" >"$scratch/new"
comm -23 "$scratch/old" "$scratch/new" >"$scratch/removed"
comm -13 "$scratch/old" "$scratch/new" >"$scratch/added"
options >"$scratch/options"

bad=0
: >"$scratch/rows"
while read -r obj; do
	opt=other
	while IFS=$'\t' read -r re o; do
		if [[ $obj =~ $re ]]; then opt=$o; break; fi
	done <"$scratch/options"
	secs=null
	if [ "$time_it" = 1 ]; then
		cmdf=$old/$(dirname "$obj")/.$(basename "$obj").cmd
		# "cmd_X := ccache gcc ... -c -o X ...; objtool ..." (6.3 on: savedcmd_)
		cmd=$(sed -n '1s/^\(saved\)\{0,1\}cmd_[^ ]* := //p' "$cmdf" |
			sed 's/ ; .*//; s/^ccache //; s| -Wp,-MMD,[^ ]* | -Wp,-MMD,'"$scratch"'/dep.d |')
		cmd=${cmd/ -c -o $obj / -c -o $scratch/x.o }
		t0=$(date +%s.%N)
		if (cd "$old" && eval "$cmd") >"$scratch/cc.log" 2>&1; then
			secs=$(echo "$(date +%s.%N) - $t0" | bc)
		else
			echo "patches/config-cost.sh: $obj does not compile: $(head -1 "$scratch/cc.log")" >&2
			bad=1
		fi
	fi
	jq -nc --arg object "$obj" --arg option "$opt" --argjson seconds "$secs" \
		'{object: $object, option: $option, seconds: $seconds}' | tee -a "$scratch/rows"
done <"$scratch/removed"
jq -sc 'group_by(.option)[] | {option: .[0].option, objects: length,
	seconds: (map(.seconds // 0) | add)}' "$scratch/rows"
jq -sc --argjson added "$(wc -l <"$scratch/added")" \
	'{removed: length, added: $added, seconds: (map(.seconds // 0) | add // 0)}' "$scratch/rows"
exit "$bad"
