# shellcheck shell=bash
# Sourced by the guest scripts (jobs/guest/*.sh, rootfs/guest-setup.sh),
# never executed: how a guest loads the lab's driver.  rootfs/stage-guest.sh
# puts the module built for the flavour at /lab/gup_pin_test.ko and this
# file at /lab/guest/module.sh.

# module_load: insmod /lab/gup_pin_test.ko.  On failure it says why on
# stderr (the module is not staged; or insmod's own line, then what the
# kernel logged about the module: a vermagic or symbol mismatch) and
# returns 1.
module_load() {
	local ko=/lab/gup_pin_test.ko status said line
	if [ ! -f "$ko" ]; then
		echo "gup-lab: cannot load gup_pin_test: $ko is not there (rootfs/stage-guest.sh stages it)" >&2
		return 1
	fi
	insmod "$ko" && return 0
	status=$?
	said=$(dmesg 2>/dev/null | grep -i 'gup_pin_test' | tail -5) || true
	if [ -z "$said" ]; then
		echo "gup-lab: insmod $ko failed (status $status); the kernel logged nothing about it" >&2
		return 1
	fi
	echo "gup-lab: insmod $ko failed (status $status); the kernel's last lines about it:" >&2
	while IFS= read -r line; do
		echo "gup-lab:   $line"
	done <<<"$said" >&2
	return 1
}
