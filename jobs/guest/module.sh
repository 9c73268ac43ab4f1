# shellcheck shell=bash
# Sourced by the guest scripts (jobs/guest/*.sh, rootfs/guest-setup.sh),
# never executed: how a guest loads the lab's driver.  rootfs/stage-guest.sh
# puts the module built for the flavour at /lab/gup_pin_test.ko and this
# file at /lab/guest/module.sh.

# module_load: insmod /lab/gup_pin_test.ko.  On failure it says why on
# stderr (insmod's own line, then what the kernel logged about the
# module: a vermagic or symbol mismatch, a missing file) and returns 1.
module_load() {
	local ko=/lab/gup_pin_test.ko status
	if [ ! -f "$ko" ]; then
		echo "gup-lab: cannot load gup_pin_test: $ko is not there (rootfs/stage-guest.sh stages it)" >&2
		return 1
	fi
	insmod "$ko" && return 0
	status=$?
	echo "gup-lab: insmod $ko failed (status $status); the kernel's last words on it:" >&2
	dmesg 2>/dev/null | grep -i 'gup_pin_test' | tail -5 | sed 's/^/gup-lab:   /' >&2 || true
	return 1
}
