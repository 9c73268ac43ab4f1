# shellcheck shell=bash
# Which accelerator a guest runs under: KVM when the machine has it and it
# works, TCG otherwise.  qemu/run.sh sources this for every boot, so every
# job and target gets the same choice; tests/host/accel.sh tests it with a
# fake device and a stub probe.  Sourced, never executed; it uses
# $LAB_CACHE (patches/flavours.sh) and sets only ACCEL_* variables.
#
# What is asked, the first of:
#   qemu/run.sh --kvm / --tcg (the last one given wins)
#   GUP_LAB_ACCEL=auto|kvm|tcg
#   auto
# auto: KVM when the device (GUP_LAB_KVM_DEV, default /dev/kvm: tests point
#   it at a file; QEMU itself always opens /dev/kvm) exists, is readable
#   and writable, the CPU has hardware virtualisation (a vmx or svm flag in
#   GUP_LAB_CPUINFO, default /proc/cpuinfo: without one a KVM guest cannot
#   run, and its probe would only hang to its timeout, once per kernel),
#   and a probe boot under KVM came back; TCG otherwise, ACCEL_WHY saying
#   why.
# kvm: KVM or fail: the same checks, and when one fails the run does not
#   start (status 2, below): no silent fallback to a TCG run many times
#   slower than the one asked for.
# tcg: TCG; no device check, no probe.
#
# The probe (a KVM guest on some machines hangs silently: one boot that
# only says it is alive) costs a boot, so its answer is kept in
# $LAB_CACHE/accel/, keyed by the host's boot id and the kernel (a job of
# many boots probes once per kernel; a reboot, a new KVM module or a new
# kernel probes again).  A failed probe is kept too: within a host boot
# the answer stays the same for every boot of a job.  Delete the
# directory to probe again.

# accel_asked OPTION: validate what is asked, OPTION (kvm, tcg: run.sh's
# --kvm, --tcg) or else GUP_LAB_ACCEL (default auto).  Sets ACCEL_ASKED
# (auto, kvm, tcg) and ACCEL_FROM (where it came from, for messages).
# Returns 2, with the valid values on stderr, for anything else.
# shellcheck disable=SC2034 # ACCEL_FROM: accel_choose's and the caller's
accel_asked() {
	if [ -n "${1:-}" ]; then
		ACCEL_ASKED=$1 ACCEL_FROM=--$1
	elif [ -n "${GUP_LAB_ACCEL:-}" ]; then
		ACCEL_ASKED=$GUP_LAB_ACCEL ACCEL_FROM="GUP_LAB_ACCEL=$GUP_LAB_ACCEL"
	else
		ACCEL_ASKED=auto ACCEL_FROM=default
	fi
	case $ACCEL_ASKED in
	auto | kvm | tcg) return 0 ;;
	esac
	echo "gup-lab: GUP_LAB_ACCEL must be auto, kvm or tcg, not '$ACCEL_ASKED'" >&2
	return 2
}

# accel_choose OPTION PROBE KEY: the accelerator of one boot.
#   OPTION  kvm, tcg or empty (accel_asked)
#   PROBE   a command that boots a KVM guest and succeeds when it came back
#           (qemu/run.sh's kvm_probe; run at most once per host boot and KEY)
#   KEY     the kernel's identity: the path of its image
# Sets ACCEL (kvm or tcg) and ACCEL_WHY (one sentence).  Returns 0; 2 when
# the value asked is invalid, or KVM is forced (--kvm, GUP_LAB_ACCEL=kvm)
# and not usable here: what was asked cannot run, and no guest booted (the
# runner's 1 would read as the guest command's own status); the reason on
# stderr.
# shellcheck disable=SC2034 # ACCEL, ACCEL_WHY: the caller's
accel_choose() {
	local option=$1 probe=$2 key=$3 dev=${GUP_LAB_KVM_DEV:-/dev/kvm} no=''
	ACCEL='' ACCEL_WHY=''
	accel_asked "$option" || return 2
	if [ "$ACCEL_ASKED" = tcg ]; then
		ACCEL=tcg ACCEL_WHY="TCG, as asked ($ACCEL_FROM)."
		return 0
	fi
	if [ ! -e "$dev" ]; then
		no="$dev does not exist"
	elif [ ! -r "$dev" ] || [ ! -w "$dev" ]; then
		no="$dev is not readable and writable by user $(id -un)"
	elif ! grep -qw -m1 'vmx\|svm' "${GUP_LAB_CPUINFO:-/proc/cpuinfo}" 2>/dev/null; then
		no="the CPU has no vmx or svm flag (${GUP_LAB_CPUINFO:-/proc/cpuinfo}): no hardware virtualisation for KVM, nothing probed"
	elif ! accel_probe "$probe" "$key"; then
		no="a probe boot of this kernel under KVM did not come back ($ACCEL_PROBED)"
	fi
	if [ -z "$no" ]; then
		ACCEL=kvm
		if [ "$ACCEL_ASKED" = kvm ]; then
			ACCEL_WHY="KVM, as asked ($ACCEL_FROM): $dev is usable and a probe boot of this kernel came back ($ACCEL_PROBED)."
		else
			ACCEL_WHY="KVM: $dev is usable and a probe boot of this kernel came back ($ACCEL_PROBED)."
		fi
		return 0
	fi
	if [ "$ACCEL_ASKED" = kvm ]; then
		echo "gup-lab: KVM asked ($ACCEL_FROM) but $no; GUP_LAB_ACCEL=auto or --tcg runs under TCG" >&2
		return 2
	fi
	ACCEL=tcg ACCEL_WHY="TCG: $no."
}

# accel_probe PROBE KEY: whether KVM guests of the kernel KEY come back,
# PROBE's answer cached per host boot and KEY.  Sets ACCEL_PROBED: "probed
# now" or "cached since DATE" (when the probe ran).  Without a boot id or
# a writable cache, PROBE runs every time.  GUP_LAB_BOOT_ID: the file
# holding the host's boot id (default /proc/sys/kernel/random/boot_id;
# tests point it elsewhere).
accel_probe() {
	local probe=$1 key=$2 boot file answer said
	if ! boot=$(cat "${GUP_LAB_BOOT_ID:-/proc/sys/kernel/random/boot_id}" 2>/dev/null) || [ -z "$boot" ] ||
		! mkdir -p "$LAB_CACHE/accel" 2>/dev/null || [ ! -w "$LAB_CACHE/accel" ]; then
		ACCEL_PROBED="probed now, not cached"
		"$probe"
		return
	fi
	file=$LAB_CACHE/accel/$(printf '%s\n%s\n' "$boot" "$key" | sha256sum | cut -c1-16)
	# one probe at a time per kernel: a second boot of it waits, then reads
	# (the probe's own output to stderr: stdout says whether it ran)
	{
		said=$(
			flock 9
			if [ ! -s "$file" ]; then
				if "$probe" >&2; then answer=kvm; else answer=tcg; fi
				# aside, then renamed: a reader sees the whole answer or none
				printf '%s %s boot %s kernel %s\n' "$answer" \
					"$(date -u +%Y-%m-%dT%H:%M:%SZ)" "$boot" "$key" >"$file.new.$$"
				mv "$file.new.$$" "$file"
				echo now
			fi
		)
	} 9>"$file.lock"
	if [ "$said" = now ]; then
		ACCEL_PROBED="probed now"
	else
		ACCEL_PROBED="cached since $(cut -d' ' -f2 "$file")"
	fi
	[ "$(cut -d' ' -f1 "$file")" = kvm ]
}
